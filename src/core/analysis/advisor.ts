/**
 * The index advisor: from a statement's query model and the schema, the composite index per table
 * that MySQL/MariaDB can use best — equality columns first (more distinct values first), then the
 * ORDER BY / GROUP BY columns when the index can deliver that order, then at most one range column
 * (the optimizer uses no key part after a range). Existing indexes that already serve the statement
 * (leftmost prefix, InnoDB's primary key appended to secondary indexes) suppress the suggestion;
 * an existing index that is a prefix of the suggestion is extended rather than duplicated.
 */
import type { IndexInfo, IndexSuggestion, Schema, TableInfo } from '../model';
import { buildQueryModel, type PredicateFacts, type QueryBlock, type QueryModel, type TableFacts } from '../sql/queryModel';
import { distinctValues, lowCardinality, orShareAtLeast } from './columnStats';
import { addIndexDdl, indexName } from './ddl';

export interface AdviseOptions {
  schema?: Schema;
  /** Row estimate above which DDL is built for an online ALTER (see ddl.ts). */
  largeTableRows?: number;
  /** Most extra columns appended to make an index covering (0 disables covering suggestions). */
  maxCoveringExtra?: number;
  /**
   * The schema was read from the database the DDL would go to, so a table missing from it is not
   * there (another database's, or a typo): no index is suggested for it, as none could be added.
   * Schema files read offline may be partial: a table they lack still gets a suggestion then.
   */
  fromDatabase?: boolean;
  /** Below this many rows a table is small (default 1000). */
  tinyRows?: number;
  /**
   * Lower-case names of the tables the code writes outside its initialiser. When given (with a schema
   * from the database, so row counts are real), a small table that is not in it is a static master
   * table: it stays small, a scan of it is cheap, and no index is suggested there.
   */
  writtenTables?: ReadonlySet<string>;
  /**
   * Rows one key may find and still count as few (default 100): an existing primary or unique key
   * whose leading columns narrow to this many makes a second index led by the same columns pointless.
   */
  fewRowsPerKey?: number;
}

/** A table the statement reads that needs no new index, and why. */
export interface ServedTable {
  table: string;
  index?: string;
  reason: string;
  /** The table is not in the database (AdviseOptions.fromDatabase): nothing to index there. */
  missing?: boolean;
}

export interface Advice {
  suggestions: IndexSuggestion[];
  /** Tables already served by an existing index, or where no index can help. */
  served: ServedTable[];
  /** Things worth knowing that are not index suggestions (functions on columns, unknown tables …). */
  notes: string[];
  /** Set when the statement could not be parsed. */
  error?: string;
}

const LARGE_TYPES = /^(tiny|medium|long)?(text|blob)\b|^json\b|^geometry/i;

interface Shape {
  eqSingle: string[];
  eqList: string[];
  ranges: string[];
  /** The sort the index should deliver, constant columns removed; empty when none or not servable. */
  sort: string[];
  sortKind?: 'order' | 'group';
  /** Column of MIN()/MAX() that can be read from the index end. */
  minmax?: string;
  needed: string[];
  selectsAll: boolean;
  unindexable: string[];
}

interface Quality { eq: number; range: boolean; sort: boolean; minmax: boolean }

function lower(s: string): string { return s.toLowerCase(); }
function has(list: readonly string[], c: string): boolean { return list.some((x) => lower(x) === lower(c)); }
function uniq(list: string[]): string[] { const out: string[] = []; for (const c of list) if (!has(out, c)) out.push(c); return out; }

function tableInfo(schema: Schema | undefined, name: string): TableInfo | undefined {
  return schema?.tables[lower(name)];
}

function primaryColumns(info: TableInfo | undefined): string[] {
  return info?.indexes.find((i) => i.primary)?.columns ?? [];
}

function isInnoDb(info: TableInfo | undefined): boolean { return !info?.engine || /innodb/i.test(info.engine); }

