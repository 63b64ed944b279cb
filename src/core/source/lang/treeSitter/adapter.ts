/**
 * The traits every tree-sitter language shares the shape of: a row of data each (lang/languages.ts).
 * What reads their files, one walker driven by each grammar's tables, is treeSitter/reader.ts.
 */
import type { Language } from '../../../model';
import type { CallRules, LanguageTraits } from '../adapter';
import type { ProfileFrameRules } from '../profileFrames';
import type { Truthiness } from '../truthiness';
import type { GrammarName } from './treeSitter';

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

export function treeSitterTraits(row: TreeSitterLanguage): LanguageTraits {
  return {
    language: row.language,
    reader: 'treeSitter',
    extensions: row.extensions,
    grammars: row.byPath ? [row.grammar, row.byPath.grammar] : [row.grammar],
    grammarFor: (path: string): GrammarName => (row.byPath?.path.test(path) ? row.byPath.grammar : row.grammar),
    calls: row.calls,
    truthiness: row.truthiness,
    lineComment: row.lineComment,
    profileFrames: row.profileFrames,
  };
}
