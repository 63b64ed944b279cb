/**
 * Index advice for the whole workload: every statement the app runs is advised on its own
 * (advisor.ts), then the suggestions are chosen as one set. Equal and leftmost-prefix suggestions
 * become one index (adviceMerge.ts); suggestions on one table that lead with a column finding only a
 * few rows per value become one index, as reading those few rows serves every lookup; small tables
 * the code never writes outside its initialiser get none. Each index says which statements it
 * serves, their weight (calls from a slow log, performance_schema or a run, else one each), the
 * write sites it slows, and the existing indexes it makes redundant. The CLI's `advise`, the hover
 * and the quick fix all offer this set. Pure.
 */
import type { IndexSuggestion, Schema, SqlSite, TableInfo } from '../model';
import { prepareStatement } from '../plan/statementPrep';
import { scanTables } from '../sql/fillPlaceholders';
import { kw, tokenize } from '../sql/fillScan';
import { adviseStatement, type Advice, type AdviseOptions } from './advisor';
import { mergeSuggestions, sameSite, type MergedSuggestion, type SuggestionSite } from './adviceMerge';
import { rowsPerValue } from './columnStats';
import { addIndexDdl, indexName } from './ddl';
import { redundantIndexes, redundantIndexesOf, type RedundantIndex } from './redundantIndexes';

export interface WorkloadSite extends SuggestionSite {
  /** The enclosing function, to tell the initialiser's writes from the app's. */
  function?: string;
}

export interface WorkloadStatement {
  /** The statement as the advisor reads it (statementPrep's text: locking clause and INTO left out). */
  sql: string;
  site: WorkloadSite;
  /** Calls or time from a slow log, performance_schema or a run; 1 when none is loaded. */
  weight?: number;
  /** A write with nothing to advise (`INSERT … VALUES`): it counts only as a write to its table. */
  writeOnly?: boolean;
}

export interface PlannedIndex extends MergedSuggestion {
  /** The summed weight of the statements it serves. */
  weight: number;
  /** The INSERT / UPDATE / DELETE / REPLACE sites on its table outside the initialiser: each pays for the index. */
  writes: SuggestionSite[];
  /** Existing indexes it makes redundant (a leftmost prefix of it), besides the one it replaces. */
  makesRedundant: RedundantIndex[];
}

export interface WorkloadAdvice {
  indexes: PlannedIndex[];
  /** Redundant indexes already in the schema. */
  redundant: RedundantIndex[];
  /** Lower-case names of the tables the code writes outside its initialiser. */
  written: Set<string>;
  /** Each statement's own advice, by its SQL (sites with the same text share it). */
  perStatement: Map<string, Advice>;
  statements: number;
  unparsed: number;
}

const low = (s: string): string => s.toLowerCase();

/** The table a data-changing statement writes (INSERT/REPLACE INTO t, UPDATE t, DELETE FROM t), else undefined. */
export function writtenTable(sql: string): string | undefined {
  const toks = tokenize(sql);
  const first = kw(toks[0]);
  if (!['INSERT', 'REPLACE', 'UPDATE', 'DELETE'].includes(first)) return undefined;
  return scanTables(toks)[0]?.name;
}

/** True for the function that resets the app's data (`initialize`, `postInitialize`, `init_db` …). */
export function isInitialiser(fn: string | undefined): boolean {
  return !!fn && (/initiali[sz]/i.test(fn) || /(^|[._:\s])[iI]nit(?=[A-Z_.:]|$)/.test(fn));
}

/**
 * The workload's statements from SQL sites: each as the advisor reads it (statementPrep's text: locking
 * clause and INTO list left out; incomplete text skipped), with its place (1-based line) and function.
 */
export function workloadStatements(sites: readonly SqlSite[]): WorkloadStatement[] {
  const out: WorkloadStatement[] = [];
  for (const s of sites) {
    const prep = prepareStatement(s.sql);
    const site = { file: s.file, line: (s.textStart ?? s.range.start).line + 1, sql: s.sql, ...(s.function ? { function: s.function } : {}) };
    if (prep.ok) out.push({ sql: prep.sql, site });
    else if (writtenTable(s.sql)) out.push({ sql: s.sql, site, writeOnly: true });
  }
  return out;
}

const siteKey = (s: SuggestionSite): string => `${s.file}:${s.line}\0${s.sql}`;

