/**
 * Statement → query model: what each table in a statement is filtered, joined, sorted and grouped by,
 * the facts an index advisor (and plan findings) reason about. Parsed with node-sql-parser's MySQL
 * grammar (MariaDB's as a fallback) after placeholders are replaced by a parseable token.
 */
import { Parser as MySqlParser } from 'node-sql-parser/build/mysql';
import { Parser as MariaDbParser } from 'node-sql-parser/build/mariadb';
import { lexSql } from './sqlLexer';

/** An equality on a column: `col = ?`, `col IS NULL`, `col IN (…)`. */
export interface EqualityFact {
  column: string;
  /** `single`: one value (`=`, `IS NULL`, `IN (x)`); `list`: several values (`IN (a, b)`), or one placeholder that a driver may expand. */
  kind: 'single' | 'list';
  /** Number of values in an IN list (1 for `=`). */
  values: number;
  /** True when the value is a placeholder rather than a literal. */
  param: boolean;
}

/** A range on a column: `<`, `>`, `<=`, `>=`, `BETWEEN`, `LIKE 'x%'`, or an OR over one column. */
export interface RangeFact { column: string; op: string }

/** An equality between a column of this table and a column of another table (join or correlation). */
export interface JoinFact { column: string; otherTable: string; otherColumn: string }

/** A predicate that no index on the column can serve, and why (`DATE(col) = ?`, `col LIKE '%x'`, `col != ?`). */
export interface UnindexableFact { column: string; reason: string }

/** Predicates on one table from one conjunction (the WHERE/ON of a block, or one OR branch). */
export interface PredicateFacts {
  equalities: EqualityFact[];
  ranges: RangeFact[];
  joins: JoinFact[];
  unindexable: UnindexableFact[];
}

export interface OrderFact {
  /** Key of the table (alias or name) the column belongs to; undefined when unresolved or an expression. */
  table?: string;
  column?: string;
  /** Set when the item is an expression rather than a plain column (`RAND()`, `a + b`). */
  expr?: string;
  desc: boolean;
}

export interface AggregateFact { fn: string; table?: string; column?: string }

/** One table occurrence in a block. */
export interface TableFacts {
  /** Alias if given, else the table name; unique within the block. */
  key: string;
  /** Table name as written (no schema prefix). */
  table: string;
  db?: string;
  /** `from` for the first table, otherwise the join kind. `derived` for a subquery in FROM. */
  join: 'from' | 'inner' | 'left' | 'right' | 'cross' | 'straight' | 'derived';
  /** AND-ed predicates from WHERE and this table's ON. */
  where: PredicateFacts;
  /** Top-level ORs across different columns of this table only: each group lists its branches. */
  orGroups: PredicateFacts[][];
  /** Every column of this table the block reads (select list, predicates, sort, group). */
  columnsUsed: string[];
  /** True when the block selects `*` or `t.*` for this table. */
  selectsAll: boolean;
}

/** One SELECT (or the WHERE part of an UPDATE/DELETE); subqueries are blocks of their own. */
export interface QueryBlock {
  tables: TableFacts[];
  orderBy: OrderFact[];
  groupBy: OrderFact[];
  aggregates: AggregateFact[];
  /** Numeric LIMIT, `param` when a placeholder, undefined when none. */
  limit?: number | 'param';
  offset?: number | 'param';
  distinct: boolean;
  /** Index of the enclosing block, for subqueries. */
  parent?: number;
  /** Columns the block mentions that could not be attributed to a table (several tables, no schema). */
  unresolved: string[];
}

export interface QueryModel {
  statement: 'select' | 'update' | 'delete' | 'insert' | 'replace' | 'other';
  blocks: QueryBlock[];
}

export type QueryModelResult = { ok: true; model: QueryModel } | { ok: false; error: string };

/** Tells which table owns an unqualified column when a block has several tables (from a Schema). */
export type ColumnOwner = (table: string, column: string) => boolean | undefined;

/** The literal that stands for a placeholder while parsing (a number, so it also fits LIMIT). */
const PARAM_TOKEN = 918273645;

