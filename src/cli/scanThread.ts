/**
 * The `scan` command's thread (scan.ts starts it): the whole scan runs here, from listing the files to the
 * rendered report, and only that text is sent back. The command's own thread watches the file being read
 * through `progress` (shared memory, no message per file) and gives up on one past its budget.
 */
import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { runScan, type ScanChunk, type ScanJob } from './scanReport';

// why: a scan reads each file once, so V8's optimising compiler is a large share of its CPU: each hot function of the
// readers is compiled with what it calls inlined, again whenever a new language's node shapes arrive. A smaller
// inlining budget per compiled function (V8's default is 920 bytes of bytecode) makes those compiles several times
// cheaper for code about as fast: a fifth less CPU for the whole command on bench/scan.mjs's 10,000 files on one core.
// The flag is the process's (this thread and the command's), read by each compile that starts after it is set.
setFlagsFromString('--max-inlined-bytecode-size-cumulative=300');
// why: the compiles were still a fifth of the command's CPU on one core (about 500 TurboFan jobs on bench/scan.mjs's
// 10,000 files, V8's compiler threads included), a fixed cost a scan does not earn back. Without inlining each job is
// cheaper still, and without on-stack replacement a long loop is not compiled a second time on its own (its function
// is compiled for its next call): 0.93x the command's CPU (median of 6 pinned pairs, 0.81-1.12, loaded machine). A larger
// interrupt budget on top (fewer functions compiled at all) lost that again (0.99x).
setFlagsFromString('--no-turbo-inlining');
setFlagsFromString('--no-use-osr');
// why: a scan keeps every file's facts until its report, so each young-generation collection copies the latest files'
// facts, and there are a hundred of them on 10,000 files. V8 shares that copying out to helper threads; on the one CPU
// this process may run on (taskset, a container's cpuset) the helpers only take turns with this thread and wait for
// each other: done here alone, the collections took about a fifth less CPU (1.3-1.4 s instead of 1.6-1.8 s on
// bench/scan.mjs's files). With more CPUs the helpers run beside it and shorten each pause, as before.
if (availableParallelism() === 1) setFlagsFromString('--no-parallel-scavenge');

/** What the thread is started with: the job, and the shared cells it reports its progress in (watched by scanOnThread in commands/scan.ts). */
export interface ScanThreadData { job: ScanJob; progress: SharedArrayBuffer }

/** The thread's messages: the files in reading order, then the output (or the error that stopped the scan). */
export type ScanThreadMessage = { listed: string[] } | { chunks: ScanChunk[] } | { error: string };

const { job, progress } = workerData as ScanThreadData;
/** [file number + 1 (0: none), 1 while it loads its grammar], and since when (Date.now()). */
const cells = new Int32Array(progress, 0, 2);
const since = new Float64Array(progress, 8, 1);

runScan(job, {
  listed: (files) => parentPort!.postMessage({ listed: [...files] } satisfies ScanThreadMessage),
  reading: (index, loading) => {
    since[0] = Date.now();
    Atomics.store(cells, 1, loading ? 1 : 0);
    Atomics.store(cells, 0, index + 1);
  },
  idle: () => Atomics.store(cells, 0, 0),
}).then(
  (chunks) => {
    // why: sent as UTF-8 bytes, moved rather than copied: the text would be copied across, then encoded there (20 MB
    // of JSON for 10,000 files, two bytes a character once a finding's message holds an ellipsis).
    const encoder = new TextEncoder();
    const bytes = chunks.map((c) => ({ stderr: c.stderr, text: typeof c.text === 'string' ? encoder.encode(c.text) : c.text }));
    parentPort!.postMessage({ chunks: bytes } satisfies ScanThreadMessage, bytes.map((c) => c.text.buffer as ArrayBuffer));
  },
  (err: unknown) => parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies ScanThreadMessage),
);
