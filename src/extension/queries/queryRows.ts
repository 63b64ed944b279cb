/**
 * The pure part of the Queries view, the figures CodeLens and the hover section (no vscode import,
 * unit-tested): sort orders, which source sites send which fingerprint, row labels and
 * descriptions, the figures line ("1,234 calls · 56.7 s · p95 120 ms · examined/sent 4,000"),
 * tooltips and the hover's Markdown.
 */
import { indexSites, sitesFor } from '../../core/logs/slowMapping';
import { sortStats, type QueryStats, type SortKey } from '../../core/logs/slowStats';
import type { SqlSite } from '../../core/model';
import { formatCount, formatDuration } from '../endpoints/endpointRows';
import { hostSplitRow } from '../boxes/hostSplit';
import { codeBlock, escapeMarkdown } from '../explain/hoverMarkdown';

export const QUERY_SORTS: readonly SortKey[] = ['sum', 'count', 'avg', 'p95', 'max'];

export const QUERY_SORT_LABELS: Record<SortKey, string> = {
  sum: 'Total time', count: 'Calls', avg: 'Mean time', p95: 'p95 time', max: 'Max time',
};

/** One ranked fingerprint with the sites that send it. */
export interface QueryRow {
  rank: number;
  stats: QueryStats;
  /** Share of all statements' total time, 0..1. */
  share: number;
  sites: SqlSite[];
  /** How the sites were found: the same fingerprint, a site with dynamic parts as a pattern, or none. */
  how: 'exact' | 'pattern' | 'none';
}

/** The fingerprints ranked by `sort` and mapped to the sites that send them, plus the reverse map. */
export interface QueryModel {
  rows: QueryRow[];
  /** Rows per site (`siteKey`), most total time first: what a site's CodeLens and hover show. */
  bySite: Map<string, QueryRow[]>;
  totalTime: number;
}

/** Identifies a site across re-extractions of an unchanged file: file, start line and column. */
export function siteKey(site: Pick<SqlSite, 'file' | 'range'>): string {
  return `${site.file}:${site.range.start.line}:${site.range.start.character}`;
}

/** Ranks and maps (pure: the statistics and the workspace's sites come from the caller). */
export function buildQueryModel(stats: readonly QueryStats[], sites: readonly SqlSite[], sort: SortKey = 'sum'): QueryModel {
  const index = indexSites(sites);
  const totalTime = stats.reduce((a, s) => a + s.queryTime.total, 0);
  const rows = sortStats(stats, sort).map((s, i): QueryRow => {
    const m = sitesFor(index, s.fingerprint);
    return { rank: i + 1, stats: s, share: totalTime > 0 ? s.queryTime.total / totalTime : 0, sites: uniqueSites(m.sites), how: m.how };
  });
  const bySite = new Map<string, QueryRow[]>();
  for (const r of rows) {
    for (const site of r.sites) {
      const k = siteKey(site);
      const list = bySite.get(k);
      if (list) list.push(r); else bySite.set(k, [r]);
    }
  }
  for (const list of bySite.values()) list.sort((a, b) => b.stats.queryTime.total - a.stats.queryTime.total);
  return { rows, bySite, totalTime };
}

/**
 * One site per place: a string built in branches (`q := "…"; if … { q += " LIMIT 3" }`) is one site
 * per variant, all starting at the same literal, and a place must be listed (and counted) once.
 */
function uniqueSites(sites: readonly SqlSite[]): SqlSite[] {
  const seen = new Set<string>();
  return sites.filter((s) => { const k = siteKey(s); if (seen.has(k)) return false; seen.add(k); return true; });
}

/**
 * The figures CodeLenses of a file's sites: one per line and fingerprint, most total time first on a
 * line. A line can hold several sites (the variants of one string, two calls side by side) that send
 * the same fingerprint; each lens sits at column 0 of the line, so one per fingerprint is all the user can tell apart.
 */
export function lensRows(sites: readonly SqlSite[], model: QueryModel): { line: number; row: QueryRow }[] {
  const byLine = new Map<number, Set<QueryRow>>();
  for (const site of sites) {
    const rows = model.bySite.get(siteKey(site));
    if (!rows) continue;
    const line = site.range.start.line;
    const set = byLine.get(line) ?? new Set<QueryRow>();
    for (const r of rows) set.add(r);
    byLine.set(line, set);
  }
  return [...byLine].sort(([a], [b]) => a - b).flatMap(([line, set]) => [...set]
    .sort((a, b) => b.stats.queryTime.total - a.stats.queryTime.total || a.rank - b.rank)
    .map((row) => ({ line, row })));
}

