/**
 * The FactsProvider the extension uses: files are parsed on the source reader's thread (FactsWorker,
 * with its FactsCache: facts per file, kept by content hash, so an event for an unchanged file costs a
 * hash), over the tree-sitter grammars shipped in dist/grammars. The extension host never parses: a file
 * past its time budget, or one that exhausts or crashes the thread, is skipped (FileSkipped) and the
 * thread restarts for the next file.
 */
import { languageForPath } from '../core/source/languageOf';
import { FactsWorker } from '../node/factsWorker';
import type { FactsProvider } from './siteIndex';

export interface WorkerFactsProvider extends FactsProvider {
  /** A new time budget per file, in milliseconds. */
  setBudget(ms: number): void;
  dispose(): void;
}

export function workerFactsProvider(grammarDir: string, budgetMs: number): WorkerFactsProvider {
  let worker = new FactsWorker({ grammarDir, budgetMs });
  return {
    accepts: (file) => languageForPath(file) !== undefined,
    factsOf: (file, text) => worker.update(file, text),
    forget: (file) => worker.forget(file),
    setBudget: (ms) => {
      if (ms === worker.budgetMs) return;
      worker.dispose();
      worker = new FactsWorker({ grammarDir, budgetMs: ms });
    },
    dispose: () => worker.dispose(),
  };
}
