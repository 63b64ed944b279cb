/**
 * Composition root of the VS Code extension: builds the services, then lets every feature register
 * its commands, providers and views; every registration goes into context.subscriptions. Activation
 * is cheap: the workspace scan runs in the background and nothing connects to a database until asked.
 *
 * A feature is a `Feature` (feature.ts) listed in FEATURES; it reads the shared services below rather
 * than globals, and what it offers other features is a service built here.
 */
import * as vscode from 'vscode';
import { COMMANDS } from './commands';
import { command, type Feature } from './feature';
import { StatementPresence } from './statementPresence';
import { readConfig } from './config';
import { workerFactsProvider } from './factsProvider';
import { Logger } from './logger';
import { DurableState } from './durableState';
import { WorkloadSites } from './explain/workloadSites';
import { SiteIndex } from './siteIndex';
import { WorkspaceTables } from './schemaFiles';
import { statementsFeature } from './statements/statementsFeature';
import { ConnectionManager } from './connection/connectionManager';
import { connectionFeature } from './connection/connectionFeature';
import { explainFeature } from './explain/explainFeature';
import { NPlusOneService, nPlusOneFeature } from './nplus1/nPlusOneFeature';
import { createReport, reportFeature, type ReportServices } from './report/reportFeature';
import { QueriesService, queriesFeature } from './queries/queriesFeature';
import { EndpointsService, endpointsFeature } from './endpoints/endpointsFeature';
import { boxesFeature } from './boxes/boxesFeature';
import { profileFeature } from './profile/profileFeature';
import { findingsFeature } from './findings/findingsView';
import { measureFeature } from './serverStats/measureFeature';
import { walkthroughFeature } from './walkthrough/walkthroughFeature';
import { RoundsService, roundsFeature } from './rounds/roundsFeature';
import { agentToolsFeature } from './agent/agentToolsFeature';

/** What the services below are built from. */
export interface BaseServices {
  logger: Logger;
  /** The index of the workspace's source facts. */
  index: SiteIndex;
  /** Whether the active file and the workspace have statements (context keys, an event). */
  presence: StatementPresence;
  /** The database connection, opened lazily on first need. */
  connection: ConnectionManager;
  /** Runs and the report panel: import features call `report.recordRun(...)` after each log import. */
  report: ReportServices;
  /** What the workspace's schema files define (read again when a .sql file changes). */
  workspaceTables: WorkspaceTables;
  /** The workspace's state, kept in a file of the workspace storage (durableState.ts): use it, never context.workspaceState. */
  state: vscode.Memento;
  /** The recorded benchmark rounds (`.query-insight/runs`): the Runs view lists them, Record run adds one. */
  rounds: RoundsService;
}

/** What features get handed. */
export interface Services extends BaseServices {
  /** The N+1 diagnostics; the slow log adds its runtime evidence to them. */
  nPlusOne: NPlusOneService;
  /** The slow log's figures: the Queries view, the CodeLens, the hover section. */
  queries: QueriesService;
  /** The access log's figures: the Endpoints view and its CodeLens. */
  endpoints: EndpointsService;
}

/** Show log is offered by every error message, so it belongs to no one feature. */
const logFeature: Feature = ({ context, services: { logger } }) => {
  context.subscriptions.push(command(logger, COMMANDS.showLog, 'could not show the log', () => logger.show()));
};

/** In registration order: the connection is configured (at start-up too) before anything explains. */
const FEATURES: readonly Feature[] = [
  logFeature, connectionFeature, statementsFeature, reportFeature, explainFeature, nPlusOneFeature, queriesFeature,
  measureFeature, endpointsFeature, profileFeature, boxesFeature, findingsFeature, walkthroughFeature, roundsFeature, agentToolsFeature,
];

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const logger = new Logger();
  context.subscriptions.push(logger);
  logger.info(`activating (VS Code ${vscode.version}, workspace trusted: ${vscode.workspace.isTrusted})`);

  const state = await DurableState.open(context.storageUri, context.workspaceState, logger);
  const grammarDir = vscode.Uri.joinPath(context.extensionUri, 'dist', 'grammars').fsPath;
  const scanConfig = readConfig(logger).scan;
  const index = new SiteIndex(workerFactsProvider(grammarDir, scanConfig.fileTimeBudgetMs), logger, scanConfig,
    (folder) => readConfig(logger, folder.uri).scan);
  const presence = new StatementPresence(index);
  const workspaceTables = new WorkspaceTables();
  const workload = new WorkloadSites(index);
  const connection = new ConnectionManager(context.secrets, logger, context.globalState, state, () => workspaceTables.tables(), workload.statements);
  context.subscriptions.push(index, presence, workspaceTables, workload, connection);
  const base: BaseServices = { logger, index, presence, connection, report: createReport(context, state, logger), workspaceTables, state, rounds: new RoundsService(logger) };
  const nPlusOne = new NPlusOneService(index, connection, logger);
  const queries = new QueriesService(base, nPlusOne);
  const endpoints = new EndpointsService(base);
  context.subscriptions.push(nPlusOne, queries, endpoints);
  const services: Services = { ...base, nPlusOne, queries, endpoints };
  for (const feature of FEATURES) feature({ context, services });

  // why: the commands' `when` clauses start with it, so before activation the palette lists none of them.
  void vscode.commands.executeCommand('setContext', 'queryInsight.active', true);
  // why: not awaited, so activation returns at once; progress shows in the status bar.
  void index.rescan();
}

export function deactivate(): void {}
