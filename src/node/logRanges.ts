/**
 * One plain log file read on every core: the file is cut into byte ranges, each range is parsed on
 * a thread of its own (logRangeWorker.ts) into an accumulator of its own, and the parts are merged
 * in the file's order into figures equal to one reader's (counts, exact sums, percentiles, first
 * seen order, line numbers). Where a merge could not be exact (a cap or the exact-sample budget
 * reached), the caller reads the file again with one reader.
 *
 * Access logs are cut at line starts. Slow-log entries span lines, so a range starts at a `# Time:`
 * line; the reader of the range before it reads on past its end until its own parser starts an
 * entry at such a line (not inside a string literal that holds newlines): where that is the next
 * range's start, the next range's part is taken, else that range is read again from where the
 * entry really starts. How the parser scans quotes inside an entry is its own business.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { AccessAnalyzer, type AccessAnalysisOptions, type AccessPart } from '../core/logs/accessAnalysis';
import { SlowLogParser, type SlowLogParseSummary } from '../core/logs/slowLogParser';
import { SlowStatsCollector, type SlowStatsOptions, type SlowStatsPart } from '../core/logs/slowStats';
import { bufferDecoder, utf8Of } from './accessLogFile';
import { readRange, type ReadLinesResult } from './lineReader';

/** Smallest range worth a thread of its own (starting one costs a few tens of ms). */
export const MIN_RANGE_BYTES = 16 << 20;

/** How a plain file is split: how many threads, and (tests) the size of each range. */
export interface RangePlan {
  /** Reading threads (default: the machine's cores). 0 reads the ranges on this thread, one after the other (tests). */
  threads?: number;
  /** Bytes per range (default: the file's size over the threads, at least MIN_RANGE_BYTES). */
  rangeBytes?: number;
  /**
   * This thread reads ranges too (one V8 heap fewer: less memory). For a command-line run; an
   * editor's thread must stay free, so by default all ranges go to reading threads.
   */
  here?: boolean;
  maxLineBytes?: number;
  signal?: AbortSignal;
}

/** One range to read: from `start` (a line's first byte) to the line at or past `end`. */
export type RangeJob =
  | { kind: 'access'; path: string; start: number; end: number; maxLineBytes: number; options: AccessAnalysisOptions }
  | { kind: 'slow'; path: string; start: number; end: number; maxLineBytes: number; options: SlowStatsOptions };

/** What a range's reader found, besides its part. */
interface RangeRead {
  start: number;
  lines: number;
  longLines: number;
  /** Where the next reader takes over: the end for access logs, the next entry's start for slow logs; -1 at the end of the file. */
  next: number;
  unterminated: boolean;
}

export interface AccessRangeResult extends RangeRead { part: AccessPart }
export interface SlowRangeResult extends RangeRead {
  part: SlowStatsPart;
  summary: SlowLogParseSummary;
  /** The last `use db;` of the range (INHERITED when none), the legacy `# Time` in force at its end (NaN: none), entries that took the one before the range. */
  lastSchema: string;
  legacyTime: number;
  inheritedTimes: number;
}

/** The schema a range's parser starts with, replaced at the merge by the last `use db;` before the range. */
export const INHERITED_SCHEMA = '\u0000inherited';

/** Reads one access-log range (on whichever thread calls it). */
export function readAccessRange(job: Extract<RangeJob, { kind: 'access' }>): AccessRangeResult {
  const analyzer = new AccessAnalyzer({ ...job.options, decode: bufferDecoder });
  const end = job.end;
  const r = readRange(job.path, job.start, (b, s, e, n, at) => {
    if (at >= end) return false;
    analyzer.line(b, s, e, n);
  }, {
    maxLineBytes: job.maxLineBytes, chunkBytes: chunkFor(job),
    onLongLine: (n, length, at) => {
      if (at >= end) return false;
      analyzer.tooLong(n, length);
    },
  });
  const part = analyzer.toPart();
  part.lines = r.lines;
  return { part, start: job.start, lines: r.lines, longLines: r.longLines, next: r.stoppedAt, unterminated: r.unterminatedLastLine };
}

