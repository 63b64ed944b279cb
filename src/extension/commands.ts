/**
 * The one table of command ids. package.json's contributes.commands lists the public ones with the
 * same ids and titles (a unit test keeps the two in step); handlers are registered in extension.ts.
 */

export const COMMANDS = {
  /** Quick pick of every SQL statement found in the workspace; picking one jumps to it. */
  listSqlStatements: 'queryInsight.listSqlStatements',
  /** Drops the cached facts and scans the workspace again. */
  rescanWorkspace: 'queryInsight.rescanWorkspace',
  /** Shows the Query Insight log channel (offered by every error message). */
  showLog: 'queryInsight.showLog',
  /** Opens the report panel (charts of a run, comparison of two runs, a plan, the findings summary). */
  showReport: 'queryInsight.showReport',
  /** Shows one run in the report (a Runs view item's click, or a quick pick). */
  showRun: 'queryInsight.showRun',
  /** Picks two runs (before, after) and shows their comparison. */
  compareRuns: 'queryInsight.compareRuns',
  /** Records a benchmark round (asks for the score; logs from .query-insight/config.json) as a run record; its figures fill the views. */
  recordRun: 'queryInsight.recordRun',
  /** Picks two recorded rounds and shows their comparison: the score first, verdicts, what changed in the code. */
  compareRecordedRuns: 'queryInsight.compareRecordedRuns',
  /** Records a run from an access log, a slow log or a saved run file. */
  addRun: 'queryInsight.addRun',
  /** Renames a run. */
  renameRun: 'queryInsight.renameRun',
  /** Deletes a run (with its file in workspace storage). */
  deleteRun: 'queryInsight.deleteRun',
  /** Offers the connection values found in the workspace (env.sh, .env, docker-compose.yml), reconnects. */
  connectDatabase: 'queryInsight.connectDatabase',
  /** Re-reads tables, indexes and row counts (after a change made outside the editor) and explains the open files again. */
  refreshSchema: 'queryInsight.refreshSchema',
  /** Stores the database password in SecretStorage. */
  setDatabasePassword: 'queryInsight.setDatabasePassword',
  /** Draws the plan of the statement under the cursor (or of the hover's "Show plan" link) as a tree in the report's Plan tab. */
  explainStatement: 'queryInsight.explainStatement',
  /** Runs the SELECT under the cursor (or of a hover link) once under ANALYZE, within the time limit and row cap; shows rows read vs the estimate. */
  measureStatement: 'queryInsight.measureStatement',
  /** Quick fix / hover link: confirmed ALTER TABLE … ADD INDEX, then re-EXPLAIN (hidden from the palette). */
  addIndexToDatabase: 'queryInsight.addIndexToDatabase',
  /** Quick fix / hover link: adds the suggested index to the workspace's schema file (hidden from the palette). */
  addIndexToSchemaFile: 'queryInsight.addIndexToSchemaFile',
  /** Quick fix / hover link: copies the suggested index's DDL (hidden from the palette). */
  copyIndexDdl: 'queryInsight.copyIndexDdl',
  /** Reads an nginx access log (picker with recent logs, or a path argument) into the Endpoints view and CodeLenses. */
  importAccessLog: 'queryInsight.importAccessLog',
  /** Reloads the imported access log on each change (after each benchmark); shown while not watching. */
  watchAccessLog: 'queryInsight.watchAccessLog',
  /** Ends watching the access log; shown while watching, in place of Watch. */
  stopWatchingAccessLog: 'queryInsight.stopWatchingAccessLog',
  /** Quick pick of the Endpoints view's order: total, count, mean, p99, max, errors. */
  sortEndpoints: 'queryInsight.sortEndpoints',
  /** Endpoints view item / CodeLens: opens the endpoint's handler (hidden from the palette). */
  openEndpointHandler: 'queryInsight.openEndpointHandler',
  /** Endpoint CodeLens: the endpoint's figures (count, times, percentiles, statuses) in the report's Run tab (hidden from the palette). */
  showEndpointFigures: 'queryInsight.showEndpointFigures',
  /** Reads a MySQL / MariaDB slow query log (picker with recent logs, or a path argument) into the Queries view, CodeLenses and hovers. */
  importSlowLog: 'queryInsight.importSlowLog',
  /** Reloads the imported slow log on each change (importing one first when none is); shown while not watching. */
  watchSlowLog: 'queryInsight.watchSlowLog',
  /** Ends watching the slow log; shown while watching, in place of Watch. */
  stopWatchingSlowLog: 'queryInsight.stopWatchingSlowLog',
  /** Reads the access and slow logs of every box of queryInsight.boxes over SSH into one run each (Endpoints and Queries views). */
  importFromBoxes: 'queryInsight.importFromBoxes',
  /** Writes queryInsight.boxes from the hosts of ~/.ssh/config the user picks and the log paths asked once. */
  setUpBoxes: 'queryInsight.setUpBoxes',
  /** Follows the boxes' logs (polled over SSH; importing them first when not yet); shown while not watching. */
  watchBoxes: 'queryInsight.watchBoxes',
  /** Ends following the boxes' logs; shown while watching, in place of Watch. */
  stopWatchingBoxes: 'queryInsight.stopWatchingBoxes',
  /** Quick pick of the Queries view's order: total, count, mean, p95, max. */
  sortQueries: 'queryInsight.sortQueries',
  /** Queries view item: opens a statement that sends the query (hidden from the palette). */
  openQuerySite: 'queryInsight.openQuerySite',
  /** Slow-log CodeLens: shows its query in the Queries view (hidden from the palette). */
  revealQuery: 'queryInsight.revealQuery',
  /** Takes a performance_schema snapshot: the start of a measured window (a benchmark). */
  startMeasuring: 'queryInsight.startMeasuring',
  /** Takes the second snapshot; the window becomes a run, the Queries view's figures and findings. */
  stopMeasuring: 'queryInsight.stopMeasuring',
  /** Quick fix on an unused index: confirmed ALTER TABLE … DROP INDEX (hidden from the palette). */
  dropUnusedIndex: 'queryInsight.dropUnusedIndex',
  /** Reads a CPU profile (pprof .pb.gz or URL, folded stacks, V8 .cpuprofile) onto the workspace's handlers: the CPU column, the CPU lens, the report's CPU tab. */
  importProfile: 'queryInsight.importProfile',
  /** CPU CodeLens: the endpoint's flame graph in the report's CPU tab (hidden from the palette). */
  showEndpointCpu: 'queryInsight.showEndpointCpu',
  /** Walkthrough Copy button: copies one of its setup snippets (nginx log_format, slow-log settings) (hidden from the palette). */
  copyWalkthroughSnippet: 'queryInsight.copyWalkthroughSnippet',
} as const;

