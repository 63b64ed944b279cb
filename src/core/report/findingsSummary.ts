/** Counts of findings by code and severity, for the report's findings summary. */
import type { Finding, Severity } from '../model';

export interface FindingCount {
  code: string;
  count: number;
  /** Count by severity (only severities seen). */
  bySeverity: Partial<Record<Severity, number>>;
  /** Files the findings are in (distinct). */
  files: number;
}

export interface FindingsSummary {
  total: number;
  codes: FindingCount[];
}

/** Summarises findings (anything with a code, a severity and a file): most frequent code first, then by name. */
export function summarizeFindings(findings: readonly Pick<Finding, 'code' | 'severity' | 'file'>[]): FindingsSummary {
  const by = new Map<string, { count: number; bySeverity: Partial<Record<Severity, number>>; files: Set<string> }>();
  for (const f of findings) {
    let e = by.get(f.code);
    if (!e) { e = { count: 0, bySeverity: {}, files: new Set() }; by.set(f.code, e); }
    e.count++;
    e.bySeverity[f.severity] = (e.bySeverity[f.severity] ?? 0) + 1;
    e.files.add(f.file);
  }
  const codes = [...by].map(([code, e]) => ({ code, count: e.count, bySeverity: e.bySeverity, files: e.files.size }))
    .sort((a, b) => b.count - a.count || (a.code < b.code ? -1 : 1));
  return { total: findings.length, codes };
}
