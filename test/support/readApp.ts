/** One source file read as the scan reads it (routes left out), for tests of what the engine makes of a small app. */
import type { FileFacts, Language } from '../../src/core/model';
import { extractFacts } from '../../src/core/source/readFacts';
import { ParserSet } from '../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../src/node/grammars';

const parsers = new ParserSet(fsGrammarSource());

/** The facts of `text` as file `file` of `language`, its grammar loaded first. */
export async function readApp(file: string, text: string, language: Language): Promise<FileFacts> {
  await parsers.loadFor([language]);
  return extractFacts(file, text, language, parsers, { routes: false });
}