/**
 * Replaces placeholders (`?`, `$1`, `:name`, `%s`, `%(name)s`, the dynamic mark) and user variables
 * that are read (`@p`, not `@p :=`) with a numeric token, comments with a space, a list placeholder
 * (`IN %s`) with a one-item list, and strips index hints the parser rejects. Tokens come from the
 * one SQL lexer, so strings, identifiers and `::` casts are left alone.
 */
export function neutralizePlaceholders(sql: string): string {
  let out = '';
  let at = 0;
  const toks = lexSql(sql, { comments: true });
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k];
    let put: string | undefined;
    if (t.kind === 'comment' || t.kind === 'exec-comment') put = ' ';
    else if (t.kind === 'dynamic' || t.kind === 'placeholder') put = t.list ? `(${PARAM_TOKEN})` : String(PARAM_TOKEN);
    else if (t.kind === 'uservar' && toks[k + 1]?.text !== ':=') put = String(PARAM_TOKEN);
    if (put === undefined) continue;
    out += sql.slice(at, t.start) + put;
    at = t.end;
  }
  out += sql.slice(at);
  // why: node-sql-parser's MySQL grammar rejects USE/FORCE/IGNORE INDEX hints; they do not change the facts.
  return out.replace(/\b(?:USE|FORCE|IGNORE)\s+(?:INDEX|KEY)\s*(?:FOR\s+(?:JOIN|ORDER\s+BY|GROUP\s+BY)\s*)?\([^)]*\)/gi, ' ');
}

let mysqlParser: MySqlParser | undefined;
let mariaParser: MariaDbParser | undefined;

/* eslint-disable @typescript-eslint/no-explicit-any -- the parser's AST is loosely typed JSON */
type Node = any;

function parseAst(sql: string): Node {
  mysqlParser ??= new MySqlParser();
  try {
    return mysqlParser.astify(sql);
  } catch (first) {
    mariaParser ??= new MariaDbParser();
    try { return mariaParser.astify(sql); } catch { throw first; }
  }
}

function colName(ref: Node): string {
  const c = ref.column;
  if (typeof c === 'string') return c;
  if (c && typeof c === 'object') return String(c.expr?.value ?? c.value ?? '');
  return '';
}

function isParam(node: Node): boolean {
  return node?.type === 'number' && node.value === PARAM_TOKEN || node?.type === 'param' || node?.type === 'var';
}

function isConstant(node: Node): boolean {
  if (!node) return false;
  if (isParam(node)) return true;
  return ['number', 'single_quote_string', 'double_quote_string', 'string', 'bool', 'null', 'hex_string', 'full_hex_string', 'bit_string', 'natural_string'].includes(node.type)
    || node.type === 'function' && /^(NOW|CURRENT_TIMESTAMP|CURDATE|UNIX_TIMESTAMP)$/i.test(fnName(node)) && !node.args?.value?.length
    || node.type === 'interval' || node.type === 'binary_expr' && ['+', '-', '*', '/'].includes(node.operator) && isConstant(node.left) && isConstant(node.right);
}

function fnName(node: Node): string {
  const n = node.name;
  if (typeof n === 'string') return n;
  if (n?.name && Array.isArray(n.name)) return n.name.map((p: Node) => p.value).join('.');
  return String(n ?? '');
}

function isSubquery(node: Node): boolean { return !!node && typeof node === 'object' && node.ast && node.tableList !== undefined; }

function flattenAnd(node: Node, acc: Node[] = []): Node[] {
  if (node?.type === 'binary_expr' && /^(AND|&&)$/i.test(node.operator)) { flattenAnd(node.left, acc); flattenAnd(node.right, acc); } else if (node) acc.push(node);
  return acc;
}
function flattenOr(node: Node, acc: Node[] = []): Node[] {
  if (node?.type === 'binary_expr' && /^(OR|\|\|)$/i.test(node.operator)) { flattenOr(node.left, acc); flattenOr(node.right, acc); } else if (node) acc.push(node);
  return acc;
}

