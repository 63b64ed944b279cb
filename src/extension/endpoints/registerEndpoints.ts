/**
 * The access-log feature in the editor: the Import access log command (the shared log picker: recent
 * logs, nginx's default and logs in the workspace, or a file dialog; a path argument for scripts and tests),
 * progress with cancel, watch mode, the Endpoints view with its sort command, the CodeLenses over
 * handlers, and a run recorded in the report panel after each import.
 *
 * The log is read with node's fs in the extension host, which runs where the workspace is
 * (extensionKind workspace), so over Remote-SSH the box's own log file is read in place.
 */
import * as vscode from 'vscode';
import { existsSync, statSync } from 'node:fs';
import type { AccessAnalysisOptions, AccessReport } from '../../core/logs/accessAnalysis';
import { isAccessLogFormat, type AccessLogFormat } from '../../core/logs/accessParsers';
import { guessAccessFormat } from '../../core/logs/logKind';
import { COMMANDS } from '../commands';
import { readConfig } from '../config';
import { command } from '../feature';
import type { Logger } from '../logger';
import { logSourceName, pickLogFile, RecentLogs } from '../logs/recentLogs';
import { reportNothingRead } from '../logs/nothingReadNotice';
import { sniffLogFile } from '../../node/logSniffFile';
import type { ReportServices } from '../report/registerReport';
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
  /** The report panel's services, when that feature is present. */
  report?: ReportServices;
}

/** What other features may do with the Endpoints view. */
export interface EndpointsApi {
  /** Shows figures read elsewhere (the boxes' logs) as an import does; a local watch stops. */
  showReport(report: AccessReport, source: string): void;
  /** The analysis of the settings for a log whose first bytes are `head` (routes of the workspace included). */
  analysisOptions(head: Uint8Array): Promise<AccessAnalysisOptions>;
}

