/** `query-insight scan DIR`: every SQL statement the app's source sends, with its function and loops. */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { directoryOperand, type Command, type CommandIo } from '../command';
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { availableParallelism } from 'node:os';
import { FORMATS, parseFormat, UsageError } from '../output';
import { crashReason, DEFAULT_FILE_BUDGET_MS, DEFAULT_THREAD_MEMORY_MB, NOT_STARTED_REASON, overBudgetReason, START_MS, stopReason } from '../../node/fileSkips';
import type { ScanChunk, ScanJob } from '../scanReport';
import type { ScanThreadData, ScanThreadMessage } from '../scanThread';

const HELP = `usage: query-insight scan [DIR] [options]

Finds the SQL statements in the source files under DIR (default: the current directory):
Go, Ruby, Python, PHP, JavaScript/TypeScript, Perl and Rust. Skips node_modules, vendor, .git, build
outputs, files ignored by .gitignore (in a git work tree, tracked files are read even so: git's own
rule), and binary, unreadable or huge (> 1 MiB) files; the skips, each directory of source skipped
as ignored, and any parse errors are summarised on stderr. Minified, generated and vendored files
(a line over 1000 characters, over 200 characters per line, a "Code generated … DO NOT EDIT" or
@generated mark, *.min.js, vendor/ …) are skipped unparsed, each named on stderr with its reason.

options:
  --format table|json|md|csv|tsv   output (default table); json = JSON Lines, one object per statement:
                                   file, line, endLine, column, language, function, loops [{kind, line,
                                   endLine, iterable}], sql, dynamic, placeholders, call, resultVar,
                                   helper, detached
  --width N                        cut the SQL column of tables at N characters (default 100, 0 = no cut)
  --include-vendored               read node_modules, vendor, bower_components and *.min.js paths too
                                   (minified or generated content is still skipped, and named)
  --file-budget SECONDS            time one file may take to read (default ${DEFAULT_FILE_BUDGET_MS / 1000}); files are read on a
                                   thread of their own, and a file past this budget, or one that exhausts
                                   that thread's memory, is skipped and named on stderr with the reason`;

export const scanCommand: Command = {
  name: 'scan',
  summary: 'list the SQL statements in an app\'s source (file:line, function, loops)',
  help: HELP,
  async run(args: string[], io: CommandIo): Promise<number> {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { format: { type: 'string' }, width: { type: 'string' }, 'include-vendored': { type: 'boolean' }, 'file-budget': { type: 'string' } } });
    const format = parseFormat(values.format, FORMATS);
    const width = values.width === undefined ? 100 : Number(values.width);
    if (!Number.isInteger(width) || width < 0) throw new UsageError(`--width must be a whole number (got "${values.width}")`);
    const budget = values['file-budget'] === undefined ? DEFAULT_FILE_BUDGET_MS / 1000 : Number(values['file-budget']);
    if (!Number.isFinite(budget) || budget <= 0) throw new UsageError(`--file-budget must be a number of seconds above 0 (got "${values['file-budget']}")`);
    const root = await directoryOperand(positionals, io);

    const job: ScanJob = { root, format, width, includeVendored: values['include-vendored'] === true, started: Date.now() };
    // why: this thread only watches (see scanOnThread), so it loads none of the engine: the thread does the scan.
    const script = scanThreadScript();
    if (!script) throw new Error('the scan thread (scanThread.js) is not built: run `node scripts/build.mjs`');
    const chunks = await scanOnThread(script, job, Math.round(budget * 1000));
    for (const c of chunks) (c.stderr ? io.stderr : io.stdout).write(c.text);
    return 0;
  },
};

/** The scan thread's script: dist/cli/scanThread.js beside this bundle, or out/src/cli/scanThread.js beside commands/. */
function scanThreadScript(): string | undefined {
  return [join(__dirname, 'scanThread.js'), join(__dirname, '..', 'scanThread.js')].find((p) => existsSync(p));
}

/**
 * How long until the watcher's next look, when the file it sees has `leftMs` before its own deadline. Never
 * later than one budget: a file seen while its grammar loads (a minute's allowance) may be done a moment
 * later, and a file that starts after this look is past its budget no sooner than one budget from now.
 */
export function nextLookMs(leftMs: number, budgetMs: number): number {
  return Math.min(leftMs, budgetMs) + 1;
}

