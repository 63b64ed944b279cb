/**
 * The comparison of two runs of the same kind (before → after): per endpoint (method + uri) or per
 * query (fingerprint), count, total, mean and the tail latency — p99 for endpoints, p95 for queries
 * (the slow-log statistics keep p95) — with delta and ratio. Rows present in one run only are
 * `new` / `gone`. Sorted by the largest absolute change of total time (or of the mean), regressions
 * and gains alike. Access rows also compare the status classes (2xx … 5xx and nginx's 499), query
 * rows the rows examined and sent per execution (the first sign that an index helped). Every figure
 * is rounded to what it measures (times to the microsecond, counts to units, per-execution rows to
 * hundredths, ratios to 4 decimals), so no float noise reaches a table or JSON.
 *
 * Whether a row got faster or slower is decided by what the player controls: the time per request
 * (per call) — its mean and its tail — each judged beyond noise from the two runs' own spread
 * (compareNoise.ts). Total time follows the load as much as the code (a fix lets the benchmark send
 * more requests), so it is shown, never used to colour; the request count and, when both runs know
 * their duration, the throughput are shown beside it.
 */
import { formatCount } from '../format/numbers';
import type { Run, RunEndpoint, RunInfo, RunKind, RunQuery } from './runs';
import { hostsMismatch, runInfo } from './runs';
import { meanShift, noiseBand, sampleSd, tailShift, type NoiseBand, type Shift, type Spread } from './compareNoise';
import type { QuantileInterval } from '../logs/quantileInterval';

/** One figure before → after. `delta` = after − before (a missing side counts as 0); `ratio` = after / before, null when before is 0 or missing. */
export interface Change {
  before: number | null;
  after: number | null;
  delta: number;
  ratio: number | null;
}

export type RowStatus = 'changed' | 'same' | 'new' | 'gone';

/**
 * The reading of a row: `faster` / `slower` when the per-request mean or tail moved beyond noise
 * (and the other did not move the other way), `mixed` when they moved in opposite directions,
 * `noise` when neither moved beyond noise, `unknown` when a side has fewer than 2 requests; rows in
 * one run only are `new` / `gone`.
 */
export type Verdict = 'faster' | 'slower' | 'mixed' | 'noise' | 'unknown' | 'new' | 'gone';

/** How each figure that decides moved (`up` = larger after). */
export interface Shifts {
  mean: Shift;
  tail: Shift;
  /** Query rows: rows examined per execution. */
  rowsExamined?: Shift;
}

export interface ComparisonRow {
  /** `GET /items/:id` or the fingerprint. */
  key: string;
  method?: string;
  uri?: string;
  fingerprint?: string;
  status: RowStatus;
  verdict: Verdict;
  shifts: Shifts;
  count: Change;
  /** Requests (executions) per second, when both runs know how long they lasted. */
  rate?: Change;
  /** Total time, seconds. */
  total: Change;
  /** Mean time, seconds. */
  mean: Change;
  /** p99 (endpoints) or p95 (queries), seconds. */
  tail: Change;
  /** Access rows: responses per status class (`499` is nginx's client-closed, also counted in 4xx). */
  classes?: Record<StatusClass, Change>;
  /** Why the mean did or did not move beyond noise: the counts and the interval of the change (absent under 2 on a side). */
  band?: NoiseBand;
  /** Query rows: mean rows examined and sent per execution. */
  rowsExamined?: Change;
  rowsSent?: Change;
}

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx', '499'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/** What the rows are sorted by: the absolute change of total time (default), of the mean, or of the count. */
export type CompareSort = 'total' | 'mean' | 'count';

export interface Comparison {
  kind: RunKind;
  /** Which percentile `tail` is. */
  tailLabel: 'p99' | 'p95';
  before: RunInfo;
  after: RunInfo;
  /** Whole-run figures: requests / statements, total time and, when both runs know their duration, the throughput per second. */
  totals: { count: Change; total: Change; rate?: Change };
  /** Set when the two runs did not read the same hosts: their totals are not like for like. */
  hostsNote?: string;
  rows: ComparisonRow[];
}

/** Thrown when two runs cannot be compared. */
export class CompareError extends Error {}