/** Chooses the index set for every statement of the workload (see the file comment). */
export function adviseWorkload(statements: readonly WorkloadStatement[], opts: AdviseOptions = {}): WorkloadAdvice {
  const schema = opts.schema;
  const written = new Set<string>();
  const writes = new Map<string, SuggestionSite[]>();
  for (const st of statements) {
    const t = writtenTable(st.sql);
    if (!t || isInitialiser(st.site.function)) continue;
    written.add(low(t));
    const list = writes.get(low(t)) ?? [];
    if (!list.some((x) => sameSite(x, st.site))) list.push({ file: st.site.file, line: st.site.line, sql: st.site.sql });
    writes.set(low(t), list);
  }
  const perStatement = new Map<string, Advice>();
  const items: { suggestion: IndexSuggestion; site: SuggestionSite }[] = [];
  const weightOf = new Map<string, number>();
  let unparsed = 0;
  let advised = 0;
  for (const st of statements) {
    if (st.writeOnly) continue;
    let advice = perStatement.get(st.sql);
    if (!advice) {
      advice = adviseStatement(st.sql, { ...opts, writtenTables: opts.writtenTables ?? written });
      perStatement.set(st.sql, advice);
    }
    if (advice.error) { unparsed++; continue; }
    advised++;
    weightOf.set(siteKey(st.site), (weightOf.get(siteKey(st.site)) ?? 0) + (st.weight ?? 1));
    for (const suggestion of advice.suggestions) items.push({ suggestion, site: { file: st.site.file, line: st.site.line, sql: st.site.sql } });
  }
  const merged = collapseFewRows(mergeSuggestions(items, schema), schema, opts.fewRowsPerKey ?? 100);
  const indexes: PlannedIndex[] = merged.map((m) => ({
    ...m,
    weight: m.sites.reduce((sum, s) => sum + (weightOf.get(siteKey(s)) ?? 1), 0),
    writes: writes.get(low(m.table)) ?? [],
    makesRedundant: madeRedundant(m, schema),
  }));
  indexes.sort((a, b) => b.weight - a.weight || b.sites.length - a.sites.length || (a.table < b.table ? -1 : a.table > b.table ? 1 : 0));
  return { indexes, redundant: schema ? redundantIndexes(schema) : [], written, perStatement, statements: advised, unparsed };
}

/**
 * Suggestions on one table led by the same column, where one value of that column finds only a few
 * rows (by the statistics), become one index: the lookups read those few rows and filter them, so
 * the other columns only cost writes. The one kept delivers an ORDER BY if one of them did.
 */
function collapseFewRows(merged: MergedSuggestion[], schema: Schema | undefined, few: number): MergedSuggestion[] {
  const groups = new Map<string, MergedSuggestion[]>();
  for (const m of merged) {
    if (m.mergeGroup || !m.columns.length) continue;
    const key = `${low(m.table)}\0${low(m.columns[0])}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  const dropped = new Set<MergedSuggestion>();
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const info = schema?.tables[low(group[0].table)];
    const lead = group[0].columns[0];
    const perValue = rowsPerValue(info, lead);
    if (perValue === undefined || perValue > few) continue;
    const host = [...group].sort((a, b) => Number(b.servesOrderBy) - Number(a.servesOrderBy) || b.sites.length - a.sites.length || a.columns.length - b.columns.length)[0];
    const eq = Math.max(1, Math.min(host.equalityPrefix ?? 1, host.columns.length));
    const cols = host.servesOrderBy ? [host.columns[0], ...host.columns.slice(eq)] : [host.columns[0]];
    for (const m of group) {
      if (m === host) continue;
      dropped.add(m);
      for (const s of m.sites) if (!host.sites.some((x) => sameSite(x, s))) host.sites.push(s);
    }
    host.sites.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
    const replaces = (info?.indexes ?? []).find((i) => !i.primary && !i.unique && i.columns.length < cols.length && i.columns.every((c, k) => low(c) === low(cols[k])));
    const taken = new Set((info?.indexes ?? []).map((i) => low(i.name)).filter((n) => n !== low(replaces?.name ?? '')));
    host.columns = cols;
    host.equalityPrefix = 1;
    host.name = indexName(host.table, cols, taken);
    host.ddl = addIndexDdl(host.table, cols, host.name, { rows: info?.rows, ...(replaces ? { replaces: replaces.name } : {}) }).ddl;
    if (replaces) host.replaces = replaces.name; else delete host.replaces;
    host.covering = false;
    host.reason = `One index for ${host.sites.length} statements on ${host.table} led by ${lead}: each ${lead} has about ${Math.round(perValue)} row(s), so reading them by ${lead}${cols.length > 1 ? ` in ${cols.slice(1).join(', ')} order` : ''} and filtering the rest is cheap, and more indexes led by ${lead} would only cost writes.`;
  }
  return merged.filter((m) => !dropped.has(m));
}

/** Existing plain indexes that the new index makes redundant (leftmost prefixes of it), besides the one it replaces. */
function madeRedundant(m: MergedSuggestion, schema: Schema | undefined): RedundantIndex[] {
  const info = schema?.tables[low(m.table)];
  if (!info) return [];
  const withNew: TableInfo = {
    ...info,
    indexes: [...info.indexes.filter((i) => low(i.name) !== low(m.replaces ?? '')), { name: m.name, columns: m.columns, unique: false, primary: false }],
  };
  return redundantIndexesOf(withNew).filter((r) => r.coveredBy === m.name && r.index !== m.name);
}

/** The planned indexes that serve a statement (by its SQL text): what the hover and the quick fix offer for it. */
export function indexesFor(w: WorkloadAdvice, sql: string): PlannedIndex[] {
  return w.indexes.filter((ix) => ix.sites.some((s) => s.sql === sql));
}
