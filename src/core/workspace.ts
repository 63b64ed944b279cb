/**
 * Orchestration over files: extracts each file's facts once per content — re-extracting a file
 * whose text has not changed returns the cached facts — so front ends can re-scan on every edit.
 */
import type { FileFacts, Language } from './model';
import { extractFacts, type ExtractOptions } from './source/readFacts';
import { languageForPath } from './source/languageOf';
import { grammarFor, type ParserSet } from './source/lang/treeSitter/treeSitter';

/** A fast 53-bit content hash (two interleaved 32-bit FNV-style lanes); not cryptographic. */
export function contentHash(text: string): string {
  let h1 = 0x811c9dc5 ^ text.length, h2 = 0x1b873593;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  return `${text.length.toString(36)}:${(h1 >>> 0).toString(36)}:${((h2 >>> 0) & 0x1fffff).toString(36)}`;
}

interface Entry { hash: string; facts: FileFacts }

/** Per-file facts cached by content hash. */
export class FactsCache {
  private readonly entries = new Map<string, Entry>();

  /** `options` apply to every extraction (routes: false for callers that never read routes). */
  constructor(private readonly parsers: ParserSet, private readonly options: ExtractOptions = {}) {}

  /**
   * Facts for `file` with content `text`: the cached ones when the content is unchanged, otherwise
   * freshly extracted (loading the grammar first if needed). Undefined when the file's language
   * is not one we read.
   */
  async update(file: string, text: string, language: Language | undefined = languageForPath(file)): Promise<FileFacts | undefined> {
    if (!language) return undefined;
    const hash = contentHash(text);
    const hit = this.entries.get(file);
    if (hit && hit.hash === hash && hit.facts.language === language) return hit.facts;
    // why: only the grammar this file needs (a .ts file does not need the tsx grammar compiled).
    const grammar = grammarFor(language, file);
    if (grammar) await this.parsers.load(grammar);
    const facts = extractFacts(file, text, language, this.parsers, this.options);
    this.entries.set(file, { hash, facts });
    return facts;
  }

  /** Forgets a deleted or closed file. */
  remove(file: string): void {
    this.entries.delete(file);
  }

  get(file: string): FileFacts | undefined {
    return this.entries.get(file)?.facts;
  }

  /** Every cached file's facts, in file order. */
  all(): FileFacts[] {
    return [...this.entries.keys()].sort().map((k) => this.entries.get(k)!.facts);
  }
}
