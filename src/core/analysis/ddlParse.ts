/**
 * A small reader for schema files (`schema.sql`, `0_Schema.sql`, `init.sql`): splits the text into
 * statements (quotes, comments and `DELIMITER` respected), locates each CREATE TABLE with the offsets
 * of its definitions, and builds a `Schema` from CREATE TABLE, ALTER TABLE … ADD INDEX and CREATE INDEX.
 * Hand-written rather than node-sql-parser because dump files carry table options and versioned
 * comments that parser rejects, and the editor needs exact offsets.
 */
import type { ColumnInfo, Flavor, IndexInfo, Schema, TableInfo } from '../model';
import { cursorOf, T_COMMENT, T_EXEC_COMMENT, T_QIDENT, T_STRING } from '../sql/sqlLexer';

export interface Statement {
  /** Offsets into the text: the statement without its delimiter. */
  start: number;
  end: number;
  /** Offset just after the delimiter (or `end` when the text ends without one). */
  after: number;
  delimiter: string;
}

/** Offset of the end of a quoted string/identifier starting at `i`, or of a comment; -1 when `i` starts neither (read by the one SQL lexer). */
function skipQuotedOrComment(text: string, i: number): number {
  const c = text.charCodeAt(i);
  // why: most offsets start neither; the lexer is only asked where a quote or comment can open
  if (c !== 39 && c !== 34 && c !== 96 && c !== 45 && c !== 35 && c !== 47) return -1;
  const cur = cursorOf(text, i);
  const k = cur.next();
  return cur.start === i && (k === T_STRING || k === T_QIDENT || k === T_COMMENT || k === T_EXEC_COMMENT) ? cur.end : -1;
}

/** Splits SQL text into statements, honouring the client's `DELIMITER` command. */
export function splitStatements(text: string): Statement[] {
  const out: Statement[] = [];
  let delimiter = ';';
  let start = 0;
  let blank = true;
  let i = 0;
  while (i < text.length) {
    if (blank && (i === 0 || text[i - 1] === '\n')) {
      const m = /^[ \t]*DELIMITER[ \t]+(\S+)[^\n]*(\n|$)/i.exec(text.slice(i, i + 200));
      if (m) {
        delimiter = m[1];
        i += m[0].length;
        start = i;
        continue;
      }
    }
    const skip = skipQuotedOrComment(text, i);
    if (skip >= 0) {
      if (!isComment(text, i)) blank = false;
      i = skip;
      continue;
    }
    if (text.startsWith(delimiter, i)) {
      if (!blank) out.push({ start, end: i, after: i + delimiter.length, delimiter });
      i += delimiter.length;
      start = i;
      blank = true;
      continue;
    }
    if (!/\s/.test(text[i])) blank = false;
    i++;
  }
  if (!blank) out.push({ start, end: text.length, after: text.length, delimiter });
  return out;
}

function isComment(text: string, i: number): boolean {
  const c = text[i];
  return c === '#' || c === '-' || (c === '/' && text[i + 2] !== '!');
}

/** Offset of the first code character at or after `i` (skipping whitespace and comments). */
export function skipSpace(text: string, i: number, end = text.length): number {
  while (i < end) {
    if (/\s/.test(text[i])) { i++; continue; }
    const c = text[i];
    if (c === '-' || c === '#' || (c === '/' && text[i + 2] !== '!')) {
      const skip = skipQuotedOrComment(text, i);
      if (skip > i) { i = skip; continue; }
    }
    break;
  }
  return i;
}

/** Reads an identifier (bare or backquoted/double-quoted) at `i`; returns its name and the offset after it. */
export function readIdent(text: string, i: number): { name: string; end: number; quoted: boolean } | undefined {
  const c = text[i];
  if (c === '`' || c === '"') {
    const end = skipQuotedOrComment(text, i);
    return { name: text.slice(i + 1, end - 1).replace(c === '`' ? /``/g : /""/g, c), end, quoted: true };
  }
  const m = /^[A-Za-z0-9_$\u0080-\uffff]+/.exec(text.slice(i, i + 256));
  return m ? { name: m[0], end: i + m[0].length, quoted: false } : undefined;
}

