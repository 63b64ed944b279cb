/**
 * Whether a statement the server would not EXPLAIN is wrong, or only not explained here. A warning
 * on a statement says "this code is broken"; that is true of a typo in a table or column name, a table
 * no schema creates, SQL the server cannot read. It is false when the statement goes to another
 * database (isucon12 keeps its tenant tables in SQLite: the connected MariaDB has none of them, the
 * workspace's sql/tenant/10_schema.sql defines them), when the part the server stumbled on was built
 * at run time and completed here by a guess, when the login lacks a grant, when a lock or the time
 * limit stopped it, or when the guard refused to send it. Those are "not explained", with the reason:
 * information, never a squiggle. Pure: the schema files come in as text.
 */
import type { Schema } from '../model';
import { columnsOf, findCreateTables, readIdent, skipSpace, splitStatements } from '../analysis/ddlParse';
import { scanTables } from '../sql/fillPlaceholders';
import { identName, isIdent, kw, tokenize, type Token } from '../sql/fillScan';

/** One CREATE TABLE in a schema file. */
export interface DefinedTable {
  name: string;
  /** 0-based line of the CREATE TABLE. */
  line: number;
  /** The database it is created in, when the file says (`USE db` before it, or `CREATE TABLE db.t`). */
  database?: string;
  columns: string[];
}

/** What one schema file defines and alters. */
export interface SchemaFileTables {
  /** The file as a person finds it (workspace-relative, or relative to where the CLI runs). */
  file: string;
  tables: DefinedTable[];
  /** Tables its ALTER TABLE statements change, with the columns they add. */
  altered: { name: string; database?: string; columns: string[] }[];
}

const same = (a: string | undefined, b: string | undefined): boolean => (a ?? '').toLowerCase() === (b ?? '').toLowerCase();

