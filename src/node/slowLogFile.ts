/**
 * Reads a slow-log file (plain or gzip) into per-fingerprint statistics: the file side of
 * src/core/logs/slowLogParser.ts + slowStats.ts, shared by the CLI and the extension. One local
 * source of src/node/logSources.ts, which also reads several files and files on other boxes.
 */
import type { SlowLogParseSummary } from '../core/logs/slowLogParser';
import type { QueryStats, SlowStatsOptions } from '../core/logs/slowStats';
import type { ReadLinesOptions, ReadLinesResult } from './lineReader';
import { analyzeSlowSources } from './logSources';

export interface SlowLogFileResult {
  stats: QueryStats[];
  summary: SlowLogParseSummary;
  /** Entries dropped because maxFingerprints distinct fingerprints were already kept. */
  overflowEntries: number;
  read: ReadLinesResult;
}

/**
 * Parses and aggregates one slow-log file in bounded memory. Lines longer than `maxLineBytes`
 * (default 16 MiB: a bulk INSERT can be long) are reported as malformed entries. Rejects when the
 * file cannot be read.
 */
export async function analyzeSlowLogFile(path: string, options: SlowStatsOptions = {}, read: Omit<ReadLinesOptions, 'onLongLine'> = {}): Promise<SlowLogFileResult> {
  const r = await analyzeSlowSources([{ kind: 'local', path }], options, {
    signal: read.signal, maxLineBytes: read.maxLineBytes,
    onProgress: read.onProgress ? (_s, done, total) => read.onProgress!(done, total) : undefined,
  });
  const [only] = r.sources;
  if (only.error || !only.result) throw new Error(only.error ?? `${path}: nothing read`);
  return { stats: r.stats, summary: r.summary, overflowEntries: r.overflowEntries, read: only.result };
}
