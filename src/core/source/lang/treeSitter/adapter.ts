/**
 * The adapter shared by every tree-sitter language: one walker (extract.ts) and one route walker
 * (routeWalker.ts), each driven by its grammar's data tables (languageSpecs.ts, routeSyntax.ts).
 * A language adds a row: its grammar, extensions, call rules and the tables the engine reads.
 */
import type { Language } from '../../../model';
import type { CallRules, LanguageAdapter } from '../adapter';
import type { ProfileFrameRules } from '../profileFrames';
import type { Truthiness } from '../truthiness';
import type { GrammarName } from './treeSitter';
import { extractTreeSitter } from '../../extract';
import { treeSitterRoutes } from './routes';

export interface TreeSitterLanguage {
  language: Language;
  extensions: readonly string[];
  /** The grammar of the language's files. */
  grammar: GrammarName;
  /** Files whose path matches take another grammar (`.tsx` / `.jsx`: the tsx grammar). */
  byPath?: { path: RegExp; grammar: GrammarName };
  calls: CallRules;
  truthiness: Truthiness;
  lineComment: string;
  profileFrames: ProfileFrameRules;
}

export function treeSitterAdapter(row: TreeSitterLanguage): LanguageAdapter {
  const grammarFor = (path: string): GrammarName => (row.byPath?.path.test(path) ? row.byPath.grammar : row.grammar);
  return {
    language: row.language,
    extensions: row.extensions,
    grammars: row.byPath ? [row.grammar, row.byPath.grammar] : [row.grammar],
    grammarFor,
    extract: (file, text, parsers, options) => extractTreeSitter(file, text, row.language, grammarFor(file), parsers, options),
    routes: (file, text, parsers, tree) => treeSitterRoutes(file, text, grammarFor(file), parsers, tree),
    calls: row.calls,
    truthiness: row.truthiness,
    lineComment: row.lineComment,
    profileFrames: row.profileFrames,
  };
}