function emptyFacts(): PredicateFacts { return { equalities: [], ranges: [], joins: [], unindexable: [] }; }

interface Scope { blocks: QueryBlock[]; owner?: ColumnOwner; outer?: { block: QueryBlock; scope: Scope } }

class BlockBuilder {
  readonly block: QueryBlock;
  private readonly used = new Map<string, Set<string>>();
  constructor(private readonly scope: Scope, parent: number | undefined) {
    this.block = { tables: [], orderBy: [], groupBy: [], aggregates: [], distinct: false, parent, unresolved: [] };
  }

  addTable(t: TableFacts): void { this.block.tables.push(t); this.used.set(t.key, new Set()); }

  /** Resolves a column reference to a table of this block (or an outer block for correlated subqueries). */
  resolve(ref: Node): { table: TableFacts; column: string; outer: boolean } | undefined {
    const column = colName(ref);
    const q = ref.table ? String(ref.table) : '';
    const find = (b: QueryBlock): TableFacts | undefined => {
      if (q) return b.tables.find((t) => t.key.toLowerCase() === q.toLowerCase()) ?? b.tables.find((t) => t.table.toLowerCase() === q.toLowerCase());
      const real = b.tables.filter((t) => t.join !== 'derived');
      if (b.tables.length === 1) return b.tables[0];
      const owners = real.filter((t) => this.scope.owner?.(t.table, column) === true);
      return owners.length === 1 ? owners[0] : undefined;
    };
    const own = find(this.block);
    if (own) return { table: own, column, outer: false };
    if (q && this.scope.outer) {
      const o = this.scope.outer.block.tables.find((t) => t.key.toLowerCase() === q.toLowerCase() || t.table.toLowerCase() === q.toLowerCase());
      if (o) return { table: o, column, outer: true };
    }
    if (column !== '*' && !this.block.unresolved.includes(column)) this.block.unresolved.push(column);
    return undefined;
  }

  use(ref: Node): void {
    const r = this.resolve(ref);
    if (r && !r.outer && r.column !== '*') this.used.get(r.table.key)?.add(r.column);
  }

  /** Walks an expression, recording every column it reads and descending into subqueries. */
  touch(node: Node): void {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) { node.forEach((x) => this.touch(x)); return; }
    if (isSubquery(node)) { buildBlocks(node.ast, this.scope, this.block); return; }
    if (node.type === 'column_ref') { this.use(node); return; }
    if (node.type === 'select') { buildBlocks(node, this.scope, this.block); return; }
    for (const k of Object.keys(node)) if (k !== 'loc') this.touch(node[k]);
  }

  finish(): void {
    for (const t of this.block.tables) t.columnsUsed = [...(this.used.get(t.key) ?? [])];
  }
}

function tableKeyOf(f: Node): string { return String(f.as ?? f.table); }

function joinKind(j: string | undefined): TableFacts['join'] {
  const s = (j ?? '').toUpperCase();
  if (s.startsWith('LEFT')) return 'left';
  if (s.startsWith('RIGHT')) return 'right';
  if (s.startsWith('CROSS')) return 'cross';
  if (s.includes('STRAIGHT')) return 'straight';
  return 'inner';
}

