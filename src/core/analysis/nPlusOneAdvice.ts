/**
 * Advice for an N+1 finding: the one statement that replaces the per-iteration query, written with
 * the real table and column names of the inner statement and (when the loop walks another query's
 * rows) the outer one — a `WHERE key IN (…)` batch, or a JOIN folded into the outer query. Returns
 * Markdown for the hover and a comment snippet for a quick fix at the loop; never rewrites code.
 */
import { Parser } from 'node-sql-parser/build/mysql';
import { DYNAMIC_MARK, type Position } from '../model';
import type { NPlusOneFinding } from './nPlusOne';
import { escapeRegExp, lexSql } from '../sql/sqlLexer';
import { traitsOf } from '../source/lang/languages';

export interface NPlusOneAdvice {
  /** Hover text (Markdown; SQL in fenced blocks, identifiers in code spans). */
  markdown: string;
  /** The fix as comment lines in the language's syntax, ending with a newline, ready to insert at `insertAt`. */
  snippet: string;
  /** Start of the loop's line: where the quick fix inserts `snippet` (in `insertFile`). */
  insertAt: Position;
  /** The loop's file (the finding's `data.loopFile`), which may differ from the statement's. */
  insertFile: string;
  /** The batched statement (`… WHERE id IN (…)`, a multi-row INSERT), when one could be written. */
  batchSql?: string;
  /** The outer query with the inner one folded in as a JOIN, when that is sound (one inner row per outer row). */
  joinSql?: string;
}

export interface AdviceOptions {
  /** Indentation of the loop's line, repeated on every snippet line. */
  indent?: string;
}

const parser = new Parser();
const DIALECT = { database: 'MySQL' };

interface Tokenized { text: string; tokens: Map<string, string> }

/**
 * Replaces placeholders and dynamic parts (as the one SQL lexer reads them, so `?`, `$1`, `:name`,
 * `%s`, `%(name)s` alike) with identifiers the parser accepts; `tokens` maps them back. A list
 * placeholder (`IN %s`) becomes a one-item list `(__qi_lN__)` and maps back without the parentheses.
 */
function tokenize(sql: string): Tokenized {
  const tokens = new Map<string, string>();
  let out = '';
  let at = 0;
  let k = 0;
  let d = 0;
  for (const t of lexSql(sql)) {
    let put: string;
    if (t.kind === 'dynamic') { put = `__qi_d${d}__`; tokens.set(put, '…'); d++; }
    else if (t.kind === 'placeholder') { put = t.list ? `__qi_l${k}__` : `__qi_p${k}__`; tokens.set(put, t.text); if (t.list) put = `(${put})`; k++; }
    else continue;
    out += sql.slice(at, t.start) + put;
    at = t.end;
  }
  return { text: out + sql.slice(at), tokens };
}

function untokenize(text: string, tokens: Map<string, string>): string {
  return text.replace(/\(\s*`?(__qi_l\d+__)`?\s*\)|`?(__qi_[pd]\d+__)`?/g, (_m, l: string | undefined, t: string | undefined) => tokens.get((l ?? t)!) ?? (l ?? t)!);
}

// Loose views of node-sql-parser's AST: only the fields read here.
interface Node { type?: string; [k: string]: unknown }
interface ColumnRef extends Node { type: 'column_ref'; table: string | null; column: string | { expr: { value: string } } }
interface FromItem { table?: string; as?: string | null; join?: string; on?: Node }
interface SelectAst extends Node { type: 'select'; columns: { expr: Node; as: string | null }[] | '*'; from: FromItem[] | null; where: Node | null; groupby: unknown; orderby: unknown; limit: { value: { value: unknown }[] } | null }

function parse(t: Tokenized): Node | undefined {
  try {
    const ast = parser.astify(t.text, DIALECT) as unknown as Node | Node[];
    return Array.isArray(ast) ? ast[0] : ast;
  } catch {
    return undefined;
  }
}

