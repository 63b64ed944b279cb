/**
 * Placeholder filling: turns `… WHERE user_id = ?` into a statement the server can EXPLAIN, using
 * values sampled from the column each placeholder is compared with (so the plan reflects real
 * selectivity), typed literals when sampling is impossible, expanded IN-lists, and plausible
 * completions of dynamic parts (DYNAMIC_MARK). Every substitution is reported for the hover.
 */
import type { ColumnInfo, Flavor, Schema, TableInfo } from '../model';
import { DYNAMIC_MARK } from '../model';
import { aliasMap, columnRef, isNode, parseStatement, tableRefs, walk, type AstNode, type TableRef } from './fillAst';
import { identName, isIdent, kw, tokenize, type Token } from './fillScan';

export type SampleValue = string | number | bigint | null;

/** Reads real values of a column (implemented in src/db by a bounded SELECT). */
export interface SampleSource {
  sample(table: string, column: string, count: number): Promise<SampleValue[]>;
}

export interface Substitution {
  /** The placeholder as written (`?`, `$2`, `:id`, `%s`) or DYNAMIC_MARK for a dynamic part. */
  placeholder: string;
  /** 0-based position among the statement's placeholders and dynamic parts. */
  index: number;
  /** The SQL text put in its place (`42`, `'user12'`, `(1, 2, 3)`, `id`). */
  value: string;
  /** `table.column` the value belongs to, when known. */
  column?: string;
  /** sample: read from the table; typed: a literal of the column's type; default: column unknown; limit/completion: structural. */
  source: 'sample' | 'typed' | 'default' | 'limit' | 'completion';
  note?: string;
}

export type FillResult =
  | { ok: true; sql: string; substitutions: Substitution[]; parsed: boolean }
  | { ok: false; reason: string };

export interface FillOptions {
  flavor?: Flavor;
  /** How many values an expanded IN-list gets (default 3). */
  inListSize?: number;
  /**
   * Value for `LIMIT ?` (default DEFAULT_PAGE: a realistic page). The same in every language: the optimizer
   * can pick another plan at LIMIT 1 than at LIMIT 20, so the same statement must be explained alike.
   */
  limit?: number;
}

type Role = 'value' | 'limit' | 'offset' | 'completion';

/** The page size a `LIMIT ?` is explained with when the code's value is not known. */
export const DEFAULT_PAGE = 20;

interface Slot {
  tok: Token;
  index: number;
  role: Role;
  inExpand: boolean;
  /** A list placeholder without its parentheses (`IN %s`): the driver writes `(v1, v2)`, so must the fill. */
  wrap?: boolean;
  completion?: string;
  note?: string;
  target?: { qualifier: string | null; column: string };
  /** The bounds of `BETWEEN ? AND ?`: the lower one's slot is the upper one's `lowerOf`. */
  lowerOf?: Slot;
}

const COMPARE = new Set(['=', '<', '>', '<=', '>=', '<>', '!=', '<=>']);
const CLAUSES = new Set(['SELECT', 'WHERE', 'ORDER', 'GROUP', 'HAVING', 'LIMIT', 'SET', 'VALUES', 'VALUE', 'ON', 'FROM', 'INTO']);

/** The clause keyword that governs token k (scanning back at the same paren depth). */
function clauseOf(tokens: Token[], k: number): string {
  let depth = 0;
  for (let j = k - 1; j >= 0; j--) {
    const t = tokens[j];
    if (t.text === ')') depth++;
    else if (t.text === '(') { if (depth === 0) continue; depth--; }
    else if (depth === 0 && CLAUSES.has(kw(t))) return kw(t);
  }
  return '';
}

/** Base tables by a token scan (FROM / JOIN / UPDATE / INTO ident [AS] alias). */
export function scanTables(tokens: Token[]): TableRef[] {
  const out: TableRef[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const w = kw(tokens[k]);
    if (!['FROM', 'JOIN', 'UPDATE', 'INTO', 'STRAIGHT_JOIN'].includes(w)) continue;
    let j = k + 1;
    for (;;) {
      if (!isIdent(tokens[j])) break;
      let name = identName(tokens[j]);
      if (tokens[j + 1]?.text === '.' && isIdent(tokens[j + 2])) { name = identName(tokens[j + 2]); j += 2; }
      j++;
      if (kw(tokens[j]) === 'AS') j++;
      let alias: string | undefined;
      if (isIdent(tokens[j])) { alias = identName(tokens[j]); j++; }
      out.push({ name, ...(alias ? { alias } : {}) });
      if (w === 'FROM' && tokens[j]?.text === ',') { j++; continue; }
      break;
    }
  }
  return out;
}

