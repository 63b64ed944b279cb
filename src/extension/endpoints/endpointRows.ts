/**
 * The pure part of the Endpoints view and the route CodeLens (no vscode import, unit-tested):
 * sort orders, row labels and descriptions, tooltips, CodeLens titles, and which endpoint belongs
 * to which route definition.
 */
import { formatCount } from '../../core/format/numbers';
import type { EndpointStats } from '../../core/logs/accessAnalysis';
import { ACCESS_FIELD_NAMES, type FieldMapping } from '../../core/logs/accessParsers';
import type { Route } from '../../core/model';
import { hostSplitRow } from '../boxes/hostSplit';
import { escapeMarkdown, inlineCode } from '../explain/hoverMarkdown';

export const ENDPOINT_SORTS = ['total', 'count', 'mean', 'p99', 'max', 'errors'] as const;
export type EndpointSort = (typeof ENDPOINT_SORTS)[number];

export const SORT_LABELS: Record<EndpointSort, string> = {
  total: 'Total time', count: 'Request count', mean: 'Mean time', p99: 'p99 time', max: 'Max time', errors: 'Errors (5xx, then 4xx)',
};

function key(e: EndpointStats, sort: EndpointSort): number {
  switch (sort) {
    case 'total': return e.sum;
    case 'count': return e.count;
    case 'mean': return e.avg;
    case 'p99': return e.p99;
    case 'max': return e.max;
    case 'errors': return e.s5xx * 1e9 + e.s4xx;
  }
}

/** Largest first by `sort`; ties by total time, then count, then URI and method. A new array. */
export function sortEndpoints(endpoints: readonly EndpointStats[], sort: EndpointSort): EndpointStats[] {
  return [...endpoints].sort((a, b) => key(b, sort) - key(a, sort) || b.sum - a.sum || b.count - a.count
    || a.uri.localeCompare(b.uri) || a.method.localeCompare(b.method));
}

export { formatCount };

/** Seconds for people: "320 ms", "56.7 s", "1.2 ms", "12 min". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '–';
  if (seconds >= 600) return `${(seconds / 60).toFixed(0)} min`;
  if (seconds >= 10) return `${seconds.toFixed(1)} s`;
  if (seconds >= 1) return `${seconds.toFixed(2)} s`;
  const ms = seconds * 1000;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(ms >= 1 ? 1 : 2)} ms`;
}

/** `GET /items/:id`. */
export function endpointLabel(e: EndpointStats): string {
  return `${e.method} ${e.uri}`;
}

/** What a row says beside its label, for the given sort: the sort's figure first. */
export function endpointDescription(e: EndpointStats, sort: EndpointSort = 'total'): string {
  const parts = [`${formatCount(e.count)} req`, `${formatDuration(e.sum)} total`, `p99 ${formatDuration(e.p99)}`];
  if (sort === 'mean') parts.splice(1, 0, `mean ${formatDuration(e.avg)}`);
  if (sort === 'max') parts.push(`max ${formatDuration(e.max)}`);
  if (e.s5xx) parts.push(`5xx ${formatCount(e.s5xx)}`);
  if (sort === 'errors' && e.s4xx) parts.push(`4xx ${formatCount(e.s4xx)}`);
  return parts.join(' · ');
}

/** The CodeLens over a route handler: "GET /items/:id · 1,234 req · 56.7 s total · p99 320 ms · 5xx 3 · 2 client aborts (499)". */
export function codeLensTitle(e: EndpointStats): string {
  const parts = [endpointLabel(e), `${formatCount(e.count)} req`, `${formatDuration(e.sum)} total`, `p99 ${formatDuration(e.p99)}`];
  if (e.s5xx) parts.push(`5xx ${formatCount(e.s5xx)}`);
  if (e.s499) parts.push(`${formatCount(e.s499)} client abort${e.s499 === 1 ? '' : 's'} (499)`);
  return parts.join(' · ');
}

/** Where a handler is for people: `webapp/go/main.go:122` (1-based), or undefined when unknown. */
export function handlerPlace(route: Route | undefined): { file: string; line: number; name?: string } | undefined {
  const h = route?.handler;
  if (!h?.file || !h.range) return undefined;
  return { file: h.file, line: h.range.start.line + 1, name: h.name };
}

