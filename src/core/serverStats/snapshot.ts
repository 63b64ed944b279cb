/**
 * A snapshot of the server's cumulative statement and index counters, as read from
 * performance_schema (`events_statements_summary_by_digest`, `table_io_waits_summary_by_index_usage`)
 * and information_schema (which indexes are unique, which back a foreign key). Two snapshots taken
 * around a benchmark give that benchmark's figures (digestDiff.ts, indexUsage.ts).
 *
 * Counters are kept as decimal strings: they are BIGINT UNSIGNED on the server (timers in
 * picoseconds), beyond a double's exact range, and a snapshot is saved as JSON (`--save`).
 */

/** Counters of one digest row, by our name. */
export const DIGEST_COUNTERS = [
  'count', 'timerWait', 'lockTime', 'rowsSent', 'rowsExamined', 'rowsAffected', 'tmpDiskTables', 'tmpTables',
  'sortRows', 'noIndexUsed', 'noGoodIndexUsed', 'selectScan', 'errors',
] as const;
export type DigestCounter = typeof DIGEST_COUNTERS[number];

/** The column each counter comes from; the same names in MySQL 5.6+, 8.x and MariaDB 10.x+. */
export const DIGEST_COLUMNS: Readonly<Record<DigestCounter, string>> = {
  count: 'COUNT_STAR', timerWait: 'SUM_TIMER_WAIT', lockTime: 'SUM_LOCK_TIME', rowsSent: 'SUM_ROWS_SENT',
  rowsExamined: 'SUM_ROWS_EXAMINED', rowsAffected: 'SUM_ROWS_AFFECTED', tmpDiskTables: 'SUM_CREATED_TMP_DISK_TABLES',
  tmpTables: 'SUM_CREATED_TMP_TABLES', sortRows: 'SUM_SORT_ROWS', noIndexUsed: 'SUM_NO_INDEX_USED',
  noGoodIndexUsed: 'SUM_NO_GOOD_INDEX_USED', selectScan: 'SUM_SELECT_SCAN', errors: 'SUM_ERRORS',
};

/** One row of events_statements_summary_by_digest. */
export interface DigestRow {
  schema: string | null;
  /** Null on the row that collects statements once the digest table is full. */
  digest: string | null;
  text: string | null;
  counters: Record<DigestCounter, string>;
  /** MAX_TIMER_WAIT (picoseconds) since the row was created. */
  maxTimerWait: string;
  /** FIRST_SEEN / LAST_SEEN as the server prints them (seconds on MariaDB, microseconds on MySQL 8). */
  firstSeen: string;
  lastSeen: string;
}

/** Counters of one row of table_io_waits_summary_by_index_usage. */
export interface IndexUsageRow {
  schema: string;
  table: string;
  /** Null on the row for table accesses through no index (full scans, and every INSERT). */
  index: string | null;
  countStar: string;
  countRead: string;
  countWrite: string;
}

/** What information_schema says about one index. */
export interface IndexInfo {
  schema: string;
  table: string;
  index: string;
  unique: boolean;
  /** BTREE, HASH, FULLTEXT, SPATIAL … */
  type: string;
  /** Columns in index order. */
  columns: string[];
}

/** A FOREIGN KEY's columns on the child table and the referenced columns on the parent table. */
export interface ForeignKeyInfo {
  schema: string;
  name: string;
  table: string;
  columns: string[];
  refSchema: string;
  refTable: string;
  refColumns: string[];
}

export const SNAPSHOT_FORMAT = 'query-insight-server-snapshot';
export const SNAPSHOT_VERSION = 1;

export interface ServerSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  version: typeof SNAPSHOT_VERSION;
  /** ISO 8601, the client's clock when the reads ended. */
  takenAt: string;
  /** VERSION() text: `10.11.6-MariaDB-0+deb12u1`, `8.0.36`. */
  server: string;
  /** The database the snapshot was taken for (the connection's default database). */
  database: string;
  digests: DigestRow[];
  indexUsage: IndexUsageRow[];
  indexes: IndexInfo[];
  foreignKeys: ForeignKeyInfo[];
}

/** Thrown on a result set or saved file that does not have the expected shape. */
export class SnapshotError extends Error {}