function tableOf(schema: Schema | undefined, name: string): TableInfo | undefined {
  return schema?.tables[name.toLowerCase()];
}

function columnOf(t: TableInfo | undefined, name: string): ColumnInfo | undefined {
  const n = name.toLowerCase();
  return t?.columns.find((c) => c.name.toLowerCase() === n);
}

const NUMERIC = /^(?:tinyint|smallint|mediumint|int|integer|bigint|decimal|numeric|float|double|real|bit|year|bool|boolean)\b/i;

/** A literal of the column's type, for when no real value can be read. */
export function typedLiteral(type: string): string {
  const t = type.toLowerCase();
  if (NUMERIC.test(t)) return '1';
  if (t.startsWith('datetime') || t.startsWith('timestamp')) return "'2024-01-01 00:00:00'";
  if (t.startsWith('date')) return "'2024-01-01'";
  if (t.startsWith('time')) return "'00:00:00'";
  if (t.startsWith('enum') || t.startsWith('set')) {
    const m = /\('((?:[^']|'')*)'/.exec(type);
    return m ? `'${m[1]}'` : "'a'";
  }
  if (t.startsWith('json')) return "'{}'";
  return "'a'";
}

/** Renders a sampled value as a SQL literal fitting the column type. */
export function sqlLiteral(v: SampleValue, type: string | undefined): string {
  if (v === null) return 'NULL';
  const numericColumn = !type || NUMERIC.test(type);
  if ((typeof v === 'number' || typeof v === 'bigint') && numericColumn) return String(v);
  const s = String(v);
  if (numericColumn && /^-?\d+(?:\.\d+)?$/.test(s)) return s;
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

function classify(tokens: Token[], k: number, tables: TableRef[], schema: Schema | undefined, index: number): Slot | string {
  const tok = tokens[k];
  const prev = tokens[k - 1];
  const prev2 = tokens[k - 2];
  const next = tokens[k + 1];
  const slot: Slot = { tok, index, role: 'value', inExpand: false };
  const pk = kw(prev);
  if (pk === 'LIMIT') { slot.role = next?.text === ',' ? 'offset' : 'limit'; return slot; }
  if (pk === 'OFFSET') { slot.role = 'offset'; return slot; }
  if (prev?.text === ',' && (prev2?.kind === 'number' || prev2?.kind === 'placeholder') && kw(tokens[k - 3]) === 'LIMIT') { slot.role = 'limit'; return slot; }
  const inList = prev?.text === '(' && kw(prev2) === 'IN' && next?.text === ')';
  if (tok.list || (tok.kind === 'dynamic' && pk === 'IN')) {
    slot.inExpand = true; slot.wrap = true;
    if (tok.kind === 'dynamic') slot.note = 'dynamic IN-list';
    return slot;
  }
  if (tok.kind === 'placeholder') { slot.inExpand = inList; return slot; }
  if (tok.kind === 'uservar') { slot.inExpand = inList; slot.note = `user variable ${tok.text} given a value`; return slot; }
  // A dynamic part: find a plausible completion from its surroundings.
  if (k === 0) return 'the start of the statement is built at run time';
  if (['FROM', 'JOIN', 'INTO', 'UPDATE', 'TABLE', 'STRAIGHT_JOIN'].includes(pk) || prev?.text === '.') return 'the table name is chosen at run time';
  if (inList) { slot.inExpand = true; slot.note = 'dynamic IN-list'; return slot; }
  if ((prev?.kind === 'op' && COMPARE.has(prev.text)) || pk === 'LIKE' || pk === 'BETWEEN' || (pk === 'AND' && kw(tokens[k - 3]) === 'BETWEEN')) {
    slot.note = 'dynamic value'; return slot;
  }
  const clause = clauseOf(tokens, k);
  if (pk === 'BY' || (prev?.text === ',' && (clause === 'ORDER' || clause === 'GROUP'))) {
    const main = tables[0] ? tableOf(schema, tables[0].name) : undefined;
    const pkIndex = main?.indexes.find((i) => i.primary);
    slot.role = 'completion';
    slot.completion = pkIndex?.columns[0] ?? '1';
    slot.note = `dynamic ${clause === 'GROUP' ? 'GROUP' : 'ORDER'} BY column completed with ${slot.completion}`;
    return slot;
  }
  if (clause === 'ORDER' && (isIdent(prev) || prev?.kind === 'number' || prev?.text === ')')) {
    slot.role = 'completion'; slot.completion = ''; slot.note = 'dynamic sort direction left out'; return slot;
  }
  if (['WHERE', 'AND', 'OR', 'HAVING', 'ON', 'NOT'].includes(pk) || (prev?.text === '(' && ['WHERE', 'HAVING', 'ON'].includes(clause))) {
    if (next && (next.kind === 'op' || ['IN', 'LIKE', 'IS', 'BETWEEN'].includes(kw(next)))) return 'a column name in a condition is chosen at run time';
    slot.role = 'completion'; slot.completion = '1=1'; slot.note = 'dynamic condition assumed true'; return slot;
  }
  if (pk === 'SELECT' || pk === 'DISTINCT' || (prev?.text === ',' && clause === 'SELECT')) {
    slot.role = 'completion'; slot.completion = next && kw(next) !== 'FROM' && next.text !== ',' ? '*,' : '*';
    slot.note = 'dynamic column list read as *'; return slot;
  }
  if (prev?.text === ',' || prev?.text === '(') {
    if (clause === 'VALUES' || clause === 'VALUE') { slot.note = 'dynamic value'; return slot; }
  }
  if (!next && (isIdent(prev) || prev?.kind === 'number' || prev?.kind === 'string' || prev?.kind === 'placeholder' || prev?.text === ')')) {
    slot.role = 'completion'; slot.completion = ''; slot.note = 'dynamic tail left out'; return slot;
  }
  if (pk === 'SET') return 'the SET list is built at run time';
  return `cannot complete the dynamic part after "${prev?.text ?? ''}"`;
}

/** Marker string a value slot carries through the parser. */
const marker = (i: number): string => `QIPH${i}X`;
const MARKER_RE = /^QIPH(\d+)X$/;

function markersIn(n: unknown): number[] {
  const out: number[] = [];
  walk(n, (x) => {
    if (typeof x.value === 'string' && (x.type === 'single_quote_string' || x.type === 'string')) {
      const m = MARKER_RE.exec(x.value);
      if (m) out.push(Number(m[1]));
    }
  });
  if (isNode(n) && typeof n.value === 'string') {
    const m = MARKER_RE.exec(n.value);
    if (m && !out.includes(Number(m[1]))) out.push(Number(m[1]));
  }
  return out;
}

/** The one column inside a function call (`LOWER(name)`, `DATE(created_at)`), so its values fit the comparison. */
function soleColumn(n: unknown): { table: string | null; column: string } | undefined {
  if (!isNode(n) || n.type !== 'function') return undefined;
  const cols: { table: string | null; column: string }[] = [];
  walk(n, (x) => { const c = columnRef(x); if (c) cols.push(c); });
  return cols.length === 1 ? cols[0] : undefined;
}

/** Maps marker index → column compared with it, from the AST. */
function targetsFromAst(ast: AstNode): Map<number, { qualifier: string | null; column: string }> {
  const out = new Map<number, { qualifier: string | null; column: string }>();
  const assign = (col: { table: string | null; column: string } | undefined, side: unknown): void => {
    if (!col) return;
    for (const i of markersIn(side)) if (!out.has(i)) out.set(i, { qualifier: col.table, column: col.column });
  };
  walk(ast, (n) => {
    if (n.type === 'binary_expr') {
      assign(columnRef(n.left) ?? soleColumn(n.left), n.right);
      assign(columnRef(n.right) ?? soleColumn(n.right), n.left);
    }
    if (Array.isArray(n.set)) {
      for (const s of n.set) if (isNode(s) && typeof s.column === 'string') assign({ table: typeof s.table === 'string' ? s.table : null, column: s.column }, s.value);
    }
    if (n.type === 'insert' || n.type === 'replace') {
      const cols = Array.isArray(n.columns) ? n.columns.map((c) => (typeof c === 'string' ? c : columnRef(c)?.column ?? '')) : [];
      const v = n.values;
      const rows = isNode(v) && Array.isArray(v.values) ? v.values : Array.isArray(v) ? v : [];
      for (const r of rows) {
        if (!isNode(r) || !Array.isArray(r.value)) continue;
        r.value.forEach((e: unknown, i: number) => { if (cols[i]) assign({ table: null, column: cols[i] }, e); });
      }
    }
  });
  return out;
}

/** Token-scan fallback: `col op ?`, `col IN (?, ?)`, `col BETWEEN ? AND ?`, `col LIKE ?`. */
function targetFromTokens(tokens: Token[], k: number): { qualifier: string | null; column: string } | undefined {
  let j = k - 1;
  while (j >= 0 && (tokens[j].text === ',' || tokens[j].kind === 'placeholder' || tokens[j].kind === 'uservar' || tokens[j].kind === 'dynamic' || tokens[j].kind === 'number' || tokens[j].kind === 'string')) j--;
  if (tokens[j]?.text === '(' && kw(tokens[j - 1]) === 'IN') j -= 2;
  else if (kw(tokens[j]) === 'AND' && kw(tokens[j - 2]) === 'BETWEEN') j -= 3;
  else if (tokens[j]?.kind === 'op' && COMPARE.has(tokens[j].text)) j -= 1;
  else if (kw(tokens[j]) === 'IN') j -= 1;
  else if (['LIKE', 'BETWEEN'].includes(kw(tokens[j]))) j -= 1;
  else return undefined;
  if (kw(tokens[j]) === 'NOT') j--;
  if (!isIdent(tokens[j])) return undefined;
  const column = identName(tokens[j]);
  const qualifier = tokens[j - 1]?.text === '.' && isIdent(tokens[j - 2]) ? identName(tokens[j - 2]) : null;
  return { qualifier, column };
}

/**
 * Fills placeholders and completes dynamic parts of `sql` so that it can be EXPLAINed.
 * `samples` is optional: without it (or when it fails) values are typed literals.
 * Returns the reason when the statement cannot be completed plausibly.
 */
export async function fillPlaceholders(sql: string, schema: Schema | undefined, samples?: SampleSource, opts: FillOptions = {}): Promise<FillResult> {
  const inListSize = opts.inListSize ?? 3;
  const tokens = tokenize(sql);
  if (tokens.length === 0) return { ok: false, reason: 'the statement is empty' };
  const tables = scanTables(tokens);
  const slots: Slot[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const kind = tokens[k].kind;
    // why: a user variable compared with a column (`id = @uid`) is NULL in the EXPLAIN session, and
    // `= NULL` plans as "Impossible WHERE"; elsewhere (`@n := @n + 1`, `INTO @x`) it is left as written.
    if (kind === 'uservar' ? !targetFromTokens(tokens, k) || tokens[k + 1]?.text === ':=' : kind !== 'placeholder' && kind !== 'dynamic') continue;
    const s = classify(tokens, k, tables, schema, slots.length);
    if (typeof s === 'string') return { ok: false, reason: s };
    slots.push(s);
  }
  // why: a range's lower end filled after its upper end is empty, and the plan and a measure of it read nothing.
  for (let i = 1; i < slots.length; i++) {
    const k = tokens.indexOf(slots[i].tok);
    if (kw(tokens[k - 1]) === 'AND' && tokens[k - 2] === slots[i - 1].tok && kw(tokens[k - 3]) === 'BETWEEN') slots[i].lowerOf = slots[i - 1];
  }
  // Parse a version with markers in the value slots to learn which column each is compared with.
  const limit = String(opts.limit ?? DEFAULT_PAGE);
  const forParse = splice(sql, slots, (s) => s.role === 'value' ? (s.wrap ? `('${marker(s.index)}')` : `'${marker(s.index)}'`) : s.role === 'limit' ? limit : s.role === 'offset' ? '0' : s.completion ?? '');
  const parsed = parseStatement(forParse, opts.flavor ?? schema?.flavor);
  let refs = tables;
  if ('ast' in parsed) {
    const targets = targetsFromAst(parsed.ast);
    for (const s of slots) { const t = targets.get(s.index); if (t) s.target = t; }
    const astRefs = tableRefs(parsed.ast);
    if (astRefs.length) refs = astRefs;
  }
  const ptoks = tokenize(sql);
  for (const s of slots) {
    if (s.role === 'value' && !s.target) {
      const k = ptoks.findIndex((t) => t.start === s.tok.start);
      const t = targetFromTokens(ptoks, k);
      if (t) s.target = t;
    }
  }
  // Resolve columns to tables and read samples, once per column.
  const aliases = aliasMap(refs);
  const resolved = new Map<Slot, { table: string; column: ColumnInfo }>();
  const wanted = new Map<string, { table: string; column: ColumnInfo; count: number }>();
  for (const s of slots) {
    if (s.role !== 'value' || !s.target) continue;
    const { qualifier, column } = s.target;
    const candidates = qualifier ? [aliases.get(qualifier.toLowerCase()) ?? qualifier] : refs.map((r) => r.name);
    for (const name of candidates) {
      const col = columnOf(tableOf(schema, name), column);
      if (!col) continue;
      const table = tableOf(schema, name)!.name;
      resolved.set(s, { table, column: col });
      const key = `${table}.${col.name}`;
      const w = wanted.get(key) ?? { table, column: col, count: 0 };
      w.count = Math.min(10, w.count + (s.inExpand ? inListSize : 1));
      wanted.set(key, w);
      break;
    }
  }
  const values = new Map<string, { values: SampleValue[]; error?: string }>();
  await Promise.all([...wanted].map(async ([key, w]) => {
    if (!samples) { values.set(key, { values: [] }); return; }
    try {
      values.set(key, { values: (await samples.sample(w.table, w.column.name, w.count)).filter((v) => v !== null) });
    } catch (err) {
      values.set(key, { values: [], error: (err as Error).message });
    }
  }));
  const cursor = new Map<string, number>();
  const substitutions: Substitution[] = [];
  const text = new Map<Slot, string>();
  for (const s of slots) {
    const placeholder = s.tok.kind === 'dynamic' ? DYNAMIC_MARK : s.tok.text;
    const base = { placeholder, index: s.index, ...(s.note ? { note: s.note } : {}) };
    if (s.role === 'limit' || s.role === 'offset') {
      const v = s.role === 'limit' ? limit : '0';
      text.set(s, v); substitutions.push({ ...base, value: v, source: 'limit' });
      continue;
    }
    if (s.role === 'completion') {
      const v = s.completion ?? '';
      text.set(s, v); substitutions.push({ ...base, value: v, source: 'completion' });
      continue;
    }
    const r = resolved.get(s);
    const n = s.inExpand ? inListSize : 1;
    let lits: string[];
    let source: Substitution['source'];
    let note = s.note;
    if (r) {
      const key = `${r.table}.${r.column.name}`;
      const got = values.get(key);
      const pool = got?.values ?? [];
      if (pool.length) {
        const start = cursor.get(key) ?? 0;
        lits = [];
        for (let i = 0; i < Math.min(n, pool.length); i++) lits.push(sqlLiteral(pool[(start + i) % pool.length], r.column.type));
        cursor.set(key, start + lits.length);
        source = 'sample';
      } else {
        lits = [typedLiteral(r.column.type)];
        source = 'typed';
        if (got?.error) note = [note, `sampling failed: ${got.error}`].filter(Boolean).join('; ');
        else if (samples) note = [note, 'no rows to sample'].filter(Boolean).join('; ');
      }
    } else {
      lits = ['1'];
      source = 'default';
      note = [note, s.target ? `column ${s.target.column} not found in the schema` : 'compared column not identified'].filter(Boolean).join('; ');
    }
    if (s.inExpand && lits.length > 1) note = [note, `IN-list expanded to ${lits.length} values`].filter(Boolean).join('; ');
    let v = s.wrap ? `(${lits.join(', ')})` : lits.join(', ');
    const low = s.lowerOf ? text.get(s.lowerOf) : undefined;
    if (low !== undefined && s.lowerOf && !s.inExpand && beforeLiteral(v, low)) {
      // The upper bound came out lower: the two sampled values change places.
      text.set(s.lowerOf, v);
      const lowSub = substitutions.find((x) => x.index === s.lowerOf!.index);
      if (lowSub) lowSub.value = v;
      v = low;
      note = [note, 'BETWEEN bounds put in order'].filter(Boolean).join('; ');
    }
    text.set(s, v);
    substitutions.push({ ...base, value: v, source, ...(r ? { column: `${r.table}.${r.column.name}` } : {}), ...(note ? { note } : {}) });
  }
  return { ok: true, sql: splice(sql, slots, (s) => text.get(s) ?? ''), substitutions, parsed: 'ast' in parsed };
}

/** True when literal `a` sorts before literal `b` (numbers by value, quoted text by its characters). */
function beforeLiteral(a: string, b: string): boolean {
  const num = (x: string) => (/^-?\d+(?:\.\d+)?$/.test(x) ? Number(x) : undefined);
  const na = num(a), nb = num(b);
  if (na !== undefined && nb !== undefined) return na < nb;
  return a < b;
}

function splice(sql: string, slots: readonly Slot[], replace: (s: Slot) => string): string {
  let out = '';
  let at = 0;
  for (const s of slots) {
    out += sql.slice(at, s.tok.start) + replace(s);
    at = s.tok.end;
  }
  return out + sql.slice(at);
}
