/**
 * "Measure statement under cursor" (also the hover's Measure link): runs one SELECT under ANALYZE
 * within the time limit and row cap (src/db/measureService.ts), only on this explicit action. The
 * result is kept on the connection's session for the hover, which shows it beside the estimates.
 */
import { formatWhole } from '../../core/format/numbers';
import * as vscode from 'vscode';
import { describeLimits, measureStatement, type MeasureResult } from '../../db/measureService';
import type { ConnectionManager, ConnectionSession } from '../connection/connectionManager';
import type { Logger } from '../logger';
import type { SiteIndex } from '../siteIndex';
import { refOf, siteAtCursor, siteOf, type SiteRef } from './siteAnalysis';

const memoKey = (generation: number, sql: string): string => `measure:${generation}:${sql}`;

/** The last measurement of a statement on this session, for the hover. */
export function measuredOf(session: ConnectionSession, generation: number, sql: string): MeasureResult | undefined {
  return session.memo.get(memoKey(generation, sql)) as MeasureResult | undefined;
}

const fmt = (n: number): string => formatWhole(n);

/** `measured` is called with the statement after a measurement (the report's open Plan tab draws it again). */
export function measureStatementCommand(index: SiteIndex, manager: ConnectionManager, logger: Logger,
  measured: (site: SiteRef) => Promise<unknown> = async () => undefined): (ref?: SiteRef) => Promise<MeasureResult | undefined> {
  return async (ref?: SiteRef) => {
    const found = ref ? siteOf(index, ref) : siteAtCursor(index);
    if (!found) {
      void vscode.window.showInformationMessage('Query Insight: put the cursor on a SQL statement in the code first.');
      return undefined;
    }
    const { uri, site } = found;
    const sql = site.sql;
    const got = await manager.explain(sql, site.limit);
    if (!got) { void vscode.window.showWarningMessage('Query Insight: no database connection to measure with.'); return undefined; }
    const m = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Query Insight: measuring (ANALYZE runs the SELECT)…' },
      () => measureStatement(got.session.service, sql, { limit: site.limit }));
    got.session.memo.set(memoKey(got.result.generation, sql), m);
    logger.info(`measure: ${m.sent ?? `not sent (${m.refused ?? m.error?.message ?? ''})`}`);
    if (m.refused) void vscode.window.showInformationMessage(`Query Insight: not measured: ${m.refused}`);
    else if (m.error) void vscode.window.showWarningMessage(`Query Insight: measure failed: ${m.error.message}`);
    else if (m.measurement) {
      const x = m.measurement;
      const est = m.explain.plan?.rows.reduce((s, r) => s + (r.rows ?? 0), 0) ?? 0;
      await measured(refOf(uri, site));
      void vscode.window.showInformationMessage(`Query Insight: measured — read ${x.capped ? 'at least ' : ''}${fmt(x.rowsRead)} rows (EXPLAIN estimated ~${fmt(est)}), returned ${fmt(x.rowsSent)}, ${x.ms.toFixed(1)} ms (${describeLimits(m.limits)}). Hover the statement for the details.`);
    }
    return m;
  };
}
