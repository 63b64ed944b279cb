/** Perl's adapter: read by its own lexer (perlLexer.ts), as there is no tree-sitter grammar for it here. */
import type { FileFacts } from '../../../model';
import type { LanguageAdapter } from '../adapter';
import { PROFILE_FRAMES } from '../profileFrames';
import { TRUTHINESS } from '../truthiness';
import { extractPerl } from './extractPerl';
import { discoverPerlRoutes } from './perlRoutes';

export const perlAdapter: LanguageAdapter = {
  language: 'perl',
  extensions: ['pl', 'pm', 'psgi', 't'],
  grammars: [],
  grammarFor: () => undefined,
  extract(file, text, _parsers, options): FileFacts {
    try {
      return extractPerl(file, text, options.routes !== false);
    } catch (err) {
      const facts: FileFacts = { file, language: 'perl', sites: [], functions: [], calls: [], routes: [], errors: [] };
      facts.errors.push({ file, message: `extraction failed: ${(err as Error).message ?? String(err)}` });
      return facts;
    }
  },
  routes: (file, text) => discoverPerlRoutes(file, text),
  calls: { family: 'perl', plainReceiverIsSelf: false, bareCallReachesMethods: true, preparedHandleRunsLater: true },
  truthiness: TRUTHINESS.perl,
  lineComment: '#',
  profileFrames: PROFILE_FRAMES.perl,
};
