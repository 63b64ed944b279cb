/**
 * Every language the engine reads, by its traits (adapter.ts lists what an adapter provides; the
 * readers are joined to these in readers.ts). To add a tree-sitter language: its grammar's tables in
 * treeSitter/languageSpecs.ts and treeSitter/routeSyntax.ts, and a row here.
 */
import type { Language } from '../../model';
import type { CallRules, LanguageTraits } from './adapter';
import { perlTraits } from './perl/adapter';
import { PROFILE_FRAMES } from './profileFrames';
import { treeSitterTraits } from './treeSitter/adapter';
import { TRUTHINESS } from './truthiness';

const plainCalls = (family: string): CallRules => ({ family, plainReceiverIsSelf: false, bareCallReachesMethods: false, preparedHandleRunsLater: false });
const JSX = { path: /\.[jt]sx$/i, grammar: 'tsx' } as const;

export const LANGUAGES: Readonly<Record<Language, LanguageTraits>> = {
  go: treeSitterTraits({
    language: 'go', extensions: ['go'], grammar: 'go',
    calls: { ...plainCalls('go'), plainReceiverIsSelf: true },
    truthiness: TRUTHINESS.go, lineComment: '//', profileFrames: PROFILE_FRAMES.go,
  }),
  ruby: treeSitterTraits({
    language: 'ruby', extensions: ['rb', 'ru', 'rake'], grammar: 'ruby',
    calls: { ...plainCalls('ruby'), bareCallReachesMethods: true },
    truthiness: TRUTHINESS.ruby, lineComment: '#', profileFrames: PROFILE_FRAMES.ruby,
  }),
  python: treeSitterTraits({
    language: 'python', extensions: ['py'], grammar: 'python',
    calls: plainCalls('python'), truthiness: TRUTHINESS.python, lineComment: '#', profileFrames: PROFILE_FRAMES.python,
  }),
  php: treeSitterTraits({
    language: 'php', extensions: ['php'], grammar: 'php',
    calls: plainCalls('php'), truthiness: TRUTHINESS.php, lineComment: '//', profileFrames: PROFILE_FRAMES.php,
  }),
  javascript: treeSitterTraits({
    language: 'javascript', extensions: ['js', 'mjs', 'cjs', 'jsx'], grammar: 'javascript', byPath: JSX,
    calls: plainCalls('javascript'), truthiness: TRUTHINESS.javascript, lineComment: '//', profileFrames: PROFILE_FRAMES.javascript,
  }),
  typescript: treeSitterTraits({
    language: 'typescript', extensions: ['ts', 'mts', 'cts', 'tsx'], grammar: 'typescript', byPath: JSX,
    calls: plainCalls('javascript'), truthiness: TRUTHINESS.typescript, lineComment: '//', profileFrames: PROFILE_FRAMES.typescript,
  }),
  perl: perlTraits,
  rust: treeSitterTraits({
    language: 'rust', extensions: ['rs'], grammar: 'rust',
    calls: plainCalls('rust'), truthiness: TRUTHINESS.rust, lineComment: '//', profileFrames: PROFILE_FRAMES.rust,
  }),
};

/** What the engine knows of `language` without reading its files. */
export function traitsOf(language: Language): LanguageTraits {
  return LANGUAGES[language];
}
