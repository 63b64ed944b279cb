/**
 * A measured window (two performance_schema snapshots) as the rest of the product sees it: a
 * statement run (compared by fingerprint with slow-log runs and other windows), the per-fingerprint
 * statistics the Queries view, CodeLens, hover and runtime N+1 read, and the CLI's JSON records.
 */
import type { QueryStats } from '../logs/slowStats';
import { indexSites, sitesFor } from '../logs/slowMapping';
import type { SqlSite } from '../model';
import { defaultLabel, RUN_FORMAT, RUN_VERSION, type Run, type RunMeta } from '../report/runs';
import { diffDigests, statementShapes, type DigestDiff, type StatementShape } from './digestDiff';
import { unusedIndexes, type IndexUsageResult } from './indexUsage';
import type { ServerSnapshot } from './snapshot';

/** Everything a window gives. */
export interface ServerStatsResult {
  shapes: StatementShape[];
  diff: DigestDiff;
  indexes: IndexUsageResult;
  /** The database both snapshots were taken for. */
  database: string;
  server: string;
}

/**
 * The figures of the window between two snapshots, restricted to statements run with the snapshots'
 * database as the default one (the app's connections), the tool's own reads left out.
 */
export function serverStatsBetween(before: ServerSnapshot, after: ServerSnapshot): ServerStatsResult {
  const schemas = [after.database];
  const diff = diffDigests(before, after, { schemas });
  return { shapes: statementShapes(diff.digests), diff, indexes: unusedIndexes(before, after, { schemas }), database: after.database, server: after.server };
}

/** One statement shape as a JSON record (`query-insight server-stats --format json`). Times in seconds. */
export interface StatementRecord {
  kind: 'statement';
  fingerprint: string;
  count: number;
  totalTime: number;
  maxTime: number;
  rowsExamined: number;
  rowsSent: number;
  noIndexUsed: number;
  noGoodIndexUsed: number;
  tmpDiskTables: number;
  sortRows: number;
  sites: { file: string; line: number }[];
  /** False when maxTime is the digest's maximum since before the window (an upper bound). */
  maxExact: boolean;
  /** A digest of this shape was reset during the window: the figures are a lower bound. */
  reset?: true;
  /** The server cut the digest text: the fingerprint is a prefix, mapped to no site. */
  truncated?: true;
  digestText: string;
}

export interface UnusedIndexRecord { kind: 'unused-index'; table: string; index: string; columns: string[]; tableWrites: number; tableReads: number }

/** Statement records with their source sites (none when `sites` is empty or the shape is truncated). */
export function statementRecords(shapes: readonly StatementShape[], sites: readonly SqlSite[]): StatementRecord[] {
  const index = indexSites(sites);
  return shapes.map((s) => {
    const mapped = s.truncated ? [] : sitesFor(index, s.fingerprint).sites;
    return {
      kind: 'statement', fingerprint: s.fingerprint, count: s.count, totalTime: s.totalTime, maxTime: s.maxTime,
      rowsExamined: s.rowsExamined, rowsSent: s.rowsSent, noIndexUsed: s.noIndexUsed, noGoodIndexUsed: s.noGoodIndexUsed,
      tmpDiskTables: s.tmpDiskTables, sortRows: s.sortRows, sites: mapped.map((x) => ({ file: x.file, line: x.range.start.line + 1 })),
      maxExact: s.maxExact, ...(s.reset ? { reset: true as const } : {}), ...(s.truncated ? { truncated: true as const } : {}), digestText: s.text,
    };
  });
}

export function unusedIndexRecords(r: IndexUsageResult): UnusedIndexRecord[] {
  return r.unused.map((u) => ({ kind: 'unused-index', table: u.table, index: u.index, columns: u.columns, tableWrites: u.tableWrites, tableReads: u.tableReads }));
}

/**
 * The shapes as slow-log statistics, so every consumer of QueryStats (Queries view, CodeLens,
 * hover, runtime N+1) works unchanged. performance_schema keeps no per-window minimum or
 * percentile: min and p95 hold the mean, and front ends that print them check `fromServer`.
 * `repeats` is 0 (no per-connection order is known); `peakPerSecond` is the window's mean rate (a
 * lower bound of the peak) and `activeSeconds` the window's length.
 */
export function queryStatsOf(shapes: readonly StatementShape[], windowSeconds: number): QueryStats[] {
  const secs = Math.max(1, Math.round(windowSeconds));
  return shapes.map((s) => {
    const mean = s.count > 0 ? s.totalTime / s.count : 0;
    const fig = (total: number, max: number) => ({ total, mean: s.count > 0 ? total / s.count : 0, max });
    return {
      fingerprint: s.fingerprint, count: s.count,
      queryTime: { total: s.totalTime, mean, max: s.maxTime, min: mean, p95: mean },
      lockTime: fig(s.lockTime, 0), rowsSent: fig(s.rowsSent, 0), rowsExamined: fig(s.rowsExamined, 0),
      examinedPerSent: s.rowsSent > 0 ? s.rowsExamined / s.rowsSent : null,
      example: s.text, exampleQueryTime: s.maxTime, exampleSchema: s.schemas[0] ?? '', admin: false,
      peakPerSecond: Math.ceil(s.count / secs), activeSeconds: secs, repeats: 0,
      fullScan: s.noIndexUsed, filesort: 0, tmpTableOnDisk: s.tmpDiskTables, fromServer: true,
    };
  });
}

/** A server-stats window as a run: a statement run by its rows (`kind: 'slow'`), marked by `origin`. */
export function runFromServerStats(result: ServerStatsResult, meta: RunMeta, limits: { maxRows?: number } = {}): Run {
  const max = limits.maxRows ?? 1000;
  const kept = result.shapes.slice(0, max);
  const rest = result.shapes.slice(max);
  const created = meta.createdAt ?? new Date();
  return {
    format: RUN_FORMAT, version: RUN_VERSION, id: meta.id, kind: 'slow', origin: 'performance_schema',
    label: meta.label ?? defaultLabel(meta.source, created), createdAt: created.toISOString(), source: meta.source,
    summary: {
      count: result.shapes.reduce((n, s) => n + s.count, 0), totalTime: result.shapes.reduce((n, s) => n + s.totalTime, 0),
      rows: result.shapes.length, lines: result.diff.digests.length, malformed: 0,
    },
    omitted: { rows: rest.length, time: rest.reduce((n, s) => n + s.totalTime, 0) },
    queries: kept.map((s) => ({
      fingerprint: s.fingerprint, count: s.count, total: s.totalTime, mean: s.count > 0 ? s.totalTime / s.count : 0, min: null,
      max: s.maxTime, p95: null, lockTotal: s.lockTime, rowsSent: s.rowsSent, rowsExamined: s.rowsExamined,
      example: s.text.length > 1000 ? s.text.slice(0, 999) + '…' : s.text,
      noIndexUsed: s.noIndexUsed, noGoodIndexUsed: s.noGoodIndexUsed, tmpDiskTables: s.tmpDiskTables, sortRows: s.sortRows,
    })),
    windowSeconds: result.diff.windowSeconds,
    unusedIndexes: result.indexes.unused.map((u) => ({ table: u.table, index: u.index, columns: u.columns, tableWrites: u.tableWrites })),
  };
}
