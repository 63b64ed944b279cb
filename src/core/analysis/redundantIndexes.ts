/**
 * Redundant indexes already in a schema: exact duplicates and leftmost prefixes of another index.
 * Reported as information — each one costs every write — never as an error. Indexes that enforce a
 * constraint (PRIMARY, UNIQUE) are kept unless another index enforces the very same constraint.
 */
import type { IndexInfo, Schema, TableInfo } from '../model';
import { dropIndexDdl } from './ddl';

export interface RedundantIndex {
  table: string;
  index: string;
  columns: string[];
  /** The index that makes it redundant. */
  coveredBy: string;
  coveredByColumns: string[];
  kind: 'duplicate' | 'prefix';
  reason: string;
  /** `ALTER TABLE … DROP INDEX …` */
  ddl: string;
}

function keyOf(idx: IndexInfo, i: number): string {
  return `${idx.columns[i].toLowerCase()}(${idx.subParts?.[i] ?? ''})`;
}

function isPrefix(a: IndexInfo, b: IndexInfo): boolean {
  return a.columns.length <= b.columns.length && a.columns.every((_, i) => keyOf(a, i) === keyOf(b, i));
}

/** InnoDB key with the primary key appended, for spotting `(a, id)` next to `(a)`. */
function effective(idx: IndexInfo, t: TableInfo): string[] {
  const pk = t.indexes.find((i) => i.primary)?.columns ?? [];
  const cols = idx.columns.map((c) => c.toLowerCase());
  if (idx.primary || (t.engine && !/innodb/i.test(t.engine))) return cols;
  return [...cols, ...pk.map((c) => c.toLowerCase()).filter((c) => !cols.includes(c))];
}

/** Lists the redundant indexes of one table. */
export function redundantIndexesOf(t: TableInfo): RedundantIndex[] {
  const out: RedundantIndex[] = [];
  const idxs = t.indexes.filter((i) => i.columns.length > 0);
  for (const a of idxs) {
    if (a.primary) continue;
    for (const b of idxs) {
      if (a === b) continue;
      const same = isPrefix(a, b) && a.columns.length === b.columns.length;
      const sameEffective = effective(a, t).join(',') === effective(b, t).join(',') && !(a.subParts ?? []).some(Boolean) && !(b.subParts ?? []).some(Boolean);
      const later = idxs.indexOf(a) > idxs.indexOf(b);
      let kind: RedundantIndex['kind'] | undefined;
      if (a.unique) {
        // A unique index enforces a constraint: redundant only next to the same constraint.
        if (same && (b.primary || (b.unique && later))) kind = 'duplicate';
      } else if (same || sameEffective) {
        // Of two equal plain indexes report the later one; a plain twin of a unique index always.
        if (b.unique || b.primary || later) kind = 'duplicate';
      } else if (isPrefix(a, b)) {
        kind = 'prefix';
      }
      if (!kind) continue;
      const label = (i: IndexInfo) => (i.primary ? 'the primary key' : i.name);
      out.push({
        table: t.name, index: a.name, columns: a.columns, coveredBy: b.name, coveredByColumns: b.columns, kind,
        reason: kind === 'duplicate'
          ? `${a.name} (${a.columns.join(', ')}) duplicates ${label(b)} (${b.columns.join(', ')})${same ? '' : ' once InnoDB appends the primary key'}`
          : `${a.name} (${a.columns.join(', ')}) is a leftmost prefix of ${label(b)} (${b.columns.join(', ')}), which serves the same lookups`,
        ddl: dropIndexDdl(t.name, a.name),
      });
      break;
    }
  }
  return out;
}

/** Lists the redundant indexes of every table in a schema, tables in name order. */
export function redundantIndexes(schema: Schema): RedundantIndex[] {
  return Object.keys(schema.tables).sort().flatMap((k) => redundantIndexesOf(schema.tables[k]));
}
