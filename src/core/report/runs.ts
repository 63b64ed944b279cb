/**
 * A run: one imported access log or slow log, kept as plain, bounded, JSON-serialisable data so
 * two benchmark rounds can be compared later. Only per-endpoint / per-fingerprint summaries are
 * kept (no samples), at most `maxRows` of them (the rest are counted in `omitted`).
 */
import type { AccessReport, EndpointStats } from '../logs/accessAnalysis';
import type { QueryStats } from '../logs/slowStats';
import type { QuantileInterval } from '../logs/quantileInterval';

export type RunKind = 'access' | 'slow';

/** Marker and version written first in every saved run, so a file can be recognised. */
export const RUN_FORMAT = 'query-insight-run';
export const RUN_VERSION = 1;

/** One endpoint of an access-log run. Times in seconds. */
export interface RunEndpoint {
  method: string;
  uri: string;
  count: number;
  /** Total response time. */
  sum: number;
  avg: number;
  min: number;
  max: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  /** Population standard deviation of the response time, and the p99's 95 % confidence interval: what tells a change from noise (absent in runs saved before they were kept). */
  stddev?: number;
  p99Range?: QuantileInterval;
  s1xx: number;
  s2xx: number;
  s3xx: number;
  s4xx: number;
  s5xx: number;
  /** Responses the client closed before the answer (nginx 499, also in s4xx); absent in runs saved before it was kept. */
  s499?: number;
  /** Response time per status class; absent in runs saved before it was measured. */
  time1xx?: number;
  time2xx?: number;
  time3xx?: number;
  time4xx?: number;
  time5xx?: number;
  bytes: number;
  /** Handler location when the endpoint matched a route of the app. */
  handler?: { file: string; line: number };
}

/** One fingerprint of a slow-log run. Times in seconds. */
export interface RunQuery {
  fingerprint: string;
  count: number;
  /** Total query time. */
  total: number;
  mean: number;
  /** Null in a server-stats run: performance_schema keeps no minimum or percentile per window. */
  min: number | null;
  max: number;
  /** The slow-log statistics give p95 (not p99). */
  p95: number | null;
  /** Spread of the query time and of the rows examined per execution (population standard deviations) and the p95's 95 % confidence interval; absent where not measured. */
  stddev?: number;
  p95Range?: QuantileInterval;
  rowsExaminedStddev?: number;
  lockTotal: number;
  rowsSent: number;
  rowsExamined: number;
  /** The slowest execution, cut to `maxExampleChars`. */
  example: string;
  /** The loop signature of the slow log (slowStats.ts): back-to-back repeats, the busiest second, seconds with a call; absent in older runs. */
  repeats?: number;
  peakPerSecond?: number;
  activeSeconds?: number;
  /** Server-stats runs: executions that read with no index / no good index, temporary tables on disk, rows sorted. */
  noIndexUsed?: number;
  noGoodIndexUsed?: number;
  tmpDiskTables?: number;
  sortRows?: number;
}

/** An index a server-stats run never read (src/core/serverStats/indexUsage.ts). */
export interface RunUnusedIndex {
  table: string;
  index: string;
  columns: string[];
  /** Rows written to the table during the window. */
  tableWrites: number;
}

/** Figures of the whole run. */
export interface RunSummary {
  /** Requests (access) or statements (slow). */
  count: number;
  /** Total response time (access) or total query time (slow), seconds. */
  totalTime: number;
  /** Distinct endpoints or fingerprints in the log (before the row limit). */
  rows: number;
  lines: number;
  malformed: number;
}

/** One log a run read: on which host, which file, which bytes of its text, how many lines; a read that failed says why. */
export interface RunRead {
  /** `local` or the box as written (`isu2`, `isu2:2222`). */
  host: string;
  file: string;
  /** Bytes of the file's text read: [from, to). */
  from: number;
  to: number;
  lines: number;
  gzip?: boolean;
  error?: string;
}