/** Key parts the storage engine really holds: InnoDB appends the primary key to every secondary index. */
function effectiveColumns(idx: { columns: string[]; primary?: boolean }, info: TableInfo | undefined): string[] {
  if (idx.primary || !isInnoDb(info)) return idx.columns;
  return [...idx.columns, ...primaryColumns(info).filter((c) => !has(idx.columns, c))];
}


/** How well an index (its effective key parts) serves a shape. */
function quality(cols: string[], s: Shape): Quality {
  const eqAll = [...s.eqSingle, ...s.eqList];
  let i = 0;
  while (i < cols.length && has(eqAll, cols[i])) i++;
  const eq = i;
  const range = i < cols.length && has(s.ranges, cols[i]);
  let sort = false;
  if (s.sort.length) {
    let k = 0;
    for (const c of cols) {
      if (k < s.sort.length && lower(c) === lower(s.sort[k])) k++;
      else if (k < s.sort.length && has(s.eqSingle, c)) continue;
      else break;
    }
    sort = k === s.sort.length;
  }
  let minmax = false;
  if (s.minmax) {
    const j = cols.findIndex((c) => lower(c) === lower(s.minmax!));
    minmax = j >= 0 && cols.slice(0, j).every((c) => has(s.eqSingle, c) || has(s.sort, c));
  }
  return { eq, range, sort, minmax };
}

function atLeast(a: Quality, b: Quality): boolean {
  const accA = a.eq + (a.range ? 1 : 0), accB = b.eq + (b.range ? 1 : 0);
  return accA >= accB && (a.sort || !b.sort) && (a.minmax || !b.minmax);
}

/**
 * Which join columns of a table can be looked up: those compared with a table read before it (or
 * with a table outside the block, a correlated subquery's outer row). A column compared with a
 * table read later gives no value to look up when this table is reached.
 */
type ReadBefore = (table: string) => boolean;

function shapeOf(t: TableFacts, facts: PredicateFacts, block: QueryBlock, info: TableInfo | undefined, driving: boolean, readBefore: ReadBefore): Shape {
  const joinEq = facts.joins.filter((j) => readBefore(j.otherTable)).map((j) => j.column);
  // why: a column of two or three values goes last: leading an index it would narrow to a third of the table at best.
  const cardOrder = (cols: string[]) => cols
    .map((c, i) => ({ c, i, d: lowCardinality(info, c) ? -2 : distinctValues(info, c) }))
    .sort((a, b) => (b.d ?? -1) - (a.d ?? -1) || a.i - b.i)
    .map((x) => x.c);
  // why: TEXT/BLOB columns can only be indexed with a prefix length, which cannot serve sorts or covering reads.
  const large = (c: string) => LARGE_TYPES.test(info?.columns.find((x) => lower(x.name) === lower(c))?.type ?? '');
  const unindexable = facts.unindexable.map((u) => `${t.table}.${u.column}: ${u.reason}`);
  const keep = (c: string) => {
    if (!large(c)) return true;
    unindexable.push(`${t.table}.${c}: a TEXT/BLOB column needs a prefix length to be indexed; left out`);
    return false;
  };
  const eqSingle = cardOrder(uniq([...joinEq, ...facts.equalities.filter((e) => e.kind === 'single').map((e) => e.column)]).filter(keep));
  const eqList = cardOrder(uniq(facts.equalities.filter((e) => e.kind === 'list').map((e) => e.column)).filter((c) => !has(eqSingle, c) && keep(c)));
  const ranges = uniq(facts.ranges.map((r) => r.column)).filter((c) => !has(eqSingle, c) && !has(eqList, c) && keep(c));
  let sort: string[] = [];
  let sortKind: Shape['sortKind'];
  const ownsAll = (items: QueryBlock['orderBy']) => items.length > 0 && items.every((o) => o.column && o.table === t.key);
  if (driving && block.groupBy.length && ownsAll(block.groupBy)) {
    sort = block.groupBy.map((g) => g.column!).filter((c) => !has(eqSingle, c));
    sortKind = 'group';
  } else if (driving && !block.groupBy.length && ownsAll(block.orderBy) && block.orderBy.every((o) => o.desc === block.orderBy[0].desc)) {
    sort = uniq(block.orderBy.map((o) => o.column!)).filter((c) => !has(eqSingle, c));
    sortKind = 'order';
  }
  const mm = block.aggregates.filter((a) => /^(MIN|MAX)$/.test(a.fn) && a.table === t.key && a.column);
  const minmax = driving && mm.length && mm.every((a) => lower(a.column!) === lower(mm[0].column!)) ? mm[0].column : undefined;
  return {
    eqSingle, eqList, ranges, sort, sortKind, minmax,
    needed: t.columnsUsed, selectsAll: t.selectsAll,
    unindexable: uniq(unindexable),
  };
}

