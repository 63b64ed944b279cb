/**
 * Drops an index the measured window never read: one `ALTER TABLE … DROP INDEX …`, sent only with
 * `confirmed: true` (the user said yes to the exact statement) — the guard refuses it otherwise.
 */
import { dropIndexDdl } from '../core/analysis/ddl';
import { guardStatement } from './guard';

/** What the drop needs from a connection (DbConnection provides it). */
export interface DropIndexDb {
  query<T = Record<string, unknown>>(purpose: 'ddl' | 'set', sql: string, opts?: { confirmed?: boolean }): Promise<T[]>;
}

/** The statement `dropUnusedIndex` sends, for the confirmation dialog. */
export function dropUnusedIndexSql(table: string, index: string, database?: string): string {
  return dropIndexDdl(table, index, database);
}

/** Sends the DROP INDEX after the user's confirmation; returns the statement sent. */
export async function dropUnusedIndex(db: DropIndexDb, target: { table: string; index: string; database?: string }, opts: { confirmed: boolean }): Promise<string> {
  const sql = dropUnusedIndexSql(target.table, target.index, target.database);
  // refused here, before the session is touched, unless confirmed
  guardStatement(sql, 'ddl', { confirmed: opts.confirmed });
  // why: the session is READ ONLY, which refuses DDL too; lifted for this one confirmed statement only.
  await db.query('set', 'SET SESSION TRANSACTION READ WRITE');
  try {
    await db.query('ddl', sql, { confirmed: true });
  } finally {
    await db.query('set', 'SET SESSION TRANSACTION READ ONLY');
  }
  return sql;
}
