/**
 * What the CLI's log commands read from a project directory: every source file's routes, with
 * handlers named in one file and defined in another resolved across the project (`endpoints --routes
 * DIR`), and its SQL statements (`slow --source DIR`). A bundle of its own in the CLI
 * (scripts/build.mjs): a run that reads only a log never compiles the source readers.
 */
import type { FileError, FileFacts, Route, SqlSite } from '../core/model';
import { resolveHandlers } from '../core/source/routes/resolveHandlers';
import { ParserSet } from '../core/source/lang/treeSitter/treeSitter';
import { FactsCache } from '../core/workspace';
import { fsGrammarSource } from './grammars';
import { listSourceFiles, readSourceFile, scanProject } from './scanDir';

export interface DirRoutes {
  /** Paths relative to the directory, `/`-separated. */
  routes: Route[];
  /** Every SQL statement found, for callers that map code to the slow log's fingerprints. */
  sites: SqlSite[];
  files: number;
  errors: FileError[];
}

/** Finds the routes of every source file under `root` (skipping vendored, ignored and huge files). */
export async function discoverRoutesInDir(root: string, parsers: ParserSet = new ParserSet(fsGrammarSource())): Promise<DirRoutes> {
  const listing = await listSourceFiles(root);
  const cache = new FactsCache(parsers);
  const facts: FileFacts[] = [];
  const errors: FileError[] = [];
  for (const f of listing.files) {
    const text = await readSourceFile(f, listing.skipped);
    if (text === undefined) continue;
    const ff = await cache.update(f.rel, text, f.language);
    if (!ff) continue;
    facts.push(ff);
    for (const e of ff.errors) if (/route/.test(e.message)) errors.push(e);
  }
  return { routes: resolveHandlers(facts), sites: facts.flatMap((f) => f.sites), files: facts.length, errors };
}

/** Every SQL statement of the source files under `root` (routes are not looked for). */
export async function sqlSitesInDir(root: string): Promise<SqlSite[]> {
  const scan = await scanProject(root, new FactsCache(new ParserSet(fsGrammarSource()), { routes: false }));
  return scan.facts.flatMap((f) => f.sites);
}