/** Decimal places kept per kind of figure. */
const TIME = 6;    // seconds to the microsecond (the slow log's resolution, finer than nginx's)
const COUNT = 0;
const PER_EXEC = 2;
const RATIO = 4;
const RATE = 2;

/** The unit each kind of log writes times in: nginx's $request_time has milliseconds, the slow log microseconds. */
const RESOLUTION: Record<RunKind, number> = { access: 0.001, slow: 0.000001 };

/** `v` rounded to `places` decimals, as the nearest double (so it prints without float noise). */
export function roundTo(v: number, places: number): number {
  const f = 10 ** places;
  const r = Math.round(v * f) / f;
  return Object.is(r, -0) ? 0 : r;
}

function change(before: number | null, after: number | null, places: number): Change {
  const b = before === null ? null : roundTo(before, places);
  const a = after === null ? null : roundTo(after, places);
  return {
    before: b, after: a, delta: roundTo((a ?? 0) - (b ?? 0), places),
    ratio: b === null || b === 0 || a === null ? null : roundTo(a / b, RATIO),
  };
}

interface Flat {
  key: string; method?: string; uri?: string; fingerprint?: string; count: number; total: number; mean: number; tail: number | null;
  classes?: Record<StatusClass, number>; rowsExamined?: number; rowsSent?: number;
  /** Sample standard deviation of the time, the tail's interval, and the spread of rows examined per execution. */
  sd: number; tailRange?: QuantileInterval; rowsSd?: number;
}

function endpointSd(e: RunEndpoint): number {
  return sampleSd(e.count, e.avg, e.stddev, e.min, e.max);
}

function querySd(q: RunQuery): number {
  return sampleSd(q.count, q.mean, q.stddev, q.min, q.max);
}

function flatten(run: Run): Flat[] {
  if (run.kind === 'access') {
    return (run.endpoints ?? []).map((e) => ({
      key: `${e.method} ${e.uri}`, method: e.method, uri: e.uri, count: e.count, total: e.sum, mean: e.avg, tail: e.p99,
      classes: { '2xx': e.s2xx, '3xx': e.s3xx, '4xx': e.s4xx, '5xx': e.s5xx, '499': e.s499 ?? 0 },
      sd: endpointSd(e), ...(e.p99Range ? { tailRange: e.p99Range } : {}),
    }));
  }
  return (run.queries ?? []).map((q) => ({
    key: q.fingerprint, fingerprint: q.fingerprint, count: q.count, total: q.total, mean: q.mean, tail: q.p95,
    rowsExamined: q.count ? q.rowsExamined / q.count : 0, rowsSent: q.count ? q.rowsSent / q.count : 0,
    sd: querySd(q), ...(q.p95Range ? { tailRange: q.p95Range } : {}),
    ...(q.rowsExaminedStddev !== undefined ? { rowsSd: q.count > 1 ? q.rowsExaminedStddev * Math.sqrt(q.count / (q.count - 1)) : q.rowsExaminedStddev } : {}),
  }));
}

/** Seconds a run lasted: a server-stats window, or the span of its entries' timestamps; undefined when unknown or zero. */
export function runSeconds(run: Pick<Run, 'windowSeconds' | 'window'>): number | undefined {
  if (run.windowSeconds !== undefined && run.windowSeconds > 0) return run.windowSeconds;
  if (!run.window) return undefined;
  const s = (Date.parse(run.window.to) - Date.parse(run.window.from)) / 1000;
  return s > 0 ? s : undefined;
}

/** The reading of a row from the shifts of its mean and tail (see `Verdict`). */
export function verdictOf(shifts: Shifts): Verdict {
  const dir = (s: Shift) => (s === 'up' ? 1 : s === 'down' ? -1 : 0);
  const m = dir(shifts.mean);
  const t = dir(shifts.tail);
  if (m && t && m !== t) return 'mixed';
  if (m || t) return (m || t) > 0 ? 'slower' : 'faster';
  return shifts.mean === 'unknown' ? 'unknown' : 'noise';
}