/** Classifies one atomic predicate into the facts of the table it constrains. */
function classify(b: BlockBuilder, node: Node, into: (t: TableFacts) => PredicateFacts): void {
  b.touch(node);
  if (!node || node.type !== 'binary_expr') {
    if (node?.type === 'unary_expr' && /^NOT$/i.test(node.operator)) {
      const inner = node.expr;
      if (inner?.type === 'binary_expr' && inner.left?.type === 'column_ref') {
        const r = b.resolve(inner.left);
        if (r && !r.outer) into(r.table).unindexable.push({ column: r.column, reason: 'negated condition' });
      }
    }
    return;
  }
  const op = String(node.operator).toUpperCase();
  let { left, right } = node;
  let flipped = op;
  if (left?.type !== 'column_ref' && right?.type === 'column_ref' && ['=', '<', '>', '<=', '>=', '<=>'].includes(op)) {
    [left, right] = [right, left];
    flipped = ({ '<': '>', '>': '<', '<=': '>=', '>=': '<=' } as Record<string, string>)[op] ?? op;
  }
  if (left?.type === 'function' || left?.type === 'aggr_func' || left?.type === 'binary_expr' && left.left?.type === 'column_ref') {
    const inner = left.type === 'binary_expr' ? left.left : firstColumn(left);
    if (inner && (isConstant(right) || right?.type === 'expr_list')) {
      const r = b.resolve(inner);
      if (r && !r.outer) into(r.table).unindexable.push({ column: r.column, reason: `the column is wrapped in ${left.type === 'binary_expr' ? 'an expression' : fnName(left).toUpperCase() + '()'}` });
    }
    return;
  }
  if (left?.type !== 'column_ref') return;
  const r = b.resolve(left);
  if (!r) return;
  if (r.outer) return;
  const facts = into(r.table);
  const column = r.column;
  if (right?.type === 'column_ref' && ['=', '<=>'].includes(flipped)) {
    const o = b.resolve(right);
    if (!o) return;
    if (o.table === r.table && !o.outer) { facts.unindexable.push({ column, reason: 'compared with another column of the same table' }); return; }
    facts.joins.push({ column, otherTable: o.table.key, otherColumn: o.column });
    if (!o.outer) into(o.table).joins.push({ column: o.column, otherTable: r.table.key, otherColumn: column });
    return;
  }
  if (right?.type === 'column_ref' && ['<', '>', '<=', '>='].includes(flipped)) {
    const o = b.resolve(right);
    if (o && o.table !== r.table) facts.ranges.push({ column, op: flipped });
    return;
  }
  if ((flipped === '=' || flipped === '<=>') && isConstant(right)) { facts.equalities.push({ column, kind: 'single', values: 1, param: isParam(right) }); return; }
  if (flipped === 'IS' && right?.type === 'null') { facts.equalities.push({ column, kind: 'single', values: 1, param: false }); return; }
  if (flipped === 'IN' && right?.type === 'expr_list') {
    const vals: Node[] = right.value ?? [];
    if (vals.length === 1 && isSubquery(vals[0])) { facts.equalities.push({ column, kind: 'list', values: 0, param: false }); return; }
    if (!vals.every(isConstant)) return;
    // why: `IN (?)` with one placeholder is how sqlx.In and similar helpers expand a slice; assume a list.
    const list = vals.length > 1 || vals.length === 1 && isParam(vals[0]);
    facts.equalities.push({ column, kind: list ? 'list' : 'single', values: vals.length, param: vals.some(isParam) });
    return;
  }
  if (['<', '>', '<=', '>='].includes(flipped) && isConstant(right)) { facts.ranges.push({ column, op: flipped }); return; }
  if (flipped === 'BETWEEN') { facts.ranges.push({ column, op: 'BETWEEN' }); return; }
  if (flipped === 'LIKE') {
    if (isParam(right)) { facts.ranges.push({ column, op: 'LIKE ?' }); return; }
    const v = typeof right?.value === 'string' ? right.value : '';
    if (v && !/^[%_]/.test(v)) facts.ranges.push({ column, op: 'LIKE' });
    else facts.unindexable.push({ column, reason: 'LIKE pattern starts with a wildcard' });
    return;
  }
  if (['!=', '<>', 'NOT IN', 'NOT LIKE', 'IS NOT'].includes(flipped)) facts.unindexable.push({ column, reason: `${flipped} cannot narrow an index lookup` });
}

function firstColumn(node: Node): Node | undefined {
  if (!node || typeof node !== 'object') return undefined;
  if (node.type === 'column_ref') return node;
  if (isSubquery(node)) return undefined;
  for (const k of Object.keys(node)) { const c = firstColumn(node[k]); if (c) return c; }
  return undefined;
}

function columnsIn(facts: PredicateFacts): Set<string> {
  return new Set([...facts.equalities.map((e) => e.column), ...facts.ranges.map((r) => r.column)]);
}

