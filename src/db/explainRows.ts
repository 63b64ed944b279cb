/**
 * One statement's EXPLAIN result as the rows `query-insight explain` reports: a finding per row, or
 * one row saying why there is no plan (not-explained, explain-error, not-explainable). Shared by the
 * `explain` command and the agent tools, so both say the same about the same statement.
 */
import type { Severity, SqlSite } from '../core/model';
import type { PlanFinding } from '../core/analysis/planFindings';
import type { PlanRow } from '../core/plan/planModel';
import type { ExplainResult } from './explainService';

export interface ExplainRow {
  file: string;
  line: number;
  code: string;
  severity: Severity;
  table?: string;
  message: string;
  sql: string;
  filledSql?: string;
  /** What a measured run (--analyze) of the statement read, returned and took. */
  measured?: { rowsRead: number; rowsSent: number; ms: number; capped?: boolean };
  /** Clauses left out of what was explained (`FOR UPDATE`, `INTO @x`): the plan is the same without them. */
  explainedWithout?: string[];
  /** Which of the statements of one line this is (a branch appends a clause): `variant 2 of 2: LIMIT 3`. */
  variant?: string;
  plan: PlanRow[];
}

/** The 1-based line a statement is reported at: where its SQL text starts. */
export function siteLine(site: Pick<SqlSite, 'textStart' | 'range'>): number {
  return (site.textStart ?? site.range.start).line + 1;
}

/**
 * The rows of one statement's result: `not-explained` (information) when the failure says nothing
 * against the statement, `explain-error` (warning) for the server's refusal, `not-explainable` for
 * text only partly known, nothing for another statement without a plan (INSERT … VALUES), else one
 * row per finding, with the plan rows it rests on. `measured` adds a measured run's figures and findings.
 */
export function explainRows(site: SqlSite, r: ExplainResult, measured?: { figures: NonNullable<ExplainRow['measured']>; findings: readonly PlanFinding[] }): ExplainRow[] {
  const line = siteLine(site);
  const filled = r.filledSql ? { filledSql: r.filledSql } : {};
  if (r.error?.notExplained) {
    return [{ file: site.file, line, code: 'not-explained', severity: 'info', message: `not explained: ${r.error.notExplained}`, sql: site.sql, ...filled, plan: [] }];
  }
  if (r.error) return [{ file: site.file, line, code: 'explain-error', severity: 'warning', message: `${r.error.kind}: ${r.error.message}`, sql: site.sql, ...filled, plan: [] }];
  if (r.skipped) {
    // why: a statement whose text is only partly known is worth saying so, with the known part, rather than silently left out.
    return /^not explainable/.test(r.skipped) ? [{ file: site.file, line, code: 'not-explainable', severity: 'info', message: r.skipped, sql: site.sql, plan: [] }] : [];
  }
  const findings = measured ? [...r.findings, ...measured.findings] : r.findings;
  return findings.map((f) => ({
    file: site.file, line, code: f.code, severity: f.severity, ...(f.table ? { table: f.table } : {}), message: f.message,
    sql: site.sql, ...filled, ...(measured ? { measured: measured.figures } : {}), ...(r.explainedWithout ? { explainedWithout: r.explainedWithout } : {}),
    plan: f.planRows.map((i) => r.plan!.rows[i]).filter(Boolean),
  }));
}