function judge(x: Flat | undefined, y: Flat | undefined, kind: RunKind): { verdict: Verdict; shifts: Shifts; band?: NoiseBand } {
  if (!x || !y) return { verdict: x ? 'gone' : 'new', shifts: { mean: 'unknown', tail: 'unknown' } };
  const spread = (f: Flat): Spread => ({ n: f.count, mean: f.mean, sd: f.sd });
  const band = noiseBand(spread(x), spread(y), RESOLUTION[kind]);
  const shifts: Shifts = {
    mean: meanShift(spread(x), spread(y), RESOLUTION[kind]),
    tail: tailShift(x.tailRange, y.tailRange, x.tail, y.tail),
  };
  if (x.rowsExamined !== undefined && y.rowsExamined !== undefined) {
    // why: rows examined are whole numbers, so a resolution of 1 row; a run without their spread cannot be judged
    shifts.rowsExamined = x.rowsSd === undefined || y.rowsSd === undefined ? 'unknown'
      : meanShift({ n: x.count, mean: x.rowsExamined, sd: x.rowsSd }, { n: y.count, mean: y.rowsExamined, sd: y.rowsSd }, 1);
  }
  return { verdict: verdictOf(shifts), shifts, ...(band ? { band: roundBand(band) } : {}) };
}

function roundBand(b: NoiseBand): NoiseBand {
  return { ...b, diff: roundTo(b.diff, TIME), low: roundTo(b.low, TIME), high: roundTo(b.high, TIME) };
}

/** Why a row reads as it does, in words: `n 3 → 4, mean −9.6 ms, 99 % interval −25.1 ms … +5.9 ms`. */
export function bandText(band: NoiseBand | undefined, per = 'request'): string {
  if (!band) return `fewer than 2 values per ${per} on a side: too few to judge`;
  const pct = Math.round(band.level * 100);
  return `n ${formatCount(band.nBefore)} → ${formatCount(band.nAfter)}, mean ${formatDelta(band.diff, 's')}, ${pct} % interval ${formatDelta(band.low, 's')} … ${formatDelta(band.high, 's')}`
    + (band.low <= 0 && band.high >= 0 ? ' (holds 0)' : '');
}

/**
 * Compares two runs of the same kind. Rows are sorted by |Δ total| (or |Δ mean|, |Δ count|)
 * descending, then by key, so the biggest regression or gain comes first.
 */
export function compareRuns(before: Run, after: Run, sort: CompareSort = 'total'): Comparison {
  if (before.kind !== after.kind) {
    throw new CompareError(`cannot compare an ${before.kind === 'access' ? 'access-log' : 'slow-log'} run with a ${after.kind === 'access' ? 'access-log' : 'slow-log'} run`);
  }
  const b = new Map(flatten(before).map((r) => [r.key, r]));
  const a = new Map(flatten(after).map((r) => [r.key, r]));
  const secondsB = runSeconds(before);
  const secondsA = runSeconds(after);
  const perSecond = secondsB !== undefined && secondsA !== undefined;
  const keys = new Set([...b.keys(), ...a.keys()]);
  const rows: ComparisonRow[] = [];
  for (const key of keys) {
    const x = b.get(key);
    const y = a.get(key);
    const id = (x ?? y)!;
    const status: RowStatus = !x ? 'new' : !y ? 'gone'
      : x.count === y.count && x.total === y.total && x.mean === y.mean && x.tail === y.tail ? 'same' : 'changed';
    const row: ComparisonRow = {
      key, status, ...judge(x, y, before.kind),
      count: change(x ? x.count : null, y ? y.count : null, COUNT),
      ...(perSecond ? { rate: change(x ? x.count / secondsB : null, y ? y.count / secondsA : null, RATE) } : {}),
      total: change(x ? x.total : null, y ? y.total : null, TIME),
      mean: change(x ? x.mean : null, y ? y.mean : null, TIME),
      tail: change(x ? x.tail : null, y ? y.tail : null, TIME),
    };
    if (id.classes) {
      const classes = {} as Record<StatusClass, Change>;
      for (const k of STATUS_CLASSES) classes[k] = change(x?.classes ? x.classes[k] : null, y?.classes ? y.classes[k] : null, COUNT);
      row.classes = classes;
    }
    if (id.rowsExamined !== undefined) {
      row.rowsExamined = change(x?.rowsExamined ?? null, y?.rowsExamined ?? null, PER_EXEC);
      row.rowsSent = change(x?.rowsSent ?? null, y?.rowsSent ?? null, PER_EXEC);
    }
    if (id.method !== undefined) { row.method = id.method; row.uri = id.uri; } else row.fingerprint = id.fingerprint;
    rows.push(row);
  }
  rows.sort((p, q) => {
    const d = Math.abs(q[sort].delta) - Math.abs(p[sort].delta);
    // why: deltas are rounded to what they measure, so equal changes compare equal.
    if (d !== 0) return d;
    return p.key < q.key ? -1 : p.key > q.key ? 1 : 0;
  });
  return {
    kind: before.kind,
    tailLabel: before.kind === 'access' ? 'p99' : 'p95',
    before: runInfo(before),
    after: runInfo(after),
    totals: {
      count: change(before.summary.count, after.summary.count, COUNT), total: change(before.summary.totalTime, after.summary.totalTime, TIME),
      ...(perSecond ? { rate: change(before.summary.count / secondsB, after.summary.count / secondsA, RATE) } : {}),
    },
    rows,
    ...withHostsNote(hostsMismatch(before, after)),
  };
}

