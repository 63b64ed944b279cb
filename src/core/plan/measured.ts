/**
 * What a measured run (MariaDB `ANALYZE FORMAT=JSON`, MySQL 8 `EXPLAIN ANALYZE`) says the statement
 * really did: rows read per table access with its loops and time, the rows it returned and the total
 * time. Both servers' output is read into one model, shown beside EXPLAIN's estimates.
 */
import { parseExplainJsonText } from './jsonText';

/** One table access as measured. */
export interface MeasuredAccess {
  /** Table or alias as the server prints it. */
  table: string;
  /** Rows EXPLAIN estimated per scan, when the output carries it. */
  estimate: number | null;
  /** Rows actually read over all loops. */
  rowsRead: number;
  /** How many times the access ran (once per row of the preceding tables in a nested loop). */
  loops: number;
  /** Time spent in this access, when the server reports it. */
  ms?: number;
}

export interface Measurement {
  /** Rows read over every table access. */
  rowsRead: number;
  /** Rows the statement returned. */
  rowsSent: number;
  /** Execution time of the statement, ms. */
  ms: number;
  accesses: MeasuredAccess[];
  /** True when the run stopped at the row cap (`LIMIT ROWS EXAMINED`): the figures are lower bounds. */
  capped: boolean;
}

/**
 * Pairs each measured access with the plan row it measured: the first unpaired row of the same
 * table (case-insensitive), in order, since both list a statement's table accesses in the order
 * the server runs them. Returns, per access, the index of its plan row (-1 when none matches).
 */
export function matchAccesses(rows: readonly { table: string | null }[], accesses: readonly MeasuredAccess[]): number[] {
  const used = new Set<number>();
  return accesses.map((a) => {
    const i = rows.findIndex((r, k) => !used.has(k) && r.table !== null && r.table.toLowerCase() === a.table.toLowerCase());
    if (i >= 0) used.add(i);
    return i;
  });
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined);

/**
 * Reads MariaDB's `ANALYZE FORMAT=JSON` document (object or text). `limit` is the statement's LIMIT,
 * `rowCap` the `LIMIT ROWS EXAMINED` it ran under, `oneRow` set for an aggregate without GROUP BY.
 * Throws when the text is not such a document.
 */
export function parseMariaDbAnalyze(doc: unknown, opts: { limit?: number; rowCap?: number; oneRow?: boolean } = {}): Measurement {
  const json = typeof doc === 'string' ? parseExplainJsonText(doc) : doc;
  if (!isObj(json) || !isObj(json.query_block)) throw new Error('not an ANALYZE FORMAT=JSON document (no query_block)');
  const qb = json.query_block;
  const accesses: MeasuredAccess[] = [];
  let sortOut: number | undefined;
  const visit = (v: unknown, top: boolean): void => {
    if (Array.isArray(v)) { for (const e of v) visit(e, top); return; }
    if (!isObj(v)) return;
    if (typeof v.table_name === 'string' && num(v.r_loops) !== undefined) {
      const loops = num(v.r_loops)!;
      const perLoop = num(v.r_rows) ?? 0;
      const ms = (num(v.r_table_time_ms) ?? 0) + (num(v.r_other_time_ms) ?? 0);
      accesses.push({ table: v.table_name, estimate: num(v.rows) ?? null, rowsRead: Math.round(loops * perLoop), loops, ...(ms ? { ms } : {}) });
    }
    if (top && isObj(v.filesort) && num(v.filesort.r_output_rows) !== undefined) sortOut ??= num(v.filesort.r_output_rows);
    for (const [k, child] of Object.entries(v)) {
      if (typeof child === 'object' && child !== null) visit(child, top && k !== 'subqueries' && k !== 'materialized' && !k.endsWith('_subqueries'));
    }
  };
  visit(qb, true);
  if (sortOut === undefined && isObj(qb.filesort)) sortOut = num(qb.filesort.r_output_rows);
  // why: ANALYZE does not print the rows sent; they are what leaves the last table of the top join after its filter, or the sort's output.
  let sent = sortOut;
  if (sent === undefined) {
    const top = topNestedLoop(qb);
    const last = top[top.length - 1];
    sent = last ? Math.round((num(last.r_loops) ?? 0) * (num(last.r_rows) ?? 0) * (num(last.r_filtered) ?? 100) / 100) : 0;
  }
  // why: an aggregate without GROUP BY returns one row; what leaves the last table is what it aggregated.
  if (opts.oneRow) sent = 1;
  if (opts.limit !== undefined) sent = Math.min(sent, opts.limit);
  const rowsRead = accesses.reduce((s, a) => s + a.rowsRead, 0);
  return {
    rowsRead, rowsSent: sent, ms: num(qb.r_total_time_ms) ?? accesses.reduce((s, a) => s + (a.ms ?? 0), 0), accesses,
    capped: opts.rowCap !== undefined && rowsRead >= opts.rowCap,
  };
}

