/**
 * The workspace's statements: the SQL Statements view, "List SQL statements", "Rescan workspace", and
 * the scan settings applied to the index when they change.
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import { watchConfig } from '../config';
import { command, type Feature } from '../feature';
import { listSqlStatementsCommand } from './listStatements';
import { STATEMENTS_VIEW, StatementsTree } from './statementsView';

export const statementsFeature: Feature = ({ context, services: { logger, index } }) => {
  const tree = new StatementsTree(index);
  context.subscriptions.push(
    watchConfig(logger, (config, affects) => { if (affects('scan')) index.updateSettings(config.scan); }),
    command(logger, COMMANDS.listSqlStatements, 'could not list the statements', listSqlStatementsCommand(index)),
    command(logger, COMMANDS.rescanWorkspace, 'could not rescan the workspace', () => index.rescan(vscode.ProgressLocation.Notification).then(() => undefined)),
    tree, vscode.window.createTreeView(STATEMENTS_VIEW, { treeDataProvider: tree, showCollapseAll: true }),
  );
};