function col(row: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(row, name)) return row[name];
  // why: a driver or a recording may hand the column names in lower case.
  const lower = name.toLowerCase();
  if (Object.hasOwn(row, lower)) return row[lower];
  throw new SnapshotError(`column ${name} is missing from the result set`);
}

function counter(row: Record<string, unknown>, name: string): string {
  const v = col(row, name);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return String(v);
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) return v.replace(/^0+(?=\d)/, '');
  throw new SnapshotError(`column ${name} is not a counter: ${JSON.stringify(v)}`);
}

function text(row: Record<string, unknown>, name: string): string | null {
  const v = col(row, name);
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  if (v instanceof Date) return v.toISOString();
  return String(v);
}

/** One digest row from a result set of `SELECT … FROM performance_schema.events_statements_summary_by_digest`. */
export function digestRowFromColumns(row: Record<string, unknown>): DigestRow {
  const counters = {} as Record<DigestCounter, string>;
  for (const c of DIGEST_COUNTERS) counters[c] = counter(row, DIGEST_COLUMNS[c]);
  return {
    schema: text(row, 'SCHEMA_NAME'), digest: text(row, 'DIGEST'), text: text(row, 'DIGEST_TEXT'), counters,
    maxTimerWait: counter(row, 'MAX_TIMER_WAIT'), firstSeen: text(row, 'FIRST_SEEN') ?? '', lastSeen: text(row, 'LAST_SEEN') ?? '',
  };
}

/** One row from `SELECT … FROM performance_schema.table_io_waits_summary_by_index_usage`. */
export function indexUsageRowFromColumns(row: Record<string, unknown>): IndexUsageRow {
  const schema = text(row, 'OBJECT_SCHEMA');
  const table = text(row, 'OBJECT_NAME');
  if (schema === null || table === null) throw new SnapshotError('an index-usage row without OBJECT_SCHEMA / OBJECT_NAME');
  return {
    schema, table, index: text(row, 'INDEX_NAME'),
    countStar: counter(row, 'COUNT_STAR'), countRead: counter(row, 'COUNT_READ'), countWrite: counter(row, 'COUNT_WRITE'),
  };
}

/**
 * Indexes from rows of information_schema.STATISTICS (TABLE_SCHEMA, TABLE_NAME, INDEX_NAME,
 * NON_UNIQUE, INDEX_TYPE, SEQ_IN_INDEX, COLUMN_NAME), one entry per index with its columns in order.
 */
export function indexesFromStatistics(rows: readonly Record<string, unknown>[]): IndexInfo[] {
  const by = new Map<string, IndexInfo & { seq: number[] }>();
  for (const r of rows) {
    const schema = text(r, 'TABLE_SCHEMA') ?? '';
    const table = text(r, 'TABLE_NAME') ?? '';
    const index = text(r, 'INDEX_NAME') ?? '';
    const key = `${schema}\0${table}\0${index}`;
    let info = by.get(key);
    if (!info) {
      info = { schema, table, index, unique: String(col(r, 'NON_UNIQUE')) === '0', type: text(r, 'INDEX_TYPE') ?? '', columns: [], seq: [] };
      by.set(key, info);
    }
    info.seq.push(Number(col(r, 'SEQ_IN_INDEX')));
    info.columns.push(text(r, 'COLUMN_NAME') ?? '');
  }
  return [...by.values()].map(({ seq, ...info }) => {
    const order = seq.map((s, i) => [s, i] as const).sort((a, b) => a[0] - b[0]);
    return { ...info, columns: order.map(([, i]) => info.columns[i]) };
  });
}

/**
 * Foreign keys from rows of information_schema.KEY_COLUMN_USAGE (CONSTRAINT_SCHEMA, CONSTRAINT_NAME,
 * TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME,
 * REFERENCED_COLUMN_NAME) restricted to rows with a referenced table.
 */
