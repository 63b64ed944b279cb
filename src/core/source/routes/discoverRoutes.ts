/**
 * Route discovery: the route definitions of one source file, with their handlers. Tree-sitter
 * grammars go through one walker (routeWalker.ts); Perl through its lexer (perlRoutes.ts).
 */
import type { FileError, Language, Route } from '../../model';
import type { SyntaxTree } from '../syntaxTree';
import { grammarFor, parseSyntax, type ParserSet } from '../lang/treeSitter/treeSitter';
import { discoverPerlRoutes } from '../lang/perl/perlRoutes';
import { detectFramework, RouteWalker } from '../lang/treeSitter/routeWalker';

/** A file without a quoted path (`"/…`) or a Laravel facade defines no route; checked before parsing. */
const MAY_HAVE_ROUTES = /["'`]\/|Route::|#\[\s*(?:get|post|put|delete|patch|route)\b/;

/**
 * Finds the routes one file defines: method, pattern with group prefixes applied, framework, the
 * definition's range, and the handler (its name; its file and range when it is in this file or
 * anonymous). `parsers` must already hold the file's grammar (as for extractFacts); without it the
 * answer is empty. `tree`, when given, is the file already parsed by that grammar.
 * Never throws: a failure is reported in `errors` when given.
 */
export function discoverRoutes(file: string, text: string, language: Language, parsers: ParserSet, errors?: FileError[], tree?: SyntaxTree): Route[] {
  try {
    if (language === 'perl') return discoverPerlRoutes(file, text);
    if (!MAY_HAVE_ROUTES.test(text)) return [];
    const grammar = grammarFor(language, file);
    const parser = grammar ? parsers.get(grammar) : undefined;
    if (!grammar || !parser) return [];
    return new RouteWalker(file, grammar, detectFramework(grammar, text)).run(tree ?? parseSyntax(parser, text));
  } catch (err) {
    errors?.push({ file, message: `route discovery failed: ${err instanceof Error ? err.message : String(err)}` });
    return [];
  }
}
