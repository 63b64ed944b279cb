/**
 * node-sql-parser access shared by placeholder filling and plan findings: parse in the MariaDB
 * or MySQL dialect, walk the AST generically, read column references and table aliases.
 * The AST is treated as untyped data: the library's shapes vary between statement kinds.
 */
import { Parser as MariaDbParser } from 'node-sql-parser/build/mariadb';
import { Parser as MySqlParser } from 'node-sql-parser/build/mysql';
import type { Flavor } from '../model';

export type AstNode = Record<string, unknown>;

// why: the per-dialect builds load in ~30 ms; the all-dialect entry point takes ~400 ms, too slow for a first hover.
const parsers: Record<string, { astify(sql: string, opt: { database: string }): unknown } | undefined> = {};
const parserFor = (database: string) => (parsers[database] ??= database === 'MariaDB' ? new MariaDbParser() : new MySqlParser());

/**
 * Parses one statement; returns the AST of the first statement or an error message.
 * Tries the server's dialect first and the other one second (their grammars accept different corners).
 */
export function parseStatement(sql: string, flavor: Flavor = 'mysql'): { ast: AstNode } | { error: string } {
  const dialects = flavor === 'mariadb' ? ['MariaDB', 'MySQL'] : ['MySQL', 'MariaDB'];
  let first = '';
  for (const database of dialects) {
    try {
      const ast = parserFor(database).astify(sql, { database });
      const one = Array.isArray(ast) ? ast[0] : ast;
      if (one && typeof one === 'object') return { ast: one as AstNode };
    } catch (err) {
      first ||= (err as Error).message.split('\n')[0];
    }
  }
  return { error: first || 'the SQL parser returned nothing' };
}

export function isNode(v: unknown): v is AstNode {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Visits every object in the tree, parents before children. Return false from `fn` to skip a subtree. */
export function walk(node: unknown, fn: (n: AstNode, parent: AstNode | undefined) => boolean | void, parent?: AstNode): void {
  if (Array.isArray(node)) { for (const e of node) walk(e, fn, parent); return; }
  if (!isNode(node)) return;
  if (fn(node, parent) === false) return;
  for (const v of Object.values(node)) if (typeof v === 'object' && v !== null) walk(v, fn, node);
}

/** `{ table, column }` of a column_ref node (the column may be a string or an `{ expr: { value } }`), else undefined. */
export function columnRef(n: unknown): { table: string | null; column: string } | undefined {
  if (!isNode(n) || n.type !== 'column_ref') return undefined;
  let col: unknown = n.column;
  if (isNode(col) && isNode(col.expr)) col = col.expr.value;
  if (typeof col !== 'string' || col === '*') return undefined;
  return { table: typeof n.table === 'string' ? n.table : null, column: col };
}

/** A statement's base tables in order of appearance (FROM, JOIN, UPDATE, INSERT INTO, subqueries), with aliases. */
export interface TableRef { name: string; alias?: string }

export function tableRefs(ast: AstNode): TableRef[] {
  const out: TableRef[] = [];
  walk(ast, (n) => {
    for (const key of ['from', 'table']) {
      const list = n[key];
      if (!Array.isArray(list)) continue;
      for (const t of list) {
        if (!isNode(t) || typeof t.table !== 'string') continue;
        const alias = typeof t.as === 'string' ? t.as : undefined;
        if (!out.some((r) => r.name === t.table && r.alias === alias)) out.push({ name: t.table, ...(alias ? { alias } : {}) });
      }
    }
  });
  return out;
}

/** Maps a qualifier (alias or table name, lower-case) to its table name. */
export function aliasMap(refs: readonly TableRef[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const r of refs) {
    if (r.alias) m.set(r.alias.toLowerCase(), r.name);
    if (!m.has(r.name.toLowerCase())) m.set(r.name.toLowerCase(), r.name);
  }
  return m;
}
