/**
 * How a SQL site is shown in lists (the quick pick, the tree view) and what the list command returns.
 * Pure: unit-tested under plain Node. Lines are 1-based here, as people and the CLI count them.
 */
import type { SqlSite } from '../../core/model';

/** One statement as the List SQL statements command returns it (the CLI's JSON field names). */
export interface SiteRow {
  file: string;
  /** 1-based line where the SQL text starts. */
  line: number;
  /** 1-based column. */
  column: number;
  language: SqlSite['language'];
  function?: string;
  loopDepth: number;
  sql: string;
  dynamic: boolean;
}

export function siteRow(site: SqlSite): SiteRow {
  return {
    file: site.file,
    line: site.range.start.line + 1,
    column: site.range.start.character + 1,
    language: site.language,
    ...(site.function ? { function: site.function } : {}),
    loopDepth: site.loops.length,
    sql: site.sql,
    dynamic: site.dynamic,
  };
}

/** Collapses whitespace so a multi-line statement fits one line; cut at `max` characters. */
export function oneLineSql(sql: string, max = 160): string {
  const s = sql.replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Label, description and detail of a quick-pick item for a site. */
export function siteLabels(row: SiteRow): { label: string; description: string; detail: string } {
  const where = row.function ? `in ${row.function}` : 'at top level';
  const loops = row.loopDepth === 0 ? 'not in a loop' : row.loopDepth === 1 ? 'inside 1 loop' : `inside ${row.loopDepth} loops`;
  return {
    label: oneLineSql(row.sql),
    description: `${row.file}:${row.line}`,
    detail: `${where} · ${loops}${row.dynamic ? ' · partly dynamic' : ''}`,
  };
}