export type CommandId = (typeof COMMANDS)[keyof typeof COMMANDS];

/** Titles as shown in the palette (after the "Query Insight: " category). */
export const COMMAND_TITLES: Record<CommandId, string> = {
  [COMMANDS.listSqlStatements]: 'List SQL statements',
  [COMMANDS.rescanWorkspace]: 'Rescan workspace',
  [COMMANDS.showLog]: 'Show log',
  [COMMANDS.showReport]: 'Show report',
  [COMMANDS.showRun]: 'Show run in report',
  [COMMANDS.compareRuns]: 'Compare two runs',
  [COMMANDS.recordRun]: 'Record run',
  [COMMANDS.compareRecordedRuns]: 'Compare recorded runs (score, verdicts, what changed)',
  [COMMANDS.addRun]: 'Add a run from a log file',
  [COMMANDS.renameRun]: 'Rename run',
  [COMMANDS.deleteRun]: 'Delete run',
  [COMMANDS.connectDatabase]: 'Connect to database',
  [COMMANDS.refreshSchema]: 'Refresh database schema',
  [COMMANDS.setDatabasePassword]: 'Set database password',
  [COMMANDS.explainStatement]: 'Explain statement under cursor',
  [COMMANDS.measureStatement]: 'Measure statement under cursor (runs the SELECT)',
  [COMMANDS.addIndexToDatabase]: 'Add suggested index to the database',
  [COMMANDS.addIndexToSchemaFile]: 'Add suggested index to the schema file',
  [COMMANDS.copyIndexDdl]: 'Copy DDL of the suggested index',
  [COMMANDS.importAccessLog]: 'Import access log',
  [COMMANDS.watchAccessLog]: 'Watch the access log',
  [COMMANDS.stopWatchingAccessLog]: 'Stop watching the access log',
  [COMMANDS.sortEndpoints]: 'Sort endpoints by…',
  [COMMANDS.openEndpointHandler]: 'Open the endpoint\'s handler',
  [COMMANDS.showEndpointFigures]: 'Show the endpoint\'s figures in the report',
  [COMMANDS.setUpBoxes]: 'Set up boxes…',
  [COMMANDS.importSlowLog]: 'Import slow query log',
  [COMMANDS.watchSlowLog]: 'Watch the slow query log',
  [COMMANDS.stopWatchingSlowLog]: 'Stop watching the slow query log',
  [COMMANDS.importFromBoxes]: 'Import from boxes',
  [COMMANDS.watchBoxes]: 'Watch the boxes\' logs',
  [COMMANDS.stopWatchingBoxes]: 'Stop watching the boxes\' logs',
  [COMMANDS.sortQueries]: 'Sort queries by…',
  [COMMANDS.openQuerySite]: 'Open the query\'s statement',
  [COMMANDS.revealQuery]: 'Show the query in the Queries view',
  [COMMANDS.startMeasuring]: 'Start measuring (server statistics)',
  [COMMANDS.stopMeasuring]: 'Stop measuring',
  [COMMANDS.dropUnusedIndex]: 'Drop the unused index from the database',
  [COMMANDS.copyWalkthroughSnippet]: 'Copy a setup snippet from the walkthrough',
  [COMMANDS.importProfile]: 'Import profile',
  [COMMANDS.showEndpointCpu]: 'Show the endpoint\'s CPU flame graph',
};

/** The command category every public command carries. */
export const COMMAND_CATEGORY = 'Query Insight';
