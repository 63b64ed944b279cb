/**
 * Merges the advisor's per-statement suggestions into the indexes an app needs: equal ones become
 * one, and a suggestion that an other index can serve joins it. An index serves a statement when
 * the statement's columns are its leftmost key parts, where the equality columns of either may come
 * in any order: `ng_words(user_id, livestream_id, created_at)` and `ng_words(livestream_id)` become
 * one index on (livestream_id, user_id, created_at), not two.
 */
import type { IndexSuggestion, Schema } from '../model';
import { addIndexDdl, indexName } from './ddl';

export interface SuggestionSite { file: string; line: number; sql: string }

/**
 * One statement at one place. The variants of a statement built at run time share their line and differ
 * in their text: each is a statement of its own, which the index it needs must list (the hover and the
 * quick fix find a variant's indexes by its text).
 */
export const sameSite = (a: SuggestionSite, b: SuggestionSite): boolean => a.file === b.file && a.line === b.line && a.sql === b.sql;
export interface MergedSuggestion extends IndexSuggestion { sites: SuggestionSite[] }

const low = (c: string): string => c.toLowerCase();

/**
 * An index being merged into: its equality key parts as an ordered list of groups, each group's
 * order still free, then the key parts whose order is fixed.
 */
interface Host { m: MergedSuggestion; groups: string[][]; tail: string[] }

function hostOf(m: MergedSuggestion): Host {
  // why: an index that extends an existing one keeps that index's order, or it would no longer replace it.
  const free = m.replaces || m.mergeGroup ? 0 : Math.min(m.equalityPrefix ?? 0, m.columns.length);
  return { m, groups: free > 1 ? [m.columns.slice(0, free)] : m.columns.slice(0, free).map((c) => [c]), tail: m.columns.slice(free) };
}

/**
 * The host's groups refined so that `s`'s columns are its leftmost key parts (its equality columns
 * in any order, then the rest in order), or undefined when no order of the host serves `s`.
 */
function fit(h: Host, s: IndexSuggestion): string[][] | undefined {
  const eqN = s.replaces ? 0 : Math.min(s.equalityPrefix ?? 0, s.columns.length);
  const need = new Set(s.columns.slice(0, eqN).map(low));
  const ordered = s.columns.slice(eqN);
  const out: string[][] = [];
  let rest = h.groups;
  while (need.size && rest.length) {
    const g = rest[0];
    const inG = g.filter((c) => need.has(low(c)));
    if (inG.length !== g.length) {
      // The group holds more than the statement compares: split it, the statement's part first.
      if (inG.length !== need.size) return undefined;
      out.push(inG);
      rest = [g.filter((c) => !need.has(low(c))), ...rest.slice(1)];
      need.clear();
      break;
    }
    out.push(g);
    for (const c of g) need.delete(low(c));
    rest = rest.slice(1);
  }
  if (need.size) return undefined;
  let k = 0;
  for (const c of ordered) {
    if (rest.length) {
      const g = rest[0];
      const hit = g.find((x) => low(x) === low(c));
      if (!hit) return undefined;
      out.push([hit]);
      const left = g.filter((x) => x !== hit);
      rest = left.length ? [left, ...rest.slice(1)] : rest.slice(1);
    } else {
      if (h.tail[k] === undefined || low(h.tail[k]) !== low(c)) return undefined;
      k++;
    }
  }
  return [...out, ...rest];
}

/** Merges per-statement suggestions (see the file comment); the most-used indexes first. */
export function mergeSuggestions(items: { suggestion: IndexSuggestion; site: SuggestionSite }[], schema: Schema | undefined): MergedSuggestion[] {
  const key = (s: IndexSuggestion) => `${low(s.table)}\0${s.columns.map(low).join('\0')}`;
  const byKey = new Map<string, MergedSuggestion>();
  for (const { suggestion, site } of items) {
    const m = byKey.get(key(suggestion)) ?? { ...suggestion, sites: [] };
    if (!m.sites.some((x) => sameSite(x, site))) m.sites.push(site);
    byKey.set(key(suggestion), m);
  }
  const all = [...byKey.values()].sort((a, b) => b.columns.length - a.columns.length);
  const hosts: Host[] = [];
  for (const s of all) {
    let joined = false;
    for (const h of hosts) {
      if (low(h.m.table) !== low(s.table) || h.m.mergeGroup || s.mergeGroup) continue;
      const groups = fit(h, s);
      if (!groups) continue;
      h.groups = groups;
      for (const site of s.sites) if (!h.m.sites.some((x) => sameSite(x, site))) h.m.sites.push(site);
      h.m.reason += ` Also serves ${s.sites.length} statement(s) that need (${s.columns.join(', ')}).`;
      if (!h.m.replaces && s.replaces) h.m.replaces = s.replaces;
      joined = true;
      break;
    }
    if (!joined) hosts.push(hostOf(s));
  }
  const info = (table: string) => schema?.tables[low(table)];
  const taken = new Map<string, Set<string>>();
  for (const h of hosts) {
    const m = h.m;
    const cols = [...h.groups.flat(), ...h.tail];
    const reordered = cols.some((c, i) => c !== m.columns[i]);
    const t = low(m.table);
    const names = taken.get(t) ?? new Set((info(m.table)?.indexes ?? []).map((i) => low(i.name)).filter((n) => n !== low(m.replaces ?? '')));
    taken.set(t, names);
    if (reordered) {
      m.columns = cols;
      m.name = indexName(m.table, cols, names);
      m.reason += ` Its equality columns are ordered ${cols.slice(0, h.groups.flat().length).join(', ')} so that one index serves them all.`;
    }
    names.add(low(m.name));
    if (reordered || m.replaces) {
      const d = addIndexDdl(m.table, m.columns, m.name, { rows: info(m.table)?.rows, ...(m.replaces ? { replaces: m.replaces } : {}) });
      m.ddl = d.ddl;
    }
    m.sites.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  }
  return hosts.map((h) => h.m).sort((a, b) => b.sites.length - a.sites.length || (a.table < b.table ? -1 : a.table > b.table ? 1 : 0));
}
