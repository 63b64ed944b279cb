/**
 * Keeps the FileFacts (SQL sites, functions, calls, routes) of every source file in the workspace:
 * one scan in the background at start-up (with progress in the status bar), then one file at a time
 * as it changes — typed text debounced per file, saves and changes on disk through a file watcher.
 * Extraction itself is core's (cached by content hash, so an unchanged file costs a hash).
 * Other features subscribe to `onDidChange` and read `all()` / `get(uri)`.
 */
import * as vscode from 'vscode';
import type { FileFacts, SqlSite } from '../core/model';
import type { Logger } from './logger';
import type { QueryInsightConfig } from './settings';
import { isExcluded } from '../core/glob/pathGlob';
import { SOURCE_GLOB } from '../core/source/languageOf';
import { skipReason } from '../core/source/generatedText';
import { ignoredDirNote, ignoredSources, linksOutside, type IgnoredSources } from '../node/scanDir';
import { FileSkipped } from '../node/factsWorker';

/** Turns one file's text into facts; undefined when the file is in no language we read. */
export interface FactsProvider {
  /** `file` is workspace-relative and `/`-separated, as core's FileFacts.file. */
  factsOf(file: string, text: string): Promise<FileFacts | undefined>;
  /** Whether a path is of a language we read (by its name). */
  accepts(file: string): boolean;
  /** Drops what is kept for a deleted file. */
  forget(file: string): void;
  /** A new time budget per file (milliseconds), for a provider that keeps one. */
  setBudget?(ms: number): void;
  dispose?(): void;
}

/** Files the scan and the watcher look at; the FactsProvider has the final word by name. */
// why: from the one language table, so the editor indexes what the CLI scans (app.psgi, .t files).
export { SOURCE_GLOB };

export interface IndexedFile {
  uri: vscode.Uri;
  facts: FileFacts;
}

export interface IndexedSite {
  uri: vscode.Uri;
  site: SqlSite;
}

/** What the last full scan did, for the log and for tests. */
export interface ScanSummary {
  files: number;
  sites: number;
  skipped: { tooLarge: number; binary: number; unreadable: number; generated: number; overBudget: number };
  /** Files given up on while being read (past the time budget, out of memory, crashed the reader), with the reason. */
  overBudget: { file: string; reason: string }[];
  ms: number;
}

/** How the last full scan went, for the SQL Statements view: done (perhaps with files given up on) or failed. */
export type ScanStatus =
  | { state: 'running' }
  | { state: 'done'; summary: ScanSummary }
  | { state: 'failed'; message: string };

type ScanSettings = QueryInsightConfig['scan'];

export class SiteIndex implements vscode.Disposable {
  private readonly files = new Map<string, IndexedFile>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri[]>();
  private readonly statusChanged = new vscode.EventEmitter<ScanStatus>();
  private current: ScanStatus = { state: 'running' };
  private readonly subscriptions: vscode.Disposable[] = [];
  private scanning: Promise<ScanSummary> | undefined;
  private scanCancel: vscode.CancellationTokenSource | undefined;
  private generation = 0;
  /** Per workspace folder (by URI), what .gitignore left out at the last scan: the watcher leaves it out too. */
  private readonly ignored = new Map<string, IgnoredSources>();

  /** Fires with the files whose facts changed (added, updated or removed); after a full scan, with all of them. */
  readonly onDidChange = this.changed.event;
  /** Fires when a full scan starts, ends or fails. */
  readonly onDidChangeStatus = this.statusChanged.event;

  constructor(
    private readonly provider: FactsProvider,
    private readonly logger: Logger,
    private settings: ScanSettings,
    /** Reads the scan settings for one workspace folder (resource scope). */
    private readonly settingsFor: (folder: vscode.WorkspaceFolder) => ScanSettings,
  ) {
    const ws = vscode.workspace;
    this.subscriptions.push(
      this.changed,
      this.statusChanged,
      ws.onDidChangeTextDocument((e) => { if (e.contentChanges.length) this.schedule(e.document.uri); }),
      // why: closing an edited file without saving discards the edits; the disk text counts again.
      ws.onDidCloseTextDocument((doc) => this.schedule(doc.uri)),
      ws.onDidChangeWorkspaceFolders(() => { void this.rescan(); }),
    );
    const watcher = ws.createFileSystemWatcher(SOURCE_GLOB);
    this.subscriptions.push(
      watcher,
      watcher.onDidCreate((uri) => this.schedule(uri)),
      watcher.onDidChange((uri) => this.schedule(uri)),
      watcher.onDidDelete((uri) => this.remove(uri)),
    );
  }

  /** New scan settings: a changed exclude list or size limit rescans; the debounce applies from now on. */
  updateSettings(settings: ScanSettings): void {
    const rescan = JSON.stringify(settings.exclude) !== JSON.stringify(this.settings.exclude)
      || settings.maxFileSizeKb !== this.settings.maxFileSizeKb;
    this.settings = settings;
    this.provider.setBudget?.(settings.fileTimeBudgetMs);
    if (rescan && this.scanning) void this.rescan();
  }