interface Candidate { columns: string[]; servesOrderBy: boolean; covering: boolean; why: string[] }

/**
 * Builds the ideal column list for a shape; undefined when no index can narrow or order the rows.
 * `lowLead` receives the equality columns of two or three values left out because they would lead.
 */
function candidateFor(s: Shape, block: QueryBlock, info: TableInfo | undefined, maxExtra: number, lowLead: string[] = []): Candidate | undefined {
  const why: string[] = [];
  const eqAll = [...s.eqSingle, ...s.eqList];
  // why: no index is led by a column of two or three values; behind a selective column it still filters inside the index.
  const cols = eqAll.every((c) => lowCardinality(info, c)) ? [] : eqAll;
  if (!cols.length) lowLead.push(...eqAll);
  if (s.eqSingle.length) why.push(`equality on ${s.eqSingle.join(', ')} first${s.eqSingle.filter((c) => distinctValues(info, c) !== undefined).length > 1 ? ' (more distinct values first)' : ''}`);
  if (s.eqList.length) why.push(`then the IN list on ${s.eqList.join(', ')}`);
  let servesOrderBy = false;
  let range: string | undefined;
  const sortable = s.sort.length > 0 && s.eqList.length === 0;
  const sortFirstIsRange = sortable && has(s.ranges, s.sort[0]);
  const preferSort = sortable && (sortFirstIsRange || s.ranges.length === 0 || block.limit !== undefined || s.sortKind === 'group');
  if (preferSort) {
    cols.push(...s.sort.filter((c) => !has(cols, c)));
    servesOrderBy = true;
    why.push(`then ${s.sort.join(', ')} so the index delivers the ${s.sortKind === 'group' ? 'GROUP BY' : 'ORDER BY'} order (no ${s.sortKind === 'group' ? 'temporary table' : 'filesort'})`);
    if (sortFirstIsRange) why.push(`the range on ${s.sort[0]} uses the same key part`);
    else if (s.ranges.length) why.push(`the range on ${s.ranges.join(', ')} is filtered while reading in order, which pays off with the LIMIT`);
  } else {
    range = s.ranges[0];
    if (range) {
      cols.push(range);
      why.push(`then the range on ${range} (no key part after a range is used)`);
    }
    if (s.sort.length && s.eqList.length) why.push(`the IN list on ${s.eqList.join(', ')} reads several index ranges, so the sort stays`);
    else if (s.sort.length && range) why.push(`the range on ${range} was preferred over serving the ${s.sortKind === 'group' ? 'GROUP BY' : 'ORDER BY'} (no LIMIT)`);
  }
  if (s.minmax && !has(cols, s.minmax) && !range) {
    cols.push(s.minmax);
    why.push(`then ${s.minmax}, so MIN()/MAX() reads one index entry${s.sortKind === 'group' ? ' per group' : ''}`);
  }
  if (!cols.length) return undefined;
  // why: an index of the ORDER BY columns alone, without a LIMIT, still reads every row (in order instead of sorting them).
  if (cols.every((c) => has(s.sort, c)) && s.sortKind === 'order' && block.limit === undefined && !s.minmax) return undefined;
  let covering = false;
  // why: without the table's schema the primary key and column types are unknown, so covering would guess.
  // why: `SELECT *` of a narrow table of numbers (a link table, a slot table: 4 columns at most, no strings) needs every column,
  // which still fits in a small index; on a wider table, or with strings, such an index is a second copy of the table. Nor is
  // it worth pushing the primary key InnoDB appends anyway (ORDER BY id) into the middle of the index.
  const small = (c: string) => /^(tiny|small|medium|big)?int|^bool|^bit|^date|^time|^year|^decimal|^float|^double/i.test(info?.columns.find((x) => lower(x.name) === lower(c))?.type ?? '');
  const pkTail = stripImplicitPk(cols, info).length < cols.length;
  const narrow = !!info && info.columns.length <= 4 && !pkTail && info.columns.every((c) => has(cols, c.name) || has(primaryColumns(info), c.name) || small(c.name));
  const needed = !s.selectsAll ? s.needed : narrow ? info.columns.map((c) => c.name) : [];
  if (info && needed.length) {
    const pk = isInnoDb(info) ? primaryColumns(info) : [];
    // why: a range column past the first is checked inside the index (index condition pushdown), so it comes first; the other
    // covering columns serve no order, so theirs is the table's: the same columns read by two statements give one index.
    const position = (c: string) => (has(s.ranges, c) ? -1000 : 0) + info.columns.findIndex((x) => lower(x.name) === lower(c));
    const extra = needed.filter((c) => !has(cols, c) && !has(pk, c)).sort((a, b) => position(a) - position(b));
    const large = (c: string) => LARGE_TYPES.test(info?.columns.find((x) => lower(x.name) === lower(c))?.type ?? '');
    if (extra.length === 0) covering = true;
    // why: after a range the extra columns narrow nothing, but an index-only range read needs no row lookups, which is what
    // makes a wide range (`start_at >= ?` with `end_at <= ?`) cheaper than the table scan the server picks otherwise.
    else if (extra.length <= maxExtra && cols.length + extra.length <= 5 && !extra.some(large)) {
      cols.push(...extra);
      covering = true;
      why.push(`plus ${extra.join(', ')} so the index covers the statement (no row lookups)`);
    }
  }
  return { columns: cols, servesOrderBy, covering, why };
}