export interface Run {
  format: typeof RUN_FORMAT;
  version: typeof RUN_VERSION;
  id: string;
  label: string;
  kind: RunKind;
  /** ISO 8601. */
  createdAt: string;
  /** The log file the run came from, as the user named it. */
  source: string;
  summary: RunSummary;
  /** Rows beyond the limit: how many, and their total time (seconds). */
  omitted: { rows: number; time: number };
  /** The logs read, when the run knows them (runs from several files or boxes; absent in older runs). */
  reads?: RunRead[];
  /** First and last timestamp seen in the entries (ISO 8601), when the log has them. */
  window?: { from: string; to: string };
  endpoints?: RunEndpoint[];
  queries?: RunQuery[];
  /** Set on a statement run read from performance_schema (a `slow` run by its rows) instead of a slow log. */
  origin?: 'performance_schema';
  /** Server-stats runs: seconds between the two snapshots, and the indexes the window never read. */
  windowSeconds?: number;
  unusedIndexes?: RunUnusedIndex[];
}

/** What a list of runs shows (a run without its rows). */
export type RunInfo = Omit<Run, 'endpoints' | 'queries' | 'format' | 'version' | 'unusedIndexes' | 'windowSeconds'>;

export interface RunMeta {
  id: string;
  source: string;
  /** The logs read (hosts, files, byte ranges), kept on the run. */
  reads?: RunRead[];
  /** Defaults to `defaultLabel`. */
  label?: string;
  createdAt?: Date;
}

export interface RunLimits {
  /** Endpoints / fingerprints kept, largest total time first (default 1000). */
  maxRows?: number;
  /** Characters of a fingerprint kept (default 2000) and of an example statement (default 1000). */
  maxFingerprintChars?: number;
  maxExampleChars?: number;
}

function cut(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}

