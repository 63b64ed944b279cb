/** Route discovery for the tree-sitter languages: one walker (routeWalker.ts) over the grammar's route syntax table. */
import type { Route } from '../../../model';
import type { SyntaxTree } from '../../syntaxTree';
import { parseSyntax, type GrammarName, type ParserSet } from './treeSitter';
import { detectFramework, RouteWalker } from './routeWalker';

/** A file without a quoted path (`"/…`) or a Laravel facade defines no route; checked before parsing. */
const MAY_HAVE_ROUTES = /["'`]\/|Route::|#\[\s*(?:get|post|put|delete|patch|route)\b/;

/**
 * The routes one file defines, read by `grammar`. `parsers` must already hold the grammar (as for
 * extraction); without it the answer is empty. `tree`, when given, is the file already parsed by that grammar.
 */
export function treeSitterRoutes(file: string, text: string, grammar: GrammarName, parsers: ParserSet, tree?: SyntaxTree): Route[] {
  if (!MAY_HAVE_ROUTES.test(text)) return [];
  const parser = parsers.get(grammar);
  if (!parser) return [];
  return new RouteWalker(file, grammar, detectFramework(grammar, text)).run(tree ?? parseSyntax(parser, text));
}
