/**
 * What the statistics say about a column: how many distinct values it holds (from the cardinality
 * of an index that leads with it, a unique key, or a sample), so how many rows one value finds, and
 * whether it has only two or three values (a flag, a small enum), which no index should lead with.
 * Shared by the advisor and the plan findings, so both judge a condition alike. Pure.
 */
import type { TableInfo } from '../model';

const lower = (s: string): string => s.toLowerCase();

/** Distinct values of a column: an index leading with it, a single-column unique key, or the sampled estimate. */
export function distinctValues(info: TableInfo | undefined, column: string): number | undefined {
  let best: number | undefined;
  for (const idx of info?.indexes ?? []) {
    if (!idx.columns.length || lower(idx.columns[0]) !== lower(column)) continue;
    const card = (idx.primary || idx.unique) && idx.columns.length === 1 ? info?.rows : idx.cardinality?.[0];
    if (card !== undefined) best = Math.max(best ?? 0, card);
  }
  return best ?? info?.columnDistinct?.[lower(column)];
}

/** The values a column's type allows when they are two or three (a boolean, `enum('a','b')`), else undefined. */
export function typeValues(info: TableInfo | undefined, column: string): number | undefined {
  const type = info?.columns.find((c) => lower(c.name) === lower(column))?.type.toLowerCase() ?? '';
  if (/^(bool|boolean|tinyint\(1\)|bit\(1\)|bit\b(?!\())/.test(type)) return 2;
  const m = /^(enum|set)\((.*)\)/.exec(type);
  if (m) {
    const n = m[2].split(/'\s*,\s*'/).length;
    return m[1] === 'enum' && n <= 3 ? n : undefined;
  }
  return undefined;
}

/**
 * True when the column holds two or three values: an index led by it reads a third of the table or
 * more per value, which a scan does about as fast. Known from the type, or from statistics on a table
 * large enough for them to mean something.
 */
export function lowCardinality(info: TableInfo | undefined, column: string): boolean {
  if (typeValues(info, column) !== undefined) return true;
  const d = distinctValues(info, column);
  return d !== undefined && d > 0 && d <= 3 && (info?.rows ?? 0) >= 100;
}

/** About how many rows one value of the column finds (rows / distinct values), when the statistics know. */
export function rowsPerValue(info: TableInfo | undefined, column: string): number | undefined {
  const d = distinctValues(info, column) ?? typeValues(info, column);
  if (!info || d === undefined || d <= 0) return undefined;
  return Math.max(1, info.rows / d);
}

/** One branch of a condition, as the share of the table it matches: equality columns, range columns. */
export interface BranchShape { eq: readonly string[]; range: readonly string[] }

/**
 * At least what share of the table an OR of branches matches, from the branches whose statistics
 * tell (a branch: the product of 1/distinct of its equality columns); a branch the statistics do not
 * know counts as nothing, so this is a lower bound (undefined when no branch is known). Capped at 1.
 */
export function orShareAtLeast(info: TableInfo | undefined, branches: readonly BranchShape[]): number | undefined {
  let sum = 0;
  let known = false;
  for (const b of branches) {
    if (!b.eq.length) continue;
    let share = 1;
    for (const c of b.eq) {
      const d = distinctValues(info, c) ?? typeValues(info, c);
      if (d === undefined || d <= 0) { share = 0; break; }
      share /= d;
    }
    if (share > 0) known = true;
    sum += share;
  }
  return known ? Math.min(1, sum) : undefined;
}

/**
 * Distinct values of a column from a sample of `n` of its `rows` rows that held `d` distinct values,
 * `f1` of them seen once (Haas and Stokes' Duj1 estimator: the values seen once stand for those not
 * seen). The whole table sampled gives `d` itself.
 */
export function estimateDistinct(d: number, n: number, f1: number, rows: number): number {
  if (n <= 0 || d <= 0) return 0;
  const total = Math.max(rows, n);
  if (n >= total) return d;
  const q = n / total;
  const denom = 1 - (1 - q) * (f1 / n);
  return Math.min(total, denom > 0 ? d / denom : total);
}

/** The leading columns of these suggestions whose distinct values no statistic knows yet: what a sample should read. */
export function columnsToSample(suggestions: readonly { table: string; columns: readonly string[] }[], tables: Record<string, TableInfo>, max = 40): { table: string; column: string }[] {
  const out: { table: string; column: string }[] = [];
  const seen = new Set<string>();
  for (const s of suggestions) {
    const info = tables[lower(s.table)];
    if (!info || info.rows < 100) continue;
    // why: rows per value and "two or three values" matter for the column an index would lead with.
    for (const c of s.columns.slice(0, 1)) {
      const key = `${lower(info.name)}\0${lower(c)}`;
      if (seen.has(key) || distinctValues(info, c) !== undefined || typeValues(info, c) !== undefined) continue;
      seen.add(key);
      out.push({ table: info.name, column: c });
      if (out.length >= max) return out;
    }
  }
  return out;
}
