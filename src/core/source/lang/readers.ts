/**
 * Each language's whole adapter: its traits (languages.ts) with the reader of its kind. Imported only
 * where files are read (readFacts.ts, route discovery), so what merely judges does not carry the
 * readers and the parser runtime.
 */
import type { Language } from '../../model';
import type { LanguageAdapter, LanguageReader, LanguageTraits, ReaderKind } from './adapter';
import { traitsOf } from './languages';
import { perlReader } from './perl/reader';
import { treeSitterReader } from './treeSitter/reader';

const READERS: Readonly<Record<ReaderKind, (traits: LanguageTraits) => LanguageReader>> = {
  treeSitter: treeSitterReader,
  perl: () => perlReader,
};

const adapters = new Map<Language, LanguageAdapter>();

/** The adapter that reads `language`. */
export function adapterFor(language: Language): LanguageAdapter {
  let a = adapters.get(language);
  if (!a) {
    const traits = traitsOf(language);
    a = { ...traits, ...READERS[traits.reader](traits) };
    adapters.set(language, a);
  }
  return a;
}
