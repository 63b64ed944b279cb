/**
 * Indexes a window never read: from two snapshots of table_io_waits_summary_by_index_usage.
 *
 * A table counts when it was read during the window (some row of it — an index, or the NULL row
 * of accesses through no index — has more reads); on such a table, an index whose COUNT_READ did
 * not grow was not used by any statement of the window, while it still costs a write on every
 * INSERT, DELETE and every UPDATE of its columns. The write cost shown is the table's rows written
 * during the window (COUNT_WRITE summed over its rows: INSERTs are counted on the NULL row, UPDATEs
 * and DELETEs on the index that found the row).
 *
 * Not proposed for dropping, with the reason: the PRIMARY KEY (InnoDB's clustered index), UNIQUE
 * indexes (they enforce a constraint whether read or not), an index a FOREIGN KEY needs (on the
 * child's columns or the parent's referenced columns: the server refuses to drop it), FULLTEXT and
 * SPATIAL indexes (their searches do not go through the per-index handler counters on every
 * version), and indexes information_schema does not list. A table whose counters went down was
 * reset during the window (TRUNCATE of the summary, FLUSH TABLES): nothing is said about it.
 */
import type { ForeignKeyInfo, IndexInfo, IndexUsageRow, ServerSnapshot } from './snapshot';

export interface UnusedIndex {
  schema: string;
  table: string;
  index: string;
  columns: string[];
  /** Reads of the table during the window (all its indexes and full scans). */
  tableReads: number;
  /** Rows written to the table during the window: the cost this index adds to. */
  tableWrites: number;
}

export interface KeptIndex { schema: string; table: string; index: string; reason: string }

export interface IndexUsageResult {
  unused: UnusedIndex[];
  /** Unread indexes that are not proposed for dropping, with why. */
  kept: KeptIndex[];
  /** Tables whose counters were reset during the window (`schema.table`). */
  reset: string[];
}

export interface IndexUsageOptions {
  /** Only these schemas (default: every schema in the snapshots). */
  schemas?: readonly string[];
}

const key3 = (s: string, t: string, i: string | null): string => `${s}\0${t}\0${i ?? ''}`;
const key2 = (s: string, t: string): string => `${s}\0${t}`;
const lc = (s: string): string => s.toLowerCase();

function prefixOf(index: string[], cols: string[]): boolean {
  if (cols.length === 0 || index.length < cols.length) return false;
  // why: a foreign key needs an index whose first columns are the key's columns, in order.
  return cols.every((c, i) => lc(index[i]) === lc(c));
}

function foreignKeyNeeding(info: IndexInfo, fks: readonly ForeignKeyInfo[]): ForeignKeyInfo | undefined {
  return fks.find((fk) => (lc(fk.schema) === lc(info.schema) && lc(fk.table) === lc(info.table) && prefixOf(info.columns, fk.columns))
    || (lc(fk.refSchema) === lc(info.schema) && lc(fk.refTable) === lc(info.table) && prefixOf(info.columns, fk.refColumns)));
}

/** Indexes not read between two snapshots, on tables that were read (see the file comment). */
export function unusedIndexes(before: ServerSnapshot, after: ServerSnapshot, options: IndexUsageOptions = {}): IndexUsageResult {
  const schemas = options.schemas ? new Set(options.schemas) : undefined;
  const prev = new Map<string, IndexUsageRow>();
  for (const r of before.indexUsage) prev.set(key3(r.schema, r.table, r.index), r);
  const tables = new Map<string, { schema: string; table: string; reads: bigint; writes: bigint; reset: boolean; rows: { row: IndexUsageRow; reads: bigint }[] }>();
  for (const r of after.indexUsage) {
    if (schemas && !schemas.has(r.schema)) continue;
    const k = key2(r.schema, r.table);
    let t = tables.get(k);
    if (!t) { t = { schema: r.schema, table: r.table, reads: 0n, writes: 0n, reset: false, rows: [] }; tables.set(k, t); }
    const b = prev.get(key3(r.schema, r.table, r.index));
    const dr = BigInt(r.countRead) - BigInt(b?.countRead ?? '0');
    const dw = BigInt(r.countWrite) - BigInt(b?.countWrite ?? '0');
    const ds = BigInt(r.countStar) - BigInt(b?.countStar ?? '0');
    if (dr < 0n || dw < 0n || ds < 0n) t.reset = true;
    t.reads += dr;
    t.writes += dw;
    t.rows.push({ row: r, reads: dr });
  }
  const infos = new Map<string, IndexInfo>();
  for (const i of after.indexes) infos.set(key3(lc(i.schema), lc(i.table), lc(i.index)), i);
  const unused: UnusedIndex[] = [];
  const kept: KeptIndex[] = [];
  const reset: string[] = [];
  for (const t of tables.values()) {
    if (t.reset) { reset.push(`${t.schema}.${t.table}`); continue; }
    if (t.reads <= 0n) continue;
    for (const { row, reads } of t.rows) {
      if (row.index === null || reads > 0n) continue;
      const base = { schema: t.schema, table: t.table, index: row.index };
      const info = infos.get(key3(lc(t.schema), lc(t.table), lc(row.index)));
      const fk = info && foreignKeyNeeding(info, after.foreignKeys);
      const reason = row.index.toUpperCase() === 'PRIMARY' ? 'PRIMARY KEY: the table\'s clustered index, never a candidate'
        : !info ? 'not listed in information_schema.STATISTICS (dropped or renamed during the window?)'
          : info.unique ? 'UNIQUE: it enforces a constraint even when no query reads it'
            : fk ? `needed by FOREIGN KEY ${fk.name} (${fk.table}.${fk.columns.join(', ')} → ${fk.refTable}.${fk.refColumns.join(', ')}): the server refuses to drop it`
              : /FULLTEXT|SPATIAL|RTREE/i.test(info.type) ? `${info.type} index: its searches are not counted per index on every server version`
                : undefined;
      if (reason) kept.push({ ...base, reason });
      else unused.push({ ...base, columns: info!.columns, tableReads: Number(t.reads), tableWrites: Number(t.writes) });
    }
  }
  const order = (a: { schema: string; table: string; index: string }, b: typeof a): number =>
    a.schema.localeCompare(b.schema) || a.table.localeCompare(b.table) || a.index.localeCompare(b.index);
  unused.sort((a, b) => b.tableWrites - a.tableWrites || order(a, b));
  kept.sort(order);
  reset.sort();
  return { unused, kept, reset };
}