/** Reads `name` or `db.name`. */
function readQualified(text: string, i: number): { db?: string; name: string; end: number; quoted: boolean } | undefined {
  const a = readIdent(text, i);
  if (!a) return undefined;
  if (text[a.end] === '.') {
    const b = readIdent(text, a.end + 1);
    if (b) return { db: a.name, name: b.name, end: b.end, quoted: a.quoted || b.quoted };
  }
  return a;
}

export interface Definition { start: number; end: number; text: string }

export interface CreateTable {
  table: string;
  db?: string;
  statement: Statement;
  /** Offset just after the opening parenthesis, and of the matching closing one. */
  bodyStart: number;
  bodyEnd: number;
  /** Comma-separated definitions: columns, keys, constraints (offsets without surrounding space/comments). */
  definitions: Definition[];
  /** True when the table name was written with backticks. */
  quoted: boolean;
}

/** Splits `start..end` at top-level commas into trimmed definitions. */
function splitDefinitions(text: string, start: number, end: number): Definition[] {
  const defs: Definition[] = [];
  let depth = 0;
  let from = start;
  const push = (to: number) => {
    const s = skipSpace(text, from, to);
    // The definition ends at its last code character: trailing spaces and comments stay outside.
    let k = s, lastCode = s;
    while (k < to) {
      const skip = skipQuotedOrComment(text, k);
      if (skip >= 0) { if (!isComment(text, k)) lastCode = skip; k = skip; continue; }
      if (!/\s/.test(text[k])) lastCode = k + 1;
      k++;
    }
    if (lastCode > s) defs.push({ start: s, end: lastCode, text: text.slice(s, lastCode) });
  };
  let i = start;
  while (i < end) {
    const skip = skipQuotedOrComment(text, i);
    if (skip >= 0) { i = skip; continue; }
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) { push(i); from = i + 1; }
    i++;
  }
  push(end);
  return defs;
}

/** Finds every CREATE TABLE in a text, with the offsets an editor needs. */
export function findCreateTables(text: string): CreateTable[] {
  const out: CreateTable[] = [];
  for (const st of splitStatements(text)) {
    let i = skipSpace(text, st.start, st.end);
    const head = /^CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?/i.exec(text.slice(i, i + 200));
    if (!head) continue;
    i += head[0].length;
    const name = readQualified(text, i);
    if (!name) continue;
    const open = skipSpace(text, name.end, st.end);
    if (text[open] !== '(') continue;
    let depth = 0, j = open, close = -1;
    while (j < st.end) {
      const skip = skipQuotedOrComment(text, j);
      if (skip >= 0) { j = skip; continue; }
      if (text[j] === '(') depth++;
      else if (text[j] === ')' && --depth === 0) { close = j; break; }
      j++;
    }
    if (close < 0) continue;
    out.push({ table: name.name, db: name.db, statement: st, bodyStart: open + 1, bodyEnd: close, definitions: splitDefinitions(text, open + 1, close), quoted: name.quoted });
  }
  return out;
}

/** Reads `(a, b(10), c DESC)` key parts at `i`; functional parts are skipped. */
export function readKeyParts(text: string, i: number): { columns: string[]; subParts: (number | undefined)[]; end: number } | undefined {
  i = skipSpace(text, i);
  if (text[i] !== '(') return undefined;
  let depth = 0, j = i;
  for (; j < text.length; j++) {
    const skip = skipQuotedOrComment(text, j);
    if (skip >= 0 && text[j] !== '#') { j = skip - 1; continue; }
    if (text[j] === '(') depth++;
    else if (text[j] === ')' && --depth === 0) break;
  }
  const columns: string[] = [], subParts: (number | undefined)[] = [];
  for (const part of splitDefinitions(text, i + 1, j)) {
    const id = readIdent(part.text, 0);
    if (!id || part.text.startsWith('(')) continue;
    const len = /^\s*\(\s*(\d+)\s*\)/.exec(part.text.slice(id.end));
    columns.push(id.name);
    subParts.push(len ? Number(len[1]) : undefined);
  }
  return { columns, subParts, end: j + 1 };
}

export interface IndexDef extends IndexInfo {
  /** Where it is defined: inside a CREATE TABLE or by a later statement. */
  origin: 'inline' | 'alter' | 'create-index';
  /** Offsets of the definition (inline) or of the whole statement. */
  start: number;
  end: number;
}

