/**
 * One plain log file read on every core: the file is cut into byte ranges, each range is parsed on
 * a thread of its own (rangeJobs.ts) into an accumulator of its own, and the parts are merged
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
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import { AccessAnalyzer } from '../core/logs/accessAnalysis';
import type { SlowLogParseSummary } from '../core/logs/slowLogParser';
import type { SlowStatsCollector, SlowStatsOptions } from '../core/logs/slowStats';
import { readAccessRange, readHereWith, type AccessRangeResult } from './accessRange';
import type { ReadLinesResult } from './lineReader';
import { takeJob, type RangeJob, type RangeKind, type RangeReply, type RangeWork } from './rangeJobs';
import { isLargePlainFile, MIN_RANGE_BYTES, rangeWorkerScript, startRangeWorker, takeReadyWorker } from './rangeWorkerPool';
import { INHERITED_SCHEMA, readSlowRange, TIME_HEADER, type SlowRangeResult } from './slowRange';

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

export type { RangeJob } from './rangeJobs';
export type { AccessRangeResult } from './accessRange';
export type { SlowRangeResult } from './slowRange';
export { INHERITED_SCHEMA } from './slowRange';

/** True when `path` is a plain (not gzip) regular file that is worth reading in ranges with this plan. */
export function worthRanges(path: string, kind: RangeKind, plan: RangePlan = {}): boolean {
  const threads = plan.threads ?? availableParallelism();
  if (threads === 1) return false;
  if (threads > 1 && !rangeWorkerScript(kind)) return false;
  return isLargePlainFile(path, (plan.rangeBytes ?? MIN_RANGE_BYTES) * 2);
}

/**
 * The ranges' starts: each cut moved forward to the next line start (`timeHeader`: to the next line
 * starting with `# Time: `); cuts that meet are one range. By default one range per thread: each
 * range's figures cross threads to be merged, and a range more costs memory (hundreds of KB that the
 * allocator does not all give back) for little: the threads start about together
 * (prestartRangeWorkers) and read at the same speed. This thread starts first, so with `here` its
 * range, the first, may be `lead` of the file longer than the others.
 */
