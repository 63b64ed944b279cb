/**
 * Reading one source file into facts: the file's language adapter (lang/languages.ts) does it,
 * the same call for every language.
 */
import type { FileFacts, Language } from '../model';
import type { ExtractOptions } from './lang/adapter';
import { adapterFor } from './lang/readers';
import type { ParserSet } from './lang/treeSitter/treeSitter';

export type { ExtractOptions } from './lang/adapter';
export { languageForPath } from './languageOf';

/**
 * Extracts the SQL sites, functions and calls of one file, by its language's adapter. `parsers`
 * must already hold the file's grammar (ParserSet.load / loadFor) where the language has one;
 * otherwise, as when the file cannot be read, the facts carry a FileError instead of throwing.
 * Routes are discovered too unless `options.routes` is false (a caller that never reads them, as
 * the `scan` command, spares their walk).
 */
export function extractFacts(file: string, text: string, language: Language, parsers: ParserSet, options: ExtractOptions = {}): FileFacts {
  return adapterFor(language).extract(file, text, parsers, options);
}
