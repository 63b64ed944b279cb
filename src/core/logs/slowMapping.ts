/**
 * Maps slow-log fingerprints to the source sites that send them: both sides go through the same
 * `fingerprint`, so equal keys mean the same statement shape.
 *
 * Dynamic parts: a site whose fingerprint still holds DYNAMIC_TOKEN (a dynamic part outside a value
 * position: a table name, a column list, a whole WHERE clause) is matched as a pattern in which each
 * DYNAMIC_TOKEN stands for any run of text without `;`. Such a pattern is used only when it is
 * anchored by enough fixed text — the part before the first dynamic token must hold the statement
 * verb and at least one more word — and only for log fingerprints that no site matches exactly.
 */
import type { SqlSite } from '../model';
import { DYNAMIC_TOKEN, fingerprint } from '../sql/fingerprint';

/** The fingerprint index of a set of sites. */
export interface SiteIndex {
  exact: Map<string, SqlSite[]>;
  patterns: { parts: string[]; sites: SqlSite[] }[];
}

/** Builds the index (fingerprints each site's `sql` once). */
export function indexSites(sites: readonly SqlSite[]): SiteIndex {
  const exact = new Map<string, SqlSite[]>();
  const byPattern = new Map<string, SqlSite[]>();
  for (const site of sites) {
    const fp = fingerprint(site.sql);
    if (!fp) continue;
    if (fp.includes(DYNAMIC_TOKEN)) {
      const parts = fp.split(DYNAMIC_TOKEN);
      if (parts[0].trim().split(' ').filter(Boolean).length < 2) continue; // not anchored enough
      const list = byPattern.get(fp);
      if (list) list.push(site); else byPattern.set(fp, [site]);
    } else {
      const list = exact.get(fp);
      if (list) list.push(site); else exact.set(fp, [site]);
    }
  }
  const patterns = [...byPattern].map(([fp, s]) => ({ parts: fp.split(DYNAMIC_TOKEN).map((p) => p.trim()), sites: s }));
  return { exact, patterns };
}

function matchPattern(parts: string[], fp: string): boolean {
  if (fp.includes(';')) return false;
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (!fp.startsWith(first) || !fp.endsWith(last) || fp.length < first.length + last.length) return false;
  let pos = first.length;
  const stop = fp.length - last.length;
  for (let i = 1; i < parts.length - 1; i++) {
    if (!parts[i]) continue;
    const at = fp.indexOf(parts[i], pos);
    if (at < 0 || at + parts[i].length > stop) return false;
    pos = at + parts[i].length;
  }
  return true;
}

/** The sites that send statements with this fingerprint: exact matches, else dynamic-pattern matches. */
export function sitesFor(index: SiteIndex, fp: string): { sites: SqlSite[]; how: 'exact' | 'pattern' | 'none' } {
  const exact = index.exact.get(fp);
  if (exact) return { sites: exact, how: 'exact' };
  const found: SqlSite[] = [];
  for (const p of index.patterns) if (matchPattern(p.parts, fp)) found.push(...p.sites);
  return found.length ? { sites: found, how: 'pattern' } : { sites: [], how: 'none' };
}
