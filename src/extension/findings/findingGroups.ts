/**
 * What the Findings view shows: the extension's diagnostics grouped by finding code (kind), worst
 * kind first, with counts in the group labels, each finding labelled by its message and location.
 * Pure (no 'vscode'): the view turns diagnostics into FindingEntry values and renders the groups.
 */

export type EntrySeverity = 'error' | 'warning' | 'info' | 'hint';

/** One diagnostic as the view needs it. */
export interface FindingEntry {
  /** Finding code (`full-table-scan`, `n-plus-one` …); '' when the diagnostic has none. */
  code: string;
  message: string;
  severity: EntrySeverity;
  /** Identity of the document (its URI string), to open it. */
  uri: string;
  /** Workspace-relative path with '/' separators, for display and ordering. */
  file: string;
  /** 0-based line and character of the range start. */
  line: number;
  character: number;
}

export interface FindingGroup {
  code: string;
  /** `full-table-scan (3)` */
  label: string;
  /** `Full table scan · 2 files` */
  description: string;
  /** The worst severity among the entries. */
  severity: EntrySeverity;
  entries: FindingEntry[];
}

const RANK: Record<EntrySeverity, number> = { error: 0, warning: 1, info: 2, hint: 3 };

/** Readable names of the codes whose kebab case reads poorly; others are de-kebabed. */
const TITLES: Record<string, string> = {
  'n-plus-one': 'N+1 query (a query inside a loop)',
  'n-plus-one-suspected': 'Suspected N+1 query',
  'unused-index': 'Indexes the benchmark never used',
  'full-scan-observed': 'Full scans the server saw',
  'or-across-columns': 'OR across columns',
};

/** `full-table-scan` → `Full table scan`; '' → `Other`. */
export function codeTitle(code: string): string {
  if (!code) return 'Other';
  const known = TITLES[code];
  if (known) return known;
  const words = code.replace(/-/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Groups entries by code. Groups come worst severity first, then by count (descending), then by code
 * (no code last);
 * inside a group, entries by severity, then file and position. Equal entries (the same finding
 * reported twice for one place) are kept once.
 */
export function groupFindings(entries: readonly FindingEntry[]): FindingGroup[] {
  const byCode = new Map<string, FindingEntry[]>();
  const seen = new Set<string>();
  for (const e of entries) {
    const key = `${e.code}\u0000${e.uri}\u0000${e.line}:${e.character}\u0000${e.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    let list = byCode.get(e.code);
    if (!list) { list = []; byCode.set(e.code, list); }
    list.push(e);
  }
  const groups: FindingGroup[] = [];
  for (const [code, list] of byCode) {
    list.sort((a, b) => RANK[a.severity] - RANK[b.severity] || a.file.localeCompare(b.file) || a.line - b.line || a.character - b.character);
    const files = new Set(list.map((e) => e.uri)).size;
    groups.push({
      code,
      label: `${code || 'other'} (${list.length})`,
      description: `${codeTitle(code)} · ${files === 1 ? '1 file' : `${files} files`}`,
      severity: list[0].severity,
      entries: list,
    });
  }
  // why: findings without a code ("other") come after every named kind of the same rank.
  const named = (g: FindingGroup) => (g.code ? 0 : 1);
  return groups.sort((a, b) => RANK[a.severity] - RANK[b.severity] || b.entries.length - a.entries.length
    || named(a) - named(b) || a.code.localeCompare(b.code));
}

/** Label (the message's first line) and description (`file:line`, 1-based) of one finding. */
export function entryLabels(e: FindingEntry): { label: string; description: string } {
  const first = e.message.split('\n', 1)[0].trim();
  return { label: first.length > 200 ? `${first.slice(0, 199)}…` : first, description: `${e.file}:${e.line + 1}` };
}

/** A short summary for the view's description: `5 findings` / `1 finding` / ''. */
export function totalLabel(groups: readonly FindingGroup[]): string {
  const n = groups.reduce((sum, g) => sum + g.entries.length, 0);
  return n === 0 ? '' : n === 1 ? '1 finding' : `${n} findings`;
}

/** A signature of the grouped findings: equal signatures mean the view shows the same thing. */
export function groupsSignature(groups: readonly FindingGroup[]): string {
  return JSON.stringify(groups.map((g) => [g.code, g.entries.map((e) => [e.uri, e.line, e.character, e.severity, e.message])]));
}
