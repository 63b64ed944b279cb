/**
 * What a statement asks of each table, read from its parsed form: equality and range predicates,
 * ORDER BY / GROUP BY columns, columns hidden inside functions, leading-wildcard LIKEs and ORs
 * across columns. Plan findings combine these facts with the schema to tell "scans only because
 * the table is tiny" from "will scan at scale".
 */
import type { Flavor, Schema } from '../model';
import { aliasMap, columnRef, isNode, parseStatement, tableRefs, walk, type AstNode } from '../sql/fillAst';

export interface TableFacts {
  table: string;
  alias?: string;
  /** Columns compared with `=`, `<=>`, `IN` (including join conditions). */
  eq: string[];
  /** Columns compared with `<`, `>`, `BETWEEN`, prefix `LIKE`. */
  range: string[];
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
  /** qualifier (alias or name, lower-case) → table name. */
  aliases: Map<string, string>;
}

const EQ_OPS = new Set(['=', '<=>', 'IN']);
const RANGE_OPS = new Set(['<', '>', '<=', '>=', 'BETWEEN']);

function conjuncts(e: unknown, out: AstNode[] = []): AstNode[] {
  if (!isNode(e)) return out;
  if (e.type === 'binary_expr' && String(e.operator).toUpperCase() === 'AND') { conjuncts(e.left, out); conjuncts(e.right, out); } else out.push(e);
  return out;
}

function colRefsIn(e: unknown): { table: string | null; column: string }[] {
  const out: { table: string | null; column: string }[] = [];
  walk(e, (n) => { const c = columnRef(n); if (c) out.push(c); });
  return out;
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
    if (!f) { f = { table: name, eq: [], range: [], order: [], group: [], functionCols: [], leadingWildcard: [], orGroups: [] }; tables.push(f); }
    return f;
  };
  for (const r of refs) { const f = factsFor(r.name); if (r.alias && !f.alias) f.alias = r.alias; }
  const resolve = (c: { table: string | null; column: string }): TableFacts | undefined => {
    if (c.table) { const t = aliases.get(c.table.toLowerCase()); return t ? factsFor(t) : undefined; }
    for (const r of refs) {
      const t = schema?.tables[r.name.toLowerCase()];
      if (t?.columns.some((col) => col.name.toLowerCase() === c.column.toLowerCase())) return factsFor(r.name);
    }
    return refs.length === 1 || !schema ? (refs[0] ? factsFor(refs[0].name) : undefined) : undefined;
  };
  const add = (list: string[], col: string): void => { if (!list.some((x) => x.toLowerCase() === col.toLowerCase())) list.push(col); };

  const condition = (e: AstNode): void => {
    const op = String(e.operator ?? '').toUpperCase();
    if (e.type !== 'binary_expr') return;
    if (op === 'OR') {
      const byTable = new Map<TableFacts, string[]>();
      for (const c of colRefsIn(e)) {
        const f = resolve(c);
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
        const f = resolve(c);
        if (!f) continue;
        if (EQ_OPS.has(op)) add(f.eq, c.column);
        else if (RANGE_OPS.has(op)) add(f.range, c.column);
        else if (op === 'LIKE') {
          if (side === e.left && startsWithWildcard(other)) add(f.leadingWildcard, c.column);
          else if (side === e.left) add(f.range, c.column);
        }
        continue;
      }
      if (isNode(side) && side.type === 'function' && (EQ_OPS.has(op) || RANGE_OPS.has(op) || op === 'LIKE')) {
        for (const inner of colRefsIn(side)) {
          const f = resolve(inner);
          if (f && !f.functionCols.some((x) => x.column === inner.column)) f.functionCols.push({ column: inner.column, fn: fnName(side) });
        }
      }
    }
  };

  walk(ast, (n) => {
    if (n.where) for (const c of conjuncts(n.where)) condition(c);
    if (Array.isArray(n.from)) for (const t of n.from) if (isNode(t) && t.on) for (const c of conjuncts(t.on)) condition(c);
    if (Array.isArray(n.orderby)) {
      for (const o of n.orderby) {
        const c = isNode(o) ? columnRef(o.expr) : undefined;
        const f = c && resolve(c);
        if (c && f) add(f.order, c.column);
      }
    }
    const g = n.groupby;
    const groupCols = Array.isArray(g) ? g : isNode(g) && Array.isArray(g.columns) ? g.columns : [];
    for (const e of groupCols) {
      const c = columnRef(e);
      const f = c && resolve(c);
      if (c && f) add(f.group, c.column);
    }
  });
  let limit: number | undefined;
  const lim = ast.limit;
  if (isNode(lim) && Array.isArray(lim.value) && lim.value.length) {
    const vals = lim.value.map((v) => (isNode(v) ? Number(v.value) : NaN));
    const count = lim.seperator === ',' ? vals[1] : vals[0];
    if (Number.isFinite(count)) limit = count;
  }
  return { parsed: true, tables, aliases, ...(limit !== undefined ? { limit } : {}) };
}
