/**
 * Rows per value of the columns no index leads with, from a bounded sample of each table (the guard's
 * columnStatsQuery: at most STATS_SAMPLE_ROWS rows read, one row back), written into the schema's
 * TableInfo.columnDistinct for the advisor and the plan findings. A failed read leaves the column
 * unknown: the advice is then made without it, never lost.
 */
import { estimateDistinct } from '../core/analysis/columnStats';
import type { Schema } from '../core/model';
import type { DbConnection } from './connection';
import { columnStatsQuery } from './guard';

/** Samples each column once per schema; returns how many columns were read. */
export async function readColumnStats(db: DbConnection, schema: Schema, columns: readonly { table: string; column: string }[]): Promise<number> {
  let read = 0;
  for (const { table, column } of columns) {
    const info = schema.tables[table.toLowerCase()];
    if (!info || info.columnDistinct?.[column.toLowerCase()] !== undefined) continue;
    try {
      const rows = await db.query<Record<string, unknown>>('sample', columnStatsQuery(db.options.database, info.name, column));
      const r = rows[0] ?? {};
      const d = Number(r.d ?? 0), n = Number(r.n ?? 0), f1 = Number(r.f1 ?? 0);
      if (!(n > 0)) continue;
      info.columnDistinct = { ...(info.columnDistinct ?? {}), [column.toLowerCase()]: Math.round(estimateDistinct(d, n, f1, info.rows)) };
      read++;
    } catch {
      // why: statistics only sharpen the advice; a timeout or a refused read leaves the column unknown.
      continue;
    }
  }
  return read;
}