function withHostsNote(note: string | undefined): { hostsNote?: string } {
  return note ? { hostsNote: note } : {};
}

/** The unit of a column of seconds: its name, the factor from seconds, the decimals shown. */
export interface TimeUnit { name: 's' | 'ms' | 'µs'; factor: number; digits: number }

/**
 * One unit for a whole column of seconds, chosen from its largest magnitude (s from 1 s up, ms
 * from 1 ms, µs below), so a column never mixes `1349.000 s` with `0.0240 ms`.
 */
export function timeUnitFor(values: Iterable<number | null>): TimeUnit {
  let max = 0;
  for (const v of values) if (v !== null && Math.abs(v) > max) max = Math.abs(v);
  if (max >= 0.9995) return { name: 's', factor: 1, digits: 3 };
  if (max >= 0.0009995) return { name: 'ms', factor: 1000, digits: 2 };
  return { name: 'µs', factor: 1e6, digits: 0 };
}

/** Seconds in a column's unit (no unit name); `signed` writes `+` / `−` / `±`; null is `-`. */
export function formatIn(v: number | null, u: TimeUnit, signed = false): string {
  if (v === null) return '-';
  let t = (Math.abs(v) * u.factor).toFixed(u.digits);
  // why: a column in seconds may hold a sub-millisecond mean: two significant digits, never a false 0.000
  // (a change that small beside seconds stays ±0.000: it is no change at that scale).
  if (!signed && v !== 0 && Number(t) === 0) t = String(Number((Math.abs(v) * u.factor).toPrecision(2)));
  if (!signed) return v < 0 ? `-${t}` : t;
  return (Number(t) === 0 ? '±' : v > 0 ? '+' : '−') + t;
}

/** A delta for people: `+1.234 s`, `-12 ms`, `+3`; `unit` 's' shows seconds in s or ms. */
export function formatDelta(v: number, unit: 's' | 'n'): string {
  const sign = v > 0 ? '+' : v < 0 ? '−' : '±';
  return sign + (unit === 's' ? formatSeconds(Math.abs(v)) : formatCount(Math.abs(v)));
}

/** Seconds for people: `1.234 s` from one second up, `12.3 ms` below. */
export function formatSeconds(v: number): string {
  if (v >= 0.9995) return `${v.toFixed(3)} s`;
  const ms = v * 1000;
  return `${ms === 0 ? '0' : ms.toPrecision(3)} ms`;
}

export { formatCount };

/** `×1.50`, or `new` / `gone` / `–` when there is no ratio. */
export function formatRatio(c: Change): string {
  if (c.before === null) return 'new';
  if (c.after === null) return 'gone';
  if (c.ratio === null) return '–';
  // why: a fix that cuts time 200-fold reads ×0.0049, not ×0.00
  return `×${c.ratio > 0 && c.ratio < 0.1 ? c.ratio.toPrecision(2) : c.ratio.toFixed(2)}`;
}