export function foreignKeysFromKeyColumnUsage(rows: readonly Record<string, unknown>[]): ForeignKeyInfo[] {
  const by = new Map<string, ForeignKeyInfo & { pos: number[] }>();
  for (const r of rows) {
    const refTable = text(r, 'REFERENCED_TABLE_NAME');
    if (refTable === null) continue;
    const schema = text(r, 'CONSTRAINT_SCHEMA') ?? '';
    const table = text(r, 'TABLE_NAME') ?? '';
    const name = text(r, 'CONSTRAINT_NAME') ?? '';
    const key = `${schema}\0${table}\0${name}`;
    let fk = by.get(key);
    if (!fk) {
      fk = { schema, name, table, columns: [], refSchema: text(r, 'REFERENCED_TABLE_SCHEMA') ?? schema, refTable, refColumns: [], pos: [] };
      by.set(key, fk);
    }
    fk.pos.push(Number(col(r, 'ORDINAL_POSITION')));
    fk.columns.push(text(r, 'COLUMN_NAME') ?? '');
    fk.refColumns.push(text(r, 'REFERENCED_COLUMN_NAME') ?? '');
  }
  return [...by.values()].map(({ pos, ...fk }) => {
    const order = pos.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
    return { ...fk, columns: order.map(([, i]) => fk.columns[i]), refColumns: order.map(([, i]) => fk.refColumns[i]) };
  });
}

/** One line of JSON (the format marker first, so a file can be told by its start). */
export function serializeSnapshot(s: ServerSnapshot): string {
  return JSON.stringify(s) + '\n';
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads a saved snapshot back; throws SnapshotError naming the first problem. */
export function parseSnapshot(textIn: string): ServerSnapshot {
  let v: unknown;
  try { v = JSON.parse(textIn); } catch (err) { throw new SnapshotError(`not a Query Insight server snapshot: invalid JSON (${(err as Error).message})`); }
  const need = (cond: boolean, what: string): void => { if (!cond) throw new SnapshotError(`not a Query Insight server snapshot: ${what}`); };
  need(isObj(v), 'not a JSON object');
  const o = v as Record<string, unknown>;
  need(o.format === SNAPSHOT_FORMAT, `"format" is not "${SNAPSHOT_FORMAT}"`);
  need(o.version === SNAPSHOT_VERSION, `version ${String(o.version)} is not supported (expected ${SNAPSHOT_VERSION})`);
  for (const k of ['takenAt', 'server', 'database']) need(typeof o[k] === 'string', `"${k}" is not a string`);
  need(!Number.isNaN(Date.parse(o.takenAt as string)), '"takenAt" is not a date');
  for (const k of ['digests', 'indexUsage', 'indexes', 'foreignKeys']) need(Array.isArray(o[k]), `"${k}" is not a list`);
  const num = (x: unknown): boolean => typeof x === 'string' && /^\d{1,20}$/.test(x);
  (o.digests as unknown[]).forEach((d, i) => {
    need(isObj(d) && isObj(d.counters), `digests[${i}] is not a digest row`);
    const r = d as unknown as DigestRow;
    for (const c of DIGEST_COUNTERS) need(num(r.counters[c]), `digests[${i}].counters.${c} is not a counter`);
    need(num(r.maxTimerWait), `digests[${i}].maxTimerWait is not a counter`);
  });
  (o.indexUsage as unknown[]).forEach((d, i) => {
    need(isObj(d) && typeof d.schema === 'string' && typeof d.table === 'string', `indexUsage[${i}] has no schema/table`);
    const r = d as unknown as IndexUsageRow;
    need(num(r.countStar) && num(r.countRead) && num(r.countWrite), `indexUsage[${i}] has a bad counter`);
  });
  return v as ServerSnapshot;
}

/** The four result sets a snapshot is read from, as a driver returns them (one object per row). */
export interface SnapshotResultSets {
  server: string;
  database: string;
  takenAt: Date;
  digests: readonly Record<string, unknown>[];
  indexUsage: readonly Record<string, unknown>[];
  statistics: readonly Record<string, unknown>[];
  keyColumnUsage: readonly Record<string, unknown>[];
}

/** Builds a snapshot from raw result sets; throws SnapshotError when a column is missing or not a counter. */
export function snapshotFromResultSets(r: SnapshotResultSets): ServerSnapshot {
  return {
    format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, takenAt: r.takenAt.toISOString(), server: r.server, database: r.database,
    digests: r.digests.map(digestRowFromColumns),
    indexUsage: r.indexUsage.filter((x) => { const t = x.OBJECT_TYPE ?? x.object_type; return t === undefined || t === 'TABLE'; }).map(indexUsageRowFromColumns),
    indexes: indexesFromStatistics(r.statistics),
    foreignKeys: foreignKeysFromKeyColumnUsage(r.keyColumnUsage),
  };
}
