/**
 * "Explain statement under cursor" and the hover's "Show plan" link: the statement's plan drawn as a
 * tree in the report's Plan tab (tables, access type, rows estimated and, after Measure, rows read;
 * the findings on their rows). The link passes the site it was built for; the palette command takes
 * the site under the cursor.
 */
import * as vscode from 'vscode';
import type { SqlSite } from '../../core/model';
import type { TreeFinding } from '../../core/report/planTree';
import type { Logger } from '../logger';
import type { ConnectionManager } from '../connection/connectionManager';
import type { ReportServices } from '../report/reportFeature';
import type { SiteIndex } from '../siteIndex';
import { measuredOf } from './measureCommand';
import { analyzeSite, refOf, siteAtCursor, siteOf, type SiteRef } from './siteAnalysis';

/** The plan tab's title for a site: the file as the workspace names it, and the line. */
function titleOf(uri: vscode.Uri, site: SqlSite): string {
  return `${vscode.workspace.asRelativePath(uri)}:${site.range.start.line + 1}`;
}

/** Returns true when a plan was drawn. */
export function explainStatementCommand(index: SiteIndex, manager: ConnectionManager, report: Pick<ReportServices, 'showPlan'>, logger: Logger): (ref?: SiteRef) => Promise<boolean> {
  return async (ref?: SiteRef) => {
    const found = ref ? siteOf(index, ref) : siteAtCursor(index);
    if (!found) {
      void vscode.window.showInformationMessage(ref ? 'Query Insight: the statement moved or changed; hover it again.' : 'Query Insight: put the cursor on a SQL statement in the code first.');
      return false;
    }
    const { uri, site } = found;
    const a = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Query Insight: EXPLAIN' }, () => analyzeSite(manager, site));
    if (!a) {
      const s = manager.state;
      logger.showError('Query Insight: no database connection to explain with', s.kind === 'failing' ? new Error(s.reason) : undefined);
      return false;
    }
    const r = a.result;
    if (!r.plan) {
      const why = r.error?.notExplained ? `not explained: ${r.error.notExplained}` : r.error ? `EXPLAIN failed (${r.error.kind}): ${r.error.message}` : `no plan${r.skipped ? `: ${r.skipped}` : ''}`;
      void vscode.window.showWarningMessage(`Query Insight: ${why}`);
      return false;
    }
    const measured = measuredOf(a.session, r.generation, site.sql);
    const findings: TreeFinding[] = [...r.findings, ...(measured?.findings ?? [])]
      .map((f) => ({ code: f.code, severity: f.severity, message: f.message, planRows: f.planRows }));
    report.showPlan(r.plan, titleOf(uri, site), r.explainedSql ?? r.filledSql ?? site.sql,
      { findings, ...(measured?.measurement ? { measurement: measured.measurement } : {}) }, refOf(uri, site));
    logger.debug(`plan of ${titleOf(uri, site)} shown: ${r.plan.rows.length} rows, ${findings.length} findings${measured?.measurement ? ', measured' : ''}`);
    return true;
  };
}