/** Parses one definition of a CREATE TABLE body into an index, when it is one. */
export function parseIndexDefinition(def: string): Omit<IndexInfo, 'name'> & { name?: string; keyword?: string } | undefined {
  let m = /^(?:CONSTRAINT\s+(?:[`"]?[^\s(`"]+[`"]?\s+)?)?PRIMARY\s+KEY\s*(?:USING\s+\w+\s*)?/i.exec(def);
  if (m) { const k = readKeyParts(def, m[0].length); return k && { columns: k.columns, subParts: k.subParts, unique: true, primary: true, name: 'PRIMARY', keyword: 'KEY' }; }
  m = /^(?:CONSTRAINT\s+(?:([`"]?)([^\s(`"]+)\1\s+)?)?UNIQUE\s*(KEY|INDEX)?\s*/i.exec(def) ?? /^(KEY|INDEX)\s*/i.exec(def);
  if (m) {
    const unique = /^(CONSTRAINT|UNIQUE)/i.test(def);
    const keyword = unique ? m[3] : m[1];
    let i = m[0].length;
    let name = unique ? m[2] : undefined;
    if (def[i] !== '(') {
      const id = readIdent(def, i);
      if (id && !/^USING$/i.test(id.name)) { name = id.name; i = id.end; }
    }
    i = skipSpace(def, i);
    const using = /^USING\s+\w+\s*/i.exec(def.slice(i));
    if (using) i += using[0].length;
    const k = readKeyParts(def, i);
    return k && { columns: k.columns, subParts: k.subParts, unique, primary: false, name: name ?? k.columns[0], keyword: keyword?.toUpperCase() };
  }
  return undefined;
}

const DEF_KEYWORDS = /^(PRIMARY|UNIQUE|KEY|INDEX|CONSTRAINT|FOREIGN|FULLTEXT|SPATIAL|CHECK|PERIOD|SYSTEM)\b/i;

/** Indexes of `table` added after its CREATE TABLE (ALTER TABLE … ADD INDEX, CREATE INDEX … ON). */
export function findIndexStatements(text: string): { table: string; index: IndexDef; statement: Statement; style: 'alter' | 'create-index' }[] {
  const out: { table: string; index: IndexDef; statement: Statement; style: 'alter' | 'create-index' }[] = [];
  for (const st of splitStatements(text)) {
    const s = skipSpace(text, st.start, st.end);
    const body = text.slice(s, st.end);
    let m = /^ALTER\s+(?:ONLINE\s+|IGNORE\s+)*TABLE\s+/i.exec(body);
    if (m) {
      const t = readQualified(body, m[0].length);
      if (!t) continue;
      // ADD INDEX / ADD KEY / ADD UNIQUE … clauses, split at top-level commas.
      for (const clause of splitDefinitions(body, t.end, body.length)) {
        const add = /^ADD\s+(?=(?:UNIQUE|INDEX|KEY|CONSTRAINT|PRIMARY)\b)/i.exec(clause.text);
        if (!add) continue;
        const p = parseIndexDefinition(clause.text.slice(add[0].length));
        if (p) out.push({ table: t.name, statement: st, style: 'alter', index: { ...p, name: p.name ?? p.columns[0], origin: 'alter', start: s, end: st.end } });
      }
      continue;
    }
    m = /^CREATE\s+(UNIQUE\s+)?(?:FULLTEXT\s+|SPATIAL\s+)?INDEX\s+/i.exec(body);
    if (m) {
      const id = readIdent(body, m[0].length);
      if (!id) continue;
      const on = /^\s*ON\s+/i.exec(body.slice(id.end));
      if (!on) continue;
      const t = readQualified(body, id.end + on[0].length);
      if (!t) continue;
      const k = readKeyParts(body, t.end);
      if (k) out.push({ table: t.name, statement: st, style: 'create-index', index: { name: id.name, columns: k.columns, subParts: k.subParts, unique: !!m[1], primary: false, origin: 'create-index', start: s, end: st.end } });
    }
  }
  return out;
}

/** Every index of a CREATE TABLE body, with its offsets. */
export function inlineIndexes(text: string, ct: CreateTable): IndexDef[] {
  const out: IndexDef[] = [];
  for (const d of ct.definitions) {
    const p = parseIndexDefinition(d.text);
    if (p) { out.push({ ...p, name: p.name ?? p.columns[0], origin: 'inline', start: d.start, end: d.end }); continue; }
    if (DEF_KEYWORDS.test(d.text)) continue;
    const col = readIdent(d.text, 0);
    if (col && /\bPRIMARY\s+KEY\b/i.test(d.text.slice(col.end))) out.push({ name: 'PRIMARY', columns: [col.name], unique: true, primary: true, origin: 'inline', start: d.start, end: d.end });
    else if (col && /\bUNIQUE(\s+KEY)?\b/i.test(d.text.slice(col.end).replace(/'[^']*'/g, ''))) out.push({ name: col.name, columns: [col.name], unique: true, primary: false, origin: 'inline', start: d.start, end: d.end });
  }
  void text;
  return out;
}

/** The columns a CREATE TABLE defines, in order (keys and constraints left out). */
export function columnsOf(ct: CreateTable): ColumnInfo[] {
  const cols: ColumnInfo[] = [];
  for (const d of ct.definitions) {
    if (DEF_KEYWORDS.test(d.text)) continue;
    const id = readIdent(d.text, 0);
    if (!id) continue;
    const rest = d.text.slice(id.end).trim();
    const type = /^[A-Za-z]+(\s*\([^)]*\))?(\s+(unsigned|zerofill))*/i.exec(rest)?.[0] ?? '';
    cols.push({ name: id.name, type: type.toLowerCase(), nullable: !/\bNOT\s+NULL\b/i.test(rest) && !/\bPRIMARY\s+KEY\b/i.test(rest) });
  }
  return cols;
}

export interface SchemaTextOptions { database?: string; flavor?: Flavor; version?: string }

/**
 * Builds a Schema from schema-file texts. Row counts are unknown (0) — say so to the user;
 * the engine is InnoDB unless the file says otherwise. Later definitions of a table replace earlier ones.
 */
export function parseSchemaText(texts: readonly string[], opts: SchemaTextOptions = {}): Schema {
  const tables: Record<string, TableInfo> = {};
  for (const text of texts) {
    for (const ct of findCreateTables(text)) {
      const idx = inlineIndexes(text, ct).map(({ name, columns, unique, primary, subParts }): IndexInfo => ({ name, columns, unique, primary, ...(subParts?.some((x) => x !== undefined) ? { subParts } : {}) }));
      // why: InnoDB creates an index for a FOREIGN KEY whose columns no index starts with.
      for (const d of ct.definitions) {
        const fk = /^(?:CONSTRAINT\s+(?:([`"]?)([^\s(`"]+)\1\s+)?)?FOREIGN\s+KEY\s*(?:([`"]?)([^\s(`"]+)\3\s*)?/i.exec(d.text);
        if (!fk) continue;
        const k = readKeyParts(d.text, fk[0].length);
        if (k && !idx.some((i) => k.columns.every((c, n) => i.columns[n]?.toLowerCase() === c.toLowerCase()))) idx.push({ name: fk[4] ?? fk[2] ?? k.columns[0], columns: k.columns, unique: false, primary: false });
      }
      const tail = text.slice(ct.bodyEnd + 1, ct.statement.end);
      const engine = /\bENGINE\s*=?\s*(\w+)/i.exec(tail)?.[1];
      tables[ct.table.toLowerCase()] = { name: ct.table, columns: columnsOf(ct), indexes: idx, rows: 0, ...(engine ? { engine } : {}) };
    }
    for (const s of findIndexStatements(text)) {
      const t = tables[s.table.toLowerCase()];
      if (!t) continue;
      const { name, columns, unique, primary, subParts } = s.index;
      t.indexes = t.indexes.filter((i) => i.name.toLowerCase() !== name.toLowerCase());
      t.indexes.push({ name, columns, unique, primary, ...(subParts?.some((x) => x !== undefined) ? { subParts } : {}) });
    }
  }
  return { database: opts.database ?? '', flavor: opts.flavor ?? 'mysql', version: opts.version ?? '', tables, generation: 0 };
}