/** Adds a top-level OR: a same-column OR becomes an IN list or a range; a cross-column OR becomes an OR group. */
function classifyOr(b: BlockBuilder, node: Node): void {
  const branches = flattenOr(node);
  const perBranch: Map<TableFacts, PredicateFacts>[] = branches.map((br) => {
    const m = new Map<TableFacts, PredicateFacts>();
    for (const c of flattenAnd(br)) classify(b, c, (t) => { let f = m.get(t); if (!f) { f = emptyFacts(); m.set(t, f); } return f; });
    return m;
  });
  const tables = new Set(perBranch.flatMap((m) => [...m.keys()]));
  if (tables.size !== 1) return;
  const [table] = tables;
  const facts = perBranch.map((m) => m.get(table) ?? emptyFacts());
  // A column that every branch constrains (keyset pagination: `a < ? OR (a = ? AND id < ?)`) bounds the rows.
  const sets = facts.map(columnsIn);
  const common = [...sets[0] ?? []].filter((c) => sets.every((s) => s.has(c)));
  if (common.length) {
    const c = common[0];
    const allEq = facts.every((f) => f.equalities.some((e) => e.column === c) && !f.ranges.some((r) => r.column === c) && columnsIn(f).size === 1);
    if (allEq) table.where.equalities.push({ column: c, kind: 'list', values: facts.length, param: facts.some((f) => f.equalities.some((e) => e.param)) });
    else table.where.ranges.push({ column: c, op: 'OR' });
    return;
  }
  if (facts.some((f) => columnsIn(f).size === 0)) return;
  table.orGroups.push(facts);
}

function orderFacts(b: BlockBuilder, items: Node[] | undefined, isGroup: boolean): OrderFact[] {
  const out: OrderFact[] = [];
  for (const it of items ?? []) {
    const expr = isGroup ? it : it.expr;
    const desc = !isGroup && String(it.type ?? '').toUpperCase() === 'DESC';
    b.touch(expr);
    if (expr?.type === 'column_ref') {
      const r = b.resolve(expr);
      out.push({ table: r && !r.outer ? r.table.key : undefined, column: colName(expr), desc });
    } else if (expr?.type === 'number') {
      out.push({ expr: `position ${expr.value}`, desc });
    } else {
      out.push({ expr: expr?.type === 'function' ? `${fnName(expr)}()` : String(expr?.type ?? 'expression'), desc });
    }
  }
  return out;
}

function limitOf(node: Node): { limit?: number | 'param'; offset?: number | 'param' } {
  const vals: Node[] = node?.value ?? [];
  const v = (x: Node): number | 'param' | undefined => (isParam(x) ? 'param' : typeof x?.value === 'number' ? x.value : undefined);
  if (vals.length === 0) return {};
  if (vals.length === 1) return { limit: v(vals[0]) };
  return node.seperator === ',' ? { offset: v(vals[0]), limit: v(vals[1]) } : { limit: v(vals[0]), offset: v(vals[1]) };
}

