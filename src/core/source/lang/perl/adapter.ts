/** Perl's traits; its files are read by its own lexer (perl/reader.ts), as there is no tree-sitter grammar for it here. */
import type { LanguageTraits } from '../adapter';
import { PROFILE_FRAMES } from '../profileFrames';
import { TRUTHINESS } from '../truthiness';

export const perlTraits: LanguageTraits = {
  language: 'perl',
  reader: 'perl',
  extensions: ['pl', 'pm', 'psgi', 't'],
  grammars: [],
  grammarFor: () => undefined,
  calls: { family: 'perl', plainReceiverIsSelf: false, bareCallReachesMethods: true, preparedHandleRunsLater: true },
  truthiness: TRUTHINESS.perl,
  lineComment: '#',
  profileFrames: PROFILE_FRAMES.perl,
};
