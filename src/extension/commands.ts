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
} as const;

export type CommandId = (typeof COMMANDS)[keyof typeof COMMANDS];

/** Titles as shown in the palette (after the "Query Insight: " category). */
export const COMMAND_TITLES: Record<CommandId, string> = {
  [COMMANDS.listSqlStatements]: 'List SQL statements',
  [COMMANDS.rescanWorkspace]: 'Rescan workspace',
  [COMMANDS.showLog]: 'Show log',
};

/** The command category every public command carries. */
export const COMMAND_CATEGORY = 'Query Insight';