/** Reads of 256 KiB, or less for a small range (the tests cut logs into ranges of a few bytes). */
function chunkFor(job: RangeJob): number {
  return Math.min(1 << 18, Math.max(1 << 12, job.end - job.start));
}

class HandOver extends Error {}
const TIME_HEADER = Buffer.from('# Time: ');

function isTimeHeader(b: Buffer, s: number, e: number): boolean {
  if (e - s < 8) return false;
  for (let i = 0; i < 8; i++) if (b[s + i] !== TIME_HEADER[i]) return false;
  return true;
}

/** Reads one slow-log range: its entries up to the first one its parser starts at a `# Time:` line at or past `end`. */
export function readSlowRange(job: Extract<RangeJob, { kind: 'slow' }>): SlowRangeResult {
  const collector = new SlowStatsCollector({ ...job.options, partial: true });
  const end = job.end;
  /** The line being fed when it is a `# Time:` line at or past the end (an entry starting there ends the range). */
  let handOverLine = -1;
  const parser = new SlowLogParser((e) => collector.add(e), {
    decode: utf8Of, initialSchema: INHERITED_SCHEMA,
    onEntryStart: (lineNo, rereading) => { if (lineNo === handOverLine && !rereading) throw new HandOver(); },
  });
  let stoppedAt = -1;
  const r = readRange(job.path, job.start, (b, s, e, n, at) => {
    if (at >= end && isTimeHeader(b, s, e)) {
      handOverLine = n;
      try {
        parser.line(b, s, e, n);
      } catch (err) {
        if (!(err instanceof HandOver)) throw err;
        stoppedAt = at;
        return false;
      }
      handOverLine = -1;
      return;
    }
    parser.line(b, s, e, n);
  }, { maxLineBytes: job.maxLineBytes, chunkBytes: chunkFor(job), onLongLine: (n, length) => parser.skippedLine(n, length) });
  const summary = stoppedAt >= 0 ? parser.handOver() : parser.end();
  summary.lines = 0; // why: lines are counted by the reads
  return {
    part: collector.toPart(), summary, start: job.start, lines: r.lines, longLines: r.longLines, next: stoppedAt, unterminated: r.unterminatedLastLine,
    lastSchema: parser.lastSchema, legacyTime: parser.legacyTimeNow, inheritedTimes: parser.inheritedLegacyTime,
  };
}

/** The worker script beside this code (dist/logRangeWorker.js, dist/cli/logRangeWorker.js, out/src/node/logRangeWorker.js), if built. */
export function rangeWorkerScript(): string | undefined {
  const path = join(__dirname, 'logRangeWorker.js');
  return existsSync(path) ? path : undefined;
}

/** True when `path` is a plain (not gzip) regular file that is worth reading in ranges with this plan. */
export function worthRanges(path: string, plan: RangePlan = {}): boolean {
  const threads = plan.threads ?? availableParallelism();
  if (threads === 1) return false;
  if (threads > 1 && !rangeWorkerScript()) return false;
  let fd: number;
  try { fd = openSync(path, 'r'); } catch { return false; }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return false;
    const head = Buffer.alloc(2);
    if (readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b) return false;
    return st.size >= (plan.rangeBytes ?? MIN_RANGE_BYTES) * 2;
  } finally {
    closeSync(fd);
  }
}

/**
 * The ranges' starts: each cut moved forward to the next line start (`timeHeader`: to the next line
 * starting with `# Time: `); cuts that meet are one range.
 */
export function rangeStarts(path: string, plan: RangePlan, timeHeader: boolean): { starts: number[]; size: number } {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const threads = plan.threads ?? availableParallelism();
    const each = plan.rangeBytes ?? Math.max(MIN_RANGE_BYTES, Math.ceil(size / Math.max(1, threads)));
    const starts = [0];
    const buf = Buffer.allocUnsafe(1 << 12);
    for (let cut = each; cut < size; cut += each) {
      const at = nextStart(fd, buf, Math.max(cut, starts[starts.length - 1] + 1), size, timeHeader);
      if (at < 0) break;
      if (at > starts[starts.length - 1]) starts.push(at);
    }
    return { starts, size };
  } finally {
    closeSync(fd);
  }
}

