/**
 * Reads one database's schema from information_schema (tables, columns, indexes with key-part
 * order, uniqueness, cardinality, sub-parts and visibility, row estimates) into core's Schema.
 * SchemaCache keeps the last read and bumps `generation` on every refresh.
 */
import type { ColumnInfo, IndexInfo, Schema, TableInfo } from '../core/model';
import type { DbConnection } from './connection';

type Row = Record<string, unknown>;

const esc = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

function n(v: unknown): number | undefined {
  if (v === null || v === undefined) return undefined;
  const x = Number(v);
  return Number.isFinite(x) ? x : undefined;
}

/** Reads the schema of the connection's database. */
export async function readSchema(db: DbConnection, generation: number): Promise<Schema> {
  const info = await db.connect();
  const database = db.options.database;
  const where = `TABLE_SCHEMA = ${esc(database)}`;
  const tables = await db.query<Row>('schema',
    `SELECT TABLE_NAME, TABLE_ROWS, ENGINE FROM information_schema.TABLES WHERE ${where} AND TABLE_TYPE = 'BASE TABLE'`);
  const columns = await db.query<Row>('schema',
    `SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS WHERE ${where} ORDER BY TABLE_NAME, ORDINAL_POSITION`);
  // why: MySQL 8 names hidden indexes IS_VISIBLE, MariaDB 10.6+ IGNORED; older servers have neither.
  const visibility = info.flavor === 'mysql' && info.major >= 8 ? ', IS_VISIBLE'
    : info.flavor === 'mariadb' && (info.major > 10 || info.minor >= 6) ? ', IGNORED' : '';
  const stats = await db.query<Row>('schema',
    `SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COLUMN_NAME, CARDINALITY, SUB_PART${visibility} FROM information_schema.STATISTICS WHERE ${where} ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`);
  const out: Record<string, TableInfo> = {};
  const get = (r: Row): string => String(r.TABLE_NAME ?? r.table_name);
  for (const t of tables) {
    const name = get(t);
    out[name.toLowerCase()] = { name, columns: [], indexes: [], rows: n(t.TABLE_ROWS) ?? 0, ...(t.ENGINE ? { engine: String(t.ENGINE) } : {}) };
  }
  for (const c of columns) {
    const t = out[get(c).toLowerCase()];
    if (!t) continue;
    const col: ColumnInfo = { name: String(c.COLUMN_NAME), type: String(c.COLUMN_TYPE), nullable: c.IS_NULLABLE === 'YES' };
    t.columns.push(col);
  }
  for (const s of stats) {
    const t = out[get(s).toLowerCase()];
    if (!t) continue;
    const name = String(s.INDEX_NAME);
    let idx: IndexInfo | undefined = t.indexes.find((i) => i.name === name);
    if (!idx) {
      const hidden = s.IS_VISIBLE === 'NO' || s.IGNORED === 'YES';
      idx = { name, columns: [], unique: Number(s.NON_UNIQUE) === 0, primary: name === 'PRIMARY', cardinality: [], subParts: [], ...(visibility ? { visible: !hidden } : {}) };
      t.indexes.push(idx);
    }
    idx.columns.push(String(s.COLUMN_NAME));
    idx.cardinality!.push(n(s.CARDINALITY));
    idx.subParts!.push(n(s.SUB_PART));
  }
  for (const t of Object.values(out)) {
    for (const i of t.indexes) if (i.subParts!.every((x) => x === undefined)) delete i.subParts;
    // why: PRIMARY first, then the order the server lists them in.
    t.indexes.sort((a, b) => Number(b.primary) - Number(a.primary));
  }
  return { database, flavor: info.flavor, version: info.version, tables: out, generation };
}

/** Caches the schema; `refresh()` re-reads it and bumps the generation (plan caches key on it). */
export class SchemaCache {
  private current: Schema | undefined;
  private loading: Promise<Schema> | undefined;
  private generation = 0;

  constructor(private readonly db: DbConnection) {}

  /** The cached schema, reading it on first use. */
  async get(): Promise<Schema> {
    if (this.current) return this.current;
    return this.refresh();
  }

  /** Re-reads the schema (after DDL, or on demand). */
  async refresh(): Promise<Schema> {
    this.loading ??= readSchema(this.db, this.generation + 1).then((s) => {
      this.generation = s.generation;
      this.current = s;
      return s;
    }).finally(() => { this.loading = undefined; });
    return this.loading;
  }

  /** The cached schema without reading. */
  peek(): Schema | undefined { return this.current; }
}
