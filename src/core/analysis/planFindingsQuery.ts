/**
 * What a statement asks of each table, read from its parsed form: equality and range predicates,
 * ORDER BY / GROUP BY columns, columns hidden inside functions, leading-wildcard LIKEs and ORs
 * across columns. Plan findings combine these facts with the schema to tell "scans only because
 * the table is tiny" from "will scan at scale".
 */
import type { Flavor, Schema } from '../model';
import { aliasMap, columnRef, isNode, parseStatement, tableRefs, walk, type AstNode, type TableRef } from '../sql/fillAst';

export interface TableFacts {
  table: string;
  alias?: string;
  /** Columns compared with `=`, `<=>`, `IN` (including join conditions). */
  eq: string[];
  /** Columns compared with `<`, `>`, `BETWEEN`, prefix `LIKE`. */
  range: string[];
  /** Columns of eq compared with an IN list of several values: an index reads one range per value, so it returns no single order. */
  inList: string[];
  /** Columns of eq / range compared with a value (not only with another table's column in a join). */
  filtered: string[];
  order: string[];
  group: string[];
  /** Columns wrapped in a function in a comparison (`DATE(created_at) = …`). */
  functionCols: { column: string; fn: string }[];
  /** Columns matched by `LIKE '%…'`. */
  leadingWildcard: string[];
  /** Each OR whose branches compare different columns of this table. */
  orGroups: string[][];
}

export interface StatementFacts {
  parsed: boolean;
  error?: string;
  tables: TableFacts[];
  /** LIMIT row count, when literal. */
  limit?: number;
  /** The statement returns groups, not rows: GROUP BY, DISTINCT or an aggregate (`COUNT(*)`) in its select list. */
  aggregated?: boolean;
  /** An aggregate without GROUP BY (`SELECT COUNT(*) FROM …`): exactly one row comes back, however many are read. */
  oneRow?: boolean;
  /** qualifier (alias or name, lower-case) → table name. */
  aliases: Map<string, string>;
  /** Some SELECT of the statement sorts by RAND(). */
  randomOrder?: boolean;
}

const EQ_OPS = new Set(['=', '<=>', 'IN']);
const RANGE_OPS = new Set(['<', '>', '<=', '>=', 'BETWEEN']);

function conjuncts(e: unknown, out: AstNode[] = []): AstNode[] {
  if (!isNode(e)) return out;
  if (e.type === 'binary_expr' && String(e.operator).toUpperCase() === 'AND') { conjuncts(e.left, out); conjuncts(e.right, out); } else out.push(e);
  return out;
}

/** A node that opens a scope of its own: a SELECT (subquery, derived table, UNION member) or the statement. */
function isScope(n: AstNode): boolean {
  return n.type === 'select' || n.type === 'update' || n.type === 'delete' || n.type === 'insert' || n.type === 'replace';
}

/** Column references of an expression, leaving out those inside subqueries (they belong to the subquery's scope). */
function ownColumns(e: unknown): { table: string | null; column: string }[] {
  const out: { table: string | null; column: string }[] = [];
  walk(e, (n) => {
    if (isScope(n)) return false;
    const c = columnRef(n);
    if (c) out.push(c);
    return true;
  });
  return out;
}

/** The tables a statement or SELECT names itself (FROM, JOIN, UPDATE's table list), not those of its subqueries. */
function directRefs(sel: AstNode): TableRef[] {
  const out: TableRef[] = [];
  for (const key of ['from', 'table']) {
    const list = sel[key];
    if (!Array.isArray(list)) continue;
    for (const t of list) {
      if (!isNode(t) || typeof t.table !== 'string') continue;
      out.push({ name: t.table, ...(typeof t.as === 'string' ? { alias: t.as } : {}) });
    }
  }
  return out;
}