/** The first line start at or after `from` (after a `\n` at from − 1 or later) that passes the header test; -1 when none. */
function nextStart(fd: number, buf: Buffer, from: number, size: number, timeHeader: boolean): number {
  let pos = from - 1; // why: a `\n` just before `from` makes `from` itself a line start
  while (pos < size) {
    const n = readSync(fd, buf, 0, buf.length, pos);
    if (n <= 0) return -1;
    for (let i = 0; ;) {
      const nl = buf.indexOf(10, i);
      if (nl < 0 || nl >= n) break;
      const at = pos + nl + 1;
      if (at >= size) return -1;
      if (!timeHeader || timeHeaderAt(fd, buf, n, nl + 1, at)) return at;
      i = nl + 1;
    }
    pos += n;
  }
  return -1;
}

/** Whether the line at file offset `at` (buf[off] when read) starts with `# Time: `. */
function timeHeaderAt(fd: number, buf: Buffer, n: number, off: number, at: number): boolean {
  const len = TIME_HEADER.length;
  if (off + len <= n) return buf.compare(TIME_HEADER, 0, len, off, off + len) === 0;
  const b = Buffer.alloc(len);
  return readSync(fd, b, 0, len, at) === len && b.equals(TIME_HEADER);
}

/**
 * The young generation of a reading thread, in MB. A range's reader allocates little that lives
 * (counts in typed arrays, one string per new endpoint or fingerprint), so a small young generation
 * costs it no time, while V8's default let each thread's grow to tens of MB of resident memory.
 */
export const WORKER_YOUNG_MB = 3;

/**
 * Runs the jobs on `threads` threads, results in the jobs' order: 0 runs them all here in turn; with
 * `here`, this thread is one of them (one V8 heap fewer: the CLI's peak memory), else all are workers.
 */
async function runJobs<R>(jobs: RangeJob[], threads: number, here: boolean, signal: AbortSignal | undefined, local: (job: RangeJob) => R): Promise<R[]> {
  if (threads <= 0) return jobs.map(local);
  const script = rangeWorkerScript();
  if (!script) throw new Error('the range reader thread (logRangeWorker.js) is not built');
  const out = new Array<R>(jobs.length);
  let next = 0;
  const workers: Worker[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      let running = 0;
      let failed = false;
      const abort = (): void => { failed = true; reject(signal?.reason ?? new Error('aborted')); };
      signal?.addEventListener('abort', abort, { once: true });
      const settle = (): void => { if (running === 0 && next >= jobs.length) { signal?.removeEventListener('abort', abort); resolve(); } };
      const start = (w: Worker): void => {
        if (failed) return;
        if (next >= jobs.length) { settle(); return; }
        const k = next++;
        running++;
        w.once('message', (m: { result?: R; error?: string }) => {
          running--;
          if (m.error !== undefined) { failed = true; reject(new Error(m.error)); return; }
          out[k] = m.result!;
          start(w);
        });
        w.postMessage(jobs[k]);
      };
      for (let i = 0; i < Math.min(here ? threads - 1 : threads, jobs.length); i++) {
        const w = new Worker(script, { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB } });
        workers.push(w);
        w.on('error', (err) => { failed = true; reject(err); });
        start(w);
      }
      if (here) {
        try {
          while (!failed && next < jobs.length) { const k = next++; out[k] = local(jobs[k]); }
        } catch (err) { failed = true; reject(err); return; }
        settle();
      }
    });
  } finally {
    for (const w of workers) void w.terminate();
  }
  return out;
}

function jobsOf<K extends RangeJob['kind']>(kind: K, path: string, starts: number[], size: number, maxLineBytes: number, options: Extract<RangeJob, { kind: K }>['options']): RangeJob[] {
  return starts.map((start, i) => ({ kind, path, start, end: i + 1 < starts.length ? starts[i + 1] : size + 1, maxLineBytes, options } as RangeJob));
}

function threadsOf(plan: RangePlan): number {
  return plan.threads ?? availableParallelism();
}

