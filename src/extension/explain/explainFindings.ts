/**
 * What the plan diagnostics of one SQL site say: its plan findings tied to the statement's range
 * (code = finding code, the plan rows and the suggested index in `data`), or one `explain-failed`
 * finding when the statement itself could not be explained (unknown table or column, SQL the server
 * cannot parse). A failure that says nothing against the statement (`notExplained`: a table of another
 * database, a lock, a refusal …) is the hover's, not a squiggle; connection failures are the status bar's. Pure.
 */
import type { Finding, IndexSuggestion, SqlSite } from '../../core/model';
import type { PlanFinding } from '../../core/analysis/planFindings';

/** Code of the finding that reports a statement EXPLAIN failed on. */
export const EXPLAIN_FAILED = 'explain-failed';

/** Error kinds that belong to the statement (shown on the site); the others are the connection's. */
const STATEMENT_ERRORS: ReadonlySet<string> = new Set(['unknown-table', 'unknown-column', 'syntax', 'timeout', 'refused', 'fill', 'other']);

export interface ExplainOutcome {
  findings: readonly PlanFinding[];
  error?: { kind: string; message: string; notExplained?: string };
}

/** The suggestion that addresses a finding on `table` (same table, case-insensitive). */
export function suggestionFor(table: string | undefined, suggestions: readonly IndexSuggestion[]): IndexSuggestion | undefined {
  if (!table) return undefined;
  return suggestions.find((s) => s.table.toLowerCase() === table.toLowerCase());
}

/** The findings to show as diagnostics on `site`. */
export function explainFindings(site: SqlSite, outcome: ExplainOutcome, suggestions: readonly IndexSuggestion[] = []): Finding[] {
  if (outcome.error) {
    if (!STATEMENT_ERRORS.has(outcome.error.kind) || outcome.error.notExplained) return [];
    return [{
      code: EXPLAIN_FAILED, severity: 'warning', file: site.file, range: site.range,
      message: `EXPLAIN failed (${outcome.error.kind}): ${outcome.error.message}`,
      data: { errorKind: outcome.error.kind },
    }];
  }
  return outcome.findings.map((f) => {
    const s = suggestionFor(f.table, suggestions);
    const hint = s ? ` — suggested index ${s.name} (${s.columns.join(', ')})` : '';
    return {
      code: f.code, severity: f.severity, file: site.file, range: site.range, message: `${f.message}${hint}`,
      ...(f.table ? { table: f.table } : {}),
      data: { planRows: f.planRows, ...(s ? { index: s.name } : {}) },
    };
  });
}
