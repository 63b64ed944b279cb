/**
 * The access-log feature in the editor: the Import access log command (the shared log picker: recent
 * logs, nginx's default and logs in the workspace, or a file dialog; a path argument for scripts and tests),
 * progress with cancel, watch mode, the Endpoints view with its sort command, the CodeLenses over
 * handlers, and a run recorded in the report panel after each import. `EndpointsService` holds the
 * state (other features show figures through it: the boxes' logs); `endpointsFeature` registers the
 * commands and the CodeLens provider over it.
 *
 * The log is read with node's fs in the extension host, which runs where the workspace is
 * (extensionKind workspace), so over Remote-SSH the box's own log file is read in place.
 */
import * as vscode from 'vscode';
import { existsSync, statSync } from 'node:fs';
import type { AccessAnalysisOptions, AccessReport, EndpointStats } from '../../core/logs/accessAnalysis';
import { isAccessLogFormat, type AccessLogFormat } from '../../core/logs/accessParsers';
import { guessAccessFormat } from '../../core/logs/logKind';
import { COMMANDS } from '../commands';
import { readConfig } from '../config';
import { command, type Feature } from '../feature';
import type { Logger } from '../logger';
import { logSourceName, pickLogFile, RecentLogs } from '../logs/recentLogs';
import { reportNothingRead } from '../logs/nothingReadNotice';
import { sniffLogFile } from '../../node/logSniffFile';
import type { ReportServices } from '../report/reportFeature';
import type { SiteIndex } from '../siteIndex';
import { AccessLogSession, guessAccessLogFormat } from './accessLogSession';
import { ENDPOINT_SORTS, formatCount, parseFieldMapping, SORT_LABELS, type EndpointSort } from './endpointRows';
import { EndpointsCodeLens } from './endpointsLens';
import { EndpointsModel } from './endpointsModel';
import { ENDPOINTS_VIEW, EndpointsTree } from './endpointsView';
import { LogWatcher } from './logWatcher';

const RECENT_KEY = 'queryInsight.endpoints.recentLogs';
const NGINX_DEFAULT = '/var/log/nginx/access.log';

export interface EndpointsDeps {
  logger: Logger;
  index: SiteIndex;
  /** The report panel's services: each import is recorded as a run. */
  report: ReportServices;
  /** The workspace's state (the imported log's figures, the logs offered again). */
  state: vscode.Memento;
}

