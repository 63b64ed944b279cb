/**
 * The limits of a source reader's thread and the words for a file it gives up on (FileSkipped): shared by the
 * editor's per-file reader (factsWorker.ts) and the `scan` command's thread, and light, so the command's own
 * thread, which only watches, loads none of the engine.
 */

/** Default time budget per file, in milliseconds. */
export const DEFAULT_FILE_BUDGET_MS = 10_000;
/** How long a fresh thread may take to start and load a grammar, before the budget of the file itself starts. */
export const START_MS = 60_000;
/** Default heap limit of the reading thread, in MiB. */
export const DEFAULT_THREAD_MEMORY_MB = 1024;

/** A file the reader gave up on; `reason` says why in words (never quoting the file). */
export class FileSkipped extends Error {
  constructor(readonly file: string, readonly reason: string) {
    super(`${file}: skipped, ${reason}`);
    this.name = 'FileSkipped';
  }
}

export const overBudgetReason = (budgetMs: number): string => `reading it took longer than ${formatSeconds(budgetMs)} (the time budget per file)`;
export const NOT_STARTED_REASON = `the reader did not start within ${formatSeconds(START_MS)}`;
export const stopReason = (code: number): string => `the reader stopped while reading it (exit code ${code})`;
export function crashReason(err: Error & { code?: string }, memoryMb: number): string {
  return err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `reading it ran out of memory (the limit per file is ${memoryMb} MiB)` : `reading it crashed the reader (${err.message})`;
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
