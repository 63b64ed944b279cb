/**
 * Rounds in order, keyed by commit: the score and, per endpoint (or statement), the figure that
 * decides its verdict — the mean time per request (per call) — so a series shows which commit moved it.
 */
import { shortCommit, type RunRecord } from './record';

export interface TrendPoint {
  id: string;
  createdAt: string;
  commit: string;
  score: number | null;
  failed?: string;
}

export interface TrendSeries {
  kind: 'endpoint' | 'statement';
  key: string;
  /** Per round, in the order of `points`: mean seconds per request (per call) and the count; null when absent. */
  values: Array<{ mean: number; count: number } | null>;
}

export interface Trend {
  points: TrendPoint[];
  series: TrendSeries[];
}

/** The trend of `records` (oldest first): the score and the `top` endpoints and statements by total time over all rounds. */
export function trendOf(records: readonly RunRecord[], top = 10, only?: 'endpoint' | 'statement'): Trend {
  const sorted = [...records].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  const points = sorted.map((r) => ({ id: r.id, createdAt: r.createdAt, commit: shortCommit(r.git), score: r.score, ...(r.failed ? { failed: r.failed } : {}) }));
  const totals = new Map<string, { kind: 'endpoint' | 'statement'; key: string; total: number }>();
  const add = (kind: 'endpoint' | 'statement', key: string, t: number) => {
    const id = `${kind} ${key}`;
    const e = totals.get(id) ?? { kind, key, total: 0 };
    e.total += t;
    totals.set(id, e);
  };
  for (const r of sorted) {
    if (only !== 'statement') for (const e of r.access?.endpoints ?? []) add('endpoint', `${e.method} ${e.uri}`, e.sum);
    if (only !== 'endpoint') for (const q of r.slow?.queries ?? []) add('statement', q.fingerprint, q.total);
  }
  const picked = [...totals.values()].sort((a, b) => b.total - a.total || (a.key < b.key ? -1 : 1)).slice(0, top);
  const series = picked.map((p) => ({
    kind: p.kind, key: p.key,
    values: sorted.map((r) => {
      if (p.kind === 'endpoint') {
        const e = r.access?.endpoints?.find((x) => `${x.method} ${x.uri}` === p.key);
        return e ? { mean: e.avg, count: e.count } : null;
      }
      const q = r.slow?.queries?.find((x) => x.fingerprint === p.key);
      return q ? { mean: q.mean, count: q.count } : null;
    }),
  }));
  return { points, series };
}