/** The full figures as Markdown lines (the tooltip). Method, URI and names from the log or the source are escaped. */
export function endpointTooltip(e: EndpointStats, total?: number): string {
  const share = total ? ` (${((e.sum / total) * 100).toFixed(1)} % of all time)` : '';
  const statuses = Object.entries(e.status).sort((a, b) => b[1] - a[1]).map(([code, n]) => `${escapeMarkdown(code)}: ${formatCount(n)}`).join(', ');
  const place = handlerPlace(e.route);
  const lines = [
    `**${escapeMarkdown(endpointLabel(e))}**`,
    '',
    `| | |`,
    `|---|---|`,
    `| requests | ${formatCount(e.count)} |`,
    `| total | ${formatDuration(e.sum)}${share} |`,
    `| mean | ${formatDuration(e.avg)} (stddev ${formatDuration(e.stddev)}) |`,
    `| min / max | ${formatDuration(e.min)} / ${formatDuration(e.max)} |`,
    `| p50 / p90 / p95 / p99 | ${[e.p50, e.p90, e.p95, e.p99].map(formatDuration).join(' / ')} |`,
    `| 2xx / 3xx / 4xx / 5xx | ${[e.s2xx, e.s3xx, e.s4xx, e.s5xx].map(formatCount).join(' / ')} |`,
    `| status | ${statuses || '–'} |`,
    `| body bytes | ${formatCount(e.bytes.sum)} (mean ${formatCount(Math.round(e.bytes.avg))}) |`,
    ...[hostSplitRow('by box', e.hosts)].filter((r): r is string => !!r),
    '',
    place ? `Handler: ${place.name ? `${inlineCode(place.name)} ` : ''}in ${escapeMarkdown(`${place.file}:${place.line}`)}` : e.route ? 'Handler: not found in the workspace' : `Grouped ${e.kind === 'route' ? 'by route' : e.kind === 'regex' ? 'by a matching-group expression' : e.kind === 'static' ? 'as static files' : 'by path'}; no handler known`,
  ];
  if (!e.exact) lines.push('', '_Percentiles from a histogram (within 1 %)._');
  return lines.join('\n');
}

/**
 * The endpoints that belong to a route definition: grouped by a route of the same method and
 * pattern (the route objects themselves change whenever their file is re-read).
 */
export function endpointsForRoute(route: Route, endpoints: readonly EndpointStats[]): EndpointStats[] {
  return endpoints.filter((e) => e.kind === 'route' && e.uri === route.pattern && (e.method === route.method || route.method === 'ANY'));
}

/**
 * The CodeLenses of one file: above each handler defined in it (a named function, or the anonymous
 * one inside the route call), and above route definitions in it whose handler is elsewhere or
 * unknown. One lens per endpoint; `line` is 0-based.
 */
export function lensesForFile(file: string, routes: readonly Route[], endpoints: readonly EndpointStats[]): { route: Route; endpoint: EndpointStats; line: number }[] {
  const out: { route: Route; endpoint: EndpointStats; line: number }[] = [];
  const seen = new Set<EndpointStats>();
  for (const r of routes) {
    const h = r.handler;
    let line: number | undefined;
    if (h?.file === file && h.range) line = h.range.start.line;
    else if (r.file === file) line = r.range.start.line;
    if (line === undefined) continue;
    for (const e of endpointsForRoute(r, endpoints)) {
      if (seen.has(e)) continue;
      seen.add(e);
      out.push({ route: r, endpoint: e, line });
    }
  }
  return out.sort((a, b) => a.line - b.line || b.endpoint.sum - a.endpoint.sum);
}

const FIELD_NAMES = ACCESS_FIELD_NAMES;

/** Parses `NAME=LABEL` entries of queryInsight.endpoints.fieldMapping; throws on a bad entry. */
export function parseFieldMapping(entries: readonly string[]): Partial<FieldMapping> {
  const out: Record<string, string> = {};
  for (const e of entries) {
    const [k, v] = e.split('=').map((s) => s.trim());
    if (!FIELD_NAMES.includes(k) || !v) throw new Error(`queryInsight.endpoints.fieldMapping: "${e}" is not NAME=LABEL with NAME one of ${FIELD_NAMES.join(', ')}`);
    out[k] = v;
  }
  return out;
}
