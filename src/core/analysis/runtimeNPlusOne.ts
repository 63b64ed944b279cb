/**
 * N+1 proven at run time: a fingerprint executed many times, fast, and in bursts on one connection
 * (see QueryStats.repeats / peakPerSecond) is what a query inside a loop looks like in the slow log.
 *
 * - If a site of that fingerprint is known to sit in a loop (its `loops`, a site the caller lists,
 *   or a static `n-plus-one` finding covering it), the finding is `n-plus-one`, raised to `error`,
 *   and annotated with the observed calls per second.
 * - With no known loop, it is `n-plus-one-suspected` (severity `warning`) at each site.
 * - A pattern whose fingerprint maps to no site is returned in `unmapped` (no place to show it).
 */
import { formatCount } from '../format/numbers';
import type { Finding, SqlSite } from '../model';
import type { QueryStats } from '../logs/slowStats';
import { indexSites, sitesFor } from '../logs/slowMapping';

export interface RuntimeNPlusOneOptions {
  /** Executions needed at all (default 50). */
  minCalls?: number;
  /** Mean query time at most this, in seconds (default 0.005): N+1 queries are individually cheap. */
  maxMeanSeconds?: number;
  /** Share of executions that repeated the same fingerprint on the same connection in a burst (default 0.5). */
  minRepeatShare?: number;
  /** Peak executions within one second (default 20). */
  minPeakPerSecond?: number;
  /** Sites the static analysis found inside loops (in addition to sites whose `loops` is non-empty). */
  loopSites?: readonly SqlSite[];
  /** Static findings; an `n-plus-one` finding whose range covers a site is annotated instead of duplicated. */
  staticFindings?: readonly Finding[];
}

export interface RuntimeNPlusOneResult {
  findings: Finding[];
  /** Fingerprints with the N+1 pattern that map to no site. */
  unmapped: QueryStats[];
}

/** True when the statistics show the N+1 pattern (documented in RuntimeNPlusOneOptions). */
export function looksLikeNPlusOne(s: QueryStats, o: RuntimeNPlusOneOptions = {}): boolean {
  if (s.admin || s.count < (o.minCalls ?? 50)) return false;
  if (s.queryTime.mean > (o.maxMeanSeconds ?? 0.005)) return false;
  if (s.peakPerSecond < (o.minPeakPerSecond ?? 20)) return false;
  // why: performance_schema's digests carry no per-connection order, so there are no repeats to
  // count; such figures only confirm sites already known to sit in a loop (see runtimeNPlusOne).
  if (s.fromServer) return true;
  return s.repeats / s.count >= (o.minRepeatShare ?? 0.5);
}

function within(outer: Finding['range'], inner: Finding['range']): boolean {
  const before = (a: Finding['range']['start'], b: Finding['range']['start']) => a.line < b.line || (a.line === b.line && a.character <= b.character);
  return before(outer.start, inner.start) && before(inner.end, outer.end);
}

function sameSite(a: SqlSite, b: SqlSite): boolean {
  return a.file === b.file && a.range.start.line === b.range.start.line && a.range.start.character === b.range.start.character;
}

/** Where the evidence comes from, as the messages name it. */
function evidence(s: QueryStats): string { return s.fromServer ? 'performance_schema' : 'the slow log'; }

function describe(s: QueryStats): string {
  if (s.fromServer) {
    return `${formatCount(s.count)} calls in ${s.activeSeconds} s (${(s.count / Math.max(1, s.activeSeconds)).toFixed(1)}/s), ${(s.queryTime.mean * 1000).toFixed(2)} ms each`;
  }
  const rate = s.activeSeconds > 0 ? s.count / s.activeSeconds : s.count;
  return `${formatCount(s.count)} calls, peak ${formatCount(s.peakPerSecond)}/s (mean ${rate.toFixed(1)}/s over ${s.activeSeconds} s), `
    + `${(s.queryTime.mean * 1000).toFixed(2)} ms each, ${Math.round((100 * s.repeats) / s.count)}% repeated back-to-back on one connection`;
}

/**
 * Raises or reports N+1 findings from slow-log statistics and the source sites. Pure: the sites and
 * static findings come from the caller.
 */
export function runtimeNPlusOne(stats: readonly QueryStats[], sites: readonly SqlSite[], options: RuntimeNPlusOneOptions = {}): RuntimeNPlusOneResult {
  const index = indexSites(sites);
  const findings: Finding[] = [];
  const unmapped: QueryStats[] = [];
  const statics = (options.staticFindings ?? []).filter((f) => f.code === 'n-plus-one');
  const loopSites = options.loopSites ?? [];
  for (const s of stats) {
    if (!looksLikeNPlusOne(s, options)) continue;
    const { sites: mapped } = sitesFor(index, s.fingerprint);
    if (mapped.length === 0) { unmapped.push(s); continue; }
    const data = {
      fingerprint: s.fingerprint, calls: s.count, peakPerSecond: s.peakPerSecond, activeSeconds: s.activeSeconds,
      meanSeconds: s.queryTime.mean, repeats: s.repeats,
    };
    for (const site of mapped) {
      const stat = statics.find((f) => f.file === site.file && within(f.range, site.range));
      if (stat) {
        findings.push({ ...stat, severity: 'error', message: `${stat.message} — confirmed by ${evidence(s)}: ${describe(s)}`, data: { ...stat.data, ...data } });
        continue;
      }
      const loop = site.loops.length ? site.loops[site.loops.length - 1] : undefined;
      if (loop || loopSites.some((l) => sameSite(l, site))) {
        findings.push({
          code: 'n-plus-one', severity: 'error', file: site.file, range: site.range,
          message: `Query inside a loop (N+1), confirmed by ${evidence(s)}: ${describe(s)}`,
          related: loop ? [{ file: site.file, range: loop.range, message: `the ${loop.kind} loop` }] : undefined,
          data,
        });
      } else if (!s.fromServer) {
        findings.push({
          code: 'n-plus-one-suspected', severity: 'warning', file: site.file, range: site.range,
          message: `Suspected N+1: the slow log shows this query repeated in bursts (${describe(s)}), but no enclosing loop was found in the source`,
          data,
        });
      }
    }
  }
  return { findings, unmapped };
}
