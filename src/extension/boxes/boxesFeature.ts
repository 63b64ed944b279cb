/**
 * The team's servers in the editor: *Import from boxes* reads the access log and the slow log of
 * every box of `queryInsight.boxes` over SSH into one access run and one slow run, with a progress
 * message naming the box being read and cancel (the SSH reads stop at once). The access figures go
 * to the Endpoints view, the slow-log figures to the Queries view, as a local import would put them,
 * with the split per box in their tooltips; each import is recorded as a run with the files and byte
 * ranges it read. A box that fails is named, and the others are still imported.
 *
 * *Watch the boxes* polls the files (size and inode over SSH) and reads what was appended, or
 * everything again after a rotation or truncation (boxesRun.ts).
 */
import * as vscode from 'vscode';
import type { AccessAnalysisOptions } from '../../core/logs/accessAnalysis';
import { RemoteLogReader } from '../../node/remoteLog';
import { runReads } from '../../node/runSources';
import type { SourceRead } from '../../node/logSources';
import { COMMANDS } from '../commands';
import { command, type Feature } from '../feature';
import { formatCount } from '../endpoints/endpointRows';
import type { Services } from '../extension';
import { editorBoxLogin } from './boxLogin';
import { parseBoxes, type Box, type BoxSource } from './boxesConfig';
import { BoxesAccessRun, BoxesSlowRun, type BoxesReadOptions, type RefreshMode } from './boxesRun';

const WATCHING_CONTEXT = 'queryInsight.boxesWatching';
const CONFIGURED_CONTEXT = 'queryInsight.boxesConfigured';
/** How often a watched box is asked for its files' sizes: one `stat` per file, a few hundred bytes over SSH. */
const POLL_MS = 2000;

/** What the import command returns (for tests and scripts). */
export interface BoxesImportResult {
  boxes: string[];
  access?: { requests: number; lines: number; endpoints: number; hosts: Record<string, number> };
  slow?: { statements: number; fingerprints: number; hosts: Record<string, number> };
  /** One message per file that could not be read (its box named first). */
  failed: string[];
}

function perHost(reads: readonly SourceRead[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of reads) out[r.host] = (out[r.host] ?? 0) + r.lines;
  return out;
}

class Boxes implements vscode.Disposable {
  private reader: RemoteLogReader | undefined;
  private access: BoxesAccessRun | undefined;
  private slow: BoxesSlowRun | undefined;
  private label = '';
  private importing: AbortController | undefined;
  private poll: NodeJS.Timeout | undefined;
  private polling: AbortController | undefined;

  constructor(private readonly context: vscode.ExtensionContext, private readonly services: Services) {}

