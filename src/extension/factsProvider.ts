/**
 * The FactsProvider the extension uses: core's FactsCache (facts per file, kept by content hash, so
 * an event for an unchanged file — a save, an undo back to the saved text — costs a hash) over the
 * tree-sitter grammars shipped in dist/grammars.
 */
import { languageForPath } from '../core/source/languageOf';
import { ParserSet } from '../core/source/treeSitter';
import { FactsCache } from '../core/workspace';
import { fsGrammarSource } from '../node/grammars';
import type { FactsProvider } from './siteIndex';

export function coreFactsProvider(grammarDir?: string): FactsProvider {
  const cache = new FactsCache(new ParserSet(fsGrammarSource(grammarDir)));
  return {
    accepts: (file) => languageForPath(file) !== undefined,
    factsOf: (file, text) => cache.update(file, text),
    forget: (file) => cache.remove(file),
  };
}
