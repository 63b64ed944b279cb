/**
 * Plan findings: reads a normalised Plan together with the statement's facts and the schema and
 * reports plan smells under stable codes. Severity scales with the table's row estimate; on a tiny
 * table the plan alone is not trusted: the message says whether the schema has an index that
 * could serve the predicate / order ("scans now only because the table is tiny") or not
 * ("scans now, will scan at scale").
 */
import { formatCount } from '../format/numbers';
import type { Finding, IndexInfo, Range, Schema, Severity, TableInfo } from '../model';
import { hasExtra, isInternalTable, type Plan, type PlanRow } from '../plan/planModel';
import type { Advice } from './advisor';
import { orShareAtLeast } from './columnStats';
import type { StatementFacts, TableFacts } from './planFindingsQuery';

export const PLAN_FINDING_CODES = [
  'full-table-scan', 'full-index-scan', 'filesort', 'temporary-table', 'join-without-index', 'dependent-subquery',
  'function-on-column', 'leading-wildcard', 'or-across-columns', 'rows-examined-ratio',
  'limit-order-scan', 'locking-scan', 'offset-pagination', 'measured-over-estimate', 'order-by-rand', 'returns-most-rows',
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
  /**
   * The advisor's result for the same statement: every index a finding names is the one advise
   * suggests (or the finding says why none helps), so explain, hover, diagnostics and advise agree.
   */
  advice?: Advice;
  /** The statement locks the rows it reads: its locking clause (`FOR UPDATE`), or `UPDATE` / `DELETE`. */
  locking?: string;
  /** The LIMIT's offset as written (see PreparedStatement.offset); the plan was made with a run-time one filled as 0. */
  offset?: number | 'run-time';
  /**
   * Lower-case names of the tables the code writes outside its initialiser. When given, a small table
   * not in it is a static master table: it stays small, so its scans and sorts are not reported.
   */
  writtenTables?: ReadonlySet<string>;
}

type Level = 'scan' | 'sort';

function scaled(rows: number, level: Level, o: { tinyRows: number; largeRows: number }): Severity {
  const big = rows >= o.largeRows;
  const mid = rows >= o.tinyRows;
  if (level === 'scan') return big ? 'error' : mid ? 'warning' : 'info';
  return big ? 'warning' : mid ? 'info' : 'hint';
}

const fmt = (n: number): string => formatCount(n);
const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
const has = (list: readonly string[], c: string): boolean => list.some((x) => same(x, c));

/** An index whose leading column is compared in the statement (so it could serve the predicate). */
export function indexForPredicate(t: TableInfo, f: TableFacts | undefined): IndexInfo | undefined {
  if (!f) return undefined;
  return t.indexes.find((i) => i.visible !== false && i.columns.length > 0 && (has(f.eq, i.columns[0]) || has(f.range, i.columns[0])));
}

/**
 * An index that returns rows in ORDER BY order after the equality columns, and narrows by every
 * column the statement compares with a value (so it could serve the sort). An index of the ORDER BY
 * columns alone reads the whole table in order and filters each row: no cure for a sort.
 */
