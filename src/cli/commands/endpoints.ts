/** `query-insight endpoints LOG…`: an alp-like table of endpoint timings from nginx access logs. */
import { readFile, stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command';
import { parseFormat, renderJsonLines, renderRows, UsageError, type Column } from '../output';
import { escapeControls } from '../../core/format/controlChars';
import { AccessAnalyzer, type AccessAnalysisOptions, type EndpointStats, type TimeField } from '../../core/logs/accessAnalysis';
import { ACCESS_FIELD_NAMES, isAccessLogFormat, type AccessLogFormat, type FieldMapping } from '../../core/logs/accessParsers';
import { guessAccessFormat, sniffLog, wrongKindMessage, type LogSniff } from '../../core/logs/logKind';
import { splitMatchingGroups } from '../../core/logs/grouping';
import type { Route } from '../../core/model';
import { describeLogSource, type LogSource } from '../../core/logs/logSource';
import { accessAnalyzer, analyzeAccessSources } from '../../node/logSources';
import type { RemoteLogReader } from '../../node/remoteLog';
import { readLogHead } from '../../node/logHead';
import { localLogHead } from '../../node/pipedLog';
import { checkLocalSources, hostsCell, LOG_SOURCE_HELP, LOG_SOURCE_OPTIONS, parseLogArgs, rangesOf, remoteReaderFor, reportDamagedSources, reportSourceErrors } from '../logArgs';

const SORTS = ['sum', 'count', 'avg', 'min', 'max', 'p50', 'p90', 'p95', 'p99', 'stddev', 'errors', 'bytes', 'uri'] as const;
type SortKey = (typeof SORTS)[number];

const HELP = `usage: query-insight endpoints LOG... [options]

Reads nginx access logs (plain or .gz) and prints one row per endpoint: count, status classes,
response time (min, max, sum, avg, percentiles in seconds) and body bytes.

Grouping, first match wins: the app's route patterns (--routes), then the -m expressions, then static
files by extension, then ids in the path (numbers, UUIDs, hex, long tokens) replaced by placeholders.

options:
  --log-format FORMAT               ltsv, json, combined (nginx's combined + $request_time
                                    $upstream_response_time), combined-alp (alp's order:
                                    $upstream_response_time $request_time), or the log_format
                                    string itself, e.g. '$remote_addr [$time_local] "$request" $status
                                    $request_time' (default: guessed from the first line; combined)
  --pattern RE                      a regular expression with named groups (uri or request, method,
                                    status, size, reqtime, apptime, reqsize, time) instead of the
                                    built-in parser
  --field NAME=LABEL,...            LTSV labels / JSON keys (names: method uri status size reqtime
                                    apptime request reqsize time), e.g. --field uri=request_uri,reqtime=rt
  --time auto|reqtime|apptime       which time to use (default auto: apptime when logged, like alp)
  --routes DIR|FILE                 discover the app's routes under DIR (or read a JSON file of routes)
                                    and group by them
  -m, --matching-groups RE,RE,...   alp-compatible: comma-separated regexes; the regex names the group
  -q, --keep-query                  keep query strings in the URI (default: dropped)
  --no-static-groups                do not group static files by extension
  --no-normalize                    do not replace ids in unmatched paths
  --sort KEY                        ${SORTS.join('|')} (default sum; descending)
  -r, --reverse                     ascending order
  --limit N                         at most N endpoints; the rest share one row (default 5000)
  --top N                           print only the first N rows
  --format table|md|json|csv|tsv    output (json = JSON Lines, one object per endpoint)
  --quiet                           no summary on stderr

${LOG_SOURCE_HELP}

exit status: 0 done; 1 a log could not be read (the report covers the others); 2 usage error, or a
file that is not an access log (a slow log: use \`slow\`); 3 a gzip file is damaged: the report covers
the lines before the damage, and stderr says where.`;

function seconds(v: number): string { return v.toFixed(3); }

const COLUMNS: Column<EndpointStats>[] = [
  { header: 'COUNT', value: (e) => e.count, right: true },
  { header: '1XX', value: (e) => e.s1xx, right: true },
  { header: '2XX', value: (e) => e.s2xx, right: true },
  { header: '3XX', value: (e) => e.s3xx, right: true },
  { header: '4XX', value: (e) => e.s4xx, right: true },
  { header: '5XX', value: (e) => e.s5xx, right: true },
  { header: '499', value: (e) => e.s499, right: true },
  { header: 'METHOD', value: (e) => e.method },
  { header: 'URI', value: (e) => e.uri },
  { header: 'MIN', value: (e) => seconds(e.min), right: true },
  { header: 'MAX', value: (e) => seconds(e.max), right: true },
  { header: 'SUM', value: (e) => seconds(e.sum), right: true },
  { header: 'AVG', value: (e) => seconds(e.avg), right: true },
  { header: 'P50', value: (e) => seconds(e.p50), right: true },
  { header: 'P90', value: (e) => seconds(e.p90), right: true },
  { header: 'P95', value: (e) => seconds(e.p95), right: true },
  { header: 'P99', value: (e) => seconds(e.p99), right: true },
  { header: 'STDDEV', value: (e) => seconds(e.stddev), right: true },
  { header: 'MIN(BODY)', value: (e) => e.bytes.min, right: true },
  { header: 'MAX(BODY)', value: (e) => e.bytes.max, right: true },
  { header: 'SUM(BODY)', value: (e) => e.bytes.sum, right: true },
  { header: 'AVG(BODY)', value: (e) => e.bytes.avg.toFixed(1), right: true },
  { header: 'HANDLER', value: (e) => { const h = handlerOf(e.route); return h ? `${h.file}:${h.line}` : ''; } },
];

/** Where the handler of a route is, for people: relative file and 1-based line. */
export function handlerOf(route: Route | undefined): { file: string; line: number; name?: string } | undefined {
  if (!route) return undefined;
  const file = route.handler?.file ?? route.file;
  const range = route.handler?.range ?? route.range;
  return { file, line: range.start.line + 1, ...(route.handler?.name ? { name: route.handler.name } : {}) };
}

function sortValue(e: EndpointStats, key: SortKey): number | string {
  switch (key) {
    case 'errors': return e.s5xx * 1e9 + e.s4xx;
    case 'bytes': return e.bytes.sum;
    case 'uri': return e.uri;
    default: return e[key];
  }
}

function parseFields(value: string | undefined): Partial<FieldMapping> {
  if (!value) return {};
  const names = ACCESS_FIELD_NAMES;
  const out: Record<string, string> = {};
  for (const part of value.split(',')) {
    const [k, v] = part.split('=').map((s) => s.trim());
    if (!names.includes(k) || !v) throw new UsageError(`--field takes NAME=LABEL pairs with NAME one of ${names.join(', ')} (got "${part}")`);
    out[k] = v;
  }
  return out;
}

/** Guesses the layout from the first non-blank line of a file. */
export function guessLogFormat(path: string): AccessLogFormat {
  return guessAccessFormat(readLogHead(path));
}

/**
 * Guesses the layout from the first source that could be opened (a box that cannot be reached is
 * reported when it is read); ltsv when none could.
 */
function guessSourcesFormat(sniffs: readonly (LogSniff | undefined)[]): AccessLogFormat {
  const sniff = sniffs.find((x) => x !== undefined);
  return sniff ? sniff.format ?? 'combined' : 'ltsv';
}

/** What the head of a source looks like; undefined when it cannot be read (its read says why). */
async function sniffSource(s: LogSource, remote: RemoteLogReader | undefined): Promise<LogSniff | undefined> {
  try {
    if (s.kind === 'local') return sniffLog(await localLogHead(s.path));
    if (remote) return sniffLog(Buffer.from(await remote.head(s)));
  } catch { /* unreadable */ }
  return undefined;
}

/** Routes from `--routes`: a JSON / JSON Lines file of Route objects, or a source directory to scan. */
export async function loadRoutes(path: string): Promise<Route[]> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new UsageError(`--routes: ${path} does not exist`);
  if (info.isFile()) {
    const text = await readFile(path, 'utf8');
    const t = text.trim();
    const items = (t.startsWith('[') ? JSON.parse(t) : t.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l))) as Route[];
    return items.filter((r) => r && typeof r.pattern === 'string' && typeof r.method === 'string');
  }
  // why: loaded only for --routes DIR (the source scanner and git), so a plain run starts lighter.
  const { discoverRoutesInDir } = await import('../../node/routesDir');
  const found = await discoverRoutesInDir(path);
  if (!found.routes.length) throw new UsageError(`--routes: no route definitions found in ${found.files} source files under ${path}`);
  return found.routes;
}