/** "access.log 2024-05-01 12:34" — the file name and the local time of the import. */
export function defaultLabel(source: string, createdAt: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const d = createdAt;
  return `${baseName(source)} ${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

function header(kind: RunKind, meta: RunMeta): Pick<Run, 'format' | 'version' | 'id' | 'label' | 'kind' | 'createdAt' | 'source' | 'reads'> {
  const created = meta.createdAt ?? new Date();
  return {
    format: RUN_FORMAT, version: RUN_VERSION, id: meta.id, kind,
    label: meta.label ?? defaultLabel(meta.source, created), createdAt: created.toISOString(), source: meta.source,
    ...(meta.reads ? { reads: meta.reads } : {}),
  };
}

/** The hosts a run read, sorted; empty when the run does not record its reads. */
export function runHosts(run: Pick<Run, 'reads'>): string[] {
  return [...new Set((run.reads ?? []).map((r) => r.host))].sort();
}

/**
 * A sentence when two runs did not read the same set of hosts (a box missing from one side makes
 * its totals incomparable), else undefined. Runs that do not record their reads are not judged.
 */
export function hostsMismatch(before: Pick<Run, 'reads'>, after: Pick<Run, 'reads'>): string | undefined {
  if (!before.reads || !after.reads) return undefined;
  const b = runHosts(before);
  const a = runHosts(after);
  const onlyB = b.filter((h) => !a.includes(h));
  const onlyA = a.filter((h) => !b.includes(h));
  if (!onlyB.length && !onlyA.length) return undefined;
  const parts = [onlyB.length ? `only the before run read ${onlyB.join(', ')}` : '', onlyA.length ? `only the after run read ${onlyA.join(', ')}` : ''].filter(Boolean);
  return `the runs did not read the same hosts: ${parts.join('; ')}`;
}

function endpointOf(e: EndpointStats): RunEndpoint {
  const out: RunEndpoint = {
    method: e.method, uri: e.uri, count: e.count, sum: e.sum, avg: e.avg, min: e.min, max: e.max,
    p50: e.p50, p90: e.p90, p95: e.p95, p99: e.p99, stddev: e.stddev, ...(e.p99Range ? { p99Range: e.p99Range } : {}),
    s1xx: e.s1xx, s2xx: e.s2xx, s3xx: e.s3xx, s4xx: e.s4xx, s5xx: e.s5xx, s499: e.s499,
    time1xx: e.time1xx, time2xx: e.time2xx, time3xx: e.time3xx, time4xx: e.time4xx, time5xx: e.time5xx, bytes: e.bytes.sum,
  };
  const r = e.route;
  if (r) {
    const file = r.handler?.file ?? r.file;
    const range = r.handler?.range ?? r.range;
    out.handler = { file, line: range.start.line + 1 };
  }
  return out;
}

/** Keeps the `max` rows with the largest time; returns them and what was left out. */
function bounded<T>(rows: readonly T[], time: (r: T) => number, max: number): { kept: T[]; omitted: { rows: number; time: number } } {
  const sorted = [...rows].sort((a, b) => time(b) - time(a));
  const kept = sorted.slice(0, max);
  const rest = sorted.slice(max);
  return { kept, omitted: { rows: rest.length, time: rest.reduce((s, r) => s + time(r), 0) } };
}

/** A run from an access-log analysis. */
export function runFromAccessReport(report: AccessReport, meta: RunMeta, limits: RunLimits = {}): Run {
  const { kept, omitted } = bounded(report.endpoints, (e) => e.sum, limits.maxRows ?? 1000);
  return {
    ...header('access', meta),
    summary: {
      count: report.requests, totalTime: report.endpoints.reduce((s, e) => s + e.sum, 0),
      rows: report.endpoints.length, lines: report.lines, malformed: report.malformed,
    },
    omitted,
    ...(report.window ? { window: report.window } : {}),
    endpoints: kept.map(endpointOf),
  };
}

/** What a slow-log import knows besides the per-fingerprint statistics. */
export interface SlowRunInput {
  stats: readonly QueryStats[];
  lines: number;
  malformed: number;
}

/** A run from slow-log statistics. */
export function runFromSlowStats(input: SlowRunInput, meta: RunMeta, limits: RunLimits = {}): Run {
  const { kept, omitted } = bounded(input.stats, (s) => s.queryTime.total, limits.maxRows ?? 1000);
  let first = Infinity;
  let last = -Infinity;
  for (const s of input.stats) {
    if (s.firstSeen !== undefined && s.firstSeen < first) first = s.firstSeen;
    if (s.lastSeen !== undefined && s.lastSeen > last) last = s.lastSeen;
  }
  const fpMax = limits.maxFingerprintChars ?? 2000;
  const exMax = limits.maxExampleChars ?? 1000;
  return {
    ...header('slow', meta),
    summary: {
      count: input.stats.reduce((s, q) => s + q.count, 0), totalTime: input.stats.reduce((s, q) => s + q.queryTime.total, 0),
      rows: input.stats.length, lines: input.lines, malformed: input.malformed,
    },
    omitted,
    ...(first <= last ? { window: { from: new Date(first).toISOString(), to: new Date(last).toISOString() } } : {}),
    queries: kept.map((s) => ({
      fingerprint: cut(s.fingerprint, fpMax), count: s.count, total: s.queryTime.total, mean: s.queryTime.mean,
      min: s.queryTime.min, max: s.queryTime.max, p95: s.queryTime.p95, lockTotal: s.lockTime.total,
      ...(s.queryTime.stddev !== undefined ? { stddev: s.queryTime.stddev } : {}), ...(s.queryTime.p95Range ? { p95Range: s.queryTime.p95Range } : {}),
      ...(s.rowsExamined.stddev !== undefined ? { rowsExaminedStddev: s.rowsExamined.stddev } : {}),
      rowsSent: s.rowsSent.total, rowsExamined: s.rowsExamined.total, example: cut(s.example, exMax),
      repeats: s.repeats, peakPerSecond: s.peakPerSecond, activeSeconds: s.activeSeconds,
    })),
  };
}

/** The run without its rows. */
export function runInfo(run: Run): RunInfo {
  return {
    id: run.id, label: run.label, kind: run.kind, createdAt: run.createdAt, source: run.source, summary: run.summary, omitted: run.omitted,
    ...(run.origin ? { origin: run.origin } : {}), ...(run.reads ? { reads: run.reads } : {}), ...(run.window ? { window: run.window } : {}),
  };
}

/** One line of JSON, the format marker first (so `looksLikeRun` can tell a run file by its start). */
export function serializeRun(run: Run): string {
  return JSON.stringify(run) + '\n';
}

/** True when text begins like a serialised run. */
export function looksLikeRun(head: string): boolean {
  return /^\s*\{\s*"format"\s*:\s*"query-insight-run"/.test(head);
}

/** Thrown by `parseRun` with a message that says what is wrong. */
export class RunFormatError extends Error {}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function need(cond: boolean, what: string): void {
  if (!cond) throw new RunFormatError(`not a Query Insight run: ${what}`);
}

function checkNumbers(o: Record<string, unknown>, keys: readonly string[], where: string): void {
  for (const k of keys) need(isNum(o[k]), `${where}.${k} is not a number`);
}

/** An optional percentile interval: absent, or `{ low: number, high: number | null }`. */
function checkInterval(v: unknown, where: string): void {
  if (v === undefined) return;
  need(isObj(v) && isNum(v.low) && (v.high === null || isNum(v.high)), `${where} is not an interval`);
}

const ENDPOINT_NUMBERS = ['count', 'sum', 'avg', 'min', 'max', 'p50', 'p90', 'p95', 'p99', 's1xx', 's2xx', 's3xx', 's4xx', 's5xx', 'bytes'] as const;
const ENDPOINT_CLASS_TIMES = ['time1xx', 'time2xx', 'time3xx', 'time4xx', 'time5xx'] as const;
const QUERY_NUMBERS = ['count', 'total', 'mean', 'max', 'lockTotal', 'rowsSent', 'rowsExamined'] as const;

/** Checks that a value has the shape of a run; throws RunFormatError naming the first problem. */
export function validateRun(v: unknown): Run {
  need(isObj(v), 'not a JSON object');
  const o = v as Record<string, unknown>;
  need(o.format === RUN_FORMAT, `"format" is not "${RUN_FORMAT}"`);
  need(o.version === RUN_VERSION, `version ${String(o.version)} is not supported (expected ${RUN_VERSION})`);
  for (const k of ['id', 'label', 'createdAt', 'source']) need(isStr(o[k]), `"${k}" is not a string`);
  need(o.kind === 'access' || o.kind === 'slow', '"kind" is neither "access" nor "slow"');
  need(isObj(o.summary), '"summary" is missing');
  checkNumbers(o.summary as Record<string, unknown>, ['count', 'totalTime', 'rows', 'lines', 'malformed'], 'summary');
  need(isObj(o.omitted), '"omitted" is missing');
  checkNumbers(o.omitted as Record<string, unknown>, ['rows', 'time'], 'omitted');
  if (o.reads !== undefined) {
    need(Array.isArray(o.reads), '"reads" is not a list');
    (o.reads as unknown[]).forEach((r, i) => {
      need(isObj(r) && isStr(r.host) && isStr(r.file), `reads[${i}] has no host/file`);
      checkNumbers(r as Record<string, unknown>, ['from', 'to', 'lines'], `reads[${i}]`);
    });
  }
  if (o.window !== undefined) need(isObj(o.window) && isStr(o.window.from) && isStr(o.window.to), '"window" has no from/to');
  if (o.kind === 'access') {
    need(Array.isArray(o.endpoints), 'an access run has no "endpoints" list');
    (o.endpoints as unknown[]).forEach((e, i) => {
      need(isObj(e), `endpoints[${i}] is not an object`);
      const r = e as Record<string, unknown>;
      need(isStr(r.method) && isStr(r.uri), `endpoints[${i}] has no method/uri`);
      checkNumbers(r, ENDPOINT_NUMBERS, `endpoints[${i}]`);
      for (const k of [...ENDPOINT_CLASS_TIMES, 's499', 'stddev']) need(r[k] === undefined || isNum(r[k]), `endpoints[${i}].${k} is not a number`);
      checkInterval(r.p99Range, `endpoints[${i}].p99Range`);
    });
  } else {
    need(Array.isArray(o.queries), 'a slow run has no "queries" list');
    (o.queries as unknown[]).forEach((q, i) => {
      need(isObj(q), `queries[${i}] is not an object`);
      const r = q as Record<string, unknown>;
      need(isStr(r.fingerprint) && isStr(r.example), `queries[${i}] has no fingerprint/example`);
      checkNumbers(r, QUERY_NUMBERS, `queries[${i}]`);
      // why: a server-stats run has no minimum or p95 (performance_schema keeps neither per window).
      for (const k of ['min', 'p95']) need(isNum(r[k]) || (o.origin === 'performance_schema' && r[k] === null), `queries[${i}].${k} is not a number`);
      for (const k of ['stddev', 'rowsExaminedStddev']) need(r[k] === undefined || isNum(r[k]), `queries[${i}].${k} is not a number`);
      checkInterval(r.p95Range, `queries[${i}].p95Range`);
    });
  }
  return v as Run;
}

/** Parses a saved run (the output of `serializeRun`); throws RunFormatError on anything else. */
export function parseRun(text: string): Run {
  let v: unknown;
  try { v = JSON.parse(text); } catch (err) { throw new RunFormatError(`not a Query Insight run: invalid JSON (${(err as Error).message})`); }
  return validateRun(v);
}