/**
 * The scan thread's young generation, at most (V8 gives a third of it to each of its two halves that objects are copied
 * between). why: the scan keeps every file's facts until its report and each young-generation collection copies what is
 * still alive; with halves of up to 64 MB instead of 16 MB there are fewer of them, and the command took 0.94x the CPU
 * (median of 6 pinned pairs over two sittings on bench/scan.mjs's 10,000 files; 0.77-0.97 but for one pair at 1.27) for
 * about 90 MB more at its peak.
 */
const YOUNG_GENERATION_MB = 192;

/**
 * Runs the scan on a thread of its own (scanThread.ts) and returns its output. This thread watches the file
 * being read through cells the other one writes before each file: a file past `budgetMs` (or its grammar's
 * load past START_MS), or one during which the thread runs out of memory or stops, is given up on. The
 * thread is stopped and a fresh one scans again, told to skip that file (and any before it) with the reason:
 * files are read in the same order, so the output is the one a per-file reader would print.
 */
async function scanOnThread(script: string, job: ScanJob, budgetMs: number): Promise<ScanChunk[]> {
  // why: the thread holds every file's facts until the report, as this thread would; its heap may hold what
  // this one could, and the allowance of the file being read on top.
  const memoryMb = DEFAULT_THREAD_MEMORY_MB;
  const heapMb = Math.round(getHeapStatistics().heap_size_limit / 1048576) + memoryMb;
  // why: on the one CPU this process may run on (taskset, a container's cpuset), V8's background collector threads
  // (concurrent marking and sweeping) only take turns with the scan: set before the thread starts, as its heap reads them
  // when it is made; 0.92x and 0.95x the command's CPU (medians of 5 and 4 pinned pairs, loaded machine), output identical.
  if (availableParallelism() === 1) setFlagsFromString('--single-threaded-gc');
  const skip = new Map<string, string>();
  for (;;) {
    const progress = new SharedArrayBuffer(16);
    const cells = new Int32Array(progress, 0, 2);
    const since = new Float64Array(progress, 8, 1);
    const workerData: ScanThreadData = { job: { ...job, skip: [...skip] }, progress };
    const w = new Worker(script, { workerData, resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB }, stdout: true, stderr: true });
    // why: the thread prints nothing of its own; piped and dropped, a crash report cannot reach the terminal.
    w.stdout.resume();
    w.stderr.resume();
    let files: string[] = [];
    const outcome = await new Promise<{ chunks: ScanChunk[] } | { lost: string; reason: string } | { error: string }>((settle) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (o: { chunks: ScanChunk[] } | { lost: string; reason: string } | { error: string }): void => {
        clearTimeout(timer);
        w.removeAllListeners();
        settle(o);
      };
      /** The file being read (or loading its grammar), or undefined. */
      const current = (): { file: string; loading: boolean; since: number } | undefined => {
        const n = Atomics.load(cells, 0);
        return n > 0 && files[n - 1] !== undefined ? { file: files[n - 1]!, loading: Atomics.load(cells, 1) === 1, since: since[0]! } : undefined;
      };
      const lostIn = (reason: string, otherwise: string): void => {
        const at = current();
        done(at ? { lost: at.file, reason } : { error: otherwise });
      };
      // why: one look at each file's deadline, not a message per file: a file seen at a look is looked at again
      // when its time is up, and given up on if it is still the one being read.
      const watch = (): void => {
        const at = current();
        const now = Date.now();
        if (at) {
          const limit = at.loading ? START_MS : budgetMs;
          if (now - at.since >= limit) {
            void w.terminate();
            done({ lost: at.file, reason: at.loading ? NOT_STARTED_REASON : overBudgetReason(budgetMs) });
            return;
          }
          timer = setTimeout(watch, nextLookMs(at.since + limit - now, budgetMs));
        } else timer = setTimeout(watch, Math.min(budgetMs, 1000));
      };
      w.on('message', (m: ScanThreadMessage) => {
        if ('listed' in m) {
          files = m.listed;
          watch();
        } else if ('chunks' in m) done({ chunks: m.chunks });
        else done({ error: m.error });
      });
      w.on('error', (err: Error & { code?: string }) => lostIn(crashReason(err, memoryMb), `the scan failed (${err.message})`));
      w.on('exit', (code) => lostIn(stopReason(code), `the scan stopped (exit code ${code})`));
    });
    void w.terminate();
    if ('chunks' in outcome) return outcome.chunks;
    if ('error' in outcome) throw new Error(outcome.error);
    skip.set(outcome.lost, outcome.reason);
  }
}
