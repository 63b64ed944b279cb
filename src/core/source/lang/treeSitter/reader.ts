/**
 * The reader shared by every tree-sitter language: one walker (extract.ts) and one route walker
 * (routeWalker.ts), each driven by the grammar's data tables (languageSpecs.ts, routeSyntax.ts).
 */
import type { LanguageReader, LanguageTraits } from '../adapter';
import { extractTreeSitter } from '../../extract';
import { treeSitterRoutes } from './routes';

export function treeSitterReader(traits: LanguageTraits): LanguageReader {
  const grammarOf = (file: string) => {
    const g = traits.grammarFor(file);
    if (!g) throw new Error(`${traits.language} has no tree-sitter grammar for ${file}`);
    return g;
  };
  return {
    extract: (file, text, parsers, options) => extractTreeSitter(file, text, traits.language, grammarOf(file), parsers, options),
    routes: (file, text, parsers, tree) => treeSitterRoutes(file, text, grammarOf(file), parsers, tree),
  };
}