/**
 * Reads an access log in ranges into `analyzer` (one that read nothing yet, built with the same
 * options). Returns the read's figures, or undefined when the merge would not be exact: the caller
 * then reads the file again with one reader, into a new analyzer.
 */
export async function readAccessInRanges(path: string, analyzer: AccessAnalyzer, plan: RangePlan = {}): Promise<ReadLinesResult | undefined> {
  const { starts, size } = rangeStarts(path, plan, false);
  const maxLineBytes = plan.maxLineBytes ?? 1 << 20;
  // why: functions do not cross threads; the workers decode with Node's own decoders.
  const options = { ...analyzer.options };
  delete options.decode;
  const results = await runJobs(jobsOf('access', path, starts, size, maxLineBytes, options), threadsOf(plan), plan.here ?? false, plan.signal, (j) => readAccessRange(j as Extract<RangeJob, { kind: 'access' }>));
  let lines = 0;
  let longLines = 0;
  for (const r of results) {
    analyzer.absorb(r.part, lines);
    lines += r.lines;
    longLines += r.longLines;
  }
  if (!analyzer.mergeIsExact()) return undefined;
  return { lines, bytes: size, longLines, gzip: false, unterminatedLastLine: results[results.length - 1].unterminated };
}

/** A slow log read in ranges: what analyzeSlowSources gets from one reader. */
export interface SlowRangesResult {
  summary: SlowLogParseSummary[];
  read: ReadLinesResult;
  /** Ranges read, and how many of their reads were not used (the range before read on past their start). */
  ranges: number;
  redone: number;
}

/**
 * Reads a slow log in ranges into `collector` (one that read nothing yet). Returns the parse
 * summaries of the ranges in order (line numbers already counted from the file's first line) and
 * the read's figures, or undefined when the merge would not be exact.
 */
export async function readSlowInRanges(path: string, collector: SlowStatsCollector, options: SlowStatsOptions, plan: RangePlan = {}): Promise<SlowRangesResult | undefined> {
  const { starts, size } = rangeStarts(path, plan, true);
  const maxLineBytes = plan.maxLineBytes ?? 16 << 20;
  const jobs = jobsOf('slow', path, starts, size, maxLineBytes, options) as Extract<RangeJob, { kind: 'slow' }>[];
  const results = await runJobs(jobs, threadsOf(plan), plan.here ?? false, plan.signal, (j) => readSlowRange(j as Extract<RangeJob, { kind: 'slow' }>));
  const summaries: SlowLogParseSummary[] = [];
  let lines = 0;
  let longLines = 0;
  let schema = '';
  let legacy = NaN;
  let unterminated = false;
  let redone = 0;
  // The next byte to read, where the accepted ranges so far handed over (-1: they read to the end).
  let at = 0;
  for (let k = 0; k < jobs.length && at >= 0; k++) {
    let r = results[k];
    if (jobs[k].start !== at) {
      redone++;
      if (k + 1 < jobs.length && at >= jobs[k + 1].start) continue; // the range before read this one whole
      // why: the range before read on past this range's start (an entry it had open there): read again from where it handed over.
      r = readSlowRange({ ...jobs[k], start: at });
    }
    // why: entries of this range that kept a legacy `# Time` from before it got none; one reader gave them the one in force.
    if (r.inheritedTimes > 0 && legacy === legacy) return undefined;
    collector.absorb(r.part, INHERITED_SCHEMA, schema);
    for (const p of r.summary.problems) p.line += lines;
    for (const p of r.summary.damagedSamples) p.line += lines;
    summaries.push(r.summary);
    lines += r.lines;
    longLines += r.longLines;
    if (r.lastSchema !== INHERITED_SCHEMA) schema = r.lastSchema;
    if (r.legacyTime === r.legacyTime) legacy = r.legacyTime;
    unterminated = r.unterminated;
    at = r.next;
  }
  if (!collector.mergeIsExact()) return undefined;
  return { summary: summaries, read: { lines, bytes: size, longLines, gzip: false, unterminatedLastLine: unterminated }, ranges: jobs.length, redone };
}
