/**
 * What changed in the code between two rounds, in the terms the engine knows: the handlers of
 * routes and the SQL statements whose lines a git diff touched. The diff is git's unified diff with
 * no context (`git diff -U0 A B`), read for the new side's line numbers (the code as it is now, which
 * is what the routes and sites were found in); each changed item is credited to the newest commit
 * between the rounds that touched its file.
 */
import type { Range, Route, SqlSite } from '../model';
import { fingerprint } from '../sql/fingerprint';

/** Changed lines of the new side per file (1-based, inclusive); a pure deletion marks the line after it. */
export type ChangedLines = Map<string, Array<[number, number]>>;

const HUNK = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/;

/** Reads `git diff -U0` output: the changed line ranges of each file's new side (`b/` path, renames followed). */
export function parseUnifiedDiff(text: string): ChangedLines {
  const out: ChangedLines = new Map();
  let file: string | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('+++ ')) {
      const name = line.slice(4).trim();
      file = name === '/dev/null' ? undefined : name.replace(/^b\//, '');
      if (file !== undefined && !out.has(file)) out.set(file, []);
      continue;
    }
    const m = file !== undefined ? HUNK.exec(line) : null;
    if (!m) continue;
    const start = Number(m[1]);
    const count = m[2] === undefined ? 1 : Number(m[2]);
    // why: a hunk that only removes lines has count 0 and starts at the line before the removal.
    out.get(file!)!.push(count === 0 ? [start, start + 1] : [start, start + count - 1]);
  }
  return out;
}

/** One handler or statement whose lines changed. */
export interface CodeChange {
  kind: 'handler' | 'statement';
  /** `GET /items/:id` (handler) or the statement's fingerprint. */
  key: string;
  file: string;
  /** 1-based line of the handler or the statement. */
  line: number;
  /** The newest commit between the rounds that touched the file (full hash), or `working tree` for changes not committed. */
  commit: string;
}

function touches(lines: Array<[number, number]> | undefined, r: Range): boolean {
  if (!lines) return false;
  const a = r.start.line + 1;
  const b = r.end.line + 1;
  return lines.some(([s, e]) => s <= b && e >= a);
}

/** A commit between the rounds and the files it touched, newest first. */
export interface CommitFiles {
  commit: string;
  files: string[];
}

/**
 * The handlers and statements a diff touched. `commits` (newest first) credit each to the newest
 * commit that touched its file; a file no commit lists (an uncommitted edit) is credited to `working tree`.
 * Statements are keyed by the fingerprint the slow log gives the same SQL.
 */
export function changedCode(diff: ChangedLines, routes: readonly Route[], sites: readonly SqlSite[], commits: readonly CommitFiles[]): CodeChange[] {
  const creditOf = (file: string): string => commits.find((c) => c.files.includes(file))?.commit ?? 'working tree';
  const out: CodeChange[] = [];
  const seen = new Set<string>();
  for (const r of routes) {
    const file = r.handler?.file ?? r.file;
    const range = r.handler?.range ?? r.range;
    if (!touches(diff.get(file), range)) continue;
    const key = `${r.method} ${r.pattern}`;
    if (seen.has(`h ${key}`)) continue;
    seen.add(`h ${key}`);
    out.push({ kind: 'handler', key, file, line: range.start.line + 1, commit: creditOf(file) });
  }
  for (const s of sites) {
    if (!touches(diff.get(s.file), s.range)) continue;
    const key = fingerprint(s.sql);
    if (seen.has(`s ${key}`)) continue;
    seen.add(`s ${key}`);
    out.push({ kind: 'statement', key, file: s.file, line: s.range.start.line + 1, commit: creditOf(s.file) });
  }
  return out;
}

/** The change of an endpoint row (`GET /items/:id`), matching a route of any method (`ANY`) too. */
export function changeOfEndpoint(changes: readonly CodeChange[], method: string, uri: string): CodeChange | undefined {
  return changes.find((c) => c.kind === 'handler' && (c.key === `${method} ${uri}` || c.key === `ANY ${uri}`));
}