function colName(c: ColumnRef): string {
  return typeof c.column === 'string' ? c.column : String(c.column.expr.value);
}

const isToken = (n: Node | undefined): boolean =>
  !!n && ((n.type === 'column_ref' && /^__qi_[pl]\d+__$/.test(colName(n as ColumnRef))) || (n.type === 'origin' && n.value === '?'));

/** `col = <placeholder>` predicates joined by AND at the top of a WHERE clause. */
function keyPredicates(where: Node | null): { column: string; token: string }[] {
  const out: { column: string; token: string }[] = [];
  const walk = (n: Node | null | undefined) => {
    if (!n || n.type !== 'binary_expr') return;
    if (n.operator === 'AND') { walk(n.left as Node); walk(n.right as Node); return; }
    if (n.operator !== '=') return;
    const [l, r] = [n.left as Node, n.right as Node];
    if (l?.type === 'column_ref' && isToken(r)) out.push({ column: colName(l as ColumnRef), token: tokenOf(r) });
    else if (r?.type === 'column_ref' && isToken(l)) out.push({ column: colName(r as ColumnRef), token: tokenOf(l) });
  };
  walk(where);
  return out;
}

function tokenOf(n: Node): string {
  return n.type === 'column_ref' ? colName(n as ColumnRef) : '?';
}

/** `[qualifier.]column = <token>` in the tokenized text; the column may hold any character (escaped). */
function keyPattern(key: { column: string; token: string }): RegExp {
  return new RegExp(`((?:\`?\\w+\`?\\.)?\`?${escapeRegExp(key.column)}\`?)\\s*=\\s*${escapeRegExp(key.token)}`);
}

/** `users` → `user`, `categories` → `category`, `statuses` → `status`, `people` stays. */
function singular(table: string): string {
  if (/ies$/i.test(table)) return table.slice(0, -3) + 'y';
  if (/(?:ss|us|x|ch|sh)es$/i.test(table)) return table.slice(0, -2);
  if (/s$/i.test(table) && !/ss$/i.test(table)) return table.slice(0, -1);
  return table;
}

const RESERVED = new Set(['order', 'group', 'key', 'select', 'from', 'where', 'index', 'desc', 'asc', 'table', 'limit', 'by', 'join', 'on', 'and', 'or', 'not', 'in', 'is', 'as', 'rank', 'condition', 'range', 'interval', 'primary', 'user']);

/** Makes sqlify's output read like hand-written SQL: drop needless backquotes, `posts AS p` → `posts p`. */
function tidy(sql: string): string {
  return sql
    .replace(/`([A-Za-z_][A-Za-z0-9_]*)`/g, (m, id: string) => (RESERVED.has(id.toLowerCase()) ? m : id))
    .replace(/\b(FROM|JOIN)\s+(\w+) AS (\w+)/g, '$1 $2 $3');
}

/** A list of `n` placeholders in the style the statement already uses. */
function placeholderList(example: string): string {
  if (/^\$\d+$/.test(example)) return '$1, $2, …';
  if (example === '…') return '…';
  return `${example}, ${example}, …`;
}

interface Plan { batchSql?: string; joinSql?: string; prose: string[] }

