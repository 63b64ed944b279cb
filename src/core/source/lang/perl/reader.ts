/** Perl's reader: its own lexer and extractor (extractPerl.ts) and route reader (perlRoutes.ts). */
import type { FileFacts } from '../../../model';
import type { LanguageReader } from '../adapter';
import { extractPerl } from './extractPerl';
import { discoverPerlRoutes } from './perlRoutes';

export const perlReader: LanguageReader = {
  extract(file, text, _parsers, options): FileFacts {
    try {
      return extractPerl(file, text, options.routes !== false);
    } catch (err) {
      const facts: FileFacts = { file, language: 'perl', sites: [], functions: [], calls: [], routes: [], errors: [], imports: [] };
      facts.errors.push({ file, message: `extraction failed: ${(err as Error).message ?? String(err)}` });
      return facts;
    }
  },
  routes: (file, text) => discoverPerlRoutes(file, text),
};