export function registerEndpoints(context: vscode.ExtensionContext, deps: EndpointsDeps): EndpointsApi {
  const { logger, index } = deps;
  const model = new EndpointsModel(context.workspaceState, index);
  const tree = new EndpointsTree(model);
  const view = vscode.window.createTreeView(ENDPOINTS_VIEW, { treeDataProvider: tree });
  const lens = new EndpointsCodeLens(model);
  let watcher: LogWatcher | undefined;
  let loading: vscode.CancellationTokenSource | undefined;
  context.subscriptions.push(model, tree, view, lens, { dispose: () => { watcher?.dispose(); loading?.cancel(); } },
    vscode.languages.registerCodeLensProvider([{ scheme: 'file' }, { scheme: 'vscode-remote' }], lens),
    model.onDidChange(() => { view.description = tree.describe(); }));

  const recent = new RecentLogs(context.workspaceState, RECENT_KEY);

  /** The analysis the settings ask for; `guess` tells the layout from the log itself when the setting says auto. */
  const analysisOptions = (guess: () => AccessLogFormat): AccessAnalysisOptions => {
    const cfg = readConfig(logger).endpoints;
    const format: AccessLogFormat = cfg.logFormat !== 'auto' && isAccessLogFormat(cfg.logFormat) ? cfg.logFormat : guess();
    return { format, fields: parseFieldMapping(cfg.fieldMapping), matchingGroups: cfg.matchingGroups, routes: model.routes() };
  };

  /** Reads the log with progress (cancellable); records a run; returns false when cancelled. */
  const load = async (session: AccessLogSession, mode: 'full' | 'refresh'): Promise<boolean> => {
    loading?.cancel();
    const cts = new vscode.CancellationTokenSource();
    loading = cts;
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
      model.setReport(session, name, r);
      logger.info(`access log ${name} (${result.mode}): ${formatCount(r.lines)} lines, ${formatCount(r.requests)} requests, ${r.endpoints.length} endpoints, ${r.malformed} malformed`);
      for (const m of r.malformedExamples) logger.warn(`${name}:${m.line}: ${m.reason}${m.text ? `: ${m.text}` : ''}`);
      if (session.damage) {
        void vscode.window.showWarningMessage(`${session.damage}: the figures cover the ${formatCount(r.requests)} requests read before it.`, 'Show Log')
          .then((c) => { if (c) logger.show(); });
      } else if (r.malformed && mode === 'full') {
        void vscode.window.showWarningMessage(`${name}: ${formatCount(r.malformed)} of ${formatCount(r.lines)} lines could not be read (first at line ${r.malformedExamples[0]?.line ?? '?'}). Is the log format setting right?`, 'Show Log')
          .then((c) => { if (c) logger.show(); });
      }
      if (deps.report) await deps.report.recordRun({ kind: 'access', report: r, source: name }).catch((err) => logger.error('recording the run failed', err));
      return true;
    } catch (err) {
      if (ac.signal.aborted) { logger.info(`reading ${name} cancelled`); return false; }
      logger.showError(`Query Insight: reading ${name} failed`, err);
      return false;
    } finally {
      if (loading === cts) loading = undefined;
      cts.dispose();
    }
  };

  const pickLog = (): Promise<string | undefined> => pickLogFile(recent, {
    title: 'Import access log', kind: 'access', openLabel: 'Import', placeHolder: 'nginx access log (LTSV, JSON or combined; .gz too)',
    defaults: [NGINX_DEFAULT], defaultsLabel: 'nginx default', workspaceGlob: '**/{*access*.log,*access*.log.gz,*.ltsv,logs/*.log}',
    filters: { 'Access logs': ['log', 'ltsv', 'json', 'jsonl', 'gz', 'txt', '1'], 'All files': ['*'] },
    browseFrom: '/var/log/nginx', listWhenEmpty: true,
  });

  const importLog = async (arg?: string | vscode.Uri): Promise<number | undefined> => {
    const path = typeof arg === 'string' ? arg : arg instanceof vscode.Uri ? arg.fsPath : await pickLog();
    if (!path) return undefined;
    if (!existsSync(path) || !statSync(path).isFile()) {
      logger.showError(`Query Insight: ${path} is not a readable file`);
      return undefined;
    }
    let options: AccessAnalysisOptions;
    try {
      await index.ready();
      options = analysisOptions(() => guessAccessLogFormat(path));
    } catch (err) {
      logger.showError('Query Insight: the access-log settings are not usable', err);
      return undefined;
    }
    const session = new AccessLogSession(path, options);
    if (!await load(session, 'full')) return undefined;
    await recent.remember(path);
    if (model.watching) startWatch();
    return model.report?.endpoints.length;
  };

  const startWatch = () => {
    watcher?.dispose();
    const session = model.session;
    if (!session) return;
    const debounce = readConfig(logger).endpoints.watchDebounceMs;
    watcher = new LogWatcher(session.path, debounce, () => {
      if (!existsSync(session.path)) return; // rotated away; the new file's creation fires again
      void load(session, 'refresh');
    }, (err) => logger.error(`watching ${session.path} failed`, err));
    try { watcher.start(); } catch (err) { logger.showError(`Query Insight: cannot watch ${session.path}`, err); watcher = undefined; model.setWatching(false); return; }
    model.setWatching(true);
  };

  context.subscriptions.push(
    command(logger, COMMANDS.importAccessLog, 'could not import the access log', importLog),
    // why: the view's description says "watching" and Stop replaces Watch in its title bar: no notification.
    command(logger, COMMANDS.watchAccessLog, 'could not watch the access log', async () => {
      if (!model.session && (await importLog()) === undefined) return false;
      if (!model.watching) startWatch();
      return model.watching;
    }),
    command(logger, COMMANDS.stopWatchingAccessLog, 'could not stop watching the access log', () => {
      watcher?.dispose();
      watcher = undefined;
      model.setWatching(false);
      return false;
    }),
    command(logger, COMMANDS.sortEndpoints, 'could not sort the endpoints', async (arg?: EndpointSort) => {
      let sort = arg && (ENDPOINT_SORTS as readonly string[]).includes(arg) ? arg : undefined;
      if (!sort) {
        const pick = await vscode.window.showQuickPick(ENDPOINT_SORTS.map((s) => ({ label: SORT_LABELS[s], description: s === model.sort ? 'current' : '', sort: s })), { title: 'Sort endpoints by' });
        sort = pick?.sort;
      }
      if (sort) await model.setSort(sort);
      return model.sort;
    }),
    command(logger, COMMANDS.openEndpointHandler, 'could not open the handler', async (e?: { method: string; uri: string }) => {
      if (!e) return false;
      const route = model.routeOf({ method: e.method, uri: e.uri, route: model.report?.endpoints.find((x) => x.method === e.method && x.uri === e.uri)?.route });
      const h = route?.handler;
      const uri = h?.file ? model.uriOf(h.file) : undefined;
      if (!h?.range || !uri) { void vscode.window.showInformationMessage(`Query Insight: no handler known for ${e.method} ${e.uri}.`); return false; }
      const at = new vscode.Position(h.range.start.line, h.range.start.character);
      await vscode.window.showTextDocument(uri, { selection: new vscode.Range(at, at), preview: true });
      return true;
    }),
    vscode.workspace.onDidChangeConfiguration((ev) => {
      if (ev.affectsConfiguration('queryInsight.endpoints.watchDebounceMs') && model.watching) startWatch();
    }),
  );
  return {
    analysisOptions: async (head) => {
      await index.ready();
      return analysisOptions(() => guessAccessFormat(head));
    },
    showReport: (report, source) => {
      loading?.cancel();
      watcher?.dispose();
      watcher = undefined;
      if (model.watching) model.setWatching(false);
      model.setReport(undefined, source, report);
    },
  };
}