/** How many values an IN list holds (a subquery counts as many). */
function listLength(e: unknown): number {
  if (!isNode(e)) return 0;
  if (e.type === 'expr_list') {
    if (!Array.isArray(e.value)) return 0;
    const one = e.value.length === 1 ? e.value[0] : undefined;
    return isNode(one) && (isScope(one) || isNode(one.ast)) ? 2 : e.value.length;
  }
  return 2;
}

function startsWithWildcard(e: unknown): boolean {
  if (!isNode(e)) return false;
  if (typeof e.value === 'string' && (e.type === 'single_quote_string' || e.type === 'string')) return e.value.startsWith('%') || e.value.startsWith('_');
  if (e.type === 'function') {
    const args = isNode(e.args) && Array.isArray(e.args.value) ? e.args.value : [];
    return startsWithWildcard(args[0]);
  }
  return false;
}

function fnName(e: AstNode): string {
  const n = e.name;
  if (typeof n === 'string') return n.toUpperCase();
  if (isNode(n) && Array.isArray(n.name)) return n.name.map((p) => (isNode(p) ? String(p.value) : '')).join('.').toUpperCase();
  return 'function';
}

/**
 * Reads the facts of one statement (SQL without placeholders: run it on the filled text).
 * On a parse failure returns `parsed: false` with the parser's message and no facts.
 */