function planSelect(inner: SelectAst, innerT: Tokenized, outer: SelectAst | undefined, outerT: Tokenized | undefined, iterable: string | undefined): Plan {
  const prose: string[] = [];
  const table = inner.from?.[0]?.table;
  const keys = keyPredicates(inner.where);
  if (!table || keys.length === 0) {
    return { prose: ['Collect what each iteration needs first, then fetch it with one statement for the whole set (an `IN (…)` list or a JOIN), and look the rows up in a map inside the loop.'] };
  }
  const key = keys[0];
  const outerTable = outer?.from?.[0]?.table;
  const toOne = key.column === 'id';
  const outerCol = toOne ? `${singular(table)}_id` : outerTable && key.column === `${singular(outerTable)}_id` ? 'id' : key.column;
  const source = outerTable ? `the \`${outerTable}\` rows' \`${outerCol}\`` : iterable ? `\`${iterable}\`` : 'the loop';
  const ph = innerT.tokens.get(key.token) ?? '?';
  const keyRe = keyPattern(key);
  let batch = innerT.text.replace(keyRe, (_m, col: string) => `${col} IN (${placeholderList(ph)})`);
  const aggregate = Array.isArray(inner.columns) && inner.columns.some((c) => c.expr.type === 'aggr_func');
  const limit = inner.limit?.value?.[0]?.value;
  if (aggregate && !inner.groupby) {
    batch = batch.replace(/^(\s*SELECT\s+)/i, (_m, sel: string) => `${sel}${key.column}, `);
    const tail = /\s+(ORDER\s+BY|LIMIT)\b/i.exec(batch);
    batch = tail ? `${batch.slice(0, tail.index)} GROUP BY ${key.column}${batch.slice(tail.index)}` : `${batch.trimEnd()} GROUP BY ${key.column}`;
    prose.push(`Count for every \`${key.column}\` at once: collect ${source}, run the grouped statement once, and read each count from a map keyed by \`${key.column}\` (missing keys mean 0).`);
  } else if (limit !== undefined && !toOne && /\bORDER\s+BY\b/i.test(batch)) {
    const m = /^([\s\S]*?)\s+ORDER\s+BY\s+([\s\S]+?)\s+LIMIT\s+(\S+)\s*$/i.exec(batch);
    if (m) {
      const rank = `ROW_NUMBER() OVER (PARTITION BY ${key.column} ORDER BY ${m[2]}) AS rn`;
      const ranked = m[1].replace(/^(\s*SELECT\s+)([\s\S]+?)(\s+FROM\s)/i, (_x, sel: string, cols: string, from: string) => `${sel}${cols.trim() === '*' ? `${table}.*` : cols}, ${rank}${from}`);
      batch = `SELECT * FROM (${ranked}) AS ranked WHERE rn <= ${m[3]}`;
      prose.push(`The per-row \`LIMIT ${m[3]}\` becomes a window: one statement returns the first rows of every \`${key.column}\` (MySQL 8, MariaDB 10.2+). Collect ${source} first and group the result by \`${key.column}\`.`);
    }
  } else {
    if (toOne) batch = batch.replace(/\s+LIMIT\s+1\s*$/i, '');
    prose.push(`Collect the distinct values of ${source}, fetch all \`${table}\` rows in one statement, and look each one up in a map keyed by \`${key.column}\` inside the loop.`);
  }
  const plan: Plan = { batchSql: untokenize(batch, innerT.tokens), prose };
  if (outer && outerT && outerTable && toOne && !aggregate && (limit === undefined || String(limit) === '1') && outer.from?.length === 1) {
    const join = foldJoin(inner, table, key, outer, outerCol);
    if (join) {
      plan.joinSql = untokenize(join, outerT.tokens);
      prose.push(`Or fold it into the outer query, so the loop needs no statement at all (one \`${table}\` row per \`${outerTable}\` row).`);
    }
  }
  return plan;
}

