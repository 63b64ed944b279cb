/**
 * The reading threads of logRanges.ts, and their start ahead of need: a command that reads one large
 * plain local log starts them with the process (src/cli/main.ts), while it loads its own code and
 * looks at the log, so that they are ready when the read begins (a thread takes tens of ms to start).
 * A small module of its own: the CLI's dispatcher loads it before any command's code.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { RangeKind } from './rangeJobs';

/** Smallest range worth a thread of its own (starting one costs a few tens of ms). */
export const MIN_RANGE_BYTES = 16 << 20;

/**
 * The young generation of a reading thread, in MB. A range's reader allocates little that lives
 * (counts in typed arrays, one string per new endpoint or fingerprint), so a small young generation
 * costs it no time, while V8's default let each thread's grow to tens of MB of resident memory.
 */
export const WORKER_YOUNG_MB = 3;

/**
 * The thread script for a kind of log beside this code (dist/accessRangeWorker.js,
 * dist/cli/accessRangeWorker.js, out/src/node/accessRangeWorker.js; slowRangeWorker.js), if built.
 */
export function rangeWorkerScript(kind: RangeKind): string | undefined {
  const path = join(__dirname, `${kind}RangeWorker.js`);
  return existsSync(path) ? path : undefined;
}

/** True when `path` is a plain (not gzip) regular file of at least `minBytes`. */
export function isLargePlainFile(path: string, minBytes: number): boolean {
  let fd: number;
  try { fd = openSync(path, 'r'); } catch { return false; }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size < minBytes) return false;
    const head = Buffer.alloc(2);
    return !(readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b);
  } finally {
    closeSync(fd);
  }
}

/** Threads started ahead of need, taken by the next read in ranges of their kind. */
const ready: { kind: RangeKind; worker: Worker }[] = [];

/** A new reading thread (it waits for the work logRanges.ts sends it). */
export function startRangeWorker(script: string): Worker {
  return new Worker(script, { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB } });
}

/** A thread for `kind` started ahead of need, or undefined. The caller owns it (and refs it: it was left not keeping the process alive). */
export function takeReadyWorker(kind: RangeKind): Worker | undefined {
  const at = ready.findIndex((r) => r.kind === kind);
  return at < 0 ? undefined : ready.splice(at, 1)[0].worker;
}

/**
 * Starts reading threads for `kind` now, up to `count` of them ready. They do not keep the process
 * alive, and cost nothing more than their start if no read takes them.
 */
export function prestartRangeWorkers(kind: RangeKind, count: number): void {
  const script = rangeWorkerScript(kind);
  if (!script) return;
  for (let i = ready.filter((r) => r.kind === kind).length; i < count; i++) {
    const entry = { kind, worker: startRangeWorker(script) };
    entry.worker.unref();
    // why: a thread that fails to start is not used (the read starts one of its own).
    entry.worker.on('error', () => { const at = ready.indexOf(entry); if (at >= 0) ready.splice(at, 1); });
    ready.push(entry);
  }
}

/**
 * For a command line that reads logs of `kind` (`endpoints`: access, `slow`: slow): when exactly one
 * of its arguments names a plain local file large enough to be read in ranges, starts the threads
 * that will read it with this one (`--threads N`: N − 1; by default one fewer than the cores).
 */
export function prestartForArgs(kind: RangeKind, args: readonly string[]): void {
  let threads = availableParallelism();
  const at = args.findIndex((a) => a === '--threads' || a.startsWith('--threads='));
  if (at >= 0) threads = Number(args[at].startsWith('--threads=') ? args[at].slice('--threads='.length) : args[at + 1]);
  if (!Number.isInteger(threads) || threads < 2) return;
  if (args.filter((a) => !a.startsWith('-') && isLargePlainFile(a, 2 * MIN_RANGE_BYTES)).length !== 1) return;
  prestartRangeWorkers(kind, threads - 1);
}
