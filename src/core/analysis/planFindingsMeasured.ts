/**
 * Findings from a measured run: a table access that read far more rows than EXPLAIN estimated.
 * The estimate of a LIMIT walk or of a skewed value is no bound; the measurement is, so this is
 * reported even where the plan alone looked fine.
 */
import { formatWhole } from '../format/numbers';
import type { Advice } from './advisor';
import type { PlanFinding } from './planFindings';
import { matchAccesses, type Measurement } from '../plan/measured';
import type { Plan } from '../plan/planModel';

const fmt = (n: number): string => formatWhole(n);

export interface MeasuredFindingOptions {
  advice?: Advice;
  /** qualifier (alias, lower-case) → table name, from the statement's facts. */
  aliases?: Map<string, string>;
  /** Reads below this many rows are never reported (default 1000). */
  minRows?: number;
  /** How many times the estimate a read must reach to be reported (default 10). */
  factor?: number;
}

/**
 * Compares each measured table access with the plan row of the same table (matched in order):
 * rows read ≥ `factor` × (estimate per scan × loops) and ≥ `minRows` → `measured-over-estimate`.
 */
export function measuredFindings(plan: Plan, m: Measurement, o: MeasuredFindingOptions = {}): PlanFinding[] {
  const minRows = o.minRows ?? 1000;
  const factor = o.factor ?? 10;
  const rowOf = matchAccesses(plan.rows, m.accesses);
  const out: PlanFinding[] = [];
  for (const [k, a] of m.accesses.entries()) {
    const i = rowOf[k];
    const planRow = i >= 0 ? plan.rows[i] : undefined;
    const perScan = planRow?.rows ?? a.estimate;
    if (perScan === null || perScan === undefined) continue;
    const expected = Math.max(1, perScan * Math.max(1, a.loops));
    if (a.rowsRead < minRows || a.rowsRead < factor * expected) continue;
    const table = o.aliases?.get(a.table.toLowerCase()) ?? a.table;
    const sugg = o.advice?.suggestions.find((s) => s.table.toLowerCase() === table.toLowerCase());
    out.push({
      code: 'measured-over-estimate', severity: a.rowsRead >= 100_000 ? 'error' : 'warning', table, planRows: i >= 0 ? [i] : [],
      message: `measured: read ${m.capped ? 'at least ' : ''}${fmt(a.rowsRead)} rows of ${table}${a.loops > 1 ? ` in ${fmt(a.loops)} loops` : ''} where EXPLAIN estimated ~${fmt(expected)} (×${fmt(a.rowsRead / expected)}): the estimate is no bound here`
        + (sugg ? `; no index on ${sugg.table}(${sugg.columns.join(', ')})` : ''),
    });
  }
  return out;
}
