/**
 * One model for EXPLAIN output of both flavors (MySQL 5.7/8.x, MariaDB 10.x/11.x), tabular or
 * JSON. Normalisers in this folder build it; findings and hovers read only this.
 */
import type { Flavor } from '../model';

/** One row of a plan: one table access, in the order the server reads them. */
export interface PlanRow {
  /** SELECT number (`id` column / `select_id`); null for UNION RESULT rows. */
  id: number | null;
  /** SIMPLE, PRIMARY, SUBQUERY, DEPENDENT SUBQUERY, DERIVED, MATERIALIZED, UNION, UNION RESULT … */
  selectType: string;
  /** Table name or alias as the server prints it (`p`, `<derived2>`, `<subquery2>`); null when no table. */
  table: string | null;
  partitions: string | null;
  /** Access type: system, const, eq_ref, ref, range, index, ALL, index_merge … */
  type: string | null;
  possibleKeys: string[];
  key: string | null;
  keyLen: string | null;
  ref: string | null;
  /** Rows the server expects to examine per scan of this table. */
  rows: number | null;
  /** Percent of rows left after the table's condition (MySQL tabular, both JSON shapes). */
  filtered: number | null;
  /** The Extra column split into its parts (`Using where`, `Using filesort` …). */
  extra: string[];
  /** Condition attached to this table (JSON plans only). */
  condition?: string;
}

export type PlanSource = 'tabular' | 'json' | 'tabular+json';

export interface Plan {
  flavor: Flavor;
  rows: PlanRow[];
  source: PlanSource;
  /** Total cost estimate (MySQL JSON `query_cost`, MariaDB 11 JSON `cost`), when the server gives one. */
  cost?: number;
  /** The raw EXPLAIN FORMAT=JSON document, for a side panel. */
  json?: unknown;
}

/** True when the row's Extra contains `part` (case-insensitive prefix match, `Using join buffer` matches any buffer kind). */
export function hasExtra(row: PlanRow, part: string): boolean {
  const p = part.toLowerCase();
  return row.extra.some((e) => e.toLowerCase().startsWith(p));
}

/** True for rows that read a server-made table (`<derived2>`, `<subquery3>`, `<union1,2>`) instead of a base table. */
export function isInternalTable(table: string | null): boolean {
  return table === null || table.startsWith('<');
}