  /** Resolves when the running (or last) full scan has finished. */
  async ready(): Promise<void> {
    await (this.scanning ?? this.rescan());
  }

  /** How the last full scan went. */
  status(): ScanStatus {
    return this.current;
  }

  private setStatus(status: ScanStatus, generation: number): void {
    if (generation !== this.generation) return;
    this.current = status;
    this.statusChanged.fire(status);
  }

  /** Every indexed file, by path. */
  all(): IndexedFile[] {
    return [...this.files.values()].sort((a, b) => a.facts.file.localeCompare(b.facts.file));
  }

  /** Every site, by file then position. */
  sites(): IndexedSite[] {
    return this.all().flatMap((f) => f.facts.sites.map((site) => ({ uri: f.uri, site })));
  }

  /** Whether any indexed file has a statement (cheap: stops at the first). */
  hasSites(): boolean {
    for (const f of this.files.values()) if (f.facts.sites.length) return true;
    return false;
  }

  get(uri: vscode.Uri): IndexedFile | undefined {
    return this.files.get(uri.toString());
  }

  /**
   * Drops everything and scans every workspace folder again. `location` Notification makes the
   * scan cancellable by the user (the Rescan command); the start-up scan only shows in the status bar.
   */
  rescan(location: vscode.ProgressLocation = vscode.ProgressLocation.Window): Promise<ScanSummary> {
    this.scanCancel?.cancel();
    this.scanCancel?.dispose();
    const cts = new vscode.CancellationTokenSource();
    this.scanCancel = cts;
    const generation = ++this.generation;
    const run = Promise.resolve(vscode.window.withProgress(
      { location, title: 'Query Insight: finding SQL statements', cancellable: location === vscode.ProgressLocation.Notification },
      (progress, userToken) => {
        const sub = userToken.onCancellationRequested(() => cts.cancel());
        return this.scanAll(cts.token, generation, progress).finally(() => sub.dispose());
      },
    ));
    this.scanning = run;
    this.setStatus({ state: 'running' }, generation);
    run.then(
      (s) => {
        this.logger.info(`scan: ${s.files} files, ${s.sites} SQL statements in ${s.ms} ms`
          + ` (skipped: ${s.skipped.tooLarge} too large, ${s.skipped.binary} binary, ${s.skipped.unreadable} unreadable,`
          + ` ${s.skipped.generated} minified, generated or vendored, ${s.skipped.overBudget} past the budget per file)`);
        this.setStatus({ state: 'done', summary: s }, generation);
      },
      (err) => {
        this.logger.showError('Query Insight: scanning the workspace failed', err);
        this.setStatus({ state: 'failed', message: err instanceof Error ? err.message : String(err) }, generation);
      },
    );
    return run;
  }

