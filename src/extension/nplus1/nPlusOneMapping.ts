/**
 * The pure part of the N+1 editor features: grouping findings by the file they are shown in, finding
 * the one under a cursor, the outer query's estimated result rows from its plan (the estimated
 * iterations of the loop), and the indentation the inserted comment takes. Unit-tested under Node.
 */
import type { NPlusOneFinding } from '../../core/analysis/nPlusOne';
import type { Position } from '../../core/model';
import type { Plan } from '../../core/plan/planModel';

/** Findings per workspace-relative file of the inner statement (where the diagnostic sits). */
export function findingsByFile(findings: readonly NPlusOneFinding[]): Map<string, NPlusOneFinding[]> {
  const out = new Map<string, NPlusOneFinding[]>();
  for (const f of findings) {
    const list = out.get(f.file) ?? [];
    list.push(f);
    out.set(f.file, list);
  }
  return out;
}

function inside(p: Position, f: NPlusOneFinding): boolean {
  const { start, end } = f.range;
  if (p.line < start.line || p.line > end.line) return false;
  if (p.line === start.line && p.character < start.character) return false;
  return !(p.line === end.line && p.character > end.character);
}

/** The findings whose statement holds the position (one per loop the statement runs in). */
export function findingsAt(findings: readonly NPlusOneFinding[], file: string, p: Position): NPlusOneFinding[] {
  return findings.filter((f) => f.file === file && inside(p, f));
}

/**
 * Rows a SELECT is expected to return, from its plan: the first SELECT's rows multiplied through its
 * joins, each scaled by `filtered`. Undefined when the plan has no row estimates.
 */
export function estimatedResultRows(plan: Plan): number | undefined {
  const first = plan.rows.find((r) => r.id !== null);
  if (!first) return undefined;
  let total: number | undefined;
  for (const r of plan.rows) {
    if (r.id !== first.id || r.rows === null) continue;
    // One row per outer row for a unique lookup; otherwise the rows left after the table's condition.
    const n = r.type === 'const' || r.type === 'system' || r.type === 'eq_ref' ? 1 : r.rows * ((r.filtered ?? 100) / 100);
    total = (total ?? 1) * n;
  }
  return total === undefined ? undefined : Math.max(1, Math.round(total));
}

/**
 * How many passes a loop over a query's rows makes, and where the number comes from: the query's LIMIT
 * when it returns fewer than its plan's estimate (a loop over `LIMIT 3` makes 3 passes, however many rows
 * the scan behind it examines), else the rows the plan leaves after each table's condition.
 */
export function loopIterations(plan: Plan, limit: number | undefined, limitFrom: 'text' | 'code' | 'page' = 'text'): { rows: number; from: string } | undefined {
  const rows = estimatedResultRows(plan);
  const tables = plan.rows.filter((r) => r.id === plan.rows.find((x) => x.id !== null)?.id && r.table && !/^</.test(r.table)).map((r) => r.table!);
  const said = limitFrom === 'code' ? `the LIMIT ${limit} the code passes to that query`
    : limitFrom === 'page' ? `the LIMIT ? of that query read as a page of ${limit} (the code's value is not known)`
      : `the LIMIT ${limit} of that query`;
  if (limit !== undefined && (rows === undefined || limit < rows)) return { rows: Math.max(0, limit), from: said };
  if (rows === undefined) return undefined;
  return { rows, from: `EXPLAIN's rows of ${tables.length ? tables.join(' × ') : 'that query'} after its condition` };
}

/** Leading blanks of a line of source. */
export function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}
