/**
 * The hover on a SQL string in any supported language: the site under the cursor comes from the
 * SiteIndex, its plan from the connection (cached by statement and schema generation), the Markdown
 * from hoverMarkdown.ts. Trusts only the command ids its own links use.
 */
import * as vscode from 'vscode';
import type { SqlSite } from '../../core/model';
import { COMMANDS } from '../commands';
import type { ConnectionManager } from '../connection/connectionManager';
import { toVsRange } from '../convert';
import type { Logger } from '../logger';
import type { SiteIndex } from '../siteIndex';
import { escapeMarkdown, explainHoverMarkdown } from './hoverMarkdown';
import { analyzeSite, refOf, siteAt } from './siteAnalysis';
import { measuredOf } from './measureCommand';
import { describeLimits, MEASURE_ROW_CAP, measureRefusal } from '../../db/measureService';

/**
 * Hook for other features: Markdown appended to the hover of a site, below a rule (the slow-log
 * figures, src/extension/queries/). Undefined adds nothing. It must escape what it quotes and carry
 * no links (the hover trusts only its own commands).
 */
export type SiteHoverSection = (site: SqlSite, uri: vscode.Uri) => string | undefined;

export class ExplainHoverProvider implements vscode.HoverProvider {
  constructor(private readonly index: SiteIndex, private readonly manager: ConnectionManager, private readonly logger: Logger,
    private readonly sections: readonly SiteHoverSection[] = []) {}

  /** The hover with the other features' sections appended. */
  private hover(md: vscode.MarkdownString, range: vscode.Range, site: SqlSite, uri: vscode.Uri): vscode.Hover {
    for (const section of this.sections) {
      const text = section(site, uri);
      if (text) md.appendMarkdown(`\n\n---\n\n${text}`);
    }
    return new vscode.Hover(md, range);
  }

  async provideHover(doc: vscode.TextDocument, position: vscode.Position): Promise<vscode.Hover | undefined> {
    const site = siteAt(this.index, doc.uri, position);
    if (!site) return undefined;
    const range = toVsRange(site.range);
    const state = this.manager.state;
    if (state.kind === 'unconfigured' || state.kind === 'untrusted') {
      const md = new vscode.MarkdownString(`**Query Insight** · no database connection: [Connect to database](command:${COMMANDS.connectDatabase}) to see this statement's plan.`);
      md.isTrusted = { enabledCommands: [COMMANDS.connectDatabase] };
      return this.hover(md, range, site, doc.uri);
    }
    try {
      const a = await analyzeSite(this.manager, site);
      if (!a) {
        const now = this.manager.state;
        const why = now.kind === 'failing' ? now.reason : 'not connected';
        const md = new vscode.MarkdownString(`**Query Insight** · no plan: ${escapeMarkdown(why)}\n\n[Reconnect](command:${COMMANDS.connectDatabase}) · [Show Log](command:${COMMANDS.showLog})`);
        md.isTrusted = { enabledCommands: [COMMANDS.connectDatabase, COMMANDS.showLog] };
        return this.hover(md, range, site, doc.uri);
      }
      const server = a.session.service.db.server;
      const measured = measuredOf(a.session, a.result.generation, site.sql);
      const refusal = measureRefusal(a.result);
      const built = explainHoverMarkdown({
        sql: site.sql, plan: a.result.plan, findings: a.result.findings, substitutions: a.result.substitutions,
        filledSql: a.result.filledSql, explainedSql: a.result.explainedSql, explainedWithout: a.result.explainedWithout, planNote: a.result.planNote, skipped: a.result.skipped, error: a.result.error,
        suggestions: a.advice.suggestions, cached: a.result.cached,
        ...(measured?.measurement ? { measured: { ...measured.measurement, findings: measured.findings } } : {}),
        ...(refusal ? { measureRefusal: refusal } : {}),
        measureLimits: describeLimits({ ms: a.session.service.db.options.queryTimeoutMs ?? 5000, ...(server?.flavor === 'mariadb' ? { rowCap: MEASURE_ROW_CAP } : {}) }),
        server: server ? `${server.flavor === 'mariadb' ? 'MariaDB' : 'MySQL'} ${server.version}` : undefined,
      }, {
        addToDatabase: COMMANDS.addIndexToDatabase, addToSchemaFile: COMMANDS.addIndexToSchemaFile,
        copyDdl: COMMANDS.copyIndexDdl, showLog: COMMANDS.showLog,
        measure: COMMANDS.measureStatement, measureArgs: refOf(doc.uri, site),
        showPlan: { command: COMMANDS.explainStatement, args: refOf(doc.uri, site) },
        args: (s) => refOf(doc.uri, site, { index: s.name, table: s.table }),
        allArgs: refOf(doc.uri, site, { all: true }),
      });
      const md = new vscode.MarkdownString(built.markdown, true);
      // why: the plan is collapsed in a <details> element; everything quoted is escaped (hoverMarkdown.ts).
      md.supportHtml = true;
      // why: never `true` — the hover quotes source text and server messages; only our own links may run.
      md.isTrusted = { enabledCommands: built.enabledCommands };
      return this.hover(md, range, site, doc.uri);
    } catch (err) {
      this.logger.error('hover failed', err);
      return undefined;
    }
  }
}
