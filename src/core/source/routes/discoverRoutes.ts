/**
 * Route discovery: the route definitions of one source file, with their handlers, read by the
 * file's language adapter (tree-sitter languages: lang/treeSitter/routes.ts; Perl: lang/perl/perlRoutes.ts).
 */
import type { FileError, Language, Route } from '../../model';
import type { SyntaxTree } from '../syntaxTree';
import type { ParserSet } from '../lang/treeSitter/treeSitter';
import { adapterFor } from '../lang/readers';

/**
 * Finds the routes one file defines: method, pattern with group prefixes applied, framework, the
 * definition's range, and the handler (its name; its file and range when it is in this file or
 * anonymous). `parsers` must already hold the file's grammar (as for extractFacts); without it the
 * answer is empty. `tree`, when given, is the file already parsed by that grammar.
 * Never throws: a failure is reported in `errors` when given.
 */
export function discoverRoutes(file: string, text: string, language: Language, parsers: ParserSet, errors?: FileError[], tree?: SyntaxTree): Route[] {
  try {
    return adapterFor(language).routes(file, text, parsers, tree, errors);
  } catch (err) {
    errors?.push({ file, message: `route discovery failed: ${err instanceof Error ? err.message : String(err)}` });
    return [];
  }
}
