/**
 * Folders read from disk for the agent tools, with one cache of facts across calls (the MCP server
 * and the CLI's tests). The editor answers from its index instead, read off its own thread.
 */
import { ParserSet, type GrammarSource } from '../core/source/lang/treeSitter/treeSitter';
import { FactsCache } from '../core/workspace';
import { scanProject, type ProjectScan } from '../node/scanDir';

export function diskScanner(grammars: GrammarSource): (dir: string) => Promise<ProjectScan> {
  const cache = new FactsCache(new ParserSet(grammars));
  return (dir) => scanProject(dir, cache);
}