/** The outer SELECT with the inner table joined on the key; the inner's other conditions go into ON. */
function foldJoin(inner: SelectAst, table: string, key: { column: string }, outer: SelectAst, outerCol: string): string | undefined {
  const o = structuredClone(outer);
  const first = o.from?.[0];
  if (!first?.table) return undefined;
  const oa = first.as ?? first.table[0];
  let ia = table[0];
  if (ia === oa) ia = `${ia}2`;
  first.as = oa;
  qualify(o.columns, oa); qualify(o.where, oa); qualify(o.orderby, oa); qualify(o.groupby, oa);
  const ref = (t: string, c: string) => ({ type: 'column_ref', table: t, column: c });
  let on: Node = { type: 'binary_expr', operator: '=', left: ref(ia, key.column), right: ref(oa, outerCol) };
  for (const extra of otherConditions(inner.where, key.column)) {
    const e = structuredClone(extra); qualify(e, ia);
    on = { type: 'binary_expr', operator: 'AND', left: on, right: e };
  }
  o.from!.push({ table, as: ia, join: 'INNER JOIN', on });
  const innerCols = Array.isArray(inner.columns) ? inner.columns.map((c) => { const e = structuredClone(c); qualify(e.expr, ia); return e; })
    : [{ expr: ref(ia, '*'), as: null }];
  if (!Array.isArray(o.columns)) o.columns = [{ expr: ref(oa, '*'), as: null }];
  o.columns.push(...innerCols.filter((c) => !(c.expr.type === 'column_ref' && colName(c.expr as ColumnRef) === key.column)));
  try {
    return tidy(parser.sqlify(o as never, DIALECT));
  } catch {
    return undefined;
  }
}

/** Top-level AND terms of `where` other than `key = ?`. */
function otherConditions(where: Node | null, key: string): Node[] {
  const out: Node[] = [];
  const walk = (n: Node | null | undefined) => {
    if (!n) return;
    if (n.type === 'binary_expr' && n.operator === 'AND') { walk(n.left as Node); walk(n.right as Node); return; }
    if (n.type === 'binary_expr' && n.operator === '=' && keyPredicates(n).some((k) => k.column === key)) return;
    out.push(n);
  };
  walk(where);
  return out;
}

/** Gives every unqualified column reference under `n` the table alias `alias`. */
function qualify(n: unknown, alias: string): void {
  if (!n || typeof n !== 'object') return;
  if (Array.isArray(n)) { for (const x of n) qualify(x, alias); return; }
  const node = n as Node;
  if (node.type === 'column_ref' && !node.table && !/^__qi_/.test(colName(node as ColumnRef))) node.table = alias;
  if (node.type === 'select') return; // a subquery keeps its own names
  for (const k of Object.keys(node)) qualify(node[k], alias);
}

function planWrite(ast: Node, t: Tokenized): Plan {
  if (ast.type === 'insert') {
    const m = /\bVALUES?\s*(\([^()]*(?:\([^()]*\)[^()]*)*\))/i.exec(t.text);
    if (m) {
      const batch = `${t.text.slice(0, m.index + m[0].length)}, ${m[1]}, …${t.text.slice(m.index + m[0].length)}`;
      return { batchSql: untokenize(batch, t.tokens), prose: ['Collect the rows in the loop and send one multi-row `INSERT` after it (keep each batch under `max_allowed_packet`, e.g. 500–1000 rows).'] };
    }
  }
  if (ast.type === 'update' || ast.type === 'delete') {
    const keys = keyPredicates(ast.where as Node | null);
    const setHasParams = ast.type === 'update' && JSON.stringify(ast.set ?? '').includes('__qi_p');
    if (keys.length && !setHasParams) {
      const key = keys[0];
      const re = keyPattern(key);
      const ph = t.tokens.get(key.token) ?? '?';
      return { batchSql: untokenize(t.text.replace(re, (_m, col: string) => `${col} IN (${placeholderList(ph)})`), t.tokens), prose: [`Collect the \`${key.column}\` values in the loop and run one statement for all of them after it.`] };
    }
    if (ast.type === 'update') {
      return { prose: ['Each iteration writes different values: collect them and write them in one `INSERT … ON DUPLICATE KEY UPDATE` (or `UPDATE … SET col = CASE id WHEN … END WHERE id IN (…)`) after the loop.'] };
    }
  }
  return { prose: ['Collect what each iteration writes and send it in one statement after the loop.'] };
}

function fence(sql: string): string {
  const ticks = /```/.test(sql) ? '~~~' : '```';
  return `${ticks}sql\n${sql}\n${ticks}`;
}