/** Drops trailing primary-key columns InnoDB appends anyway. */
function stripImplicitPk(cols: string[], info: TableInfo | undefined): string[] {
  if (!isInnoDb(info)) return cols;
  const pk = primaryColumns(info);
  for (let cut = 0; cut < cols.length; cut++) {
    const head = cols.slice(0, cut), tail = cols.slice(cut);
    if (!head.length) continue;
    const implicit = pk.filter((c) => !has(head, c));
    if (tail.length <= implicit.length && tail.every((c, i) => lower(c) === lower(implicit[i]))) return head;
  }
  return cols;
}

/** An existing plain index the candidate can extend (after reordering equality columns), and the reordered columns. */
function extensionOf(cols: string[], s: Shape, indexes: IndexInfo[]): { index: IndexInfo; columns: string[] } | undefined {
  let best: { index: IndexInfo; columns: string[] } | undefined;
  for (const idx of indexes) {
    if (idx.primary || idx.unique || idx.columns.length >= cols.length) continue;
    let k = 0;
    while (k < idx.columns.length && has(s.eqSingle, idx.columns[k])) k++;
    const lead = idx.columns.slice(0, k);
    const reordered = [...lead, ...s.eqSingle.filter((c) => has(cols, c) && !has(lead, c)), ...cols.filter((c) => !has(s.eqSingle, c))];
    if (reordered.length !== cols.length) continue;
    if (idx.columns.every((c, i) => lower(c) === lower(reordered[i])) && (!best || idx.columns.length > best.index.columns.length)) best = { index: idx, columns: reordered };
  }
  return best;
}

interface Ctx { opts: AdviseOptions; out: Advice; taken: Map<string, Set<string>> }