  private readBoxes(): Box[] {
    const { boxes, problems } = parseBoxes(vscode.workspace.getConfiguration('queryInsight').get('boxes'));
    for (const p of problems) this.services.logger.warn(p);
    if (problems.length) {
      void vscode.window.showWarningMessage(`Query Insight: ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more, see the log)` : ''}`, 'Show Log')
        .then((c) => { if (c) this.services.logger.show(); });
    }
    return boxes;
  }

  async importCommand(): Promise<BoxesImportResult | undefined> {
    const boxes = this.readBoxes();
    if (boxes.length === 0) {
      const open = 'Open Settings';
      const c = await vscode.window.showInformationMessage('Query Insight: no box to read. List your servers in queryInsight.boxes (name, ssh, accessLog, slowLog).', open);
      if (c === open) await vscode.commands.executeCommand('workbench.action.openSettings', 'queryInsight.boxes');
      return undefined;
    }
    this.stopWatch();
    this.importing?.abort();
    const ac = new AbortController();
    this.importing = ac;
    await this.reader?.close().catch(() => undefined);
    const reader = new RemoteLogReader(editorBoxLogin(this.context.secrets, this.services.logger));
    this.reader = reader;
    const label = `boxes ${boxes.map((b) => b.name).join(', ')}`;
    const accessSources = boxes.flatMap((b) => (b.accessLog ? [b.accessLog] : []));
    const slowSources = boxes.flatMap((b) => (b.slowLog ? [b.slowLog] : []));
    const result: BoxesImportResult = { boxes: boxes.map((b) => b.name), failed: [] };
    try {
      const read = await vscode.window.withProgress({
        location: vscode.ProgressLocation.Notification, title: 'Query Insight: reading the boxes', cancellable: true,
      }, async (progress, token) => {
        const sub = token.onCancellationRequested(() => { ac.abort(new vscode.CancellationError()); void reader.close(); });
        const files = accessSources.length + slowSources.length;
        let current: BoxSource | undefined;
        const opts = (what: string): BoxesReadOptions => ({
          signal: ac.signal,
          onProgress: (source, bytes) => {
            // why: one step of the bar per file; the message names the box being read and how far.
            const increment = source === current ? 0 : 100 / files;
            current = source;
            progress.report({ increment, message: `${source.label}: ${what} ${(bytes / 1048576).toFixed(1)} MB` });
          },
        });
        try {
          let access: BoxesAccessRun | undefined;
          let slow: BoxesSlowRun | undefined;
          // why: every box logs in at once; the logs are then read one after another without a login's wait between them.
          progress.report({ message: `connecting to ${boxes.map((b) => b.name).join(', ')}` });
          await reader.connect([...accessSources, ...slowSources]);
          if (accessSources.length) {
            progress.report({ message: `${accessSources[0].label}: connecting` });
            access = new BoxesAccessRun(accessSources, await this.accessOptions(reader, accessSources, ac.signal), reader);
            await access.load(opts('access log'));
          }
          if (slowSources.length) {
            progress.report({ message: `${slowSources[0].label}: connecting` });
            slow = new BoxesSlowRun(slowSources, reader);
            await slow.load(opts('slow log'));
          }
          return { access, slow };
        } finally {
          sub.dispose();
        }
      });
      if (ac.signal.aborted) return undefined;
      this.access = read.access;
      this.slow = read.slow;
      this.label = label;
      const a = read.access?.result;
      const s = read.slow?.result;
      for (const r of [...a?.sources ?? [], ...s?.sources ?? []]) if (r.error) result.failed.push(r.error);
      if (a) result.access = { requests: a.requests, lines: a.lines, endpoints: a.endpoints.length, hosts: perHost(a.sources) };
      if (s) result.slow = { statements: s.summary.entries, fingerprints: s.stats.length, hosts: perHost(s.sources) };
      await this.show('full');
      this.tellOutcome(result);
      return result;
    } catch (err) {
      if (ac.signal.aborted) { this.services.logger.info('reading the boxes cancelled'); return undefined; }
      throw err;
    } finally {
      if (this.importing === ac) this.importing = undefined;
    }
  }

  /** The access-log analysis of the settings, its layout guessed from the first box whose log can be read. */
  private async accessOptions(reader: RemoteLogReader, sources: readonly BoxSource[], signal: AbortSignal): Promise<AccessAnalysisOptions> {
    for (const s of sources) {
      if (signal.aborted) break;
      try {
        return await this.services.endpoints.analysisOptions(Buffer.from(await reader.head(s), 'utf8'));
      } catch (err) {
        this.services.logger.info(`${s.label}: cannot look at the start of ${s.path} (${(err as Error).message})`);
      }
    }
    return this.services.endpoints.analysisOptions(new Uint8Array());
  }

  /** Puts the current figures in the views; a full read also becomes a run. */
  private async show(mode: RefreshMode): Promise<void> {
    const a = this.access?.result;
    const s = this.slow?.result;
    if (a && a.requests > 0) {
      this.services.endpoints.showReport(a, this.label);
      if (mode === 'full') {
        await this.services.report.recordRun({ kind: 'access', report: a, source: this.label, reads: runReads(a.sources) })
          .catch((err) => this.services.logger.error('recording the boxes\' access run failed', err));
      }
    }
    if (s && s.summary.entries > 0) {
      this.services.queries.showStats(s.stats, this.label);
      if (mode === 'full') {
        await this.services.report.recordRun({ kind: 'slow', stats: s.stats, lines: s.summary.lines, malformed: s.summary.malformed, source: this.label, reads: runReads(s.sources) })
          .catch((err) => this.services.logger.error('recording the boxes\' slow run failed', err));
      }
    }
  }

  private tellOutcome(r: BoxesImportResult): void {
    const log = this.services.logger;
    const parts: string[] = [];
    if (r.access) parts.push(`${formatCount(r.access.requests)} requests (${Object.entries(r.access.hosts).map(([h, n]) => `${h} ${formatCount(n)} lines`).join(', ')})`);
    if (r.slow) parts.push(`${formatCount(r.slow.statements)} slow-log statements (${Object.entries(r.slow.hosts).map(([h, n]) => `${h} ${formatCount(n)} lines`).join(', ')})`);
    log.info(`boxes: ${parts.join('; ') || 'nothing read'}`);
    for (const f of r.failed) log.error(f);
    if (r.failed.length) {
      void vscode.window.showWarningMessage(`Query Insight: ${r.failed[0]}${r.failed.length > 1 ? ` (and ${r.failed.length - 1} more, see the log)` : ''}. `
        + (parts.length ? 'The other boxes were imported.' : 'Nothing was imported.'), 'Show Log').then((c) => { if (c) log.show(); });
    } else if (!parts.length || (!r.access?.requests && !r.slow?.statements)) {
      void vscode.window.showWarningMessage('Query Insight: the boxes\' logs hold no request and no slow-log statement.', 'Show Log').then((c) => { if (c) log.show(); });
    }
  }

  /** Watch mode on or off; returns whether it is on. */
  async toggleWatch(want: boolean): Promise<boolean> {
    if (!want) {
      const was = !!this.poll;
      this.stopWatch();
      if (was) void vscode.window.showInformationMessage('Query Insight: stopped watching the boxes\' logs.');
      return false;
    }
    if (!this.access && !this.slow) {
      const imported = await this.importCommand();
      if (!imported) return false;
    }
    if (!this.poll) this.schedule();
    void vscode.commands.executeCommand('setContext', WATCHING_CONTEXT, true);
    void vscode.window.showInformationMessage(`Query Insight: watching the logs of ${this.label}; the figures follow each benchmark.`);
    return true;
  }

  private schedule(): void {
    this.poll = setTimeout(() => { void this.pollOnce(); }, POLL_MS);
  }

  private async pollOnce(): Promise<void> {
    const ac = new AbortController();
    this.polling = ac;
    try {
      const modes: RefreshMode[] = [];
      if (this.access) modes.push((await this.access.refresh({ signal: ac.signal })).mode);
      if (this.slow) modes.push((await this.slow.refresh({ signal: ac.signal })).mode);
      if (ac.signal.aborted) return;
      const mode: RefreshMode = modes.includes('full') ? 'full' : modes.includes('appended') ? 'appended' : 'unchanged';
      if (mode !== 'unchanged') {
        await this.show(mode);
        this.services.logger.info(`boxes: ${mode === 'full' ? 'a log was rotated or truncated, read again' : 'appended lines read'}`);
      }
    } catch (err) {
      if (!ac.signal.aborted) this.services.logger.warn(`boxes: polling failed: ${(err as Error).message}`);
    } finally {
      if (this.polling === ac) this.polling = undefined;
      if (this.poll && !ac.signal.aborted) this.schedule();
    }
  }

  private stopWatch(): void {
    if (!this.poll) return;
    clearTimeout(this.poll);
    this.poll = undefined;
    this.polling?.abort();
    void vscode.commands.executeCommand('setContext', WATCHING_CONTEXT, false);
  }

  dispose(): void {
    this.stopWatch();
    this.importing?.abort();
    void this.reader?.close().catch(() => undefined);
  }
}

/** *Import from boxes* and the Watch / Stop watching pair of the boxes' logs. */
export const boxesFeature: Feature = ({ context, services }) => {
  const boxes = new Boxes(context, services);
  const { logger } = services;
  const configured = (): void => {
    const raw = vscode.workspace.getConfiguration('queryInsight').get<unknown>('boxes');
    void vscode.commands.executeCommand('setContext', CONFIGURED_CONTEXT, Array.isArray(raw) && raw.length > 0);
  };
  configured();
  context.subscriptions.push(
    boxes,
    vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('queryInsight.boxes')) configured(); }),
    vscode.workspace.onDidGrantWorkspaceTrust(configured),
    command(logger, COMMANDS.importFromBoxes, 'could not import from the boxes', () => boxes.importCommand()),
    command(logger, COMMANDS.watchBoxes, 'could not watch the boxes\' logs', () => boxes.toggleWatch(true)),
    command(logger, COMMANDS.stopWatchingBoxes, 'could not stop watching the boxes\' logs', () => boxes.toggleWatch(false)),
  );
};
