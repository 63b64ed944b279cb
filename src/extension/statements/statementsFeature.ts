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
import type { ScanStatus } from '../siteIndex';

export const statementsFeature: Feature = ({ context, services: { logger, index } }) => {
  const tree = new StatementsTree(index);
  const view = vscode.window.createTreeView(STATEMENTS_VIEW, { treeDataProvider: tree, showCollapseAll: true });
  const showStatus = (status: ScanStatus): void => {
    // why: a failed scan must not look like a workspace without statements; the view says so, and its
    // welcome text (when empty) and title bar offer the log.
    const message = scanMessage(status);
    view.message = message;
    void vscode.commands.executeCommand('setContext', 'queryInsight.scanFailed', status.state === 'failed');
    void vscode.commands.executeCommand('setContext', 'queryInsight.scanTrouble', message !== undefined);
  };
  showStatus(index.status());
  context.subscriptions.push(
    index.onDidChangeStatus(showStatus),
    watchConfig(logger, (config, affects) => { if (affects('scan')) index.updateSettings(config.scan); }),
    command(logger, COMMANDS.listSqlStatements, 'could not list the statements', listSqlStatementsCommand(index)),
    command(logger, COMMANDS.rescanWorkspace, 'could not rescan the workspace', () => index.rescan(vscode.ProgressLocation.Notification).then(() => undefined)),
    tree, view,
  );
};

/** The SQL Statements view's message about the last scan, when it failed or gave up on files. */
export function scanMessage(status: ScanStatus): string | undefined {
  if (status.state === 'failed') return `Scanning the workspace failed (${status.message}). Show the log (Query Insight: Show log) for more.`;
  if (status.state !== 'done' || !status.summary.overBudget.length) return undefined;
  const files = status.summary.overBudget.map((s) => s.file);
  const named = files.length > 3 ? `${files.slice(0, 3).join(', ')} and ${files.length - 3} more` : files.join(', ');
  return `${files.length} file${files.length === 1 ? '' : 's'} skipped while reading (${named}): past the budget per file. The log (Query Insight: Show log) says why.`;
}