export function indexForOrder(t: TableInfo, f: TableFacts | undefined): IndexInfo | undefined {
  if (!f || f.order.length === 0) return undefined;
  return t.indexes.find((i) => {
    if (i.visible === false) return false;
    let k = 0;
    while (k < i.columns.length && has(f.eq, i.columns[k]) && !has(f.inList ?? [], i.columns[k]) && !has(f.order, i.columns[k])) k++;
    const lead = i.columns.slice(0, k);
    if (!f.filtered.every((c) => has(lead, c) || has(f.order, c))) return false;
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
  const advice = options.advice;
  /** What the advisor says for a table: the index it suggests, or why none is suggested (undefined without advice). */
  const scannedRow = (r: PlanRow): boolean => r.type === 'ALL' || r.type === 'index' || hasExtra(r, 'Using join buffer');
  /**
   * Indexes the advisor suggests on other tables of the join that this plan reads without a scan, so
   * no finding of their own names them: the join order was forced by their missing index (users →
   * livestreams by user_id → reactions), and the scan here is where it shows.
   */
  const joinNeeds = (table: string): string | undefined => {
    const others = (advice?.suggestions ?? []).filter((x) => !same(x.table, table) && !x.mergeGroup
      && plan.rows.some((r) => baseName(r) !== undefined && same(baseName(r)!, x.table) && !scannedRow(r)));
    return others.length ? others.map((x) => `${x.table}(${x.columns.join(', ')})`).join(', ') : undefined;
  };
  const remedy = (table: string): { text: string; columns?: string[]; servesOrder?: boolean } | undefined => {
    if (!advice) return undefined;
    const sugg = advice.suggestions.filter((x) => same(x.table, table));
    if (sugg.length) {
      const names = sugg.map((x) => `${x.table}(${x.columns.join(', ')})`);
      const also = joinNeeds(table);
      return { text: `no index on ${names.join(sugg[0].mergeGroup ? ' nor ' : ', ')}${sugg[0].mergeGroup ? ' (one per OR branch)' : ''}${also ? `; the join also needs ${also}` : ''}`, columns: sugg[0].columns, servesOrder: sugg[0].servesOrderBy };
    }
    const served = advice.served.find((x) => same(x.table, table));
    const elsewhere = joinNeeds(table);
    if (served?.index && elsewhere) return { text: `index ${served.index} could serve it once the join reaches ${table} through an index: no index on ${elsewhere}` };
    if (served?.index) return { text: `index ${served.index} could serve it, yet the server chose this plan for the values tried` };
    if (served) return { text: `no index helps: ${served.reason}` };
    return undefined;
  };
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
  /** A small table the code never writes outside its initialiser: it stays small, and nothing it costs is worth a finding. */
  const staticTable = (name: string | undefined): boolean => {
    const t = tableInfo(name);
    return !!t && !!options.writtenTables && t.rows > 0 && tiny(t.rows) && !options.writtenTables.has(t.name.toLowerCase());
  };
  /** The share of the table an OR of the statement matches at least, by the statistics (see columnStats.orShareAtLeast). */
  const orShare = (f: TableFacts | undefined): number | undefined => {
    const t = tableInfo(f?.table);
    const shares = (f?.orGroups ?? []).map((g) => orShareAtLeast(t, g.map((c) => ({ eq: [c], range: [] })))).filter((x): x is number => x !== undefined);
    return shares.length ? Math.max(...shares) : undefined;
  };
  const mostRows = (f: TableFacts | undefined): boolean => (orShare(f) ?? 0) >= 0.5;
  /** An index that returns the ORDER BY columns in order after equality columns (whatever else it filters). */
  const ordersBy = (t: TableInfo | undefined, f: TableFacts | undefined): IndexInfo | undefined => {
    if (!t || !f || !f.order.length) return undefined;
    return t.indexes.find((i) => {
      if (i.visible === false) return false;
      let k = 0;
      while (k < i.columns.length && has(f.eq, i.columns[k]) && !has(f.inList, i.columns[k]) && !has(f.order, i.columns[k])) k++;
      return f.order.every((c, j) => i.columns[k + j] !== undefined && same(i.columns[k + j], c));
    });
  };
  /** The existing index the advisor says serves the table (undefined without advice, or when none does). */
  const servedBy = (t: TableInfo | undefined, name: string): IndexInfo | undefined => {
    const idx = advice?.served.find((x) => same(x.table, name) && x.index)?.index;
    return idx ? t?.indexes.find((i) => same(i.name, idx)) : undefined;
  };
  const lockingNote = options.locking && !/^(UPDATE|DELETE)$/.test(options.locking) ? `, under ${options.locking}: every row it reads is locked` : '';
  const randomRows = new Set<number>();
  if (facts.randomOrder) {
    // why: ORDER BY RAND() gives every row read a random key and sorts them all (through a temporary table over a
    // derived table) to keep a few; the cost is the whole set, every call, and no index changes it.
    const i = plan.rows.findIndex((r) => hasExtra(r, 'Using filesort') || hasExtra(r, 'Using temporary'));
    if (i >= 0) {
      const r = plan.rows[i];
      const name = baseName(r);
      const n = r.rows ?? (name ? sizeOf(r, name) : 0);
      if (n >= 100 && !staticTable(name)) {
        randomRows.add(i);
        out.push({
          code: 'order-by-rand', severity: scaled(n, 'scan', o), ...(name ? { table: name } : {}), planRows: [i],
          message: `ORDER BY RAND() writes all ~${fmt(n)} rows ${name ? `of ${name}` : 'of the derived table'} into a temporary table and sorts them${facts.limit !== undefined ? ` to keep ${facts.limit}` : ''}: the cost is the whole set on every call, and no index avoids it; pick random ids in the code instead (from the id range, retrying a miss) or keep the candidate ids in memory and sample them`,
        });
      }
    }
  }

  const hasOwnCondition = (f: TableFacts | undefined): boolean => cols(f).length > 0 || otherConds(f);
  const keyColumns = (t: TableInfo | undefined, key: string | null): string[] => {
    const idx = key ? t?.indexes.find((x) => same(x.name, key)) : undefined;
    if (!idx) return [];
    const pk = t?.indexes.find((x) => x.primary)?.columns ?? [];
    return idx.primary ? idx.columns : [...idx.columns, ...pk.filter((c) => !has(idx.columns, c))];
  };

  plan.rows.forEach((row, i) => {
    if (/^(INSERT|REPLACE)$/i.test(row.selectType)) return;
    const name = baseName(row);
    if (staticTable(name)) return;
    const t = tableInfo(name);
    const f = factsOf(name);
    const size = sizeOf(row, name);
    const label = name ?? row.table ?? '?';
    const scanned = row.rows ?? size;
    const fix = name ? remedy(name) : undefined;
    // why: no WHERE on the table, no GROUP BY and no LIMIT: the statement asks for every row, and no index or rewrite of it reads fewer.
    const wholeByIntent = !!name && !hasOwnCondition(f) && (f?.group.length ?? 0) === 0 && facts.limit === undefined;
    const intentText = `the statement asks for every row (no condition on ${label}, no LIMIT), so no index or rewrite of it reads fewer; if it runs often, paginate or keep the result (a counter or a cache)`;
    const walksForLimit = (row.type === 'index' || row.type === 'ALL') && facts.limit !== undefined && row.rows !== null && size >= o.tinyRows && row.rows < size / 2
      && !hasExtra(row, 'Using filesort') && !hasExtra(row, 'Using temporary');

    if (hasExtra(row, 'Using join buffer') && name) {
      const on = cols(f);
      out.push({
        code: 'join-without-index', severity: scaled(size, 'scan', o), table: name, planRows: [i],
        message: `joins ${label} without a usable index: every row of the preceding tables is matched against ~${fmt(scanned)} rows of ${label} in a join buffer${fix ? `; ${fix.text}` : on.length ? `; an index on ${label}(${on.join(', ')}) would turn it into a lookup` : ''}`,
      });
    } else if (walksForLimit && name) {
      const inKey = keyColumns(t, row.key);
      const filters = [...(f?.filtered ?? []), ...(f?.functionCols.map((x) => x.column) ?? []), ...(f?.leadingWildcard ?? [])].filter((c) => !has(inKey, c));
      if (filters.length) {
        const order = f?.order.length ? ` in ORDER BY ${f.order.join(', ')} order` : '';
        out.push({
          code: 'limit-order-scan', severity: scaled(size, 'scan', o), table: name, planRows: [i],
          message: `reads ${row.key ? `index ${row.key} of ${label}` : label}${order} and checks ${filters.join(', ')} on each row until ${facts.limit} match: the estimate of ~${fmt(row.rows!)} rows is a lower bound, and when few rows match it reads all ~${fmt(size)} before finding ${facts.limit}`
            + (fix ? `; ${fix.text}` : `; an index on (${[...filters, ...(f?.order ?? [])].join(', ')}) finds them directly`),
        });
      }
    } else if (row.type === 'ALL' && name) {
      const wanted = cols(f);
      const wantsOrder = (f?.order.length ?? 0) > 0 || (f?.group.length ?? 0) > 0;
      const byPred = t && indexForPredicate(t, f);
      const byOrder = t && indexForOrder(t, f);
      if (wanted.length === 0 && !wantsOrder) {
        // why: a scan caused by a function, a leading wildcard or an OR is reported under that code below; with a LIMIT and nothing to filter, the scan stops at the LIMIT.
        if (!tiny(size) && !otherConds(f) && facts.limit === undefined) out.push({ code: 'full-table-scan', severity: 'info', table: name, planRows: [i], message: `reads all ~${fmt(size)} rows of ${label}: ${intentText}` });
      } else if (wholeByIntent) {
        if (!tiny(size)) out.push({ code: 'full-table-scan', severity: 'info', table: name, planRows: [i], message: `reads all ~${fmt(size)} rows of ${label}: ${intentText}` });
      } else if (mostRows(f)) {
        out.push({ code: 'full-table-scan', severity: 'info', table: name, planRows: [i], message: `reads all ~${fmt(size)} rows of ${label}${lockingNote}: the OR matches at least ${Math.round(orShare(f)! * 100)}% of them by the statistics, so no index reads fewer; it returns most of the table: cache the result or paginate` });
      } else if (tiny(size)) {
        // why: an index whose first column is compared is no proof it serves here: a join column compared with a table read later looks
        // nothing up, and a primary key on a column the statement does not narrow serves nothing. The advisor says which index serves.
        const serving = fix?.columns ? undefined : advice ? servedBy(t, name) : byPred && has(f?.filtered ?? [], byPred.columns[0]) ? byPred : byOrder;
        out.push(serving
          ? { code: 'full-table-scan', severity: 'hint', table: name, planRows: [i], message: `scans ${label} now only because the table is tiny (~${fmt(size)} rows)${lockingNote}: index ${serving.name}(${serving.columns.join(', ')}) can serve this at scale` }
          : { code: 'full-table-scan', severity: options.locking ? 'warning' : 'info', table: name, planRows: [i], message: `scans ${label} now (~${fmt(size)} rows)${lockingNote}, and will scan at scale: ${fix ? fix.text : `no index covers ${[...wanted, ...(f?.order ?? [])].join(', ') || 'the query'}`}` });
      } else {
        const why = byPred && !fix?.columns
          ? `index ${byPred.name} exists but is not used for this predicate`
          : fix ? fix.text : wanted.length ? `no index on ${label}(${wanted.join(', ')})` : 'no index serves the ORDER BY / GROUP BY';
        out.push({ code: 'full-table-scan', severity: scaled(size, 'scan', o), table: name, planRows: [i], message: `full table scan of ${label}: reads ~${fmt(scanned)} rows${lockingNote}; ${why}` });
      }
    } else if (row.type === 'index' && name) {
      const limitWalk = row.rows !== null && size > 0 && row.rows < size / 2;
      if (!limitWalk && !tiny(size)) {
        out.push(wholeByIntent
          ? { code: 'full-index-scan', severity: 'info', table: name, planRows: [i], message: `reads the whole index ${row.key ?? ''} of ${label} (~${fmt(scanned)} entries): ${intentText}` }
          : { code: 'full-index-scan', severity: scaled(size, 'sort', o), table: name, planRows: [i], message: `reads the whole index ${row.key ?? ''} of ${label} (~${fmt(scanned)} entries)${fix ? `; ${fix.text}` : ''}` });
      }
    }

    // why: a locking scan serialises every writer of the table however small it is: a table the code writes is reported from one row on.
    if (options.locking && name && (!tiny(size) || (options.writtenTables?.has(name.toLowerCase()) ?? false) || !options.writtenTables) && size > 0 && (row.type === 'ALL' || row.type === 'index' || hasExtra(row, 'Using join buffer'))) {
      const what = /^(UPDATE|DELETE)$/.test(options.locking) ? `this ${options.locking}` : `this locking read (${options.locking})`;
      const sev = scaled(size, 'scan', o);
      out.push({
        code: 'locking-scan', severity: walksForLimit || sev === 'info' ? 'warning' : sev, table: name, planRows: [i],
        message: `${what} ${row.type === 'index' ? `walks index ${row.key ?? ''} of` : 'scans'} ${label} (up to ~${fmt(size)} rows): InnoDB locks every row it reads, not only the matching ones, so other transactions touching ${label} wait until this one ends, which serialises every request that writes it`
          + (fix?.columns ? `; ${fix.text}: with it the statement reads and locks only the rows it wants (a point lock)` : fix ? `; ${fix.text}` : ''),
      });
    } else if (options.locking && name && row.key && row.rows !== null && row.rows >= o.tinyRows && /^(range|ref|ref_or_null|index_merge)$/.test(row.type ?? '')
      && (hasExtra(row, 'Using where') || hasExtra(row, 'Using index condition'))) {
      // why: an index read is no cure by itself: a wide range (`start_at >= ?` with the upper bound on another column) reads, and so
      // locks, thousands of rows that the rest of the condition then drops. Without a condition left to check, every row read is one the statement wants.
      const what = /^(UPDATE|DELETE)$/.test(options.locking) ? `this ${options.locking}` : `this locking read (${options.locking})`;
      out.push({
        code: 'locking-scan', severity: scaled(row.rows, 'scan', o), table: name, planRows: [i],
        message: `${what} reads ~${fmt(row.rows)} rows of ${label} through index ${row.key}: InnoDB locks every row it reads, not only those it returns, so other transactions touching them wait until this one ends; `
          + (fix?.columns ? fix.text : `the index fits the condition, so the range is this wide by the condition itself: narrow it (both bounds on one indexed column), or lock only the rows that change`),
      });
    }

    if (hasExtra(row, 'Using filesort') && !randomRows.has(i)) {
      const sorted = row.rows ?? size;
      const byOrder = t && indexForOrder(t, f);
      // why: an index that returns the ORDER BY columns in order but does not narrow the condition is no cure (it would read every
      // entry to find the few rows), yet the order is served: never "no index returns … in order" beside it.
      const inOrder = !byOrder ? ordersBy(t, f) : undefined;
      const orderNote = inOrder ? `; index ${inOrder.name} returns ${f!.order.join(', ')} in order, but reading it whole to find the matching rows costs more than sorting them` : undefined;
      const orderFix = fix?.columns ? (fix.servesOrder ? `; ${fix.text}, which returns them in order` : `; ${fix.text} narrows the rows, the sort stays`) : undefined;
      if (tiny(size) && name) {
        if (!byOrder && !inOrder && (f?.order.length ?? 0) > 0) out.push({ code: 'filesort', severity: 'hint', table: name, planRows: [i], message: `sorts ${label} in memory; tiny now (~${fmt(size)} rows), but no index serves ORDER BY ${f!.order.join(', ')}, so it will sort at scale${orderFix ?? ''}` });
      } else if (wholeByIntent) {
        out.push({ code: 'filesort', severity: 'info', table: name, planRows: [i], message: `sorts all ~${fmt(sorted)} rows of ${label}: ${intentText}` });
      } else if (sorted >= 100 || !name) {
        out.push({ code: 'filesort', severity: scaled(sorted, 'sort', o), ...(name ? { table: name } : {}), planRows: [i], message: `sorts ~${fmt(sorted)} rows (filesort)${byOrder ? `; index ${byOrder.name} could return them in order` : orderFix ?? orderNote ?? (f?.order.length ? `; no index returns ${f.order.join(', ')} in order` : '')}` });
      }
    }
    if (hasExtra(row, 'Using temporary') && !isInternalTable(row.table) && !randomRows.has(i)) {
      const n = row.rows ?? size;
      if (n >= 100 && !tiny(size)) {
        out.push({ code: 'temporary-table', severity: scaled(n, 'sort', o), ...(name ? { table: name } : {}), planRows: [i], message: `builds a temporary table over ~${fmt(n)} rows${f?.group.length ? ` for GROUP BY ${f.group.join(', ')}` : ''}${fix?.columns ? `; ${fix.text}` : ''}` });
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
    if (staticTable(f.table)) continue;
    const t = tableInfo(f.table);
    const size = t?.rows ?? 0;
    const ri = rowFor(f.table);
    const rows = ri >= 0 ? [ri] : [];
    // One finding per problem per table access: every wrapped column of the table in one message.
    if (f.functionCols.length) {
      const wrapped = f.functionCols.map((fc) => ({ ...fc, idx: leadingIndexOn(t, fc.column) }));
      const hidden = wrapped.filter((w) => w.idx);
      const list = (ws: typeof wrapped) => ws.map((w) => `${w.fn}(${w.column})`).join(', ');
      if (hidden.length) out.push({ code: 'function-on-column', severity: scaled(size, 'scan', o), table: f.table, planRows: rows, message: `${list(hidden)} hides ${hidden.map((w) => `${f.table}.${w.column} from index ${w.idx!.name}`).join(', ')}: compare the bare column (e.g. a range instead of ${hidden[0].fn}())` });
      else if (!tiny(size)) out.push({ code: 'function-on-column', severity: 'info', table: f.table, planRows: rows, message: `${list(wrapped)} keeps any index on ${wrapped.map((w) => `${f.table}.${w.column}`).join(', ')} unusable` });
    }
    if (f.leadingWildcard.length) {
      const idx = f.leadingWildcard.map((c) => leadingIndexOn(t, c)).find(Boolean);
      if (idx || !tiny(size)) out.push({ code: 'leading-wildcard', severity: idx ? scaled(size, 'scan', o) : 'info', table: f.table, planRows: rows, message: `LIKE with a leading wildcard on ${f.leadingWildcard.map((c) => `${f.table}.${c}`).join(', ')} cannot use ${idx ? `index ${idx.name}` : 'any index'}: no B-tree index helps, as it is ordered by the leading characters, so it reads every row; use a FULLTEXT index with MATCH … AGAINST (WITH PARSER ngram for Japanese text), or rewrite it (a prefix match, or a search column or table kept in step)` });
    }
    const share = orShare(f);
    if (share !== undefined && share >= 0.5 && !tiny(size)) {
      out.push({
        code: 'returns-most-rows', severity: 'info', table: f.table, planRows: rows,
        message: `the OR over ${f.orGroups.flat().join(', ')} matches at least ${Math.round(share * 100)}% of ${f.table} by its statistics: it returns most of the table, which no index or UNION reads faster; cache the result or paginate`,
      });
      continue;
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

  // OFFSET pagination: the server reads and drops every row before the page. EXPLAIN ran at offset 0 (a run-time offset is
  // filled so), so its estimate is page one's; the deep pages read up to the whole matching set.
  const offset = options.offset;
  if (offset !== undefined && facts.limit !== undefined && (offset === 'run-time' || offset >= o.tinyRows)) {
    const ri = plan.rows.findIndex((r) => baseName(r) !== undefined);
    const name = ri >= 0 ? baseName(plan.rows[ri]) : undefined;
    const first = plan.rows[ri];
    // why: a ref or range read's estimate is the whole matching set (the LIMIT does not shorten it); an index walk's is cut by the LIMIT, so the table bounds it.
    const size = !name ? 0 : /^(ref|range|ref_or_null|index_merge|eq_ref|const)$/.test(first.type ?? '') && first.rows !== null ? first.rows : sizeOf(first, name);
    const reads = offset === 'run-time' ? size : offset;
    if (name && reads >= o.tinyRows) {
      const order = factsOf(name)?.order ?? [];
      out.push({
        code: 'offset-pagination', severity: offset === 'run-time' ? (size >= o.largeRows ? 'info' : 'hint') : scaled(offset, 'sort', o), table: name, planRows: [ri],
        message: `pages with OFFSET: every page reads and drops the rows before it (${offset === 'run-time' ? `the offset is chosen at run time; deep pages read up to ~${fmt(size)} rows of ${name}, and this plan was made at OFFSET 0` : `OFFSET ${fmt(offset)} reads ${fmt(offset)} rows to drop them`}); `
          + `keyset pagination (WHERE ${order.length ? order.join(', ') : 'the ORDER BY columns'} past the last row shown, then LIMIT ${facts.limit}) reads one page`,
      });
    }
  }

  // Rows examined vs returned, only when no scan finding already explains it.
  // why: a GROUP BY, DISTINCT or COUNT(*) returns groups: every row it examines counts, however few groups come out, so the ratio says nothing of the index.
  if (!facts.aggregated && !out.some((x) => x.code === 'full-table-scan' || x.code === 'join-without-index' || x.code === 'dependent-subquery' || x.code === 'limit-order-scan')) {
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
