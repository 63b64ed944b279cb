/**
 * Every language the engine reads, each by its adapter (adapter.ts lists what one provides).
 * To add a tree-sitter language: its grammar's tables in treeSitter/languageSpecs.ts and
 * treeSitter/routeSyntax.ts, and a row here.
 */
import type { Language } from '../../model';
import type { CallRules, LanguageAdapter } from './adapter';
import { perlAdapter } from './perl/adapter';
import { PROFILE_FRAMES } from './profileFrames';
import { treeSitterAdapter } from './treeSitter/adapter';
import { TRUTHINESS } from './truthiness';

const plainCalls = (family: string): CallRules => ({ family, plainReceiverIsSelf: false, bareCallReachesMethods: false, preparedHandleRunsLater: false });
const JSX = { path: /\.[jt]sx$/i, grammar: 'tsx' } as const;

export const ADAPTERS: Readonly<Record<Language, LanguageAdapter>> = {
  go: treeSitterAdapter({
    language: 'go', extensions: ['go'], grammar: 'go',
    calls: { ...plainCalls('go'), plainReceiverIsSelf: true },
    truthiness: TRUTHINESS.go, lineComment: '//', profileFrames: PROFILE_FRAMES.go,
  }),
  ruby: treeSitterAdapter({
    language: 'ruby', extensions: ['rb', 'ru', 'rake'], grammar: 'ruby',
    calls: { ...plainCalls('ruby'), bareCallReachesMethods: true },
    truthiness: TRUTHINESS.ruby, lineComment: '#', profileFrames: PROFILE_FRAMES.ruby,
  }),
  python: treeSitterAdapter({
    language: 'python', extensions: ['py'], grammar: 'python',
    calls: plainCalls('python'), truthiness: TRUTHINESS.python, lineComment: '#', profileFrames: PROFILE_FRAMES.python,
  }),
  php: treeSitterAdapter({
    language: 'php', extensions: ['php'], grammar: 'php',
    calls: plainCalls('php'), truthiness: TRUTHINESS.php, lineComment: '//', profileFrames: PROFILE_FRAMES.php,
  }),
  javascript: treeSitterAdapter({
    language: 'javascript', extensions: ['js', 'mjs', 'cjs', 'jsx'], grammar: 'javascript', byPath: JSX,
    calls: plainCalls('javascript'), truthiness: TRUTHINESS.javascript, lineComment: '//', profileFrames: PROFILE_FRAMES.javascript,
  }),
  typescript: treeSitterAdapter({
    language: 'typescript', extensions: ['ts', 'mts', 'cts', 'tsx'], grammar: 'typescript', byPath: JSX,
    calls: plainCalls('javascript'), truthiness: TRUTHINESS.typescript, lineComment: '//', profileFrames: PROFILE_FRAMES.typescript,
  }),
  perl: perlAdapter,
  rust: treeSitterAdapter({
    language: 'rust', extensions: ['rs'], grammar: 'rust',
    calls: plainCalls('rust'), truthiness: TRUTHINESS.rust, lineComment: '//', profileFrames: PROFILE_FRAMES.rust,
  }),
};

/** The adapter that reads `language`. */
export function adapterFor(language: Language): LanguageAdapter {
  return ADAPTERS[language];
}