/** The fingerprint on one line, cut to `max` characters. */
export function queryLabel(s: QueryStats, max = 90): string {
  const one = s.fingerprint.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** "1 call", "1,234 calls". */
export function callsText(n: number): string {
  return `${formatCount(n)} ${n === 1 ? 'call' : 'calls'}`;
}

/** Rows examined per row sent: "4,000", "2.5"; undefined when nothing was sent. */
export function examinedPerSentText(s: QueryStats): string | undefined {
  const r = s.examinedPerSent;
  if (r === null) return undefined;
  return r >= 10 ? formatCount(Math.round(r)) : String(Number(r.toFixed(1)));
}

/**
 * The figures shown on the statement's line: "1,234 calls · 56.7 s · p95 120 ms · examined/sent 4,000".
 * Statements that send no rows (writes) show the rows they examine per call instead of the ratio.
 */
/** `p95 120 ms`, or `max 300 ms` for performance_schema figures (which keep no percentile). */
function tailText(s: QueryStats): string {
  return s.fromServer ? `max ${formatDuration(s.queryTime.max)}` : `p95 ${formatDuration(s.queryTime.p95)}`;
}

export function figuresText(s: QueryStats): string {
  const parts = [callsText(s.count), formatDuration(s.queryTime.total), tailText(s)];
  const ratio = examinedPerSentText(s);
  if (ratio !== undefined) parts.push(`examined/sent ${ratio}`);
  else if (s.rowsExamined.total > 0) parts.push(`examined ${formatCount(Math.round(s.rowsExamined.mean))}/call`);
  return parts.join(' · ');
}

/** The CodeLens title: the figures, with the rank and share when the site sends more than one fingerprint or for orientation. */
export function codeLensTitle(r: QueryRow): string {
  return `#${r.rank} · ${figuresText(r.stats)} · ${(r.share * 100).toFixed(1)}% of query time`;
}

/** What a Queries row says beside its label: the sort's figure first. */
export function queryDescription(r: QueryRow, sort: SortKey = 'sum'): string {
  const s = r.stats;
  const head: Record<SortKey, string> = {
    sum: `${formatDuration(s.queryTime.total)} (${(r.share * 100).toFixed(1)}%)`,
    count: callsText(s.count),
    avg: `mean ${formatDuration(s.queryTime.mean)}`,
    p95: `p95 ${formatDuration(s.queryTime.p95)}`,
    max: `max ${formatDuration(s.queryTime.max)}`,
  };
  const rest = [
    sort !== 'sum' ? formatDuration(s.queryTime.total) : undefined,
    sort !== 'count' ? callsText(s.count) : undefined,
    sort !== 'p95' ? tailText(s) : undefined,
  ].filter((x): x is string => x !== undefined);
  const where = r.how === 'none' ? ['unmapped'] : [];
  return [head[sort], ...rest, ...where].join(' · ');
}

/** `webapp/go/main.go:89` (1-based line). */
export function sitePlace(site: SqlSite): string {
  return `${site.file}:${site.range.start.line + 1}`;
}

function tableRows(s: QueryStats, share?: number): string[] {
  const ratio = examinedPerSentText(s);
  const rows = [
    '| | |', '|---|---:|',
    `| calls | ${formatCount(s.count)} |`,
    `| total | ${formatDuration(s.queryTime.total)}${share !== undefined ? ` (${(share * 100).toFixed(1)}%)` : ''} |`,
    s.fromServer ? `| mean / max | ${[s.queryTime.mean, s.queryTime.max].map(formatDuration).join(' / ')} |`
      : `| mean / p95 / max | ${[s.queryTime.mean, s.queryTime.p95, s.queryTime.max].map(formatDuration).join(' / ')} |`,
    `| lock time (total) | ${formatDuration(s.lockTime.total)} |`,
    `| rows sent / examined (mean) | ${[s.rowsSent.mean, s.rowsExamined.mean].map((v) => formatCount(Math.round(v))).join(' / ')} |`,
  ];
  if (ratio !== undefined) rows.push(`| examined per sent | ${ratio} |`);
  if (s.peakPerSecond > 1) rows.push(`| ${s.fromServer ? 'calls per second (window mean)' : 'peak calls per second'} | ${formatCount(s.peakPerSecond)} |`);
  if (s.fullScan || s.filesort || s.tmpTableOnDisk) {
    rows.push(`| full scan / filesort / tmp on disk | ${[s.fullScan, s.filesort, s.tmpTableOnDisk].map(formatCount).join(' / ')} |`);
  }
  const byBox = hostSplitRow('by box', s.hosts);
  if (byBox) rows.push(byBox);
  return rows;
}

/** The tooltip of a Queries row (Markdown, everything quoted escaped). */
export function queryTooltip(r: QueryRow): string {
  const s = r.stats;
  const out = [`**#${r.rank}** of the ${s.fromServer ? 'measured window (performance_schema)' : 'slow log'}`, '', codeBlock(s.fingerprint), '', ...tableRows(s, r.share), ''];
  if (r.how === 'none') out.push('No statement in the workspace has this fingerprint (unmapped).');
  else out.push(`Sent from ${r.sites.map((x) => escapeMarkdown(sitePlace(x))).join(', ')}${r.how === 'pattern' ? ' (a statement with dynamic parts)' : ''}`);
  if (s.example && s.example !== s.fingerprint) out.push('', s.fromServer ? 'Digest text (performance_schema):' : 'Slowest execution:', '', codeBlock(s.example.length > 2000 ? `${s.example.slice(0, 2000)}…` : s.example));
  return out.join('\n');
}

/**
 * The slow-log section of the EXPLAIN hover for one site: its fingerprints' figures. Plain Markdown
 * without links; the log's name is escaped.
 */
export function hoverSection(rows: readonly QueryRow[], source: string): string {
  const out = [`**${rows.some((r) => r.stats.fromServer) ? 'Server statistics' : 'Slow log'}** · ${escapeMarkdown(source)}`];
  for (const r of rows) {
    out.push('', `#${r.rank} by total time · ${escapeMarkdown(figuresText(r.stats))}`);
    if (rows.length > 1) out.push('', codeBlock(r.stats.fingerprint));
    out.push('', ...tableRows(r.stats, r.share));
  }
  return out.join('\n');
}
