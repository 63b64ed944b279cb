/**
 * Extracts source files' facts on a thread of their own (factsThread.ts), one file at a time, with a
 * budget per file: a file that takes longer than the time budget, or that exhausts the thread's memory
 * or crashes it, is skipped with its reason (FileSkipped); the thread is stopped and a fresh one reads
 * the next file. The caller's thread (the editor's extension host, the CLI) never parses, so one bad
 * file can neither freeze nor kill it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FileFacts, Language } from '../core/model';
import type { ExtractOptions } from '../core/source/readFacts';
import { languageForPath } from '../core/source/languageOf';
import { traitsOf } from '../core/source/lang/languages';
import type { FactsRequest, FactsThreadData } from './factsThread';

import { crashReason, DEFAULT_FILE_BUDGET_MS, DEFAULT_THREAD_MEMORY_MB, FileSkipped, NOT_STARTED_REASON, overBudgetReason, START_MS, stopReason } from './fileSkips';

export { DEFAULT_FILE_BUDGET_MS, DEFAULT_THREAD_MEMORY_MB, FileSkipped, START_MS } from './fileSkips';

export interface FactsWorkerOptions {
  /** Wall-clock time one file may take, in milliseconds (default DEFAULT_FILE_BUDGET_MS). */
  budgetMs?: number;
  /** The thread's old-generation heap limit in MiB (default DEFAULT_THREAD_MEMORY_MB). */
  memoryMb?: number;
  /** Where the grammar wasm files are (default: beside the bundle, see grammars.ts). */
  grammarDir?: string;
  extract?: ExtractOptions;
  /** False: the thread keeps no file's facts once sent, for a caller that asks about each file once (default true). */
  keep?: boolean;
  /** The thread's script (default: factsThread.js beside this code). */
  script?: string;
}

/** The thread's script beside this code (dist/factsThread.js, out/src/node/factsThread.js), if built. */
export function factsThreadScript(): string | undefined {
  const path = join(__dirname, 'factsThread.js');
  return existsSync(path) ? path : undefined;
}

type Reply = { id: number; reading?: true; facts?: FileFacts; error?: string };

export class FactsWorker {
  private worker: Worker | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private disposed = false;
  /** Threads started so far (the first, and one after each file that cost its thread). */
  restarts = -1;
  readonly budgetMs: number;
  private readonly memoryMb: number;
  private readonly script: string;
  /** Grammars the current thread has loaded (it has read a file of each), and '' once it has answered: see `timed`. */
  private readonly loaded = new Set<string>();

  constructor(private readonly options: FactsWorkerOptions = {}) {
    this.budgetMs = options.budgetMs ?? DEFAULT_FILE_BUDGET_MS;
    this.memoryMb = options.memoryMb ?? DEFAULT_THREAD_MEMORY_MB;
    const script = options.script ?? factsThreadScript();
    if (!script) throw new Error('the source reader thread (factsThread.js) is not built');
    this.script = script;
  }

  /**
   * The facts of `file` with content `text` (undefined when its language is not one we read); rejects
   * with FileSkipped when the file is past its budget or cost the thread. Calls run one after another.
   */
  update(file: string, text: string, language?: Language): Promise<FileFacts | undefined> {
    const run = this.queue.then(() => this.extract(file, text, language));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Drops what the thread keeps for a deleted file. */
  forget(file: string): void {
    this.worker?.postMessage({ kind: 'forget', file } satisfies FactsRequest);
  }

  dispose(): void {
    this.disposed = true;
    this.stop();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const workerData: FactsThreadData = { grammarDir: this.options.grammarDir, extract: this.options.extract, keep: this.options.keep };
    const w = new Worker(this.script, { workerData, resourceLimits: { maxOldGenerationSizeMb: this.memoryMb }, stdout: true, stderr: true });
    // why: an idle thread must not keep the CLI's process alive; a file being read has its budget timer.
    w.unref();
    // why: the thread prints nothing of its own; piped and dropped, a crash report cannot reach the terminal.
    w.stdout.resume();
    w.stderr.resume();
    this.worker = w;
    this.loaded.clear();
    this.restarts++;
    return w;
  }

  private stop(): void {
    const w = this.worker;
    this.worker = undefined;
    if (w) void w.terminate();
  }

  private extract(file: string, text: string, language?: Language): Promise<FileFacts | undefined> {
    if (this.disposed) return Promise.reject(new Error('the source reader was closed'));
    const w = this.start();
    const id = this.nextId++;
    const lang = language ?? languageForPath(file);
    const grammar = lang ? traitsOf(lang).grammarFor(file) : undefined;
    // why: a thread that is up and has the file's grammar loaded starts reading at once, so the budget runs from here
    // and the thread need not say that it starts (a message more per file was a share of a scan's time on one core).
    const timed = this.loaded.has('') && (!grammar || this.loaded.has(grammar));
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (): boolean => {
        if (done) return false;
        done = true;
        clearTimeout(timer);
        w.off('message', onMessage);
        w.off('error', onError);
        w.off('exit', onExit);
        return true;
      };
      const lost = (reason: string): void => {
        if (!finish()) return;
        if (this.worker === w) this.stop();
        reject(new FileSkipped(file, reason));
      };
      const overBudget = (): void => lost(overBudgetReason(this.budgetMs));
      const onMessage = (m: Reply): void => {
        if (m.id !== id) return;
        if (m.reading) {
          // why: starting a thread and compiling a grammar cost the same for every file; the budget is the file's own.
          clearTimeout(timer);
          timer = setTimeout(overBudget, this.budgetMs);
          return;
        }
        if (!finish()) return;
        if (m.error !== undefined) reject(new Error(m.error));
        else {
          if (this.worker === w) this.loaded.add(grammar ?? '').add('');
          resolve(m.facts);
        }
      };
      const onError = (err: Error & { code?: string }): void => lost(crashReason(err, this.memoryMb));
      const onExit = (code: number): void => lost(stopReason(code));
      let timer = timed ? setTimeout(overBudget, this.budgetMs) : setTimeout(() => lost(NOT_STARTED_REASON), START_MS);
      w.on('message', onMessage);
      w.on('error', onError);
      w.on('exit', onExit);
      w.postMessage({ kind: 'update', id, file, text, language, timed } satisfies FactsRequest);
    });
  }
}