/** A code span that shows `s` verbatim, backticks included: its fence is longer than any backtick run inside. */
function code(s: string): string {
  const one = s.split(DYNAMIC_MARK).join('…').replace(/\s+/g, ' ').trim();
  const text = one.length > 100 ? `${one.slice(0, 99)}…` : one;
  const ticks = '`'.repeat(Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length)) + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

/**
 * Writes the fix for one N+1 finding: the batched statement and, when the inner query fetches one
 * row per outer row, the JOIN that folds it into the outer query. Pure; parses both statements with
 * node-sql-parser after replacing placeholders by tokens (so `?`, `$1`, `%s`, `:name` all parse).
 */
export function adviseNPlusOne(finding: NPlusOneFinding, options: AdviceOptions = {}): NPlusOneAdvice {
  const d = finding.data;
  const innerT = tokenize(d.innerSql);
  const inner = parse(innerT);
  const outerT = d.outer ? tokenize(d.outer.sql) : undefined;
  const outer = outerT ? parse(outerT) : undefined;
  const plan: Plan = !inner ? { prose: ['Collect what each iteration needs, fetch it with one statement before the loop, and look the rows up in a map inside it.'] }
    : inner.type === 'select' ? planSelect(inner as SelectAst, innerT, outer?.type === 'select' ? outer as SelectAst : undefined, outerT, d.iterable)
      : planWrite(inner, innerT);

  const via = d.path.length ? ` via ${d.path.map((s) => code(`${s.name}()`)).join(' → ')}` : '';
  const over = d.iterable ? ` over ${code(d.iterable)}` : '';
  const times = d.estimatedIterations !== undefined ? ` (about ${Math.round(d.estimatedIterations)} times, from ${d.estimateFrom ?? "the outer query's plan"})` : '';
  const md: string[] = [
    `**N+1 query** (\`n-plus-one\`): ${code(d.innerSql)} runs once per iteration of the ${d.loopKind} loop${over} at ${d.loopFile}:${d.loopLine}${via}${times}.`,
  ];
  if (d.outer) md.push(`The loop walks the rows of ${code(d.outer.sql)} (line ${d.outer.line}).`);
  if (d.source === 'small-constant') md.push('The loop is over a small constant list, so the cost is bounded; batch it only if it is on a hot path.');
  if (d.source === 'retry') md.push('The loop leaves after the first pass that succeeds (a retry loop): the statement repeats only when it fails.');
  md.push('', plan.prose[0] ?? '');
  if (plan.batchSql) md.push('', fence(plan.batchSql));
  if (plan.joinSql) md.push('', plan.prose[plan.prose.length - 1], '', fence(plan.joinSql));

  const c = traitsOf(d.language).lineComment;
  const ind = options.indent ?? '';
  const lines = [`${c} N+1 (n-plus-one): ${oneLine(d.innerSql)} runs once per iteration${d.path.length ? ` via ${d.path.map((s) => `${s.name}()`).join(' -> ')}` : ''}.`];
  if (plan.batchSql) lines.push(`${c} Fetch/write all rows in one statement instead:`, `${c}   ${oneLine(plan.batchSql)}`);
  if (plan.joinSql) lines.push(`${c} or fold it into the outer query:`, `${c}   ${oneLine(plan.joinSql)}`);
  if (!plan.batchSql && !plan.joinSql) lines.push(`${c} ${plan.prose[0]?.replace(/`/g, '') ?? ''}`);
  return {
    markdown: md.join('\n'),
    snippet: lines.map((l) => `${ind}${l}\n`).join(''),
    insertAt: { line: d.loopRange.start.line, character: 0 },
    insertFile: d.loopFile,
    ...(plan.batchSql ? { batchSql: plan.batchSql } : {}),
    ...(plan.joinSql ? { joinSql: plan.joinSql } : {}),
  };
}

function oneLine(s: string): string {
  return s.split(DYNAMIC_MARK).join('…').replace(/\s+/g, ' ').trim();
}