export function statementFacts(sql: string, schema?: Schema, flavor?: Flavor): StatementFacts {
  const parsed = parseStatement(sql, flavor ?? schema?.flavor);
  if ('error' in parsed) return { parsed: false, error: parsed.error, tables: [], aliases: new Map() };
  const ast = parsed.ast;
  const refs = tableRefs(ast);
  const aliases = aliasMap(refs);
  const tables: TableFacts[] = [];
  const factsFor = (name: string): TableFacts => {
    let f = tables.find((t) => t.table.toLowerCase() === name.toLowerCase());
    if (!f) { f = { table: name, eq: [], range: [], inList: [], filtered: [], order: [], group: [], functionCols: [], leadingWildcard: [], orGroups: [] }; tables.push(f); }
    return f;
  };
  for (const r of refs) { const f = factsFor(r.name); if (r.alias && !f.alias) f.alias = r.alias; }
  const hasColumn = (table: string, column: string): boolean | undefined => {
    const t = schema?.tables[table.toLowerCase()];
    return t ? t.columns.some((col) => col.name.toLowerCase() === column.toLowerCase()) : undefined;
  };
  /** Resolves a column in its own SELECT first, then in the enclosing ones (a correlated subquery). */
  const resolveIn = (chain: TableRef[][], c: { table: string | null; column: string }): TableFacts | undefined => {
    if (c.table) {
      const q = c.table.toLowerCase();
      for (const scope of chain) {
        const r = scope.find((x) => (x.alias ?? x.name).toLowerCase() === q || x.name.toLowerCase() === q);
        if (r) return factsFor(r.name);
      }
      const t = aliases.get(q);
      return t ? factsFor(t) : undefined;
    }
    for (const scope of chain) {
      const owner = scope.find((r) => hasColumn(r.name, c.column));
      if (owner) return factsFor(owner.name);
    }
    const own = chain[0] ?? refs;
    return own.length === 1 || !schema ? (own[0] ? factsFor(own[0].name) : undefined) : undefined;
  };
  const add = (list: string[], col: string): void => { if (!list.some((x) => x.toLowerCase() === col.toLowerCase())) list.push(col); };
  let randomOrder = false;

  const condition = (e: AstNode, chain: TableRef[][]): void => {
    const op = String(e.operator ?? '').toUpperCase();
    if (e.type !== 'binary_expr') return;
    if (op === 'OR') {
      const byTable = new Map<TableFacts, string[]>();
      for (const c of ownColumns(e)) {
        const f = resolveIn(chain, c);
        if (!f) continue;
        const l = byTable.get(f) ?? [];
        add(l, c.column);
        byTable.set(f, l);
      }
      for (const [f, cols] of byTable) if (cols.length > 1) f.orGroups.push(cols);
      return;
    }
    for (const [side, other] of [[e.left, e.right], [e.right, e.left]] as const) {
      const c = columnRef(side);
      if (c) {
        const f = resolveIn(chain, c);
        if (!f) continue;
        if (EQ_OPS.has(op)) add(f.eq, c.column);
        if (op === 'IN' && side === e.left && listLength(other) > 1) add(f.inList, c.column);
        else if (RANGE_OPS.has(op)) add(f.range, c.column);
        if ((EQ_OPS.has(op) || RANGE_OPS.has(op)) && !columnRef(other)) add(f.filtered, c.column);
        else if (op === 'LIKE') {
          if (side === e.left && startsWithWildcard(other)) add(f.leadingWildcard, c.column);
          else if (side === e.left) add(f.range, c.column);
        }
        continue;
      }
      // why: only a column the function itself wraps is hidden from its index; a subquery inside the
      // call (`IFNULL((SELECT …), 0)`) wraps no column of this scope, and its own columns belong to it.
      if (isNode(side) && side.type === 'function' && (EQ_OPS.has(op) || RANGE_OPS.has(op) || op === 'LIKE')) {
        for (const inner of ownColumns(side)) {
          const f = resolveIn(chain, inner);
          if (f && !f.functionCols.some((x) => x.column === inner.column)) f.functionCols.push({ column: inner.column, fn: fnName(side) });
        }
      }
    }
  };

  const visitSelect = (sel: AstNode, outer: TableRef[][]): void => {
    const chain = [directRefs(sel), ...outer];
    if (sel.where) for (const c of conjuncts(sel.where)) condition(c, chain);
    if (Array.isArray(sel.from)) for (const t of sel.from) if (isNode(t) && t.on) for (const c of conjuncts(t.on)) condition(c, chain);
    if (Array.isArray(sel.orderby)) {
      for (const o of sel.orderby) {
        if (isNode(o) && isNode(o.expr) && o.expr.type === 'function' && /^RAND$/.test(fnName(o.expr))) randomOrder = true;
        const c = isNode(o) ? columnRef(o.expr) : undefined;
        const f = c && resolveIn(chain, c);
        if (c && f) add(f.order, c.column);
      }
    }
    const g = sel.groupby;
    const groupCols = Array.isArray(g) ? g : isNode(g) && Array.isArray(g.columns) ? g.columns : [];
    for (const e of groupCols) {
      const c = columnRef(e);
      const f = c && resolveIn(chain, c);
      if (c && f) add(f.group, c.column);
    }
    walk(sel, (n) => {
      if (n === sel) return true;
      if (isScope(n)) { visitSelect(n, chain); return false; }
      return true;
    });
  };
  visitSelect(ast, []);
  let limit: number | undefined;
  const lim = ast.limit;
  if (isNode(lim) && Array.isArray(lim.value) && lim.value.length) {
    const vals = lim.value.map((v) => (isNode(v) ? Number(v.value) : NaN));
    const count = lim.seperator === ',' ? vals[1] : vals[0];
    if (Number.isFinite(count)) limit = count;
  }
  const g = ast.groupby;
  const grouped = (Array.isArray(g) && g.length > 0) || (isNode(g) && Array.isArray(g.columns) && g.columns.length > 0);
  let aggregate = false;
  // why: a window function (`COUNT(*) OVER (…)`) is an aggregate that keeps every row.
  if (Array.isArray(ast.columns)) walk(ast.columns, (n) => { if (isScope(n)) return false; if (n.type === 'aggr_func' && !n.over) aggregate = true; return !aggregate; });
  const aggregated = grouped || ast.distinct === 'DISTINCT' || aggregate;
  const oneRow = aggregate && !grouped && !ast.having;
  return { parsed: true, tables, aliases, ...(randomOrder ? { randomOrder } : {}), ...(limit !== undefined ? { limit } : {}), ...(aggregated ? { aggregated } : {}), ...(oneRow ? { oneRow } : {}) };
}