/** The Endpoints view, its CodeLenses and the imported access log, with watch mode. */
export class EndpointsService implements vscode.Disposable {
  readonly model: EndpointsModel;
  readonly lens: EndpointsCodeLens;
  private readonly tree: EndpointsTree;
  private readonly view: vscode.TreeView<EndpointStats>;
  private readonly recent: RecentLogs;
  private watcher: LogWatcher | undefined;
  private loading: vscode.CancellationTokenSource | undefined;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly deps: EndpointsDeps) {
    this.model = new EndpointsModel(deps.state, deps.index);
    this.tree = new EndpointsTree(this.model);
    this.view = vscode.window.createTreeView(ENDPOINTS_VIEW, { treeDataProvider: this.tree });
    this.lens = new EndpointsCodeLens(this.model);
    this.recent = new RecentLogs(deps.state, RECENT_KEY);
    this.subscriptions = [this.model, this.tree, this.view, this.lens,
      this.model.onDidChange(() => { this.view.description = this.tree.describe(); }),
      vscode.workspace.onDidChangeConfiguration((ev) => {
        if (ev.affectsConfiguration('queryInsight.endpoints.watchDebounceMs') && this.model.watching) this.startWatch();
      })];
  }

  /** The analysis of the settings for a log whose first bytes are `head` (routes of the workspace included). */
  async analysisOptions(head: Uint8Array): Promise<AccessAnalysisOptions> {
    await this.deps.index.ready();
    return this.optionsFromSettings(() => guessAccessFormat(head));
  }

  /** Shows figures read elsewhere (the boxes' logs) as an import does; a local watch stops. */
  showReport(report: AccessReport, source: string): void {
    this.loading?.cancel();
    this.watcher?.dispose();
    this.watcher = undefined;
    if (this.model.watching) this.model.setWatching(false);
    this.model.setReport(undefined, source, report);
  }

  /** The analysis the settings ask for; `guess` tells the layout from the log itself when the setting says auto. */
  private optionsFromSettings(guess: () => AccessLogFormat): AccessAnalysisOptions {
    const cfg = readConfig(this.deps.logger).endpoints;
    const format: AccessLogFormat = cfg.logFormat !== 'auto' && isAccessLogFormat(cfg.logFormat) ? cfg.logFormat : guess();
    return { format, fields: parseFieldMapping(cfg.fieldMapping), matchingGroups: cfg.matchingGroups, routes: this.model.routes() };
  }

  /** Reads the log with progress (cancellable); records a run; returns false when cancelled or nothing was read. */
  private async load(session: AccessLogSession, mode: 'full' | 'refresh'): Promise<boolean> {
    const { logger } = this.deps;
    this.loading?.cancel();
    const cts = new vscode.CancellationTokenSource();
    this.loading = cts;
    const ac = new AbortController();
    const name = logSourceName(session.path);
    try {
      const result = await vscode.window.withProgress({
        location: mode === 'full' ? vscode.ProgressLocation.Notification : vscode.ProgressLocation.Window,
        title: `Query Insight: reading ${name}`, cancellable: true,
      }, async (progress, token) => {
        const subs = [token.onCancellationRequested(() => ac.abort()), cts.token.onCancellationRequested(() => ac.abort())];
        let last = 0;
        const onProgress = (done: number, total: number) => {
          const pct = total ? (done / total) * 100 : 0;
          progress.report({ increment: pct - last, message: `${(done / 1048576).toFixed(0)} / ${(total / 1048576).toFixed(0)} MB` });
          last = pct;
        };
        try {
          if (mode === 'full') return { mode: 'full' as const, report: await session.load({ signal: ac.signal, onProgress }) };
          return await session.refresh({ signal: ac.signal, onProgress });
        } finally {
          for (const s of subs) s.dispose();
        }
      });
      if (result.mode === 'unchanged') return true;
      const r = result.report;
      if (mode === 'full' && r.requests === 0) {
        // why: a file that holds no request (empty, a slow log, another format) must not replace the figures shown.
        const first = r.malformedExamples[0];
        reportNothingRead(logger, { name, expected: 'access', sniffed: sniffLogFile(session.path).kind, lines: r.lines, ...(first ? { firstProblem: first } : {}) });
        return false;
      }
      this.model.setReport(session, name, r);
      logger.info(`access log ${name} (${result.mode}): ${formatCount(r.lines)} lines, ${formatCount(r.requests)} requests, ${r.endpoints.length} endpoints, ${r.malformed} malformed`);
      for (const m of r.malformedExamples) logger.warn(`${name}:${m.line}: ${m.reason}${m.text ? `: ${m.text}` : ''}`);
      if (session.damage) {
        void vscode.window.showWarningMessage(`${session.damage}: the figures cover the ${formatCount(r.requests)} requests read before it.`, 'Show Log')
          .then((c) => { if (c) logger.show(); });
      } else if (r.malformed && mode === 'full') {
        void vscode.window.showWarningMessage(`${name}: ${formatCount(r.malformed)} of ${formatCount(r.lines)} lines could not be read (first at line ${r.malformedExamples[0]?.line ?? '?'}). Is the log format setting right?`, 'Show Log')
          .then((c) => { if (c) logger.show(); });
      }
      await this.deps.report.recordRun({ kind: 'access', report: r, source: name }).catch((err) => logger.error('recording the run failed', err));
      return true;
    } catch (err) {
      if (ac.signal.aborted) { logger.info(`reading ${name} cancelled`); return false; }
      logger.showError(`Query Insight: reading ${name} failed`, err);
      return false;
    } finally {
      if (this.loading === cts) this.loading = undefined;
      cts.dispose();
    }
  }

  private pickLog(): Promise<string | undefined> {
    return pickLogFile(this.recent, {
      title: 'Import access log', kind: 'access', openLabel: 'Import', placeHolder: 'nginx access log (LTSV, JSON or combined; .gz too)',
      defaults: [NGINX_DEFAULT], defaultsLabel: 'nginx default', workspaceGlob: '**/{*access*.log,*access*.log.gz,*.ltsv,logs/*.log}',
      filters: { 'Access logs': ['log', 'ltsv', 'json', 'jsonl', 'gz', 'txt', '1'], 'All files': ['*'] },
      browseFrom: '/var/log/nginx', listWhenEmpty: true,
    });
  }

  /** Import access log: a path (string or Uri) argument, else the picker. Returns the endpoints shown, undefined when nothing was imported. */
  async importLog(arg?: string | vscode.Uri): Promise<number | undefined> {
    const { logger, index } = this.deps;
    const path = typeof arg === 'string' ? arg : arg instanceof vscode.Uri ? arg.fsPath : await this.pickLog();
    if (!path) return undefined;
    if (!existsSync(path) || !statSync(path).isFile()) {
      logger.showError(`Query Insight: ${path} is not a readable file`);
      return undefined;
    }
    let options: AccessAnalysisOptions;
    try {
      await index.ready();
      options = this.optionsFromSettings(() => guessAccessLogFormat(path));
    } catch (err) {
      logger.showError('Query Insight: the access-log settings are not usable', err);
      return undefined;
    }
    const session = new AccessLogSession(path, options);
    if (!await this.load(session, 'full')) return undefined;
    await this.recent.remember(path);
    if (this.model.watching) this.startWatch();
    return this.model.report?.endpoints.length;
  }

  /** Watch mode on (importing a log first when none is); returns whether it is on. */
  async watch(): Promise<boolean> {
    if (!this.model.session && (await this.importLog()) === undefined) return false;
    if (!this.model.watching) this.startWatch();
    return this.model.watching;
  }

  /** Watch mode off; returns false (whether it is on). */
  stopWatch(): boolean {
    this.watcher?.dispose();
    this.watcher = undefined;
    this.model.setWatching(false);
    return false;
  }

  private startWatch(): void {
    const { logger } = this.deps;
    this.watcher?.dispose();
    const session = this.model.session;
    if (!session) return;
    const debounce = readConfig(logger).endpoints.watchDebounceMs;
    this.watcher = new LogWatcher(session.path, debounce, () => {
      if (!existsSync(session.path)) return; // rotated away; the new file's creation fires again
      void this.load(session, 'refresh');
    }, (err) => logger.error(`watching ${session.path} failed`, err));
    try { this.watcher.start(); } catch (err) { logger.showError(`Query Insight: cannot watch ${session.path}`, err); this.watcher = undefined; this.model.setWatching(false); return; }
    this.model.setWatching(true);
  }

  /** The view's order: the argument, or a quick pick. */
  async sort(arg?: EndpointSort): Promise<EndpointSort> {
    let sort = arg && (ENDPOINT_SORTS as readonly string[]).includes(arg) ? arg : undefined;
    if (!sort) {
      const pick = await vscode.window.showQuickPick(ENDPOINT_SORTS.map((s) => ({ label: SORT_LABELS[s], description: s === this.model.sort ? 'current' : '', sort: s })), { title: 'Sort endpoints by' });
      sort = pick?.sort;
    }
    if (sort) await this.model.setSort(sort);
    return this.model.sort;
  }

  /** Opens the handler of an endpoint (a view item or a CodeLens); false when none is known. */
  async openHandler(e?: { method: string; uri: string }): Promise<boolean> {
    if (!e) return false;
    const model = this.model;
    const route = model.routeOf({ method: e.method, uri: e.uri, route: model.report?.endpoints.find((x) => x.method === e.method && x.uri === e.uri)?.route });
    const h = route?.handler;
    const uri = h?.file ? model.uriOf(h.file) : undefined;
    if (!h?.range || !uri) { void vscode.window.showInformationMessage(`Query Insight: no handler known for ${e.method} ${e.uri}.`); return false; }
    const at = new vscode.Position(h.range.start.line, h.range.start.character);
    await vscode.window.showTextDocument(uri, { selection: new vscode.Range(at, at), preview: true });
    return true;
  }

  /**
   * The CodeLens's click: the run of the imported log (its latest import) in the report, opened on
   * this endpoint's figures; false when the run is gone or the endpoint is not among its kept rows.
   */
  async showFigures(e?: { method: string; uri: string }): Promise<boolean> {
    if (!e || typeof e.method !== 'string' || typeof e.uri !== 'string') return false;
    const { store, panel } = this.deps.report;
    const run = store.list().find((r) => r.kind === 'access' && r.source === this.model.source);
    if (!run) {
      void vscode.window.showInformationMessage(`Query Insight: no run of ${this.model.source || 'the access log'} is kept; import it again to see ${e.method} ${e.uri} in the report.`);
      return false;
    }
    return panel.showRun(run.id, { endpoint: { method: e.method, uri: e.uri } });
  }

  dispose(): void {
    this.watcher?.dispose();
    this.loading?.cancel();
    for (const d of this.subscriptions) d.dispose();
  }
}