/** The tables of the top block's join, in order (through sort / temporary wrappers). */
function topNestedLoop(qb: Obj): Obj[] {
  const out: Obj[] = [];
  const go = (o: Obj): void => {
    if (isObj(o.table)) { out.push(o.table); return; }
    if (Array.isArray(o.nested_loop)) {
      for (const s of o.nested_loop) if (isObj(s)) { if (isObj(s.table)) out.push(s.table); else if (isObj(s['block-nl-join']) && isObj(s['block-nl-join'].table)) out.push(s['block-nl-join'].table); else go(s); }
      return;
    }
    for (const k of ['filesort', 'temporary_table', 'read_sorted_file', 'duplicates_removal']) if (isObj(o[k])) { go(o[k] as Obj); return; }
  };
  go(qb);
  return out;
}

/** `(actual time=0.046..45.2 rows=100003 loops=1)` */
const ACTUAL = /\(actual time=([\d.]+)\.\.([\d.]+) rows=([\d.e+]+) loops=(\d+)\)/;
/** `(cost=10.2 rows=97730)` */
const ESTIMATE = /\(cost=[\d.e+]+(?:\.\.[\d.e+]+)? rows=([\d.e+]+)\)/;
/** Table access nodes: `Table scan on t`, `Index scan on t using k`, `Index lookup on t using k (…)`, `Single-row index lookup on t …`, `Index range scan on t …`, `Covering index …`, `Full-text index search on t …`. */
const ACCESS = /^(?:Table scan|(?:Covering |Single-row (?:covering )?)?index (?:scan|lookup|range scan|skip scan)|Index (?:scan|lookup|range scan|skip scan)|Full-text index search|Constant row from|Index for group-by|Group aggregate \(using index\)) on (`[^`]+`|\S+)/i;

/**
 * Reads MySQL 8's `EXPLAIN ANALYZE` tree (8.0.18 and later): one `-> node (cost=… rows=…) (actual
 * time=first..last rows=n loops=l)` per line, children indented below. Rows read are the table
 * access nodes' rows × loops; rows sent and time come from the root node.
 */
export function parseMySqlExplainAnalyze(text: string): Measurement {
  const lines = text.split(/\r?\n/);
  const accesses: MeasuredAccess[] = [];
  let root: { rows: number; ms: number } | undefined;
  let neverExecuted = false;
  for (const line of lines) {
    const m = /^\s*->\s*(.*)$/.exec(line);
    if (!m) continue;
    const body = m[1];
    const actual = ACTUAL.exec(body);
    const est = ESTIMATE.exec(body);
    if (!root) {
      if (actual) root = { rows: Number(actual[3]), ms: Number(actual[2]) };
      else if (/\(never executed\)/.test(body)) { root = { rows: 0, ms: 0 }; neverExecuted = true; }
    }
    const access = ACCESS.exec(body);
    if (!access) continue;
    const table = access[1].replace(/^`|`$/g, '');
    const loops = actual ? Number(actual[4]) : 0;
    const perLoop = actual ? Number(actual[3]) : 0;
    accesses.push({
      table, estimate: est ? Number(est[1]) : null, rowsRead: Math.round(perLoop * loops), loops,
      ...(actual ? { ms: Number(actual[2]) * loops } : {}),
    });
  }
  if (!root) throw new Error(neverExecuted ? 'EXPLAIN ANALYZE output without timing' : 'not EXPLAIN ANALYZE output (no "-> … (actual time=…)" line)');
  return { rowsRead: accesses.reduce((s, a) => s + a.rowsRead, 0), rowsSent: root.rows, ms: root.ms, accesses, capped: false };
}