async function run(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true, strict: true,
    options: {
      'log-format': { type: 'string' }, pattern: { type: 'string' }, field: { type: 'string' }, time: { type: 'string' },
      routes: { type: 'string' }, 'matching-groups': { type: 'string', short: 'm' }, 'keep-query': { type: 'boolean', short: 'q' },
      'no-static-groups': { type: 'boolean' }, 'no-normalize': { type: 'boolean' }, sort: { type: 'string' },
      reverse: { type: 'boolean', short: 'r' }, limit: { type: 'string' }, top: { type: 'string' }, format: { type: 'string' },
      quiet: { type: 'boolean' }, ...LOG_SOURCE_OPTIONS,
    },
  });
  if (positionals.length === 0) throw new UsageError('give at least one access-log file');
  const sources = parseLogArgs(positionals, io.cwd);
  const format = parseFormat(values.format, ['table', 'md', 'json', 'csv', 'tsv']);
  const sort = (values.sort ?? 'sum') as SortKey;
  if (!SORTS.includes(sort)) throw new UsageError(`--sort must be one of ${SORTS.join(', ')} (got "${values.sort}")`);
  const time = (values.time ?? 'auto') as TimeField;
  if (!['auto', 'reqtime', 'apptime'].includes(time)) throw new UsageError(`--time must be auto, reqtime or apptime (got "${values.time}")`);
  let logFormat = values['log-format'] as AccessLogFormat | undefined;
  if (logFormat !== undefined && !isAccessLogFormat(logFormat)) throw new UsageError(`--log-format must be ltsv, json, combined, combined-alp or an nginx log_format string (got "${logFormat}")`);
  const intOpt = (name: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name} takes a positive integer (got "${v}")`);
    return n;
  };
  // why: a missing file is said before anything is printed, not after an empty table.
  await checkLocalSources(sources);
  const remote = remoteReaderFor(sources, values, io);
  try {
  // why: the app's routes are scanned while the boxes log in and send the start of their logs.
  const routesLoading = values.routes ? loadRoutes(values.routes) : undefined;
  routesLoading?.catch(() => undefined);
  await remote?.connect(sources);
  // why: each source's head is fetched once, all at the same time: on a box every command costs a
  // round trip and the start of the login shell; the read that follows takes the same `cat`.
  const sniffs = await Promise.all(sources.map((s) => sniffSource(s, remote)));
  for (const [i, sniff] of sniffs.entries()) {
    const wrong = sniff ? wrongKindMessage(sniff, 'access') : '';
    if (wrong) { io.stderr.write(`query-insight endpoints: ${describeLogSource(sources[i])}: ${wrong}\n`); return 2; }
  }
  logFormat ??= guessSourcesFormat(sniffs);
  let routes: Route[] | undefined;
  if (routesLoading) routes = await routesLoading;
  let matchingGroups: string[] | undefined;
  if (values['matching-groups'] !== undefined) matchingGroups = splitMatchingGroups(values['matching-groups']);
  const options: AccessAnalysisOptions = {
    format: logFormat, pattern: values.pattern, fields: parseFields(values.field), time, routes, matchingGroups,
    keepQuery: values['keep-query'], staticByExtension: !values['no-static-groups'], normalize: !values['no-normalize'],
    maxEndpoints: intOpt('limit', values.limit),
  };
  let analyzer: AccessAnalyzer;
  try { analyzer = accessAnalyzer(options); } catch (err) { throw new UsageError((err as Error).message); }
  const report = await analyzeAccessSources(sources, analyzer, { remote, byHost: values['by-host'], ranges: rangesOf(values) });
  const lineBase = report.lines;
  const dir = values.reverse ? 1 : -1;
  const rows = [...report.endpoints].sort((a, b) => {
    const x = sortValue(a, sort), y = sortValue(b, sort);
    // why: numbers rank largest first, URIs alphabetically, as alp does; --reverse flips either.
    const c = typeof x === 'string' ? x.localeCompare(y as string) * -dir : ((y as number) - x) * -dir;
    return c || a.uri.localeCompare(b.uri) || a.method.localeCompare(b.method);
  });
  const top = intOpt('top', values.top);
  const shown = top ? rows.slice(0, top) : rows;
  if (format === 'json') {
    io.stdout.write(renderJsonLines(shown.map(toJson)));
  } else {
    io.stdout.write(renderRows(shown, values['by-host'] ? [...COLUMNS, { header: 'HOSTS', value: (e) => hostsCell(e.hosts) }] : COLUMNS, format));
  }
  if (!values.quiet) {
    const parts = [`${lineBase} lines`, `${report.requests} requests`, `${report.endpoints.length} endpoints`];
    if (report.malformed) parts.push(`${report.malformed} malformed`);
    // why: every line is counted once, so lines = requests + malformed + blank can be checked at a glance.
    if (report.blank) parts.push(`${report.blank} blank`);
    if (report.joined) parts.push(`${report.joined} cut-and-joined lines (the request after each cut read, the one before lost)`);
    if (report.overflowRequests) parts.push(`${report.overflowRequests} requests past --limit in one row`);
    if (!report.exactPercentiles) parts.push('percentiles from histograms (±1 %)');
    if (report.timeFrom.length) parts.push(`response time from ${report.timeFrom.map((t) => `${t.field} (${t.requests})`).join(' and ')}`);
    io.stderr.write(`# ${logFormat.includes('$') ? 'log_format' : logFormat}: ${parts.join(', ')}\n`);
    const reasons = Object.entries(report.malformedByReason).sort((a, b) => b[1] - a[1]);
    if (reasons.length) io.stderr.write(`# malformed by reason: ${reasons.map(([r, n]) => `${r}: ${n}`).join(', ')}\n`);
    for (const m of report.malformedExamples) io.stderr.write(`#   line ${m.line}: ${escapeControls(`${m.reason}${m.text ? `: ${m.text}` : ''}`)}\n`);
    for (const r of report.rejectedRoutes) io.stderr.write(`#   route ${r.route.pattern} (${r.route.file}) not usable: ${r.reason}\n`);
    for (const r of report.retiredRegexes) io.stderr.write(`#   matching group ${r} was too slow on some paths and was no longer used\n`);
    if (sources.length > 1) for (const r of report.sources) io.stderr.write(`#   ${r.name}: ${r.lines} lines${r.gzip ? ' (gzip)' : ''}${r.error ? ', incomplete' : ''}\n`);
  }
  // why: the report of what could be read comes first; a source that failed still makes the exit non-zero.
  if (reportSourceErrors(report.sources, io)) return 1;
  // why: after the output, so the report of the lines before the damage is whole; a distinct code for scripts.
  return reportDamagedSources(report.sources, io, 'endpoints') ? 3 : 0;
  } finally {
    await remote?.close();
  }
}

/** The JSON Lines shape of one endpoint (times in seconds). */
export function toJson(e: EndpointStats): Record<string, unknown> {
  const o: Record<string, unknown> = {
    method: e.method, uri: e.uri, kind: e.kind, count: e.count, status: e.status,
    s1xx: e.s1xx, s2xx: e.s2xx, s3xx: e.s3xx, s4xx: e.s4xx, s5xx: e.s5xx, s499: e.s499,
    min: e.min, max: e.max, sum: e.sum, avg: e.avg, stddev: e.stddev, p50: e.p50, p90: e.p90, p95: e.p95, p99: e.p99,
    exact: e.exact, bytes: e.bytes,
  };
  if (e.requestBytes) o.requestBytes = e.requestBytes;
  if (e.hosts) o.hosts = e.hosts;
  const h = handlerOf(e.route);
  if (h) o.handler = h;
  if (e.route) o.framework = e.route.framework;
  return o;
}

export const endpointsCommand: Command = { name: 'endpoints', summary: 'endpoint timings from nginx access logs (alp-like)', help: HELP, run };
