/**
 * The FactsProvider the extension uses: core's extractors (tree-sitter grammars from dist/grammars,
 * Perl by its lexer), with the facts of each file kept by content hash so that an event for an
 * unchanged file (a save, a focus change, an undo back to the saved text) costs a hash.
 */
import { createHash } from 'node:crypto';
import type { FileFacts } from '../core/model';
import { extractFacts, languageForPath } from '../core/source/extract';
import { extractPerl } from '../core/source/perl/extractPerl';
import { ParserSet } from '../core/source/treeSitter';
import { fsGrammarSource } from '../node/grammars';
import type { FactsProvider } from './siteIndex';

export function coreFactsProvider(grammarDir?: string): FactsProvider {
  const parsers = new ParserSet(fsGrammarSource(grammarDir));
  const byFile = new Map<string, { hash: string; facts: FileFacts }>();
  return {
    accepts: (file) => languageForPath(file) !== undefined,
    async factsOf(file, text) {
      const language = languageForPath(file);
      if (!language) return undefined;
      const hash = createHash('sha1').update(text).digest('hex');
      const cached = byFile.get(file);
      if (cached?.hash === hash) return cached.facts;
      let facts: FileFacts;
      if (language === 'perl') facts = extractPerl(file, text);
      else {
        await parsers.loadFor([language]);
        facts = extractFacts(file, text, language, parsers);
      }
      byFile.set(file, { hash, facts });
      return facts;
    },
  };
}
