/**
 * Reads a server-stats snapshot: SELECTs on performance_schema (statement digests, per-index I/O)
 * and information_schema (index uniqueness and columns, foreign keys), each through the guard as a
 * `schema` read. Nothing is written, nothing is reset: the window's figures come from the
 * difference of two snapshots (src/core/serverStats).
 */
import type { DbConnection } from './connection';
import { DbError } from './connection';
import { snapshotFromResultSets, type ServerSnapshot } from '../core/serverStats/snapshot';

/** performance_schema cannot give the figures: off, a consumer disabled, or not readable by the user. */
export class ServerStatsUnavailable extends Error {
  constructor(message: string) { super(message); this.name = 'ServerStatsUnavailable'; }
}

const DIGEST_SQL = 'SELECT SCHEMA_NAME, DIGEST, DIGEST_TEXT, COUNT_STAR, SUM_TIMER_WAIT, MAX_TIMER_WAIT, SUM_LOCK_TIME, SUM_ERRORS, '
  + 'SUM_ROWS_AFFECTED, SUM_ROWS_SENT, SUM_ROWS_EXAMINED, SUM_CREATED_TMP_DISK_TABLES, SUM_CREATED_TMP_TABLES, SUM_SELECT_SCAN, '
  + 'SUM_SORT_ROWS, SUM_NO_INDEX_USED, SUM_NO_GOOD_INDEX_USED, FIRST_SEEN, LAST_SEEN FROM performance_schema.events_statements_summary_by_digest';

/** A SQL string literal (quotes doubled, backslashes escaped: safe under either sql_mode). */
function literal(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** How to turn performance_schema on, for the message (MariaDB needs it in my.cnf and a restart). */
export function enableHowTo(flavor: 'mysql' | 'mariadb'): string {
  return flavor === 'mariadb'
    ? 'performance_schema is OFF on this MariaDB server (MariaDB\'s default). Add `performance_schema = ON` under [mysqld] in my.cnf '
      + '(e.g. /etc/mysql/mariadb.conf.d/50-server.cnf) and restart the server: it cannot be turned on while the server runs.'
    : 'performance_schema is OFF on this MySQL server. Set `performance_schema = ON` under [mysqld] in my.cnf (it is ON by default '
      + 'in MySQL 5.6.6 and later) and restart the server: the variable is read only at start-up.';
}

function isOn(v: unknown): boolean {
  return v === 1 || v === '1' || v === 'ON' || v === 'on' || v === true;
}

async function read(db: DbConnection, sql: string): Promise<Record<string, unknown>[]> {
  try {
    return await db.query('schema', sql);
  } catch (err) {
    if (err instanceof DbError && /ER_TABLEACCESS_DENIED_ERROR|ER_DBACCESS_DENIED_ERROR|ER_SPECIFIC_ACCESS_DENIED/.test(err.code ?? '')) {
      throw new ServerStatsUnavailable(`user ${db.options.user} may not read performance_schema (${err.message}). `
        + `Grant it read access once: GRANT SELECT ON performance_schema.* TO '${db.options.user}'@'<host>';`);
    }
    throw err;
  }
}

/**
 * Checks that performance_schema is on and collects statement digests; throws ServerStatsUnavailable
 * with how to fix it otherwise.
 */
export async function checkServerStats(db: DbConnection): Promise<void> {
  const info = await db.connect();
  const [v] = await read(db, 'SELECT @@performance_schema');
  if (!isOn(Object.values(v ?? {})[0])) throw new ServerStatsUnavailable(enableHowTo(info.flavor));
  const consumers = await read(db, "SELECT NAME, ENABLED FROM performance_schema.setup_consumers WHERE NAME IN ('global_instrumentation', 'statements_digest')");
  const off = consumers.filter((c) => String(c.ENABLED ?? c.enabled).toUpperCase() !== 'YES').map((c) => String(c.NAME ?? c.name));
  if (off.length) {
    throw new ServerStatsUnavailable(`performance_schema is on but the consumer(s) ${off.join(', ')} are disabled, so no statement digests are collected. `
      + `Enable them (as an administrator): UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME IN (${off.map(literal).join(', ')}); `
      + `or for good in my.cnf: ${off.map((n) => `performance_schema_consumer_${n} = ON`).join(', ')}.`);
  }
}

/** Reads one snapshot for the connection's database (check first with checkServerStats). */
export async function readServerSnapshot(db: DbConnection): Promise<ServerSnapshot> {
  const info = await db.connect();
  const database = db.options.database;
  const schema = literal(database);
  const indexUsage = await read(db, 'SELECT OBJECT_TYPE, OBJECT_SCHEMA, OBJECT_NAME, INDEX_NAME, COUNT_STAR, COUNT_READ, COUNT_WRITE '
    + `FROM performance_schema.table_io_waits_summary_by_index_usage WHERE OBJECT_SCHEMA = ${schema}`);
  const digests = await read(db, DIGEST_SQL);
  const takenAt = new Date();
  const statistics = await read(db, 'SELECT TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, NON_UNIQUE, INDEX_TYPE, SEQ_IN_INDEX, COLUMN_NAME '
    + `FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ${schema}`);
  const keyColumnUsage = await read(db, 'SELECT CONSTRAINT_SCHEMA, CONSTRAINT_NAME, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, '
    + 'REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE '
    + `WHERE REFERENCED_TABLE_NAME IS NOT NULL AND (TABLE_SCHEMA = ${schema} OR REFERENCED_TABLE_SCHEMA = ${schema})`);
  return snapshotFromResultSets({ server: info.version, database, takenAt, digests, indexUsage, statistics, keyColumnUsage });
}
