/**
 * How slow-log evidence changes the N+1 diagnostics (pure, unit-tested): core's runtimeNPlusOne
 * decides which static findings the log confirms and which sites show the pattern without a known
 * loop; this merges its answer into the list the N+1 feature shows. A confirmed static finding keeps
 * its message (the quick fix finds it by that) with the observed rates appended and is raised to an
 * error; findings the static analysis did not have (`n-plus-one-suspected`, or a loop it did not
 * flag) are added.
 */
import { runtimeNPlusOne, type RuntimeNPlusOneOptions } from '../../core/analysis/runtimeNPlusOne';
import type { QueryStats } from '../../core/logs/slowStats';
import type { Finding, Range, SqlSite } from '../../core/model';

const CONFIRMED = / — confirmed by (?:the slow log|performance_schema): /;

function sameRange(a: Range, b: Range): boolean {
  return a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line && a.end.character === b.end.character;
}

/** Statistics and sites in, a function from the static findings to the findings to show out. */
export function runtimeOverlay<F extends Finding>(stats: readonly QueryStats[], sites: readonly SqlSite[], options: RuntimeNPlusOneOptions = {}): (statics: readonly F[]) => (F | Finding)[] {
  return (statics) => {
    const { findings } = runtimeNPlusOne(stats, sites, { ...options, staticFindings: statics });
    const out: (F | Finding)[] = [];
    const used = new Set<Finding>();
    for (const f of statics) {
      const rt = findings.find((r) => r.code === f.code && r.file === f.file && sameRange(r.range, f.range) && CONFIRMED.test(r.message));
      if (!rt) { out.push(f); continue; }
      used.add(rt);
      const evidence = rt.message.slice(rt.message.search(CONFIRMED));
      out.push({ ...f, severity: 'error', message: `${f.message}${evidence}`, data: { ...f.data, runtime: rt.data } });
    }
    for (const r of findings) if (!used.has(r) && !CONFIRMED.test(r.message)) out.push(r);
    return out;
  };
}