/** Suggests an index for one table's shape; returns false when none is suggested nor an existing one serves it. */
function suggest(ctx: Ctx, t: TableFacts, s: Shape, block: QueryBlock, reasonLead: string, mergeGroup?: string): boolean {
  const info = tableInfo(ctx.opts.schema, t.table);
  const lowLead: string[] = [];
  const cand = candidateFor(s, block, info, ctx.opts.maxCoveringExtra ?? 2, lowLead);
  if (!cand) {
    const random = block.orderBy.some((o) => /^RAND\b/i.test(o.expr ?? ''));
    const reason = lowLead.length
      ? `${lowLead.join(', ')} ${lowLead.length > 1 ? 'have' : 'has'} only two or three values: an index led by ${lowLead.length > 1 ? 'them' : 'it'} still reads a large part of the table`
      : s.unindexable.length ? `no index can serve the condition (${s.unindexable.map((u) => u.replace(/^[^:]*: /, '')).join('; ')})`
        : 'no predicate, join or ORDER BY … LIMIT an index could use';
    ctx.out.served.push({ table: t.table, reason: random ? `${reason}; ORDER BY RAND() sorts every row it reads, which no index avoids` : reason });
    return false;
  }
  let cols = stripImplicitPk(cand.columns, info);
  const want = quality(effectiveColumns({ columns: cols }, info), s);
  const few = ctx.opts.fewRowsPerKey ?? 100;
  for (const idx of info?.indexes ?? []) {
    if (idx.visible === false) continue;
    const label = idx.primary ? 'the primary key' : `index ${idx.name}`;
    // A unique key fixed by equalities (an IN list included) returns one row per value: nothing to sort or narrow further.
    const oneRow = (idx.unique || idx.primary) && idx.columns.every((c) => has(s.eqSingle, c) || has(s.eqList, c));
    if (oneRow || atLeast(quality(effectiveColumns(idx, info), s), want)) {
      ctx.out.served.push({ table: t.table, index: idx.name, reason: `already served by ${label} (${idx.columns.join(', ')})` });
      return true;
    }
    // why: a key that already narrows to a few rows per value reads them at once; a sibling index led by the same
    // columns saves only filtering or sorting those few rows, and costs every write. A plain index is extended instead.
    const k = leadingIn(idx.columns, [...s.eqSingle, ...s.eqList]);
    const card = k > 0 ? idx.cardinality?.[k - 1] : undefined;
    const perKey = k > 0 && info && card ? Math.max(1, info.rows / card) : undefined;
    if ((idx.unique || idx.primary) && perKey !== undefined && perKey <= few && has(cols.slice(0, k), idx.columns[0])) {
      const lead = idx.columns.slice(0, k);
      ctx.out.served.push({ table: t.table, index: idx.name, reason: `${label} (${idx.columns.join(', ')}) already narrows to about ${Math.round(perKey)} row(s) per ${lead.join(', ')}: reading them is cheap, and another index led by ${lead.join(', ')} would only cost writes` });
      return true;
    }
  }
  const ext = extensionOf(cols, s, info?.indexes ?? []);
  if (ext) cols = ext.columns;
  const key = lower(t.table);
  const taken = ctx.taken.get(key) ?? new Set((info?.indexes ?? []).map((i) => lower(i.name)));
  ctx.taken.set(key, taken);
  const name = indexName(t.table, cols, new Set([...taken].filter((n) => n !== lower(ext?.index.name ?? ''))));
  const { ddl, warnings } = addIndexDdl(t.table, cols, name, { rows: info?.rows, largeTableRows: ctx.opts.largeTableRows, replaces: ext?.index.name });
  const dup = ctx.out.suggestions.find((x) => lower(x.table) === key && x.columns.join('\0').toLowerCase() === cols.join('\0').toLowerCase());
  if (dup) return true;
  taken.add(lower(name));
  const reason = [reasonLead, ...cand.why].filter(Boolean).join('; ')
    + (ext ? `. Extends ${ext.index.name} (${ext.index.columns.join(', ')}) instead of adding a sibling` : '')
    + (info ? '' : '. The table is not in the schema, so existing indexes were not checked');
  ctx.out.suggestions.push({
    table: t.table, columns: cols, name, ddl, reason: reason.charAt(0).toUpperCase() + reason.slice(1) + '.',
    ...(ext ? { replaces: ext.index.name } : {}),
    servesOrderBy: cand.servesOrderBy && quality(effectiveColumns({ columns: cols }, info), s).sort,
    covering: cand.covering,
    ...(warnings.length ? { warnings } : {}),
    ...(mergeGroup ? { mergeGroup } : {}),
    equalityPrefix: leadingIn(cols, s.eqSingle),
  });
  return true;
}