function lineAt(text: string, offset: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Reads the CREATE TABLE and ALTER TABLE statements of one schema file, with the database each is for. */
export function schemaFileTables(file: string, text: string): SchemaFileTables {
  const uses: { at: number; database: string }[] = [];
  const altered: SchemaFileTables['altered'] = [];
  for (const st of splitStatements(text)) {
    const s = skipSpace(text, st.start, st.end);
    const body = text.slice(s, st.end);
    const use = /^USE\s+/i.exec(body);
    if (use) {
      const id = readIdent(body, use[0].length);
      if (id) uses.push({ at: s, database: id.name });
      continue;
    }
    const alter = /^ALTER\s+(?:ONLINE\s+|IGNORE\s+)*TABLE\s+/i.exec(body);
    if (!alter) continue;
    let t = readIdent(body, alter[0].length);
    let db: string | undefined;
    if (t && body[t.end] === '.') { db = t.name; t = readIdent(body, t.end + 1); }
    if (!t) continue;
    const columns: string[] = [];
    for (const m of body.slice(t.end).matchAll(/\bADD\s+(?:COLUMN\s+)?(?:IF\s+NOT\s+EXISTS\s+)?(?!(?:UNIQUE|INDEX|KEY|CONSTRAINT|PRIMARY|FOREIGN|FULLTEXT|SPATIAL|CHECK|PARTITION)\b)([`"]?)([\w$]+)\1/gi)) columns.push(m[2]);
    const database = db ?? dbAt(uses, s);
    altered.push({ name: t.name, ...(database ? { database } : {}), columns });
  }
  const tables = findCreateTables(text).map((ct): DefinedTable => {
    const database = ct.db ?? dbAt(uses, ct.statement.start);
    return { name: ct.table, line: lineAt(text, skipSpace(text, ct.statement.start, ct.statement.end)), ...(database ? { database } : {}), columns: columnsOf(ct).map((c) => c.name) };
  });
  return { file, tables, altered };
}

function dbAt(uses: readonly { at: number; database: string }[], offset: number): string | undefined {
  let db: string | undefined;
  for (const u of uses) if (u.at < offset) db = u.database;
  return db;
}

/**
 * Names a statement reads or writes as tables (FROM / JOIN / UPDATE / INTO), without the names of its
 * common table expressions (`WITH recent AS (…) SELECT … FROM recent`), which no schema defines.
 */
export function statementTables(sql: string): string[] {
  const toks = tokenize(sql);
  const ctes = new Set<string>();
  for (let k = 0; k < toks.length; k++) {
    const before = kw(toks[k - 1]);
    if (!isIdent(toks[k]) || !(before === 'WITH' || before === 'RECURSIVE' || (toks[k - 1]?.text === ',' && ctes.size))) continue;
    let j = k + 1;
    if (toks[j]?.text === '(') j = closing(toks, j) + 1;
    if (kw(toks[j]) === 'AS' && toks[j + 1]?.text === '(') ctes.add(identName(toks[k]).toLowerCase());
  }
  const out: string[] = [];
  for (const r of scanTables(toks)) {
    const n = r.name.toLowerCase();
    if (!ctes.has(n) && !out.some((o) => o.toLowerCase() === n)) out.push(r.name);
  }
  return out;
}

function closing(toks: readonly Token[], open: number): number {
  let depth = 0;
  for (let k = open; k < toks.length; k++) {
    if (toks[k].text === '(') depth++;
    else if (toks[k].text === ')' && --depth === 0) return k;
  }
  return toks.length;
}

/** Where a table missing from the connected database is defined in the workspace. */
type Home =
  | { kind: 'this-database'; file: string; line: number }
  | { kind: 'elsewhere'; file: string; line: number; database?: string }
  | { kind: 'nowhere' };

/**
 * Whether a schema file's definition of a table is for the connected database. The file says so
 * with `USE db` (or `db.table`); else it is taken as the connected database's when it defines or
 * alters a table the database has, or when a file in the same folder does (a migrations folder whose
 * newest file adds a table the database has not loaded yet). A file none of whose tables the
 * database has, in a folder of its own, describes another database (isucon12's sql/tenant/).
 */
function isForConnected(def: DefinedTable, file: SchemaFileTables, files: readonly SchemaFileTables[], schema: Schema): boolean {
  if (def.database) return same(def.database, schema.database);
  // why: a database without tables is one the schema was never loaded into; its statements are all "missing".
  const names = Object.keys(schema.tables);
  if (names.length === 0) return true;
  const has = (n: string): boolean => schema.tables[n.toLowerCase()] !== undefined;
  const mine = (f: SchemaFileTables): boolean => f.tables.some((t) => (!t.database || same(t.database, schema.database)) && has(t.name))
    || f.altered.some((t) => (!t.database || same(t.database, schema.database)) && has(t.name));
  if (mine(file)) return true;
  const folder = (p: string): string => p.slice(0, p.lastIndexOf('/') + 1);
  return files.some((f) => f !== file && folder(f.file) === folder(file.file) && mine(f));
}

function homeOf(table: string, files: readonly SchemaFileTables[], schema: Schema): Home {
  let elsewhere: Home | undefined;
  for (const f of files) {
    for (const t of f.tables) {
      if (!same(t.name, table)) continue;
      // why: a definition for this database wins: the table belongs here, and the database lags behind its schema.
      if (isForConnected(t, f, files, schema)) return { kind: 'this-database', file: f.file, line: t.line };
      elsewhere ??= { kind: 'elsewhere', file: f.file, line: t.line, ...(t.database ? { database: t.database } : {}) };
    }
  }
  return elsewhere ?? { kind: 'nowhere' };
}

export interface ExplainFailure {
  /** The error's kind (DbErrorKind): `unknown-table`, `syntax`, `refused` … */
  kind: string;
  /** The server's (or the guard's) message. */
  message: string;
  /** The statement as sent after EXPLAIN: the tables it reads are looked up in the schema. */
  sql: string;
  /** The connected database. */
  schema: Schema;
  /** Values put in place of parts built at run time (a guess each): a syntax error may be the guess's. */
  runTimeParts?: readonly string[];
  /** Tables the workspace's schema files define; undefined when no workspace was read. */
  files?: readonly SchemaFileTables[];
}

export interface FailureJudgement {
  /** The message to show: the server's, with what the workspace adds to it. */
  message: string;
  /** Set when the failure says nothing against the statement: why it is not explained (information, no squiggle). */
  notExplained?: string;
}

const code = (name: string): string => `\`${name.replace(/`/g, '')}\``;
const list = (names: readonly string[]): string => names.map(code).join(', ');

/** Failures that are never the statement's doing. */
const NOT_THE_STATEMENT: Record<string, (message: string) => string> = {
  refused: (m) => `the guard does not send it: ${m}`,
  timeout: (m) => `no answer within the time limit: ${m}`,
  denied: (m) => `the login may not read what it reads: ${m}`,
};

/** Kinds whose cause may be a table of another database: the server names the first it misses, or stops at syntax it would read differently. */
const TABLE_KINDS = new Set(['unknown-table', 'syntax', 'unknown-column']);

/**
 * Judges one EXPLAIN failure. Tables the statement reads that the connected database lacks are
 * looked up in the workspace's schema files: defined only for another database → not explained
 * (information); defined for this one → the database has not loaded its schema (warning, saying
 * which file); defined nowhere → a typo or a missing migration (warning, saying so).
 */
export function judgeExplainFailure(f: ExplainFailure): FailureJudgement {
  const other = NOT_THE_STATEMENT[f.kind];
  if (other) return { message: f.message, notExplained: other(f.message) };
  if (!TABLE_KINDS.has(f.kind)) return { message: f.message };
  const missing = statementTables(f.sql).filter((t) => f.schema.tables[t.toLowerCase()] === undefined);
  const named = f.kind === 'unknown-table' ? /Table '(?:[^'.]*\.)?([^'.]+)' doesn't exist/i.exec(f.message)?.[1] : undefined;
  if (named && !missing.some((t) => same(t, named)) && f.schema.tables[named.toLowerCase()] === undefined) missing.unshift(named);
  if (missing.length && f.files) {
    const homes = missing.map((t) => ({ table: t, home: homeOf(t, f.files!, f.schema) }));
    const stale = homes.filter((h) => h.home.kind === 'this-database');
    const nowhere = homes.filter((h) => h.home.kind === 'nowhere');
    if (!stale.length && !nowhere.length) {
      const where = [...new Set(homes.map((h) => {
        const e = h.home as Extract<Home, { kind: 'elsewhere' }>;
        return e.database ? `for database ${code(e.database)} in ${e.file}` : `in ${e.file}`;
      }))];
      const tables = homes.map((h) => h.table);
      return { message: f.message, notExplained: `${list(tables)} ${tables.length > 1 ? 'are' : 'is'} not in the connected database ${code(f.schema.database)} (defined ${where.join(', ')})` };
    }
    if (f.kind === 'unknown-table' && stale.length) {
      const files = [...new Set(stale.map((h) => (h.home as { file: string }).file))];
      return { message: `${f.message}; ${files.join(', ')} ${files.length > 1 ? 'define' : 'defines'} ${list(stale.map((h) => h.table))} for this database, which has not loaded ${stale.length > 1 ? 'them' : 'it'} (run the schema or migration again)` };
    }
    if (f.kind === 'unknown-table') {
      return { message: `${f.message}; no schema file in the workspace defines ${list(nowhere.map((h) => h.table))}: a typo, or a table no migration creates yet` };
    }
  }
  if (f.kind !== 'unknown-table' && f.runTimeParts?.length) {
    // why: the server reads the statement as completed here; the part built at run time was a guess, so the error may be the guess's.
    return { message: f.message, notExplained: `the part built at run time was completed here as ${f.runTimeParts.map((p) => (p === '' ? 'nothing' : code(p))).join(', ')}, and the server cannot read it so: ${f.message}` };
  }
  const col = f.kind === 'unknown-column' ? /Unknown column '(?:[^']*\.)?([^'.]+)'/i.exec(f.message)?.[1] : undefined;
  if (col && f.files) {
    const read = statementTables(f.sql).filter((t) => f.schema.tables[t.toLowerCase()] !== undefined);
    const has = (name: string): boolean => read.some((r) => same(r, name));
    for (const file of f.files) {
      const t = file.tables.find((d) => has(d.name) && d.columns.some((c) => same(c, col)) && isForConnected(d, file, f.files!, f.schema))
        ?? file.altered.find((a) => has(a.name) && a.columns.some((c) => same(c, col)) && (!a.database || same(a.database, f.schema.database)));
      if (t) return { message: `${f.message}; ${file.file} defines ${code(t.name)}.${code(col)} for this database, which has not loaded it (run the schema or migration again)` };
    }
  }
  return { message: f.message };
}
