/**
 * The slow query log in the editor: "Import slow query log" (a recent log or the file dialog, or a
 * path argument; progress with cancel), watch mode (reload on change, debounced; appended lines
 * only, a full re-read after truncation or rotation), the Queries view, the figures CodeLens above
 * each statement the log maps to, the figures in the EXPLAIN hover (through its section hook), and
 * runtime N+1 evidence handed to the N+1 diagnostics. Each import is recorded as a run.
 */
import { formatCount } from '../../core/format/numbers';
import { existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { emptySlowSummary } from '../../core/logs/slowLogParser';
import type { QueryStats, SortKey } from '../../core/logs/slowStats';
import type { SqlSite } from '../../core/model';
import { COMMANDS } from '../commands';
import { readConfig } from '../config';
import { command, type Feature } from '../feature';
import type { SiteHoverSection } from '../explain/explainHover';
import { SOURCE_SELECTOR } from '../explain/explainFeature';
import type { BaseServices } from '../extension';
import { LogWatcher } from '../endpoints/logWatcher';
import { logSourceName, pickLogFile, RecentLogs } from '../logs/recentLogs';
import { reportNothingRead } from '../logs/nothingReadNotice';
import { sniffLogFile } from '../../node/logSniffFile';
import type { NPlusOneService } from '../nplus1/nPlusOneFeature';
import { buildQueryModel, codeLensTitle, hoverSection, lensRows, QUERY_SORT_LABELS, QUERY_SORTS, siteKey, type QueryModel } from './queryRows';
import { QUERIES_VIEW, QueriesTree, type SiteTarget } from './queriesView';
import { runtimeOverlay } from './runtimeOverlay';
import { SlowLogSession, type SlowLogSnapshot } from './slowLogSession';

const RECENT_KEY = 'queryInsight.recentSlowLogs';
const LOADED_CONTEXT = 'queryInsight.queriesLoaded';
const WATCHING_CONTEXT = 'queryInsight.slowLogWatching';
const REMAP_DEBOUNCE_MS = 300;
/** Where Debian / Ubuntu packages and the ISUCON images put the slow log. */
const SLOW_LOG_DEFAULTS = ['/var/log/mysql/mysql-slow.log', '/var/log/mysql/slow.log', '/var/log/mariadb/mariadb-slow.log', '/tmp/slow-query.log'];

/** What the import command returns (for tests and callers). */
export interface SlowImportResult {
  source: string;
  statements: number;
  fingerprints: number;
  mapped: number;
  malformed: number;
}

export class QueriesService implements vscode.Disposable, vscode.CodeLensProvider {
  private session: SlowLogSession | undefined;
  private snapshot: SlowLogSnapshot | undefined;
  private source = '';
  private sort: SortKey = 'sum';
  private model: QueryModel | undefined;
  private watcher: LogWatcher | undefined;
  private remapTimer: NodeJS.Timeout | undefined;
  private reloading = false;
  private reloadAgain = false;
  private readonly recent: RecentLogs;
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  readonly tree: QueriesTree;
  private readonly view: vscode.TreeView<import('./queriesView').QueryNode>;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly services: BaseServices, private readonly nPlusOne: NPlusOneService) {
    this.recent = new RecentLogs(services.state, RECENT_KEY);
    this.tree = new QueriesTree(COMMANDS.openQuerySite, (file) => this.uriOf(file));
    this.view = vscode.window.createTreeView(QUERIES_VIEW, { treeDataProvider: this.tree, showCollapseAll: true });
    this.subscriptions.push(this.tree, this.view, this.lensesChanged,
      services.index.onDidChange(() => this.scheduleRemap()));
  }

  /** The EXPLAIN hover's slow-log section for a site (undefined when no log maps to it). */
  readonly hoverSection: SiteHoverSection = (site) => {
    const rows = this.model?.bySite.get(siteKey(site));
    return rows?.length ? hoverSection(rows, this.source) : undefined;
  };

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const model = this.model;
    const file = model ? this.services.index.get(doc.uri) : undefined;
    if (!model || !file) return [];
    return lensRows(file.facts.sites, model).map(({ line, row }) => new vscode.CodeLens(new vscode.Range(line, 0, line, 0), {
      title: codeLensTitle(row), command: COMMANDS.revealQuery, arguments: [row.stats.fingerprint],
      tooltip: 'From the imported slow query log: calls, total time, p95, rows examined per row sent. Click to show it in the Queries view.',
    }));
  }

  /** The import command: a path (string or Uri) argument, else a recent log or the file dialog. */
  async importCommand(arg?: unknown): Promise<SlowImportResult | undefined> {
    const path = arg instanceof vscode.Uri ? arg.fsPath : typeof arg === 'string' ? arg
      : await pickLogFile(this.recent, {
        title: 'Import slow query log', kind: 'slow', openLabel: 'Import', placeHolder: 'MySQL / MariaDB slow query log (.gz too)',
        defaults: SLOW_LOG_DEFAULTS, workspaceGlob: '**/{*slow*.log,*slow*.log.gz,*-slow.log*}',
        filters: { 'Slow query logs': ['log', 'gz', 'txt', '1'], 'All files': ['*'] },
      });
    if (!path) return undefined;
    if (!existsSync(path) || !statSync(path).isFile()) throw new Error(`${path} is not a readable file`);
    const session = new SlowLogSession(path);
    const source = logSourceName(path);
    const snapshot = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Query Insight: reading ${basename(path)}`, cancellable: true },
      (progress, token) => {
        const abort = new AbortController();
        const sub = token.onCancellationRequested(() => abort.abort(new vscode.CancellationError()));
        let last = 0;
        return session.load({
          signal: abort.signal,
          onProgress: (read, total) => {
            const pct = total > 0 ? Math.min(100, (read / total) * 100) : 0;
            progress.report({ increment: pct - last, message: `${(read / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB` });
            last = pct;
          },
        }).finally(() => sub.dispose());
      });
    if (snapshot.summary.entries === 0) {
      // why: a file that holds no statement (empty, an access log) must not replace the figures shown.
      const first = snapshot.summary.problems[0];
      reportNothingRead(this.services.logger, { name: source, expected: 'slow', sniffed: sniffLogFile(path).kind, lines: snapshot.summary.lines, ...(first ? { firstProblem: first } : {}) });
      return undefined;
    }
    const wasWatching = !!this.watcher;
    this.watcher?.dispose();
    this.watcher = undefined;
    this.session = session;
    this.source = source;
    await this.recent.remember(path);
    if (wasWatching) this.startWatch(session);
    await this.services.index.ready();
    this.apply(snapshot);
    const result = this.result();
    this.services.logger.info(`slow log ${source}: ${result.statements} statements, ${result.fingerprints} fingerprints (${result.mapped} mapped to the source), ${result.malformed} malformed`
      + (snapshot.overflowEntries ? `, ${snapshot.overflowEntries} entries beyond the fingerprint limit` : ''));
    for (const p of snapshot.summary.problems) this.services.logger.warn(`${source}:${p.line}: ${p.reason}${p.text ? `: ${p.text}` : ''}`);
    try {
      await this.services.report.recordRun({ kind: 'slow', stats: snapshot.stats, lines: snapshot.summary.lines, malformed: snapshot.summary.malformed, source });
    } catch (err) {
      this.services.logger.error('recording the slow-log run failed', err);
    }
    if (snapshot.damage) {
      // why: a cut or corrupt .gz is read up to the damage; the user must know the figures stop there.
      this.services.logger.warn(snapshot.damage);
      void vscode.window.showWarningMessage(`${snapshot.damage}: the figures cover the ${formatCount(result.statements)} statements read before it.`, 'Show Log')
        .then((c) => { if (c) this.services.logger.show(); });
      return result;
    }
    // why: the figures are in the view; only skipped entries ask for something (a look at the log).
    const summary = `Slow log: ${formatCount(result.statements)} statements, ${result.fingerprints} query shapes, ${result.mapped} found in the source`;
    if (result.malformed) {
      void vscode.window.showWarningMessage(`${summary} · ${formatCount(result.malformed)} malformed entries skipped.`, 'Show Log')
        .then((c) => { if (c === 'Show Log') this.services.logger.show(); });
    } else {
      vscode.window.setStatusBarMessage(`$(check) ${summary}`, 8000);
    }
    return result;
  }

  /** Shows figures measured elsewhere (a server-stats window) as the current ones, as an import does. */
  showStats(stats: QueryStats[], source: string): void {
    if (this.watcher) {
      this.watcher.dispose();
      this.watcher = undefined;
      void vscode.commands.executeCommand('setContext', WATCHING_CONTEXT, false);
    }
    this.session = undefined;
    this.source = source;
    const entries = stats.reduce((n, q) => n + q.count, 0);
    this.apply({ stats, summary: { ...emptySlowSummary(), entries }, overflowEntries: 0, gzip: false });
  }

  /** Watch mode on (importing a log first when none is); returns whether it is on. The view says so, and Stop replaces Watch. */
  async watchCommand(): Promise<boolean> {
    if (this.watcher) return true;
    if (!this.session) {
      const imported = await vscode.commands.executeCommand<SlowImportResult | undefined>(COMMANDS.importSlowLog);
      if (!imported || !this.session) return false;
    }
    this.startWatch(this.session);
    this.describe();
    await vscode.commands.executeCommand('setContext', WATCHING_CONTEXT, true);
    return true;
  }

  /** Watch mode off; returns false (whether it is on). */
  async stopWatchCommand(): Promise<boolean> {
    this.watcher?.dispose();
    this.watcher = undefined;
    this.describe();
    await vscode.commands.executeCommand('setContext', WATCHING_CONTEXT, false);
    return false;
  }

  /** The view's description: the log, how many statements, whether it is watched. */
  private describe(): void {
    const n = this.snapshot?.summary.entries;
    this.view.description = this.model && n !== undefined
      ? `${formatCount(n)} statements${this.watcher ? ' · watching' : ''}` : undefined;
  }

  private startWatch(session: SlowLogSession): void {
    const watcher = new LogWatcher(session.path, readConfig(this.services.logger).slowLog.watchDebounceMs, () => { void this.reload(session); },
      (err) => this.services.logger.error(`watching ${session.path} failed`, err));
    watcher.start();
    this.watcher = watcher;
  }

  /** Watch mode's reload: the appended lines, or the whole file after truncation or rotation (then also a new run). */
  private async reload(session: SlowLogSession): Promise<void> {
    if (session !== this.session) return;
    if (this.reloading) { this.reloadAgain = true; return; }
    this.reloading = true;
    try {
      const { mode, snapshot } = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: `Query Insight: reading ${this.source}` }, () => session.refresh());
      if (mode === 'unchanged' || session !== this.session) return;
      this.apply(snapshot);
      this.services.logger.info(`slow log ${this.source}: ${mode === 'full' ? 'truncated or rotated, read again' : 'appended lines read'}, ${snapshot.summary.entries} statements`);
      if (snapshot.damage) this.services.logger.warn(snapshot.damage);
      if (mode === 'full') {
        await this.services.report.recordRun({ kind: 'slow', stats: snapshot.stats, lines: snapshot.summary.lines, malformed: snapshot.summary.malformed, source: this.source })
          .catch((err: unknown) => this.services.logger.error('recording the slow-log run failed', err));
      }
    } catch (err) {
      // why: a log being rotated can be missing for a moment; the next change reloads it.
      this.services.logger.warn(`slow log ${this.source}: reload failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.reloading = false;
      if (this.reloadAgain) { this.reloadAgain = false; void this.reload(session); }
    }
  }

  /** The Queries view's order: the argument, or a quick pick. */
  async sortCommand(arg?: unknown): Promise<void> {
    let sort = typeof arg === 'string' && (QUERY_SORTS as readonly string[]).includes(arg) ? arg as SortKey : undefined;
    if (!sort) {
      const picked = await vscode.window.showQuickPick(QUERY_SORTS.map((k) => ({ label: QUERY_SORT_LABELS[k], description: k === this.sort ? 'current' : undefined, key: k })),
        { title: 'Sort queries by' });
      sort = picked?.key;
    }
    if (!sort || sort === this.sort) return;
    this.sort = sort;
    this.remap();
  }

  async openSite(target?: SiteTarget): Promise<void> {
    if (!target || typeof target.uri !== 'string') return;
    const pos = new vscode.Position(target.line, target.character);
    await vscode.window.showTextDocument(vscode.Uri.parse(target.uri), { selection: new vscode.Range(pos, pos), preview: true });
  }

  async revealQuery(fingerprint?: unknown): Promise<void> {
    const node = typeof fingerprint === 'string' ? this.tree.nodeOf(fingerprint) : undefined;
    if (node) await this.view.reveal(node, { select: true, focus: true, expand: true });
  }

  /** The current figures (for tests and other features). */
  current(): { model: QueryModel | undefined; source: string; sort: SortKey } {
    return { model: this.model, source: this.source, sort: this.sort };
  }

  private result(): SlowImportResult {
    const rows = this.model?.rows ?? [];
    return {
      source: this.source, statements: this.snapshot?.summary.entries ?? 0, fingerprints: rows.length,
      mapped: rows.filter((r) => r.how !== 'none').length, malformed: this.snapshot?.summary.malformed ?? 0,
    };
  }

  private apply(snapshot: SlowLogSnapshot): void {
    this.snapshot = snapshot;
    this.remap();
  }

  private scheduleRemap(): void {
    if (!this.snapshot) return;
    clearTimeout(this.remapTimer);
    this.remapTimer = setTimeout(() => this.remap(), REMAP_DEBOUNCE_MS);
  }

  /** Maps the statistics onto the current sites and refreshes the view, the lenses and the N+1 evidence. */
  private remap(): void {
    const snapshot = this.snapshot;
    const sites: SqlSite[] = this.services.index.sites().map((s) => s.site);
    this.model = snapshot ? buildQueryModel(snapshot.stats, sites, this.sort) : undefined;
    this.tree.update(this.model, this.sort);
    this.view.message = this.model ? `${this.source} · by ${QUERY_SORT_LABELS[this.sort].toLowerCase()}` : undefined;
    this.describe();
    this.lensesChanged.fire();
    void vscode.commands.executeCommand('setContext', LOADED_CONTEXT, !!this.model);
    this.nPlusOne.setRuntimeOverlay(snapshot ? runtimeOverlay(snapshot.stats, sites) : undefined);
  }

  private uriOf(file: string): vscode.Uri | undefined {
    return this.services.index.all().find((f) => f.facts.file === file)?.uri;
  }

  dispose(): void {
    clearTimeout(this.remapTimer);
    this.watcher?.dispose();
    for (const d of this.subscriptions) d.dispose();
  }
}

/** The slow-log commands and the figures CodeLens, over services.queries. */
export const queriesFeature: Feature = ({ context, services }) => {
  const { logger, queries } = services;
  context.subscriptions.push(
    vscode.languages.registerCodeLensProvider(SOURCE_SELECTOR, queries),
    command(logger, COMMANDS.importSlowLog, 'could not import the slow query log', (arg?: unknown) => queries.importCommand(arg)),
    command(logger, COMMANDS.watchSlowLog, 'could not watch the slow query log', () => queries.watchCommand()),
    command(logger, COMMANDS.stopWatchingSlowLog, 'could not stop watching the slow query log', () => queries.stopWatchCommand()),
    command(logger, COMMANDS.sortQueries, 'could not sort the queries', (arg?: unknown) => queries.sortCommand(arg)),
    command(logger, COMMANDS.openQuerySite, 'could not open the statement', (t?: SiteTarget) => queries.openSite(t)),
    command(logger, COMMANDS.revealQuery, 'could not show the query', (fp?: unknown) => queries.revealQuery(fp)),
  );
};
