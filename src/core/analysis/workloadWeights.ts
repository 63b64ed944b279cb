/**
 * How much each statement of the workload counts when the index set is chosen (workloadAdvice.ts): its
 * total time where something measured it, else once. One function weighs the statements; each source
 * of what is known gives it the same thing, a total time and a call count per fingerprint:
 * - a slow log (its statistics per fingerprint),
 * - performance_schema.events_statements_summary_by_digest (what the server counted since it started),
 * - a recorded run (`runs record`, the editor's rounds: its statements, from a slow log or a server-stats window).
 * Statements are matched to the code's sites by fingerprint, as `slow --source` matches them.
 */
import type { SqlSite } from '../model';
import type { QueryStats } from '../logs/slowStats';
import { indexSites, sitesFor } from '../logs/slowMapping';
import type { Run } from '../report/runs';
import type { DigestRow } from '../serverStats/snapshot';
import { digestFingerprint } from '../serverStats/digestText';
import type { WorkloadStatement } from './workloadAdvice';

/** One measured statement: its fingerprint, how often it ran, its total time in seconds. */
export interface MeasuredStatement { fingerprint: string; count: number; total: number }

/** What is known of how often the statements run, and where it comes from (for the summary line). */
export interface StatementTimes { source: string; statements: readonly MeasuredStatement[] }

export const fromSlowStats = (source: string, stats: readonly QueryStats[]): StatementTimes =>
  ({ source, statements: stats.map((s) => ({ fingerprint: s.fingerprint, count: s.count, total: s.queryTime.total })) });

/** A recorded run's statements (a run of an access log alone has none). */
export const fromRun = (source: string, run: Pick<Run, 'queries'>): StatementTimes =>
  ({ source, statements: (run.queries ?? []).map((q) => ({ fingerprint: q.fingerprint, count: q.count, total: q.total })) });

/** Digest rows of one database (SUM_TIMER_WAIT is in picoseconds); rows of other schemas and the overflow row are left out. */
export function fromDigests(source: string, rows: readonly DigestRow[], database: string): StatementTimes {
  const statements: MeasuredStatement[] = [];
  for (const r of rows) {
    if (r.text === null || r.digest === null || (r.schema ?? '').toLowerCase() !== database.toLowerCase()) continue;
    statements.push({ fingerprint: digestFingerprint(r.text).fingerprint, count: Number(r.counters.count) || 0, total: (Number(r.counters.timerWait) || 0) / 1e12 });
  }
  return { source, statements };
}

export interface Weighing {
  /** Statements of the workload seen in the source. */
  seen: number;
  /** The summary's words: `weights: total seconds in SOURCE (n of m statements seen there, the others 0)`. */
  note: string;
}

/**
 * Sets each statement's weight to the total seconds its sites' fingerprint spent in `times` (0 when it was
 * not seen there); without a source every statement counts once (weight left unset).
 */
export function weighWorkload(statements: WorkloadStatement[], sites: readonly SqlSite[], times: StatementTimes | undefined): Weighing {
  if (!times) return { seen: 0, note: 'weights: every statement once (nothing measured given)' };
  const index = indexSites(sites);
  const time = new Map<string, number>();
  for (const m of times.statements) {
    for (const site of sitesFor(index, m.fingerprint).sites) time.set(site.sql, (time.get(site.sql) ?? 0) + m.total);
  }
  let seen = 0;
  for (const st of statements) {
    const t = time.get(st.site.sql);
    st.weight = t ?? 0;
    if (t !== undefined) seen++;
  }
  return { seen, note: `weights: total seconds in ${times.source} (${seen} of ${statements.length} statements seen there, the others 0)` };
}