export function rangeStarts(path: string, plan: RangePlan, timeHeader: boolean, lead = 0): { starts: number[]; size: number } {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const threads = plan.threads ?? availableParallelism();
    const each = plan.rangeBytes ?? Math.max(MIN_RANGE_BYTES, Math.ceil(size / Math.max(1, threads)));
    // why: the first range is this thread's (runJobs takes it before the others can); it starts
    // reading before the reading threads do, so it gets `lead` of the file more, when the ranges are
    // the default ones and the rest stay worth a thread.
    const first = plan.rangeBytes === undefined && plan.here && lead > 0 && threads > 1 && (size - each - lead * size) / (threads - 1) >= MIN_RANGE_BYTES
      ? each + Math.floor(lead * size) : each;
    const rest = first === each ? each : Math.ceil((size - first) / (threads - 1));
    const starts = [0];
    const buf = Buffer.allocUnsafe(1 << 12);
    for (let cut = first; cut < size; cut += rest) {
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
 * Runs the jobs on `threads` threads and hands each result to `take` in the jobs' order, as soon as
 * those before it were taken (a result waits only for a range before it still being read, so the
 * parts held at once stay few): 0 runs them all here in turn; with `here`, this thread is one of
 * them (one V8 heap fewer: the CLI's peak memory), else all are workers. Every thread takes the next
 * job from a shared counter as soon as it is free, so a thread that started late or reads faster
 * takes more of them, and none waits for a message to get its next one. `localDone` is called once
 * this thread reads no more ranges (at once when it reads none).
 */
async function runJobs<R>(jobs: RangeJob[], threads: number, here: boolean, signal: AbortSignal | undefined, local: (job: RangeJob) => R, take: (result: R, k: number) => void, localDone: () => void = () => undefined): Promise<void> {
  if (threads <= 0) { jobs.forEach((job, k) => take(local(job), k)); localDone(); return; }
  const kind = jobs[0].kind;
  const script = rangeWorkerScript(kind);
  if (!script) throw new Error(`the range reader thread (${kind}RangeWorker.js) is not built`);
  const shared = new SharedArrayBuffer(4);
  const next = new Int32Array(shared);
  const waiting = new Map<number, R>();
  let taken = 0;
  const put = (k: number, r: R): void => {
    waiting.set(k, r);
    for (let w = waiting.get(taken); w !== undefined; w = waiting.get(taken)) { waiting.delete(taken); take(w, taken++); }
  };
  const workers: Worker[] = [];
  const ports: MessagePort[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      let running = 0;
      let failed = false;
      const fail = (err: unknown): void => {
        if (failed) return;
        failed = true;
        // why: the other threads stop after the range they are reading.
        Atomics.store(next, 0, jobs.length);
        signal?.removeEventListener('abort', abort);
        reject(err);
      };
      const abort = (): void => fail(signal?.reason ?? new Error('aborted'));
      signal?.addEventListener('abort', abort, { once: true });
      const settle = (): void => { if (!failed && running === 0) { signal?.removeEventListener('abort', abort); resolve(); } };
      const handlers: ((m: RangeReply<R>) => void)[] = [];
      const count = Math.min(here ? threads - 1 : threads, jobs.length);
      for (let i = 0; i < count; i++) {
        const w = takeReadyWorker(kind) ?? startRangeWorker(script);
        w.ref();
        workers.push(w);
        running++;
        let done = false;
        w.on('error', fail);
        w.on('exit', (code) => { if (!done) fail(new Error(`a reading thread stopped (exit code ${code})`)); });
        handlers.push((m) => {
          if (failed) return;
          if ('error' in m) fail(new Error(m.error));
          else if ('done' in m) { done = true; running--; settle(); } else {
            try { put(m.k, m.result); } catch (err) { fail(err); }
          }
        });
        const { port1, port2 } = new MessageChannel();
        ports.push(port1);
        w.postMessage({ jobs, next: shared, port: port2 } satisfies RangeWork, [port2]);
      }
      /** Takes the replies already sent, without waiting (this thread is reading ranges too). */
      const drain = (): void => {
        for (let i = 0; i < ports.length; i++) for (let m = receiveMessageOnPort(ports[i]); m && !failed; m = receiveMessageOnPort(ports[i])) handlers[i](m.message as RangeReply<R>);
      };
      if (here) {
        try {
          for (let k = takeJob(next); k < jobs.length && !failed; k = takeJob(next)) {
            put(k, local(jobs[k]));
            drain();
          }
          localDone();
        } catch (err) { fail(err); return; }
        drain();
      } else {
        try { localDone(); } catch (err) { fail(err); return; }
      }
      ports.forEach((port, i) => port.on('message', handlers[i]));
      settle();
    });
  } finally {
    for (const port of ports) port.close();
    for (const w of workers) { w.removeAllListeners('exit'); void w.terminate(); }
  }
}

function jobsOf<K extends RangeJob['kind']>(kind: K, path: string, starts: number[], size: number, maxLineBytes: number, options: Extract<RangeJob, { kind: K }>['options']): RangeJob[] {
  return starts.map((start, i) => ({ kind, path, start, end: i + 1 < starts.length ? starts[i + 1] : size + 1, maxLineBytes, options } as RangeJob));
}

function threadsOf(plan: RangePlan): number {
  return plan.threads ?? availableParallelism();
}

/**
 * Reads an access log in ranges into `analyzer` (one that read nothing yet; `host`: its lines come
 * from that host). Returns the read's figures, or undefined when the merge would not be exact: the
 * caller then reads the file again with one reader, into a new analyzer.
 */
export async function readAccessInRanges(path: string, analyzer: AccessAnalyzer, plan: RangePlan = {}, host?: string): Promise<ReadLinesResult | undefined> {
  const { starts, size } = rangeStarts(path, plan, false);
  const maxLineBytes = plan.maxLineBytes ?? 1 << 20;
  // why: functions do not cross threads; the workers decode with Node's own decoders.
  const options = { ...analyzer.options };
  delete options.decode;
  // why: `analyzer` also reads this thread's ranges, and takes the parts once it has read its last
  // one (those that came before wait): one analyzer on this thread, so one compiles its expressions
  // (tens of ms before the JIT warms up) and no second one does at the merge.
  readHereWith(options, analyzer);
  const held: AccessRangeResult[] = [];
  let merging = false;
  let lines = 0;
  let longLines = 0;
  let unterminated = false;
  const absorb = (r: AccessRangeResult): void => {
    analyzer.absorb(r.part, lines);
    lines += r.lines;
    longLines += r.longLines;
    unterminated = r.unterminated;
  };
  const startMerging = (): void => {
    merging = true;
    analyzer.startOver();
    if (host !== undefined) analyzer.setHost(host);
    for (const r of held.splice(0)) absorb(r);
  };
  try {
    await runJobs(jobsOf('access', path, starts, size, maxLineBytes, options), threadsOf(plan), plan.here ?? false, plan.signal, (j) => readAccessRange(j as Extract<RangeJob, { kind: 'access' }>), (r: AccessRangeResult) => {
      if (merging) absorb(r); else held.push(r);
    }, startMerging);
  } finally {
    readHereWith(undefined);
  }
  if (!analyzer.mergeIsExact()) return undefined;
  return { lines, bytes: size, longLines, gzip: false, unterminatedLastLine: unterminated };
}

/**
 * The share of a slow log this thread reads more than an even split gives it (rangeStarts): the
 * reading thread starts reading tens of ms after this one (its start-up, though begun with the
 * process), and this thread finished its half first on 4 of 5 profiled runs of the bench's log; with
 * the 4 % the median gap between the two threads' ends went from 187 to 92 ms (busy machine).
 */
const SLOW_LEAD = 0.04;

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
  const { starts, size } = rangeStarts(path, plan, true, SLOW_LEAD);
  const maxLineBytes = plan.maxLineBytes ?? 16 << 20;
  const jobs = jobsOf('slow', path, starts, size, maxLineBytes, options) as Extract<RangeJob, { kind: 'slow' }>[];
  const summaries: SlowLogParseSummary[] = [];
  let lines = 0;
  let longLines = 0;
  let schema = '';
  let legacy = NaN;
  let unterminated = false;
  let redone = 0;
  let exact = true;
  // The next byte to read, where the accepted ranges so far handed over (-1: they read to the end).
  let at = 0;
  await runJobs(jobs, threadsOf(plan), plan.here ?? false, plan.signal, (j) => readSlowRange(j as Extract<RangeJob, { kind: 'slow' }>), (result: SlowRangeResult, k) => {
    if (at < 0 || !exact) return;
    let r = result;
    if (jobs[k].start !== at) {
      redone++;
      if (k + 1 < jobs.length && at >= jobs[k + 1].start) return; // the range before read this one whole
      // why: the range before read on past this range's start (an entry it had open there): read again from where it handed over.
      r = readSlowRange({ ...jobs[k], start: at });
    }
    // why: entries of this range that kept a legacy `# Time` from before it got none; one reader gave them the one in force.
    if (r.inheritedTimes > 0 && legacy === legacy) { exact = false; return; }
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
  });
  if (!exact) return undefined;
  if (!collector.mergeIsExact()) return undefined;
  return { summary: summaries, read: { lines, bytes: size, longLines, gzip: false, unterminatedLastLine: unterminated }, ranges: jobs.length, redone };
}
