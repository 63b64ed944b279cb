/**
 * Reads a slow-log file (plain or gzip) into per-fingerprint statistics: the file side of
 * src/core/logs/slowLogParser.ts + slowStats.ts, shared by the CLI and the extension.
 */
import { SlowLogParser, type SlowLogParseSummary } from '../core/logs/slowLogParser';
import { SlowStatsCollector, type QueryStats, type SlowStatsOptions } from '../core/logs/slowStats';
import { readLines, type ReadLinesOptions, type ReadLinesResult } from './lineReader';

export interface SlowLogFileResult {
  stats: QueryStats[];
  summary: SlowLogParseSummary;
  /** Entries dropped because maxFingerprints distinct fingerprints were already kept. */
  overflowEntries: number;
  read: ReadLinesResult;
}

/** Node's decoder (faster than TextDecoder for short strings); also for the parser's own Uint8Array copies. */
const bufferDecode = (b: Uint8Array, s: number, e: number): string =>
  (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength)).toString('utf8', s, e);

/**
 * Parses and aggregates one slow-log file in bounded memory. Lines longer than `maxLineBytes`
 * (default 16 MiB: a bulk INSERT can be long) are reported as malformed entries.
 */
export async function analyzeSlowLogFile(path: string, options: SlowStatsOptions = {}, read: Omit<ReadLinesOptions, 'onLongLine'> = {}): Promise<SlowLogFileResult> {
  const collector = new SlowStatsCollector(options);
  const parser = new SlowLogParser((e) => collector.add(e), { decode: bufferDecode });
  const longLines: { line: number; length: number }[] = [];
  const result = await readLines(path, (b, s, e, n) => parser.line(b, s, e, n), {
    maxLineBytes: 16 << 20,
    ...read,
    onLongLine: (line, length) => { longLines.push({ line, length }); },
  });
  const summary = parser.end();
  for (const l of longLines) {
    summary.malformed++;
    if (summary.problems.length < 10) summary.problems.push({ line: l.line, reason: `line too long (${l.length} bytes), skipped`, text: '' });
  }
  summary.lines = result.lines;
  return { stats: collector.result(), summary, overflowEntries: collector.overflowEntries, read: result };
}
