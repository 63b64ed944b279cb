/**
 * The report panel (one webview panel, revealed if open): it sends the page the list of runs, the
 * shown run, the findings summary, a comparison or a plan, and acts on the page's validated
 * messages. The host never runs anything the page names: it looks runs up by id in the store and
 * does one of a few fixed things (the Plan tab's buttons run the explain and measure commands on
 * the statement the host itself recorded with the plan).
 */
import * as vscode from 'vscode';
import type { Plan } from '../../core/plan/planModel';
import type { PlanTreeExtras } from '../../core/report/planTree';
import type { Comparison } from '../../core/report/compare';
import type { FindingsSummary } from '../../core/report/findingsSummary';
import { comparisonMarkdown } from '../../core/report/markdown';
import { comparisonMessage, validatePageMessage, type ExportTarget, type HostMessage, type PageMessage, type ProfileView } from '../../core/report/protocol';
import { COMMANDS } from '../commands';
import type { SiteRef } from '../explain/siteAnalysis';
import type { Logger } from '../logger';
import { makeNonce, reportHtml } from './reportHtml';
import type { RunStore } from './runStore';
import type { Trend } from '../../core/runs/trend';

export const REPORT_VIEW_TYPE = 'queryInsight.report';

export class ReportPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private ready = false;
  private queue: HostMessage[] = [];
  private comparison: Comparison | undefined;
  /** The statement whose plan the Plan tab shows (its Measure button acts on it). */
  private planSite: SiteRef | undefined;
  private readonly subs: vscode.Disposable[] = [];
  private readonly compared = new vscode.EventEmitter<Comparison>();
  /** Fires after a comparison was shown (the Compare command or the page's Compare button). */
  readonly onDidCompare = this.compared.event;
  /** The last message of each type posted to the page (what the page was given; read by tests). */
  readonly posted = new Map<HostMessage['type'], HostMessage>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly store: RunStore,
    private readonly logger: Logger,
    private readonly findings: () => FindingsSummary,
  ) {
    this.subs.push(store.onDidChange(() => { if (this.panel) this.post({ type: 'runs', runs: store.list() }); }));
  }

  private trendOf: (() => Promise<Trend | undefined>) | undefined;

  /** Where the recorded rounds' trend comes from (the rounds feature); posted whenever the panel opens and when `refresh` is called. */
  setTrendSource(source: () => Promise<Trend | undefined>): void {
    this.trendOf = source;
    this.refreshTrend();
  }

  /** Sends the trend again (after a round was recorded). */
  refreshTrend(): void {
    if (!this.trendOf || !this.panel) return;
    this.trendOf().then((trend) => { if (trend) this.post({ type: 'trend', trend }); }, (err: unknown) => this.logger.warn(`report: trend: ${(err as Error).message}`));
  }

  /**
   * Opens the panel (or reveals it) with the runs and the findings summary, beside the code when a
   * file is open (the figures and the code are read together); `keepFocus` leaves the focus in the editor.
   */
  show(keepFocus = false): void {
    if (this.panel) {
      this.panel.reveal(undefined, true);
    } else {
      const roots = [vscode.Uri.joinPath(this.extensionUri, 'dist'), vscode.Uri.joinPath(this.extensionUri, 'media')];
      const column = { viewColumn: vscode.window.activeTextEditor ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active, preserveFocus: keepFocus };
      const panel = vscode.window.createWebviewPanel(REPORT_VIEW_TYPE, 'Query Insight Report', column, {
        enableScripts: true, localResourceRoots: roots, retainContextWhenHidden: true,
      });
      panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.svg');
      const w = panel.webview;
      w.html = reportHtml({
        cspSource: w.cspSource, nonce: makeNonce(),
        scriptUri: w.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.js')).toString(),
        styleUri: w.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', 'report.css')).toString(),
      });
      this.ready = false;
      this.panel = panel;
      panel.onDidDispose(() => { this.panel = undefined; this.ready = false; this.queue = []; this.planSite = undefined; }, undefined, this.subs);
      w.onDidReceiveMessage((m: unknown) => this.onMessage(m), undefined, this.subs);
    }
    this.post({ type: 'runs', runs: this.store.list() });
    this.post({ type: 'findings', summary: this.findings() });
    this.refreshTrend();
  }

  private post(m: HostMessage): void {
    this.posted.set(m.type, m);
    if (!this.panel) return;
    if (!this.ready) { this.queue = [...this.queue.filter((q) => q.type !== m.type || m.type === 'notice'), m]; return; }
    void this.panel.webview.postMessage(m);
  }

  private onMessage(raw: unknown): void {
    const v = validatePageMessage(raw);
    if (!v.ok) { this.logger.warn(`report page: message rejected: ${v.error}`); return; }
    this.handle(v.message).catch((err) => {
      this.logger.error('report page', err);
      this.post({ type: 'notice', level: 'error', message: (err as Error).message ?? String(err) });
    });
  }

  private async handle(m: PageMessage): Promise<void> {
    switch (m.type) {
      case 'ready': {
        this.ready = true;
        const q = this.queue;
        this.queue = [];
        for (const x of q) void this.panel?.webview.postMessage(x);
        return;
      }
      case 'showRun': await this.showRun(m.runId); return;
      case 'compare': await this.compare(m.beforeId, m.afterId); return;
      case 'exportComparison': await this.exportComparison(m.target); return;
      case 'showPlanAtCursor': await vscode.commands.executeCommand(COMMANDS.explainStatement); return;
      case 'measurePlan':
        if (this.planSite) await vscode.commands.executeCommand(COMMANDS.measureStatement, this.planSite);
        return;
    }
  }

  /** Shows one run's charts; `focus.endpoint` opens them on that endpoint's figures. Returns whether the endpoint is among the run's rows. */
  async showRun(id: string, focus: { endpoint?: { method: string; uri: string } } = {}): Promise<boolean> {
    const run = await this.store.get(id);
    this.show();
    const e = focus.endpoint;
    this.post({ type: 'run', run, ...(e ? { endpoint: { method: e.method, uri: e.uri } } : {}) });
    return !e || !!run.endpoints?.some((x) => x.method === e.method && x.uri === e.uri);
  }

  /** Compares two stored runs and shows the comparison; returns the message the page was given. */
  async compare(beforeId: string, afterId: string): Promise<Extract<HostMessage, { type: 'comparison' }>> {
    const [before, after] = await Promise.all([this.store.get(beforeId), this.store.get(afterId)]);
    const m = comparisonMessage(before, after);
    this.comparison = m.comparison;
    this.show();
    this.post(m);
    this.compared.fire(m.comparison);
    return m;
  }

  /** Shows a CPU profile in the CPU tab, on `endpoint`'s flame graph (else the endpoint with the most CPU). */
  showProfile(profile: ProfileView, endpoint?: string): void {
    this.show(true);
    this.post({ type: 'profile', profile, ...(endpoint ? { endpoint } : {}) });
  }

  /** Whether the panel is open on the plan of this statement (to draw it again after a Measure). */
  showsPlanOf(site: SiteRef): boolean {
    const p = this.planSite;
    return !!this.panel && !!p && p.uri === site.uri && p.line === site.line && p.character === site.character;
  }

  /** Draws a plan as a tree in the Plan tab (the hover's "Show plan", "Explain statement under cursor"); `site` is the statement it belongs to. */
  showPlan(plan: Plan, title: string, sql?: string, extras: PlanTreeExtras = {}, site?: SiteRef): void {
    // why: beside the code, so the statement and its plan are seen together.
    this.show(true);
    this.planSite = site;
    // why: only the plan's model goes to the page; the raw JSON document can be large and the tree does not read it.
    const model: Plan = { flavor: plan.flavor, rows: plan.rows, source: plan.source, ...(plan.cost !== undefined ? { cost: plan.cost } : {}) };
    this.post({
      type: 'plan', title, plan: model, ...(sql ? { sql } : {}),
      ...(extras.findings?.length ? { findings: [...extras.findings] } : {}), ...(extras.measurement ? { measurement: extras.measurement } : {}),
      ...(site ? { measurable: true } : {}),
    });
  }

  /** The last comparison as Markdown into a file (save dialog) or the clipboard; returns the text. */
  async exportComparison(target: ExportTarget): Promise<string | undefined> {
    const c = this.comparison;
    if (!c) { void vscode.window.showInformationMessage('Compare two runs first.'); return undefined; }
    const md = comparisonMarkdown(c, { limit: 0 });
    if (target === 'clipboard') {
      await vscode.env.clipboard.writeText(md);
      this.post({ type: 'notice', level: 'info', message: 'Comparison copied as Markdown.' });
      return md;
    }
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const name = `comparison-${c.before.label}-vs-${c.after.label}.md`.replace(/[^\w.-]+/g, '_');
    const uri = await vscode.window.showSaveDialog({
      title: 'Save the comparison as Markdown', filters: { Markdown: ['md'] },
      ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, name) } : {}),
    });
    if (!uri) return undefined;
    await vscode.workspace.fs.writeFile(uri, Buffer.from(md, 'utf8'));
    this.post({ type: 'notice', level: 'info', message: `Comparison saved to ${vscode.workspace.asRelativePath(uri)}.` });
    return md;
  }

  dispose(): void {
    this.panel?.dispose();
    this.compared.dispose();
    for (const s of this.subs) s.dispose();
  }
}