/** How many leading columns of `cols` are in `set`. */
function leadingIn(cols: string[], set: string[]): number {
  let k = 0;
  while (k < cols.length && has(set, cols[k])) k++;
  return k;
}

function merge(a: PredicateFacts, b: PredicateFacts): PredicateFacts {
  return { equalities: [...a.equalities, ...b.equalities], ranges: [...a.ranges, ...b.ranges], joins: [...a.joins, ...b.joins], unindexable: [...a.unindexable, ...b.unindexable] };
}

function localScore(t: TableFacts): number {
  const w = t.where;
  return w.equalities.filter((e) => e.kind === 'single').length * 4 + w.equalities.filter((e) => e.kind === 'list').length * 3 + w.ranges.length * 2 + (t.orGroups.length ? 1 : 0);
}

/** Picks the table the optimizer most likely reads first: LEFT JOIN's left side, else the best-filtered table. */
function drivingTable(block: QueryBlock): TableFacts | undefined {
  const real = block.tables.filter((t) => t.join !== 'derived');
  if (real.length <= 1) return real[0];
  const candidates = real.filter((t, i) => !(t.join === 'left') && !(i === 0 && real.some((x) => x.join === 'right')));
  const ordered = block.orderBy.length && block.orderBy.every((o) => o.table === block.orderBy[0].table) ? block.orderBy[0].table : undefined;
  let best = candidates[0] ?? real[0];
  for (const t of candidates) {
    const sc = localScore(t) + (t.key === ordered ? 1 : 0);
    const bs = localScore(best) + (best.key === ordered ? 1 : 0);
    if (sc > bs) best = t;
  }
  return best;
}

/**
 * The order the tables are likely read in: the driving table first, then each table joined to one
 * already read (the better-filtered first), as a nested-loop join reaches them. A table reached
 * from users through livestreams.user_id needs that column indexed, even when livestreams.id (its
 * primary key) is compared with a table read after it.
 */
function readOrder(block: QueryBlock, driving: TableFacts | undefined): Map<string, number> {
  const real = block.tables.filter((t) => t.join !== 'derived');
  const order = new Map<string, number>();
  // why: a derived table is materialised before the join, so a base table can look up its values.
  for (const t of block.tables) if (t.join === 'derived') order.set(t.key, -1);
  if (driving) order.set(driving.key, 0);
  while (order.size < block.tables.length) {
    const left = real.filter((t) => !order.has(t.key));
    const reached = left.filter((t) => t.where.joins.some((j) => order.has(j.otherTable)));
    const pool = reached.length ? reached : left;
    const next = pool.reduce((best, t) => (localScore(t) > localScore(best) ? t : best), pool[0]);
    order.set(next.key, order.size);
  }
  return order;
}

