/**
 * The source reader's thread (factsWorker.ts starts it): extracts one file's facts at a time through
 * its own FactsCache and sends them back as plain data. Parsing runs here, off the thread of whoever
 * asked, so a file that takes too long or exhausts the thread's memory costs only this thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Language } from '../core/model';
import type { ExtractOptions } from '../core/source/readFacts';
import { languageForPath } from '../core/source/languageOf';
import { grammarFor, ParserSet } from '../core/source/lang/treeSitter/treeSitter';
import { FactsCache } from '../core/workspace';
import { fsGrammarSource } from './grammars';

/** What the thread is started with (workerData). */
export interface FactsThreadData {
  grammarDir?: string;
  extract?: ExtractOptions;
  /** False: keep no file's facts once sent (a scan asks about each file once); default true (the editor asks again). */
  keep?: boolean;
}

/** A request: extract `file` (`id` answers it; `timed`: say nothing when reading starts), or forget what is kept for it. */
export type FactsRequest =
  | { kind: 'update'; id: number; file: string; text: string; language?: Language; timed?: boolean }
  | { kind: 'forget'; file: string };

const data = (workerData ?? {}) as FactsThreadData;
const parsers = new ParserSet(fsGrammarSource(data.grammarDir));
const cache = new FactsCache(parsers, data.extract);

/** Loads the file's grammar (once per thread), then says that reading starts: the budget counts from there. */
async function read(req: Extract<FactsRequest, { kind: 'update' }>) {
  const language = req.language ?? languageForPath(req.file);
  const grammar = language && grammarFor(language, req.file);
  if (grammar) await parsers.load(grammar);
  // `timed`: the asker knows this thread has the grammar and runs the budget from its request.
  if (!req.timed) parentPort!.postMessage({ id: req.id, reading: true });
  const facts = await cache.update(req.file, req.text, language);
  // why: facts kept after they are sent live on in this thread's old generation, which a scan of thousands of files
  // then copies and marks again and again for nothing.
  if (data.keep === false) cache.remove(req.file);
  return facts;
}

parentPort?.on('message', (req: FactsRequest) => {
  if (req.kind === 'forget') {
    cache.remove(req.file);
    return;
  }
  read(req).then(
    (facts) => parentPort!.postMessage({ id: req.id, facts }),
    // why: only the error's message crosses over, never the text being read.
    (err: unknown) => parentPort!.postMessage({ id: req.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
