/**
 * The table of CLI commands; each command adds its one line here. Commands load on first use
 * so that a run pays only for its own dependencies (node-sql-parser, mysql2, tree-sitter …).
 */
import type { Command } from '../command';
import type { RangeKind } from '../../node/rangeJobs';

export const COMMANDS: Record<string, () => Promise<Command>> = {
  advise: async () => (await import('./advise')).adviseCommand,
  diff: async () => (await import('./diff')).diffCommand,
  endpoints: async () => (await import('./endpoints')).endpointsCommand,
  profile: async () => (await import('./profile')).profileCommand,
  explain: async () => (await import('./explain')).explainCommand,
  mcp: async () => (await import('./mcp')).mcpCommand,
  scan: async () => (await import('./scan')).scanCommand,
  'server-stats': async () => (await import('./serverStats')).serverStatsCommand,
  runs: async () => (await import('./runs')).runsCommand,
  slow: async () => (await import('./slow')).slowCommand,
};

/**
 * Commands that read one large plain local log on every core (src/node/logRanges.ts), and the kind
 * of log: their reading threads start with the process, while the command's own code loads.
 */
export const READS_LOG_RANGES: ReadonlyMap<string, RangeKind> = new Map([['endpoints', 'access'], ['slow', 'slow']]);