/** Builds the block for one SELECT/UPDATE/DELETE node and its subqueries; returns the block index. */
function buildBlocks(ast: Node, scope: Scope, outer?: QueryBlock): number {
  const index = scope.blocks.length;
  const parent = outer ? scope.blocks.indexOf(outer) : undefined;
  const inner: Scope = outer ? { blocks: scope.blocks, owner: scope.owner, outer: { block: outer, scope } } : scope;
  const b = new BlockBuilder(inner, parent);
  scope.blocks.push(b.block);
  const from: Node[] = ast.type === 'update' ? ast.table ?? [] : ast.from ?? [];
  const ons: { table: TableFacts; on: Node }[] = [];
  from.forEach((f, i) => {
    if (f.expr && isSubquery(f.expr)) {
      const t: TableFacts = { key: String(f.as ?? `derived${i}`), table: String(f.as ?? `derived${i}`), join: 'derived', where: emptyFacts(), orGroups: [], columnsUsed: [], selectsAll: false };
      b.addTable(t);
      buildBlocks(f.expr.ast, scope, undefined);
      scope.blocks[scope.blocks.length - 1].parent ??= index;
      return;
    }
    if (!f.table) return;
    const t: TableFacts = {
      key: tableKeyOf(f), table: String(f.table), db: f.db ? String(f.db) : undefined,
      join: i === 0 ? 'from' : joinKind(f.join), where: emptyFacts(), orGroups: [], columnsUsed: [], selectsAll: false,
    };
    b.addTable(t);
    if (f.on) ons.push({ table: t, on: f.on });
    if (f.using) for (const u of f.using as Node[]) {
      const col = typeof u === 'string' ? u : String(u.value ?? u.column ?? '');
      const prev = b.block.tables[b.block.tables.length - 2];
      if (prev) { t.where.joins.push({ column: col, otherTable: prev.key, otherColumn: col }); prev.where.joins.push({ column: col, otherTable: t.key, otherColumn: col }); }
    }
  });
  for (const { on } of ons) for (const c of flattenAnd(on)) {
    if (c?.type === 'binary_expr' && /^(OR|\|\|)$/i.test(c.operator)) classifyOr(b, c); else classify(b, c, (t) => t.where);
  }
  for (const c of flattenAnd(ast.where)) {
    if (c?.type === 'binary_expr' && /^(OR|\|\|)$/i.test(c.operator)) classifyOr(b, c); else classify(b, c, (t) => t.where);
  }
  if (ast.type === 'select') {
    b.block.distinct = !!ast.distinct;
    for (const col of (Array.isArray(ast.columns) ? ast.columns : []) as Node[]) {
      const e = col.expr;
      if (e?.type === 'column_ref' && colName(e) === '*') {
        if (e.table) { const r = b.resolve(e); if (r && !r.outer) r.table.selectsAll = true; } else b.block.tables.forEach((t) => { t.selectsAll = true; });
        continue;
      }
      if (e?.type === 'aggr_func') {
        const arg = e.args?.expr;
        const r = arg?.type === 'column_ref' ? b.resolve(arg) : undefined;
        b.block.aggregates.push({ fn: String(e.name).toUpperCase(), table: r && !r.outer ? r.table.key : undefined, column: arg?.type === 'column_ref' ? colName(arg) : undefined });
      }
      b.touch(e);
    }
    if (ast.columns === '*') b.block.tables.forEach((t) => { t.selectsAll = true; });
    b.block.groupBy = orderFacts(b, ast.groupby?.columns ?? (Array.isArray(ast.groupby) ? ast.groupby : undefined), true);
    b.touch(ast.having);
  } else if (ast.type === 'update') {
    for (const s of ast.set ?? []) b.touch(s.value);
  }
  b.block.orderBy = orderFacts(b, ast.orderby, false);
  Object.assign(b.block, limitOf(ast.limit));
  if (ast._next) buildBlocks(ast._next, scope, undefined);
  b.finish();
  return index;
}

/**
 * Parses one statement into a query model. Placeholders of every driver style are accepted.
 * `owner` (usually from a Schema) attributes unqualified columns when a block joins several tables.
 */
export function buildQueryModel(sql: string, owner?: ColumnOwner): QueryModelResult {
  let ast: Node;
  try {
    ast = parseAst(neutralizePlaceholders(sql));
  } catch (err) {
    return { ok: false, error: `cannot parse the statement: ${String((err as Error).message ?? err).split('\n')[0].slice(0, 200)}` };
  }
  if (Array.isArray(ast)) ast = ast[0];
  const type = String(ast?.type ?? '').toLowerCase();
  const scope: Scope = { blocks: [], owner };
  if (type === 'select' || type === 'update' || type === 'delete') {
    buildBlocks(ast, scope);
    return { ok: true, model: { statement: type, blocks: scope.blocks } };
  }
  if (type === 'insert' || type === 'replace') {
    if (ast.values?.type === 'select') buildBlocks(ast.values, scope);
    return { ok: true, model: { statement: type, blocks: scope.blocks } };
  }
  return { ok: true, model: { statement: 'other', blocks: [] } };
}