/** The access-log commands and the CodeLens provider, over `services.endpoints`. */
export const endpointsFeature: Feature = ({ context, services }) => {
  const { logger, endpoints } = services;
  context.subscriptions.push(
    vscode.languages.registerCodeLensProvider([{ scheme: 'file' }, { scheme: 'vscode-remote' }], endpoints.lens),
    command(logger, COMMANDS.importAccessLog, 'could not import the access log', (arg?: string | vscode.Uri) => endpoints.importLog(arg)),
    // why: the view's description says "watching" and Stop replaces Watch in its title bar: no notification.
    command(logger, COMMANDS.watchAccessLog, 'could not watch the access log', () => endpoints.watch()),
    command(logger, COMMANDS.stopWatchingAccessLog, 'could not stop watching the access log', () => endpoints.stopWatch()),
    command(logger, COMMANDS.sortEndpoints, 'could not sort the endpoints', (arg?: EndpointSort) => endpoints.sort(arg)),
    command(logger, COMMANDS.openEndpointHandler, 'could not open the handler', (e?: { method: string; uri: string }) => endpoints.openHandler(e)),
    command(logger, COMMANDS.showEndpointFigures, 'could not show the endpoint in the report', (e?: { method: string; uri: string }) => endpoints.showFigures(e)),
  );
};
