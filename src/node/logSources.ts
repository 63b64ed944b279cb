/**
 * Several logs, local and remote mixed, merged into one report in one pass each: every source is
 * streamed in turn into the same analyzer (so memory stays that of one file), with the host named
 * before its lines when a per-host split is wanted. A source that fails part way (a lost SSH
 * connection, a missing file) keeps what was read from it and is reported with its host; the
 * others are still read.
 */
import { AccessAnalyzer, type AccessAnalysisOptions, type AccessReport } from '../core/logs/accessAnalysis';
import { describeLogSource, hostLabel, type LogSource } from '../core/logs/logSource';
import { emptySlowSummary, SlowLogParser, type SlowLogParseSummary } from '../core/logs/slowLogParser';
import { SlowStatsCollector, type QueryStats, type SlowStatsOptions } from '../core/logs/slowStats';
import type { SlowLogEntry } from '../core/logs/slowLogTypes';
import { bufferDecoder, utf8Of } from './accessLogFile';
import type { ReadLinesOptions, ReadLinesResult } from './lineReader';
import { readAccessInRanges, readSlowInRanges, worthRanges, type RangePlan } from './logRanges';
import type { RangeKind } from './rangeJobs';
import { isPiped } from './pipedLog';
import { readLogSource, RemoteReadError, type RemoteLogReader } from './remoteLog';

/** What was read from one source. */
export interface SourceRead {
  source: LogSource;
  /** The source as written (scp form for remote files). */
  name: string;
  /** `local` or the host as written. */
  host: string;
  lines: number;
  bytes: number;
  gzip: boolean;
  /** Set when the source failed; `lines` then counts what was read before. */
  error?: string;
  /** The reader's own figures (absent when nothing could be read). */
  result?: ReadLinesResult;
}

export interface MultiSourceOptions {
  /** Reads the remote sources; required when any source is remote. */
  remote?: RemoteLogReader;
  /** Count per host (`hosts` on each endpoint or fingerprint). */
  byHost?: boolean;
  signal?: AbortSignal;
  /** Byte to start each source at (by index; a run reads what was appended since the previous one). Absent or 0: the whole file. */
  offsets?: readonly number[];
  /** Bytes read from the source being read, its total when known, and which source it is. */
  onProgress?: (source: LogSource, bytesRead: number, bytesTotal: number) => void;
  /**
   * How one plain local file is read on several threads (logRanges.ts); false: always one reader.
   * By default a file of at least two ranges' size is read on every core.
   */
  ranges?: RangePlan | false;
}

/** The one local plain file of `sources` when it is worth reading in ranges, else undefined. */
function rangeSource(sources: readonly LogSource[], kind: RangeKind, options: MultiSourceOptions): { source: LogSource; path: string; plan: RangePlan } | undefined {
  if (options.ranges === false || sources.length !== 1) return undefined;
  const [source] = sources;
  if (source.kind !== 'local' || isPiped(source.path)) return undefined;
  const plan: RangePlan = { ...options.ranges, signal: options.signal };
  return worthRanges(source.path, kind, plan) ? { source, path: source.path, plan } : undefined;
}

/** The SourceRead of a file read in ranges. */
function rangeRead(source: LogSource, r: ReadLinesResult, options: MultiSourceOptions): SourceRead {
  options.onProgress?.(source, r.bytes, r.bytes);
  return { source, name: describeLogSource(source), host: hostLabel(source), lines: r.lines, bytes: r.bytes, gzip: false, result: r };
}

type Feed = (source: LogSource, lineBase: number, index: number) => {
  onLine: (b: Buffer, s: number, e: number, n: number) => void;
  onLongLine: (n: number, length: number) => void;
};

async function readAll(sources: readonly LogSource[], options: MultiSourceOptions, read: Omit<ReadLinesOptions, 'onLongLine' | 'signal' | 'onProgress'>, setHost: ((host: string) => void) | undefined, feed: Feed): Promise<SourceRead[]> {
  const out: SourceRead[] = [];
  let lineBase = 0;
  for (const [index, source] of sources.entries()) {
    const host = hostLabel(source);
    // why: feed() ends the previous source's parser, which may still hand out that file's last entry.
    const f = feed(source, lineBase, index);
    const offset = options.offsets?.[index] ?? 0;
    setHost?.(host);
    const entry: SourceRead = { source, name: describeLogSource(source), host, lines: 0, bytes: 0, gzip: false };
    let r: ReadLinesResult | undefined;
    try {
      r = await readLogSource(source, f.onLine, {
        ...read, signal: options.signal, onLongLine: f.onLongLine, ...(offset > 0 ? { offset } : {}),
        onProgress: options.onProgress ? (done, total) => options.onProgress!(source, done, total) : undefined,
      }, options.remote);
    } catch (err) {
      if (options.signal?.aborted) throw err;
      r = err instanceof RemoteReadError ? err.partial : undefined;
      entry.error = err instanceof RemoteReadError ? err.message : `${entry.name}: ${(err as Error).message}`;
    }
    if (r) Object.assign(entry, { lines: r.lines, bytes: r.bytes, gzip: r.gzip, result: r });
    lineBase += entry.lines;
    out.push(entry);
  }
  return out;
}

export interface AccessSourcesResult extends AccessReport {
  sources: SourceRead[];
  /** Lines a `keep` filter left out (outside a run's window); counted in `lines`, not in the report's figures. */
  outside?: number;
}

/** Which lines of which source an analysis takes (a run's window): the source's index and the line's bytes and number within that read. */
export type LineKeep = (index: number, b: Buffer, s: number, e: number, lineNo: number) => boolean;