  private async scanAll(token: vscode.CancellationToken, generation: number,
    progress: vscode.Progress<{ message?: string; increment?: number }>): Promise<ScanSummary> {
    const t0 = Date.now();
    const summary: ScanSummary = { files: 0, sites: 0, skipped: { tooLarge: 0, binary: 0, unreadable: 0, generated: 0, overBudget: 0 }, overBudget: [], ms: 0 };
    const found: { uri: vscode.Uri; settings: ScanSettings }[] = [];
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const settings = this.settingsFor(folder);
      const exclude = settings.exclude.length ? `{${settings.exclude.join(',')}}` : undefined;
      const uris = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, SOURCE_GLOB), exclude, undefined, token);
      // why: the CLI's rule for .gitignore (tracked files stay), which findFiles does not read; named in the log as on its stderr.
      const ignored = folder.uri.scheme === 'file' ? await ignoredSources(folder.uri.fsPath) : undefined;
      if (ignored) this.ignored.set(folder.uri.toString(), ignored); else this.ignored.delete(folder.uri.toString());
      if (ignored) for (const d of ignored.dirs) this.logger.info(`scan: ${ignoredDirNote(d, ignored.git)}`);
      // why: findFiles's exclude only prunes the walk; the decision is the shared matcher's, which the
      // watcher's changes go through too (refresh), so a file is in the index whichever way it came.
      for (const uri of uris) {
        const path = relativePath(uri);
        if (this.provider.accepts(path) && !isExcluded(path, settings.exclude) && !ignored?.ignores(path)) found.push({ uri, settings });
      }
    }
    const before = new Set(this.files.keys());
    let done = 0;
    for (const { uri, settings } of found) {
      if (token.isCancellationRequested || generation !== this.generation) break;
      const result = await this.load(uri, settings, summary.overBudget);
      if (typeof result === 'string') summary.skipped[result]++;
      else if (result) {
        this.files.set(uri.toString(), { uri, facts: result });
        before.delete(uri.toString());
        summary.files++;
        summary.sites += result.sites.length;
      }
      if (++done % 50 === 0) progress.report({ message: `${done}/${found.length} files`, increment: (50 / found.length) * 100 });
    }
    if (!token.isCancellationRequested && generation === this.generation) {
      for (const key of before) {
        const gone = this.files.get(key);
        if (gone) this.provider.forget(gone.facts.file);
        this.files.delete(key);
      }
    }
    summary.ms = Date.now() - t0;
    this.changed.fire(this.all().map((f) => f.uri));
    return summary;
  }

  /** Reads a file (the open editor's text when there is one) and extracts its facts. */
  private async load(uri: vscode.Uri, settings: ScanSettings, overBudget?: ScanSummary['overBudget']):
    Promise<FileFacts | undefined | 'tooLarge' | 'binary' | 'unreadable' | 'generated' | 'overBudget'> {
    const file = relativePath(uri);
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    let text: string;
    if (open) {
      text = open.getText();
    } else {
      // why: findFiles follows links; one to a file outside the workspace folder (/etc/shadow) is not read.
      const folder = vscode.workspace.getWorkspaceFolder(uri);
      if (uri.scheme === 'file' && folder?.uri.scheme === 'file' && linksOutside(folder.uri.fsPath, uri.fsPath)) {
        this.logger.info(`scan: ${file} skipped, a link to a file outside the workspace folder`);
        return 'unreadable';
      }
      try {
        const stat = await vscode.workspace.fs.stat(uri);
        if (stat.size > settings.maxFileSizeKb * 1024) return 'tooLarge';
        const bytes = await vscode.workspace.fs.readFile(uri);
        // why: a NUL byte in the first 8 KiB is how git and ripgrep tell binary files too.
        if (bytes.subarray(0, 8192).includes(0)) return 'binary';
        text = Buffer.from(bytes).toString('utf8');
      } catch (err) {
        this.logger.debug(`cannot read ${file}: ${String(err)}`);
        return 'unreadable';
      }
    }
    // why: a minified bundle (jQuery in public/) holds none of the app's statements, and parsing one
    // took the extension host down with every other extension: skipped unparsed and named.
    const why = skipReason(file, text);
    if (why) {
      this.logger.info(`scan: ${file} skipped, ${why}`);
      return 'generated';
    }
    try {
      const facts = await this.provider.factsOf(file, text);
      for (const e of facts?.errors ?? []) this.logger.warn(`${e.file}${e.line ? `:${e.line}` : ''}: ${e.message}`);
      return facts;
    } catch (err) {
      // why: read on the reader's thread, a file past its budget or one that killed the thread costs only itself.
      if (err instanceof FileSkipped) {
        this.logger.warn(`scan: ${file} skipped, ${err.reason}`);
        overBudget?.push({ file, reason: err.reason });
        return 'overBudget';
      }
      this.logger.error(`extracting ${file} failed`, err);
      return 'unreadable';
    }
  }

  /** Re-reads one file after the debounce delay (0 for events that are not typing). */
  private schedule(uri: vscode.Uri): void {
    if (uri.scheme !== 'file' && uri.scheme !== 'vscode-remote') return;
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (!folder || !this.provider.accepts(relativePath(uri))) return;
    const key = uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(key, setTimeout(() => {
      this.timers.delete(key);
      void this.refresh(uri, folder);
    }, this.settings.debounceMs));
  }

  private async refresh(uri: vscode.Uri, folder: vscode.WorkspaceFolder): Promise<void> {
    const t0 = performance.now();
    const settings = this.settingsFor(folder);
    if (isExcluded(relativePath(uri), settings.exclude) || this.ignored.get(folder.uri.toString())?.ignores(relativePath(uri))) return;
    const result = await this.load(uri, settings);
    const key = uri.toString();
    // why: a rescan may have read a new .gitignore while this file was being read.
    const ignored = this.ignored.get(folder.uri.toString())?.ignores(relativePath(uri));
    if (result && typeof result !== 'string' && !ignored) this.files.set(key, { uri, facts: result });
    else if (!this.files.delete(key)) return;
    this.logger.trace(`re-extracted ${relativePath(uri)} in ${(performance.now() - t0).toFixed(1)} ms`);
    this.changed.fire([uri]);
  }

  private remove(uri: vscode.Uri): void {
    this.provider.forget(relativePath(uri));
    if (this.files.delete(uri.toString())) this.changed.fire([uri]);
  }

  dispose(): void {
    this.scanCancel?.cancel();
    this.scanCancel?.dispose();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.files.clear();
    for (const d of this.subscriptions) d.dispose();
    this.provider.dispose?.();
  }
}

/** Workspace-relative, `/`-separated path (without the folder name in a multi-root workspace). */
export function relativePath(uri: vscode.Uri): string {
  return vscode.workspace.asRelativePath(uri, false).replace(/\\/g, '/');
}
