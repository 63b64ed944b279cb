/**
 * EXPLAIN FORMAT=JSON → PlanRow[], for both shapes:
 * - MySQL 5.7/8: query_block { cost_info, ordering_operation|grouping_operation|duplicates_removal
 *   { using_filesort, using_temporary_table, … }, nested_loop [ { table } ], table { access_type,
 *   rows_examined_per_scan, filtered, using_join_buffer, attached_condition, attached_subqueries … } }
 * - MariaDB 10/11: query_block { filesort { temporary_table { nested_loop … } }, nested_loop
 *   [ { table } | { block-nl-join { table, buffer_type, join_type } } ], subqueries [ { expression_cache?
 *   { query_block } } ], table { materialized { query_block } } }
 * The walk is shape-tolerant: unknown keys are descended into, so newer server versions that add
 * wrappers still yield their tables.
 */
import type { Flavor } from '../model';
import { parseExplainJsonText } from './jsonText';
import type { Plan, PlanRow } from './planModel';

type Obj = Record<string, unknown>;

interface Ctx {
  id: number | null;
  selectType: string;
  /** Extras from enclosing sort / temporary wrappers, given to the first table read under them. */
  pending: string[];
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number | null {
  if (v === null || v === undefined || v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

function strList(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string' && v) return v.split(',').map((s) => s.trim());
  return [];
}

const SUBQUERY_LISTS = ['attached_subqueries', 'select_list_subqueries', 'optimized_away_subqueries', 'having_subqueries',
  'order_by_subqueries', 'group_by_subqueries', 'update_value_subqueries', 'subqueries'];

class Walker {
  rows: PlanRow[] = [];
  cost: number | undefined;

  queryBlock(qb: Obj, selectType: string): void {
    const id = num(qb.select_id);
    const costInfo = qb.cost_info;
    if (this.cost === undefined) {
      if (isObj(costInfo) && num(costInfo.query_cost) !== null) this.cost = num(costInfo.query_cost)!;
      else if (num(qb.cost) !== null) this.cost = num(qb.cost)!;
    }
    this.node(qb, { id, selectType, pending: [] });
  }

  /** Descends into any object that is not itself a table access. */
  node(o: Obj, ctx: Ctx): void {
    const pending = [...ctx.pending];
    // MySQL: wrappers carry flags on themselves.
    if (o.using_filesort === true) pending.push('Using filesort');
    if (o.using_temporary_table === true && !('table_name' in o)) pending.push('Using temporary');
    const inner: Ctx = { ...ctx, pending };
    for (const [k, v] of Object.entries(o)) {
      if (k === 'query_block' && isObj(v)) { this.queryBlock(v, ctx.selectType); continue; }
      if (k === 'table' && isObj(v)) { this.table(v, inner, undefined); inner.pending = []; continue; }
      if (k === 'nested_loop' && Array.isArray(v)) {
        for (const step of v) {
          if (!isObj(step)) continue;
          if (isObj(step.table)) this.table(step.table, inner, undefined);
          else if (isObj(step['block-nl-join'])) this.blockJoin(step['block-nl-join'] as Obj, inner);
          else this.node(step, inner);
          inner.pending = [];
        }
        continue;
      }
      if (k === 'filesort' && isObj(v)) { this.node(v, { ...inner, pending: [...inner.pending, 'Using filesort'] }); inner.pending = []; continue; }
      if (k === 'temporary_table' && isObj(v)) { this.node(v, { ...inner, pending: [...inner.pending, 'Using temporary'] }); inner.pending = []; continue; }
      if (SUBQUERY_LISTS.includes(k) && Array.isArray(v)) { for (const s of v) if (isObj(s)) this.subquery(s); continue; }
      if (k === 'union_result' && isObj(v)) { this.union(v, ctx); continue; }
      if (isObj(v)) this.node(v, inner);
      else if (Array.isArray(v)) for (const e of v) if (isObj(e)) this.node(e, inner);
    }
  }

  subquery(s: Obj): void {
    // why: MariaDB wraps correlated subqueries in an expression cache; MySQL marks them `dependent: true`.
    const cache = isObj(s.expression_cache) ? s.expression_cache : undefined;
    const dependent = s.dependent === true || cache !== undefined;
    const qb = (cache ?? s).query_block;
    if (isObj(qb)) this.queryBlock(qb, dependent ? 'DEPENDENT SUBQUERY' : 'SUBQUERY');
  }

  union(u: Obj, ctx: Ctx): void {
    const specs = Array.isArray(u.query_specifications) ? u.query_specifications : [];
    specs.forEach((s, i) => {
      if (!isObj(s) || !isObj(s.query_block)) return;
      const dependent = s.dependent === true;
      this.queryBlock(s.query_block, i === 0 ? (ctx.selectType === 'SIMPLE' ? 'PRIMARY' : ctx.selectType) : dependent ? 'DEPENDENT UNION' : 'UNION');
    });
    if (typeof u.table_name === 'string') {
      this.rows.push(emptyRow(null, 'UNION RESULT', u.table_name, typeof u.access_type === 'string' ? u.access_type : 'ALL',
        u.using_temporary_table === true ? ['Using temporary'] : []));
    }
  }

  blockJoin(b: Obj, ctx: Ctx): void {
    if (!isObj(b.table)) return;
    const kind = [b.buffer_type, b.join_type === 'BNL' ? 'BNL join' : b.join_type === 'BNLH' ? 'BNLH join' : b.join_type]
      .filter((x) => typeof x === 'string' && x).join(', ');
    this.table(b.table, ctx, { extra: `Using join buffer${kind ? ` (${kind})` : ''}`, condition: typeof b.attached_condition === 'string' ? b.attached_condition : undefined });
  }

  table(t: Obj, ctx: Ctx, join: { extra: string; condition?: string } | undefined): void {
    if (typeof t.table_name !== 'string') {
      if (typeof t.message === 'string') this.rows.push(emptyRow(ctx.id, ctx.selectType, null, null, [t.message]));
      return;
    }
    const extra: string[] = [...ctx.pending];
    ctx.pending.length = 0;
    const condition = typeof t.attached_condition === 'string' ? t.attached_condition : join?.condition;
    if (typeof t.index_condition === 'string') extra.push('Using index condition');
    if (condition) extra.push('Using where');
    if (t.using_index === true) extra.push('Using index');
    if (typeof t.using_join_buffer === 'string') extra.push(`Using join buffer (${t.using_join_buffer})`);
    if (join) extra.push(join.extra);
    if (typeof t.using_MRR === 'boolean' && t.using_MRR) extra.push('Using MRR');
    const rows = num(t.rows_examined_per_scan) ?? num(t.rows);
    const ref = strList(t.ref);
    this.rows.push({
      id: ctx.id, selectType: ctx.selectType, table: t.table_name,
      partitions: strList(t.partitions).join(',') || null,
      type: typeof t.access_type === 'string' ? t.access_type : null,
      possibleKeys: strList(t.possible_keys),
      key: typeof t.key === 'string' ? t.key : null,
      keyLen: t.key_length === undefined || t.key_length === '' ? null : String(t.key_length),
      ref: ref.length ? ref.join(',') : null,
      rows, filtered: num(t.filtered), extra,
      ...(condition ? { condition } : {}),
    });
    for (const k of ['materialized_from_subquery', 'materialized']) {
      const m = t[k];
      if (isObj(m) && isObj(m.query_block)) this.queryBlock(m.query_block, t.table_name.startsWith('<subquery') ? 'MATERIALIZED' : 'DERIVED');
    }
    for (const k of SUBQUERY_LISTS) {
      const list = t[k];
      if (Array.isArray(list)) for (const s of list) if (isObj(s)) this.subquery(s);
    }
  }
}

function emptyRow(id: number | null, selectType: string, table: string | null, type: string | null, extra: string[]): PlanRow {
  return { id, selectType, table, partitions: null, type, possibleKeys: [], key: null, keyLen: null, ref: null, rows: null, filtered: null, extra };
}

/**
 * Normalises an EXPLAIN FORMAT=JSON document (object or its text) of either flavor.
 * Throws an Error naming what was wrong when the text is not an EXPLAIN JSON document.
 */
export function normalizeJson(doc: unknown, flavor: Flavor): Plan {
  const json = typeof doc === 'string' ? parseExplainJsonText(doc) : doc;
  if (!isObj(json) || !isObj(json.query_block)) throw new Error('not an EXPLAIN FORMAT=JSON document (no query_block)');
  const w = new Walker();
  w.queryBlock(json.query_block, 'SIMPLE');
  const ids = new Set(w.rows.map((r) => r.id).filter((x) => x !== null));
  if (ids.size > 1) for (const r of w.rows) if (r.selectType === 'SIMPLE') r.selectType = 'PRIMARY';
  return { flavor, rows: w.rows, source: 'json', json, ...(w.cost !== undefined ? { cost: w.cost } : {}) };
}

/**
 * Adds what JSON knows and the tabular form lacks (MariaDB's `filtered`, attached conditions,
 * the total cost) to a tabular plan. Rows are matched by select id and table name, in order.
 */
export function mergeJsonDetail(tabular: Plan, json: Plan): Plan {
  const used = new Set<number>();
  const rows = tabular.rows.map((r) => {
    const i = json.rows.findIndex((j, k) => !used.has(k) && j.table === r.table && (j.id === r.id || j.id === null || r.id === null));
    if (i < 0) return r;
    used.add(i);
    const j = json.rows[i];
    return { ...r, filtered: r.filtered ?? j.filtered, ...(j.condition ? { condition: j.condition } : {}) };
  });
  return { ...tabular, rows, source: 'tabular+json', json: json.json, ...(json.cost !== undefined ? { cost: json.cost } : {}) };
}