/** An analyzer reading bytes with Node's fast decoders. Throws on bad options (a regex that does not compile …). */
export function accessAnalyzer(analysis: AccessAnalysisOptions): AccessAnalyzer {
  return new AccessAnalyzer({ decode: bufferDecoder, ...analysis });
}

/** Analyses access logs from several places into one endpoint report. */
export async function analyzeAccessSources(sources: readonly LogSource[], analyzer: AccessAnalyzer, options: MultiSourceOptions & { keep?: LineKeep } = {}): Promise<AccessSourcesResult> {
  const ranged = options.keep ? undefined : rangeSource(sources, 'access', options);
  if (ranged) {
    // why: the caller's analyzer (it read nothing) reads this thread's ranges and merges them; a new
    // one reads the file when the merge is not exact.
    const r = await readAccessInRanges(ranged.path, analyzer, ranged.plan, options.byHost ? hostLabel(ranged.source) : undefined);
    if (r) return { ...analyzer.finish(), lines: r.lines, sources: [rangeRead(ranged.source, r, options)], outside: 0 };
    analyzer = new AccessAnalyzer(analyzer.options);
  }
  let outside = 0;
  const keep = options.keep;
  const read = await readAll(sources, options, {}, options.byHost ? (h) => analyzer.setHost(h) : undefined, (_source, base, index) => ({
    onLine: keep
      ? (b, s, e, n) => { if (keep(index, b, s, e, n)) analyzer.line(b, s, e, base + n); else outside++; }
      : (b, s, e, n) => analyzer.line(b, s, e, base + n),
    onLongLine: (n, length) => analyzer.tooLong(base + n, length),
  }));
  const report = analyzer.finish();
  return { ...report, lines: read.reduce((a, r) => a + r.lines, 0), sources: read, outside };
}

export interface SlowSourcesResult {
  stats: QueryStats[];
  /** Entries an `accept` filter left out (outside a run's window). */
  outside: number;
  summary: SlowLogParseSummary;
  overflowEntries: number;
  sources: SourceRead[];
}

/** Adds `part` into `total` field by field: counts summed (nested count tables too), sample lists kept up to 10. */
function addCounts(total: Record<string, unknown>, part: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(part)) {
    if (typeof v === 'number') total[k] = ((total[k] as number | undefined) ?? 0) + v;
    else if (Array.isArray(v) && Array.isArray(total[k])) {
      const list = total[k] as unknown[];
      for (const x of v) if (list.length < 10 && !list.includes(x)) list.push(x);
    } else if (v && typeof v === 'object' && total[k] && typeof total[k] === 'object') addCounts(total[k] as Record<string, unknown>, v as Record<string, unknown>);
  }
}

/** Adds one source's parse summary into the total; problems name their file when there are several. */
function mergeSummary(total: SlowLogParseSummary, part: SlowLogParseSummary, name: string | undefined): void {
  const problems = name ? part.problems.map((p) => ({ ...p, reason: `${name}: ${p.reason}` })) : part.problems;
  addCounts(total as unknown as Record<string, unknown>, { ...part, problems } as unknown as Record<string, unknown>);
}

/** Analyses slow logs from several places into one per-fingerprint report (a new parser per file, one collector). */
export async function analyzeSlowSources(sources: readonly LogSource[], statsOptions: SlowStatsOptions = {}, options: MultiSourceOptions & { maxLineBytes?: number; accept?: (e: SlowLogEntry) => boolean } = {}): Promise<SlowSourcesResult> {
  const ranged = options.accept ? undefined : rangeSource(sources, 'slow', options);
  if (ranged) {
    const merged = new SlowStatsCollector(statsOptions);
    if (options.byHost) merged.setHost(hostLabel(ranged.source));
    const r = await readSlowInRanges(ranged.path, merged, statsOptions, { maxLineBytes: options.maxLineBytes, ...ranged.plan });
    if (r) {
      const total = emptySlowSummary();
      for (const part of r.summary) mergeSummary(total, part, undefined);
      total.features.sort();
      total.lines = r.read.lines;
      return { stats: merged.result(), outside: 0, summary: total, overflowEntries: merged.overflowEntries, sources: [rangeRead(ranged.source, r.read, options)] };
    }
  }
  const collector = new SlowStatsCollector(statsOptions);
  const accept = options.accept;
  let outside = 0;
  const add = accept ? (e: SlowLogEntry): void => { if (accept(e)) collector.add(e); else outside++; } : (e: SlowLogEntry): void => collector.add(e);
  const decode = utf8Of;
  const summary = emptySlowSummary();
  const several = sources.length > 1;
  let parser: SlowLogParser | undefined;
  let current: { name: string } | undefined;
  const close = (): void => {
    if (!parser || !current) return;
    const part = parser.end();
    part.lines = 0; // why: lines are counted from the reads below, long lines included
    mergeSummary(summary, part, several ? current.name : undefined);
    parser = undefined;
  };
  // why: a bulk INSERT can be long; lines past 16 MiB are counted as too long (SlowLogParser.skippedLine).
  const read = await readAll(sources, options, { maxLineBytes: options.maxLineBytes ?? 16 << 20 }, options.byHost ? (h) => collector.setHost(h) : undefined, (source) => {
    close();
    const p = new SlowLogParser(add, { decode });
    parser = p;
    current = { name: describeLogSource(source) };
    return { onLine: (b, s, e, n) => p.line(b, s, e, n), onLongLine: (line, length) => p.skippedLine(line, length) };
  });
  close();
  summary.lines = read.reduce((a, r) => a + r.lines, 0);
  return { stats: collector.result(), outside, summary, overflowEntries: collector.overflowEntries, sources: read };
}
