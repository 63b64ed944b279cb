/**
 * A kept run's rows back in the shapes the views read: an access report (Endpoints view, the
 * handlers' CodeLens) and slow-log statistics (Queries view, CodeLens, the N+1 evidence). A run keeps
 * summaries, not samples, so what it never kept (exact status codes, byte spreads, per-host counts)
 * comes back empty; the figures shown — counts, totals, mean, percentiles, status classes, the loop
 * signature of a statement — are the ones recorded.
 */
import type { AccessReport, EndpointStats } from '../logs/accessAnalysis';
import type { QueryStats } from '../logs/slowStats';
import type { Run } from '../report/runs';

/** The access report of an access-log run. */
export function reportFromRun(run: Run): AccessReport {
  const endpoints: EndpointStats[] = (run.endpoints ?? []).map((e) => ({
    method: e.method, uri: e.uri, kind: (e.handler ? 'route' : 'auto') as EndpointStats['kind'],
    count: e.count, min: e.min, max: e.max, sum: e.sum, avg: e.avg, stddev: e.stddev ?? 0,
    p50: e.p50, p90: e.p90, p95: e.p95, p99: e.p99, exact: true, ...(e.p99Range ? { p99Range: e.p99Range } : {}),
    status: {}, s1xx: e.s1xx, s2xx: e.s2xx, s3xx: e.s3xx, s4xx: e.s4xx, s5xx: e.s5xx, s499: e.s499 ?? 0,
    time1xx: e.time1xx ?? 0, time2xx: e.time2xx ?? 0, time3xx: e.time3xx ?? 0, time4xx: e.time4xx ?? 0, time5xx: e.time5xx ?? 0,
    bytes: { sum: e.bytes, min: 0, max: 0, avg: e.count ? e.bytes / e.count : 0 },
  }));
  return {
    lines: run.summary.lines, requests: run.summary.count, blank: 0, malformed: run.summary.malformed, malformedByReason: {}, malformedExamples: [],
    joined: 0, timeFrom: [], retiredRegexes: [], endpoints, exactPercentiles: true, overflowRequests: 0, rejectedRoutes: [],
  };
}

/** The per-fingerprint statistics of a statement run. */
export function statsFromRun(run: Run): QueryStats[] {
  return (run.queries ?? []).map((q) => ({
    fingerprint: q.fingerprint, count: q.count,
    queryTime: { total: q.total, mean: q.mean, max: q.max, min: q.min ?? 0, p95: q.p95 ?? q.max, ...(q.stddev !== undefined ? { stddev: q.stddev } : {}), ...(q.p95Range ? { p95Range: q.p95Range } : {}) },
    lockTime: { total: q.lockTotal, mean: q.count ? q.lockTotal / q.count : 0, max: 0 },
    rowsSent: { total: q.rowsSent, mean: q.count ? q.rowsSent / q.count : 0, max: 0 },
    rowsExamined: { total: q.rowsExamined, mean: q.count ? q.rowsExamined / q.count : 0, max: 0, ...(q.rowsExaminedStddev !== undefined ? { stddev: q.rowsExaminedStddev } : {}) },
    examinedPerSent: q.rowsSent ? q.rowsExamined / q.rowsSent : null,
    example: q.example, exampleQueryTime: q.max, exampleSchema: '', admin: false,
    peakPerSecond: q.peakPerSecond ?? 0, activeSeconds: q.activeSeconds ?? 0, repeats: q.repeats ?? 0,
    fullScan: 0, filesort: 0, tmpTableOnDisk: 0, ...(run.origin === 'performance_schema' ? { fromServer: true as const } : {}),
  }));
}
