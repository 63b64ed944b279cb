/**
 * What a measured window says about the code, as findings:
 * - `full-scan-observed` on each statement whose executions the server counted as reading with no
 *   index (SUM_NO_INDEX_USED): observed, not estimated — it stands even where EXPLAIN on sampled
 *   values chose an index (other values, other plans);
 * - `unused-index` on the definition of an index, in the app's schema file, that the window never
 *   read while its table was read and written: its write cost without a benefit in this workload.
 */
import { formatCount } from '../format/numbers';
import { indexSites, sitesFor } from '../logs/slowMapping';
import type { Finding, SqlSite } from '../model';
import type { StatementShape } from './digestDiff';
import type { IndexLocation } from './indexLocations';
import type { UnusedIndex } from './indexUsage';

const n = (v: number): string => formatCount(v);

/** `full-scan-observed` findings at the sites of shapes with noIndexUsed > 0. */
export function fullScanFindings(shapes: readonly StatementShape[], sites: readonly SqlSite[]): Finding[] {
  const index = indexSites(sites);
  const out: Finding[] = [];
  for (const s of shapes) {
    if (s.noIndexUsed <= 0 || s.truncated) continue;
    const perCall = s.count > 0 ? Math.round(s.rowsExamined / s.count) : 0;
    for (const site of sitesFor(index, s.fingerprint).sites) {
      out.push({
        code: 'full-scan-observed', severity: 'warning', file: site.file, range: site.range,
        message: `The server ran this statement without an index ${n(s.noIndexUsed)} of ${n(s.count)} times in the measured window `
          + `(performance_schema SUM_NO_INDEX_USED; ${n(perCall)} rows examined per call)${s.reset ? ' — at least, its counters were reset during the window' : ''}`,
        data: { fingerprint: s.fingerprint, noIndexUsed: s.noIndexUsed, count: s.count, rowsExamined: s.rowsExamined },
      });
    }
  }
  return out;
}

/** `unused-index` findings where the indexes are defined (`locate` finds the schema file's definition). */
export function unusedIndexFindings(unused: readonly UnusedIndex[], locate: (u: UnusedIndex) => IndexLocation | undefined): { findings: Finding[]; unplaced: UnusedIndex[] } {
  const findings: Finding[] = [];
  const unplaced: UnusedIndex[] = [];
  for (const u of unused) {
    const at = locate(u);
    if (!at) { unplaced.push(u); continue; }
    findings.push({
      code: 'unused-index', severity: 'info', file: at.path, range: at.range, table: u.table,
      message: `Index ${u.index} (${u.columns.join(', ')}) was never read in the measured window while ${u.table} was read ${n(u.tableReads)} times; `
        + `it was kept up to date for ${n(u.tableWrites)} rows written to ${u.table} in that time`,
      data: { schema: u.schema, table: u.table, index: u.index, columns: u.columns, tableWrites: u.tableWrites, tableReads: u.tableReads },
    });
  }
  return { findings, unplaced };
}
