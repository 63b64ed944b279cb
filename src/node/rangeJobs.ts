/**
 * The work of logRanges.ts's reading threads: a thread is sent a log's ranges, a shared counter and
 * a port; it takes the next range nobody took yet, reads it, and sends its part (plain data) back on
 * the port for the merge, until none is left. Each kind of log has a thread script of its own
 * (accessRangeWorker.ts, slowRangeWorker.ts) that loads its own reader only: a thread reading an
 * access log starts without compiling the slow log's parser, and the other way round.
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import type { AccessAnalysisOptions } from '../core/logs/accessAnalysis';
import type { SlowStatsOptions } from '../core/logs/slowStats';

/** The kinds of log read in ranges, each by a thread script of its own. */
export type RangeKind = 'access' | 'slow';

/** One range to read: from `start` (a line's first byte) to the line at or past `end`. */
export type RangeJob =
  | { kind: 'access'; path: string; start: number; end: number; maxLineBytes: number; options: AccessAnalysisOptions }
  | { kind: 'slow'; path: string; start: number; end: number; maxLineBytes: number; options: SlowStatsOptions };

/** What a range's reader found, besides its part. */
export interface RangeRead {
  start: number;
  lines: number;
  longLines: number;
  /** Where the next reader takes over: the end for access logs, the next entry's start for slow logs; -1 at the end of the file. */
  next: number;
  unterminated: boolean;
}

/** What a reading thread is sent: the jobs, the shared counter from which every thread takes the next one, and the port for its replies. */
export interface RangeWork { jobs: RangeJob[]; next: SharedArrayBuffer; port: MessagePort }

/** What a reading thread sends back: one job's result, an error, or that no job is left. */
export type RangeReply<R> = { k: number; result: R } | { error: string } | { done: true };

/** Takes the index of the next job nobody took yet (≥ the job count when none is left). */
export function takeJob(next: Int32Array): number {
  return Atomics.add(next, 0, 1);
}

/** Reads of 256 KiB, or less for a small range (the tests cut logs into ranges of a few bytes). */
export function chunkFor(job: RangeJob): number {
  return Math.min(1 << 18, Math.max(1 << 12, job.end - job.start));
}

/** A reading thread's loop: reads every job it takes with `read` (the jobs are all of its kind). */
export function serveRangeJobs<J extends RangeJob>(read: (job: J) => unknown): void {
  parentPort?.on('message', ({ jobs, next, port }: RangeWork) => {
    const counter = new Int32Array(next);
    try {
      for (let k = takeJob(counter); k < jobs.length; k = takeJob(counter)) {
        port.postMessage({ k, result: read(jobs[k] as J) } satisfies RangeReply<unknown>);
      }
      port.postMessage({ done: true } satisfies RangeReply<never>);
    } catch (err) {
      port.postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies RangeReply<never>);
    }
  });
}
