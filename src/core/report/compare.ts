/**
 * The comparison of two runs of the same kind (before → after): per endpoint (method + uri) or per
 * query (fingerprint), count, total, mean and the tail latency — p99 for endpoints, p95 for queries
 * (the slow-log statistics keep p95) — with delta and ratio. Rows present in one run only are
 * `new` / `gone`. Sorted by the largest absolute change of total time, regressions and gains alike.
 */
import type { Run, RunInfo, RunKind } from './runs';
import { hostsMismatch, runInfo } from './runs';

/** One figure before → after. `delta` = after − before (a missing side counts as 0); `ratio` = after / before, null when before is 0 or missing. */
export interface Change {
  before: number | null;
  after: number | null;
  delta: number;
  ratio: number | null;
}

export type RowStatus = 'changed' | 'same' | 'new' | 'gone';

export interface ComparisonRow {
  /** `GET /items/:id` or the fingerprint. */
  key: string;
  method?: string;
  uri?: string;
  fingerprint?: string;
  status: RowStatus;
  count: Change;
  /** Total time, seconds. */
  total: Change;
  /** Mean time, seconds. */
  mean: Change;
  /** p99 (endpoints) or p95 (queries), seconds. */
  tail: Change;
}

export interface Comparison {
  kind: RunKind;
  /** Which percentile `tail` is. */
  tailLabel: 'p99' | 'p95';
  before: RunInfo;
  after: RunInfo;
  /** Whole-run figures: requests / statements and total time. */
  totals: { count: Change; total: Change };
  /** Set when the two runs did not read the same hosts: their totals are not like for like. */
  hostsNote?: string;
  rows: ComparisonRow[];
}

/** Thrown when two runs cannot be compared. */
export class CompareError extends Error {}

function change(before: number | null, after: number | null): Change {
  const b = before ?? 0;
  const a = after ?? 0;
  return { before, after, delta: a - b, ratio: before === null || before === 0 || after === null ? null : after / before };
}

interface Flat { key: string; method?: string; uri?: string; fingerprint?: string; count: number; total: number; mean: number; tail: number | null }

function flatten(run: Run): Flat[] {
  if (run.kind === 'access') {
    return (run.endpoints ?? []).map((e) => ({ key: `${e.method} ${e.uri}`, method: e.method, uri: e.uri, count: e.count, total: e.sum, mean: e.avg, tail: e.p99 }));
  }
  return (run.queries ?? []).map((q) => ({ key: q.fingerprint, fingerprint: q.fingerprint, count: q.count, total: q.total, mean: q.mean, tail: q.p95 }));
}

/**
 * Compares two runs of the same kind. Rows are sorted by |Δ total| descending, then by key, so the
 * biggest regression or gain comes first.
 */
export function compareRuns(before: Run, after: Run): Comparison {
  if (before.kind !== after.kind) {
    throw new CompareError(`cannot compare an ${before.kind === 'access' ? 'access-log' : 'slow-log'} run with a ${after.kind === 'access' ? 'access-log' : 'slow-log'} run`);
  }
  const b = new Map(flatten(before).map((r) => [r.key, r]));
  const a = new Map(flatten(after).map((r) => [r.key, r]));
  const keys = new Set([...b.keys(), ...a.keys()]);
  const rows: ComparisonRow[] = [];
  for (const key of keys) {
    const x = b.get(key);
    const y = a.get(key);
    const id = (x ?? y)!;
    const status: RowStatus = !x ? 'new' : !y ? 'gone'
      : x.count === y.count && x.total === y.total && x.mean === y.mean && x.tail === y.tail ? 'same' : 'changed';
    const row: ComparisonRow = {
      key, status,
      count: change(x ? x.count : null, y ? y.count : null),
      total: change(x ? x.total : null, y ? y.total : null),
      mean: change(x ? x.mean : null, y ? y.mean : null),
      tail: change(x ? x.tail : null, y ? y.tail : null),
    };
    if (id.method !== undefined) { row.method = id.method; row.uri = id.uri; } else row.fingerprint = id.fingerprint;
    rows.push(row);
  }
  rows.sort((p, q) => {
    const d = Math.abs(q.total.delta) - Math.abs(p.total.delta);
    // why: deltas are differences of float sums; 0.8 and 0.8000000000000003 are the same change.
    if (Math.abs(d) > 1e-9) return d;
    return p.key < q.key ? -1 : p.key > q.key ? 1 : 0;
  });
  return {
    kind: before.kind,
    tailLabel: before.kind === 'access' ? 'p99' : 'p95',
    before: runInfo(before),
    after: runInfo(after),
    totals: { count: change(before.summary.count, after.summary.count), total: change(before.summary.totalTime, after.summary.totalTime) },
    rows,
    ...withHostsNote(hostsMismatch(before, after)),
  };
}

function withHostsNote(note: string | undefined): { hostsNote?: string } {
  return note ? { hostsNote: note } : {};
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

export function formatCount(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}

/** `×1.50`, or `new` / `gone` / `–` when there is no ratio. */
export function formatRatio(c: Change): string {
  if (c.before === null) return 'new';
  if (c.after === null) return 'gone';
  return c.ratio === null ? '–' : `×${c.ratio.toFixed(2)}`;
}
