/**
 * Plan findings: reads a normalised Plan together with the statement's facts and the schema and
 * reports plan smells under stable codes. Severity scales with the table's row estimate; on a tiny
 * table the plan alone is not trusted: the message says whether the schema has an index that
 * could serve the predicate / order ("scans now only because the table is tiny") or not
 * ("scans now, will scan at scale").
 */
import type { Finding, IndexInfo, Range, Schema, Severity, TableInfo } from '../model';
import { hasExtra, isInternalTable, type Plan, type PlanRow } from '../plan/planModel';
import type { StatementFacts, TableFacts } from './planFindingsQuery';

export const PLAN_FINDING_CODES = [
  'full-table-scan', 'full-index-scan', 'filesort', 'temporary-table', 'join-without-index', 'dependent-subquery',
  'function-on-column', 'leading-wildcard', 'or-across-columns', 'rows-examined-ratio',
] as const;
export type PlanFindingCode = typeof PLAN_FINDING_CODES[number];

/** A finding about one statement's plan, before it is tied to a place in a file. */
export interface PlanFinding {
  code: PlanFindingCode;
  severity: Severity;
  message: string;
  /** Base table the finding is about, when one. */
  table?: string;
  /** Indices into plan.rows the finding rests on. */
  planRows: number[];
}

export interface PlanFindingOptions {
  /** Below this many rows a table counts as tiny (default 1000). */
  tinyRows?: number;
  /** From this many rows a table counts as large (default 10000). */
  largeRows?: number;
}

type Level = 'scan' | 'sort';

function scaled(rows: number, level: Level, o: Required<PlanFindingOptions>): Severity {
  const big = rows >= o.largeRows;
  const mid = rows >= o.tinyRows;
  if (level === 'scan') return big ? 'error' : mid ? 'warning' : 'info';
  return big ? 'warning' : mid ? 'info' : 'hint';
}

const fmt = (n: number): string => n.toLocaleString('en-US');
const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
const has = (list: readonly string[], c: string): boolean => list.some((x) => same(x, c));

/** An index whose leading column is compared in the statement (so it could serve the predicate). */
export function indexForPredicate(t: TableInfo, f: TableFacts | undefined): IndexInfo | undefined {
  if (!f) return undefined;
  return t.indexes.find((i) => i.visible !== false && i.columns.length > 0 && (has(f.eq, i.columns[0]) || has(f.range, i.columns[0])));
}

/** An index that returns rows in ORDER BY order after the equality columns (so it could serve the sort). */
export function indexForOrder(t: TableInfo, f: TableFacts | undefined): IndexInfo | undefined {
  if (!f || f.order.length === 0) return undefined;
  return t.indexes.find((i) => {
    if (i.visible === false) return false;
    let k = 0;
    while (k < i.columns.length && has(f.eq, i.columns[k]) && !has(f.order, i.columns[k])) k++;
    return f.order.every((c, j) => i.columns[k + j] !== undefined && same(i.columns[k + j], c));
  });
}

function leadingIndexOn(t: TableInfo | undefined, column: string): IndexInfo | undefined {
  return t?.indexes.find((i) => i.visible !== false && i.columns[0] !== undefined && same(i.columns[0], column));
}

/**
 * Finds the plan smells of one statement. `facts` come from statementFacts() on the filled SQL;
 * `schema` supplies row estimates and indexes (without it, severities use the plan's row counts).
 */