function adviseBlock(ctx: Ctx, block: QueryBlock, sub: boolean): void {
  const driving = drivingTable(block);
  const keys = new Set(block.tables.map((t) => t.key));
  const order = readOrder(block, driving);
  for (const t of block.tables) {
    if (t.join === 'derived') continue;
    const info = tableInfo(ctx.opts.schema, t.table);
    if (ctx.opts.schema && !info) {
      ctx.out.notes.push(`table ${t.table} is not in the schema`);
      if (ctx.opts.fromDatabase) {
        ctx.out.served.push({ table: t.table, reason: `not in database ${ctx.opts.schema.database}: no index can be added there`, missing: true });
        continue;
      }
    }
    const tiny = ctx.opts.tinyRows ?? 1000;
    // why: an empty table tells nothing of its size in use (the data is loaded from elsewhere): only a table with its rows is a master table.
    if (info && ctx.opts.fromDatabase && ctx.opts.writtenTables && info.rows > 0 && info.rows < tiny && !ctx.opts.writtenTables.has(lower(t.table))) {
      ctx.out.served.push({ table: t.table, reason: `a static master table (~${info.rows} rows, not written by the code outside its initialiser): it stays this small, and reading it whole is cheap` });
      continue;
    }
    const isDriving = t === driving;
    const at = order.get(t.key) ?? 0;
    const readBefore: ReadBefore = (other) => !keys.has(other) || (!isDriving && (order.get(other) ?? Infinity) < at);
    const base = shapeOf(t, t.where, block, info, isDriving, readBefore);
    ctx.out.notes.push(...base.unindexable);
    const lead = isDriving
      ? (sub ? `subquery on ${t.table}` : block.tables.length > 1 ? `${t.table} is read first in the join` : '')
      : `${t.table} is the inner table of the join: index its join columns`;
    const hasOwn = base.eqSingle.length + base.eqList.length + base.ranges.length > 0;
    if (!hasOwn && t.orGroups.length) {
      const group = t.orGroups[0];
      const mergeGroup = `${t.table}:or:${ctx.out.suggestions.length}`;
      const share = orShareAtLeast(info, group.map((b) => ({ eq: b.equalities.filter((e) => e.kind === 'single').map((e) => e.column), range: b.ranges.map((r) => r.column) })));
      if (share !== undefined && share >= 0.5) {
        ctx.out.served.push({ table: t.table, reason: `the OR matches at least ${Math.round(share * 100)}% of ${t.table} by its statistics: it returns most of the table, which no index reads faster; cache the result or paginate` });
        continue;
      }
      const marks = { suggestions: ctx.out.suggestions.length, served: ctx.out.served.length };
      let why: string | undefined;
      const helped = group.map((branch, i) => {
        const s = shapeOf(t, merge(t.where, branch), block, info, isDriving, readBefore);
        const before = ctx.out.served.length;
        const ok = suggest(ctx, t, s, block, `OR branch ${i + 1} of ${group.length}: one index per branch, which the optimizer can combine (index merge union); with ORDER BY … LIMIT, a UNION ALL of the branches lets each read its index in order`, mergeGroup);
        if (!ok) why ??= ctx.out.served[before]?.reason;
        return ok;
      });
      const lost = helped.findIndex((ok) => !ok);
      if (lost >= 0) {
        // why: index merge needs an index on every branch; one branch without any makes the others' indexes useless too.
        ctx.out.suggestions.length = marks.suggestions;
        ctx.out.served.length = marks.served;
        ctx.out.served.push({ table: t.table, reason: `OR branch ${lost + 1} of ${group.length} cannot use an index (${why ?? 'no index serves it'}), and the OR needs one on every branch: no index helps; split the statement so each part can use its own` });
      }
      continue;
    }
    suggest(ctx, t, base, block, lead);
  }
}

/** Advises indexes for a parsed statement. */
export function adviseModel(model: QueryModel, opts: AdviseOptions = {}): Advice {
  const ctx: Ctx = { opts, out: { suggestions: [], served: [], notes: [] }, taken: new Map() };
  model.blocks.forEach((b) => adviseBlock(ctx, b, b.parent !== undefined));
  ctx.out.notes = uniq(ctx.out.notes);
  return ctx.out;
}

/** Parses one statement (any placeholder style) and advises indexes for it. */
export function adviseStatement(sql: string, opts: AdviseOptions = {}): Advice {
  const schema = opts.schema;
  const owner = schema ? (table: string, column: string) => {
    const info = schema.tables[lower(table)];
    return info ? info.columns.some((c) => lower(c.name) === lower(column)) : undefined;
  } : undefined;
  const r = buildQueryModel(sql, owner);
  if (!r.ok) return { suggestions: [], served: [], notes: [], error: r.error };
  return adviseModel(r.model, opts);
}
