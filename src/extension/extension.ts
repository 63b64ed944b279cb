/**
 * Composition root of the VS Code extension: builds the services and registers every command,
 * provider and view; every registration goes into context.subscriptions. Activation is cheap: the
 * workspace scan runs in the background and nothing connects to a database until asked.
 *
 * Features add themselves here with one call each (`registerX(context, services)`), reading the
 * shared services below rather than globals.
 */
import * as vscode from 'vscode';
import { COMMANDS } from './commands';
import { command } from './feature';
import { StatementPresence } from './statementPresence';
import { readConfig, watchConfig } from './config';
import { coreFactsProvider } from './factsProvider';
import { Logger } from './logger';
import { SiteIndex } from './siteIndex';
import { listSqlStatementsCommand } from './statements/listStatements';
import { STATEMENTS_VIEW, StatementsTree } from './statements/statementsView';
import type { ConnectionManager } from './connection/connectionManager';
import { registerConnection } from './connection/registerConnection';
import { registerExplain, SOURCE_SELECTOR } from './explain/registerExplain';
import { registerNPlusOne } from './nplus1/nPlusOneFeature';
import { registerReport, type ReportServices } from './report/registerReport';
import { registerQueries } from './queries/queriesFeature';
import { registerEndpoints } from './endpoints/registerEndpoints';
import { registerBoxes } from './boxes/registerBoxes';
import { registerFindings } from './findings/findingsView';
import { registerMeasuring } from './serverStats/measureFeature';
import { walkthroughFeature } from './walkthrough/walkthroughFeature';

/** What features get handed: the log, the index of the workspace's source facts. */
export interface Services {
  logger: Logger;
  index: SiteIndex;
  /** The database connection, opened lazily on first need. */
  connection: ConnectionManager;
  /** Runs and the report panel: import features call `report.recordRun(...)` after each log import. */
  report: ReportServices;
}

export function activate(context: vscode.ExtensionContext): void {
  const logger = new Logger();
  context.subscriptions.push(logger);
  logger.info(`activating (VS Code ${vscode.version}, workspace trusted: ${vscode.workspace.isTrusted})`);

  const grammarDir = vscode.Uri.joinPath(context.extensionUri, 'dist', 'grammars').fsPath;
  const index = new SiteIndex(coreFactsProvider(grammarDir), logger, readConfig(logger).scan,
    (folder) => readConfig(logger, folder.uri).scan);
  context.subscriptions.push(index);
  const presence = new StatementPresence(index);
  context.subscriptions.push(presence);
  const connection = registerConnection(context, logger, presence);
  const report = registerReport(context, logger);
  const services: Services = { logger, index, connection, report };
  const nPlusOne = registerNPlusOne(index, connection, logger, SOURCE_SELECTOR);
  context.subscriptions.push(nPlusOne);
  const queries = registerQueries(context, services, nPlusOne.feature);
  registerExplain(context, index, connection, logger, report, [queries.hoverSection]);
  registerMeasuring(context, services, queries);
  const endpoints = registerEndpoints(context, services);
  registerBoxes(context, services, endpoints, queries);
  registerFindings(context);
  walkthroughFeature({ context, services });

  context.subscriptions.push(
    watchConfig(logger, (config, affects) => { if (affects('scan')) services.index.updateSettings(config.scan); }),
    command(logger, COMMANDS.listSqlStatements, 'could not list the statements', listSqlStatementsCommand(index)),
    command(logger, COMMANDS.rescanWorkspace, 'could not rescan the workspace', () => index.rescan(vscode.ProgressLocation.Notification).then(() => undefined)),
    command(logger, COMMANDS.showLog, 'could not show the log', () => logger.show()),
  );

  const tree = new StatementsTree(index);
  context.subscriptions.push(tree, vscode.window.createTreeView(STATEMENTS_VIEW, { treeDataProvider: tree, showCollapseAll: true }));

  // why: the commands' `when` clauses start with it, so before activation the palette lists none of them.
  void vscode.commands.executeCommand('setContext', 'queryInsight.active', true);
  // why: not awaited, so activation returns at once; progress shows in the status bar.
  void index.rescan();
}

export function deactivate(): void {}