export function planFindings(plan: Plan, facts: StatementFacts, schema?: Schema, options: PlanFindingOptions = {}): PlanFinding[] {
  const o = { tinyRows: options.tinyRows ?? 1000, largeRows: options.largeRows ?? 10000 };
  const out: PlanFinding[] = [];
  const baseName = (row: PlanRow): string | undefined => {
    if (isInternalTable(row.table)) return undefined;
    return facts.aliases.get(row.table!.toLowerCase()) ?? row.table!;
  };
  const tableInfo = (name: string | undefined): TableInfo | undefined => (name ? schema?.tables[name.toLowerCase()] : undefined);
  const factsOf = (name: string | undefined): TableFacts | undefined => (name ? facts.tables.find((t) => same(t.table, name)) : undefined);
  const sizeOf = (row: PlanRow, name: string | undefined): number => tableInfo(name)?.rows ?? row.rows ?? 0;
  const tiny = (n: number): boolean => n < o.tinyRows;
  const cols = (f: TableFacts | undefined): string[] => (f ? [...f.eq, ...f.range] : []);
  const otherConds = (f: TableFacts | undefined): boolean => !!f && (f.functionCols.length > 0 || f.leadingWildcard.length > 0 || f.orGroups.length > 0);

  plan.rows.forEach((row, i) => {
    if (/^(INSERT|REPLACE)$/i.test(row.selectType)) return;
    const name = baseName(row);
    const t = tableInfo(name);
    const f = factsOf(name);
    const size = sizeOf(row, name);
    const label = name ?? row.table ?? '?';
    const scanned = row.rows ?? size;

    if (hasExtra(row, 'Using join buffer') && name) {
      const on = cols(f);
      out.push({
        code: 'join-without-index', severity: scaled(size, 'scan', o), table: name, planRows: [i],
        message: `joins ${label} without a usable index: every row of the preceding tables is matched against ~${fmt(scanned)} rows of ${label} in a join buffer${on.length ? `; an index on ${label}(${on.join(', ')}) would turn it into a lookup` : ''}`,
      });
    } else if (row.type === 'ALL' && name) {
      const wanted = cols(f);
      const wantsOrder = (f?.order.length ?? 0) > 0 || (f?.group.length ?? 0) > 0;
      const byPred = t && indexForPredicate(t, f);
      const byOrder = t && indexForOrder(t, f);
      if (wanted.length === 0 && !wantsOrder) {
        // why: a scan caused by a function, a leading wildcard or an OR is reported under that code below.
        if (!tiny(size) && !otherConds(f)) out.push({ code: 'full-table-scan', severity: 'info', table: name, planRows: [i], message: `reads all ~${fmt(size)} rows of ${label} (no condition on it)` });
      } else if (tiny(size)) {
        const serving = byPred ?? byOrder;
        out.push(serving
          ? { code: 'full-table-scan', severity: 'hint', table: name, planRows: [i], message: `scans ${label} now only because the table is tiny (~${fmt(size)} rows): index ${serving.name}(${serving.columns.join(', ')}) can serve this at scale` }
          : { code: 'full-table-scan', severity: 'info', table: name, planRows: [i], message: `scans ${label} now (~${fmt(size)} rows), and will scan at scale: no index covers ${[...wanted, ...(f?.order ?? [])].join(', ') || 'the query'}` });
      } else {
        const why = byPred
          ? `index ${byPred.name} exists but is not used for this predicate`
          : wanted.length ? `no index on ${label}(${wanted.join(', ')})` : 'no index serves the ORDER BY / GROUP BY';
        out.push({ code: 'full-table-scan', severity: scaled(size, 'scan', o), table: name, planRows: [i], message: `full table scan of ${label}: reads ~${fmt(scanned)} rows; ${why}` });
      }
    } else if (row.type === 'index' && name) {
      const limitWalk = row.rows !== null && size > 0 && row.rows < size / 2;
      if (!limitWalk && !tiny(size)) {
        out.push({ code: 'full-index-scan', severity: scaled(size, 'sort', o), table: name, planRows: [i], message: `reads the whole index ${row.key ?? ''} of ${label} (~${fmt(scanned)} entries)` });
      }
    }

    if (hasExtra(row, 'Using filesort')) {
      const sorted = row.rows ?? size;
      const byOrder = t && indexForOrder(t, f);
      if (tiny(size) && name) {
        if (!byOrder && (f?.order.length ?? 0) > 0) out.push({ code: 'filesort', severity: 'hint', table: name, planRows: [i], message: `sorts ${label} in memory; tiny now (~${fmt(size)} rows), but no index serves ORDER BY ${f!.order.join(', ')}, so it will sort at scale` });
      } else if (sorted >= 100 || !name) {
        out.push({ code: 'filesort', severity: scaled(sorted, 'sort', o), ...(name ? { table: name } : {}), planRows: [i], message: `sorts ~${fmt(sorted)} rows (filesort)${byOrder ? `; index ${byOrder.name} could return them in order` : (f?.order.length ? `; no index returns ${f.order.join(', ')} in order` : '')}` });
      }
    }
    if (hasExtra(row, 'Using temporary') && !isInternalTable(row.table)) {
      const n = row.rows ?? size;
      if (n >= 100 && !tiny(size)) {
        out.push({ code: 'temporary-table', severity: scaled(n, 'sort', o), ...(name ? { table: name } : {}), planRows: [i], message: `builds a temporary table over ~${fmt(n)} rows${f?.group.length ? ` for GROUP BY ${f.group.join(', ')}` : ''}` });
      }
    }
  });

  // Dependent subqueries: once per select id.
  const depIds = new Set<number | null>();
  plan.rows.forEach((row, i) => {
    if (!/DEPENDENT/i.test(row.selectType) || depIds.has(row.id)) return;
    depIds.add(row.id);
    const outer = plan.rows.filter((r) => r.id !== null && row.id !== null && r.id < row.id).reduce((m, r) => Math.max(m, r.rows ?? 0), 1);
    const inner = row.rows ?? 1;
    const work = outer * inner;
    const name = baseName(row);
    out.push({
      code: 'dependent-subquery', severity: work >= o.largeRows * 10 ? 'error' : work >= o.tinyRows ? 'warning' : 'info', ...(name ? { table: name } : {}), planRows: [i],
      message: `dependent subquery on ${name ?? row.table ?? '?'} runs once per outer row (~${fmt(outer)} times × ~${fmt(inner)} rows): rewrite as a JOIN or precompute`,
    });
  });

  // Statement-level smells that defeat an index.
  const rowFor = (table: string): number => plan.rows.findIndex((r) => baseName(r) !== undefined && same(baseName(r)!, table));
  for (const f of facts.tables) {
    const t = tableInfo(f.table);
    const size = t?.rows ?? 0;
    const ri = rowFor(f.table);
    const rows = ri >= 0 ? [ri] : [];
    for (const fc of f.functionCols) {
      const idx = leadingIndexOn(t, fc.column);
      if (idx) out.push({ code: 'function-on-column', severity: scaled(size, 'scan', o), table: f.table, planRows: rows, message: `${fc.fn}(${fc.column}) hides ${f.table}.${fc.column} from index ${idx.name}: compare the bare column (e.g. a range instead of ${fc.fn}())` });
      else if (!tiny(size)) out.push({ code: 'function-on-column', severity: 'info', table: f.table, planRows: rows, message: `${fc.fn}(${fc.column}) keeps any index on ${f.table}.${fc.column} unusable` });
    }
    for (const c of f.leadingWildcard) {
      const idx = leadingIndexOn(t, c);
      if (idx || !tiny(size)) out.push({ code: 'leading-wildcard', severity: idx ? scaled(size, 'scan', o) : 'info', table: f.table, planRows: rows, message: `LIKE with a leading wildcard on ${f.table}.${c} cannot use ${idx ? `index ${idx.name}` : 'any index'}; it reads every row` });
    }
    for (const g of f.orGroups) {
      const row = ri >= 0 ? plan.rows[ri] : undefined;
      if (row?.type === 'index_merge') continue;
      const unindexed = g.filter((c) => !leadingIndexOn(t, c));
      const defeated = row?.type === 'ALL' || row?.type === 'index';
      if (unindexed.length === 0 && !defeated) continue;
      if (tiny(size) && unindexed.length === 0) continue;
      out.push({
        code: 'or-across-columns', severity: tiny(size) ? 'info' : scaled(size, 'scan', o), table: f.table, planRows: rows,
        message: `OR across ${g.join(', ')} of ${f.table} ${unindexed.length ? `cannot use one index (${unindexed.join(', ')} not indexed)` : 'defeats the indexes'}: split into a UNION or index every branch`,
      });
    }
  }

  // Rows examined vs returned, only when no scan finding already explains it.
  if (!out.some((x) => x.code === 'full-table-scan' || x.code === 'join-without-index' || x.code === 'dependent-subquery')) {
    const top = plan.rows.filter((r) => r.id === plan.rows[0]?.id && !isInternalTable(r.table) && r.rows !== null);
    if (top.length) {
      let examined = 0;
      let prefix = 1;
      let selectivity = 1;
      for (const r of top) {
        examined += prefix * (r.rows ?? 1);
        prefix *= r.rows ?? 1;
        selectivity *= (r.filtered ?? 100) / 100;
      }
      let returned = prefix * selectivity;
      if (facts.limit !== undefined) {
        // why: without a sort or temporary table the server streams rows and stops at the LIMIT.
        const streams = !plan.rows.some((r) => hasExtra(r, 'Using filesort') || hasExtra(r, 'Using temporary'));
        if (streams) examined = Math.min(examined, facts.limit / Math.max(selectivity, 1e-6));
        returned = Math.min(returned, facts.limit);
      }
      returned = Math.max(1, Math.round(returned));
      if (examined >= o.tinyRows && examined / returned >= 100) {
        out.push({
          code: 'rows-examined-ratio', severity: examined >= o.largeRows * 10 ? 'error' : examined >= o.largeRows ? 'warning' : 'info', planRows: top.map((r) => plan.rows.indexOf(r)),
          message: `examines ~${fmt(examined)} rows to return ~${fmt(returned)}: the index used is not selective for this condition`,
        });
      }
    }
  }
  return out;
}

/** Ties plan findings to a place in a file (the SQL site's range). */
export function siteFindings(file: string, range: Range, findings: readonly PlanFinding[]): Finding[] {
  return findings.map((f) => ({ code: f.code, severity: f.severity, message: f.message, file, range, ...(f.table ? { table: f.table } : {}) }));
}
