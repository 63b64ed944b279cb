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
import { parseBoxes, parseSshTarget, type Box, type BoxSource } from './boxesConfig';
import { homedir } from 'node:os';
import { readSshConfigFiles } from '../../node/ssh/sshLogin';
import { sshConfigHosts } from '../../node/ssh/sshConfig';
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
      const setUp = 'Set up boxes…';
      const c = await vscode.window.showInformationMessage('Query Insight: no box to read. Set them up from ~/.ssh/config, or list your servers in queryInsight.boxes (name, ssh, accessLog, slowLog).', setUp, open);
      if (c === setUp) await vscode.commands.executeCommand(COMMANDS.setUpBoxes);
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
    if (r.access?.requests) parts.push(`${formatCount(r.access.requests)} requests (${Object.entries(r.access.hosts).map(([h, n]) => `${h} ${formatCount(n)} lines`).join(', ')})`);
    if (r.slow?.statements) parts.push(`${formatCount(r.slow.statements)} slow-log statements (${Object.entries(r.slow.hosts).map(([h, n]) => `${h} ${formatCount(n)} lines`).join(', ')})`);
    log.info(`boxes: ${parts.join('; ') || 'nothing read'}`);
    for (const f of r.failed) log.error(f);
    if (r.failed.length) {
      // why: "the other boxes were imported" only when another box gave something; when none did, say so.
      const failedBoxes = new Set(r.failed.map((f) => f.split(':')[0]));
      const outcome = parts.length ? 'The other boxes were imported.'
        : failedBoxes.size >= r.boxes.length ? `No box could be read: nothing was imported.` : 'Nothing was imported.';
      void vscode.window.showWarningMessage(`Query Insight: ${r.failed[0]}${r.failed.length > 1 ? ` (and ${r.failed.length - 1} more, see the log)` : ''}. ${outcome}`, 'Show Log')
        .then((c) => { if (c) log.show(); });
    } else if (!parts.length) {
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

/**
 * *Set up boxes*: the hosts of ~/.ssh/config offered to pick, the log paths asked once (the usual
 * places proposed), the boxes written to the workspace's `queryInsight.boxes`; then Import is offered.
 * Returns the boxes written.
 */
async function setUpBoxes(): Promise<{ name: string; ssh: string; accessLog?: string; slowLog?: string }[] | undefined> {
  const home = process.env.HOME || homedir();
  const hosts = sshConfigHosts(readSshConfigFiles(home).files);
  const current = vscode.workspace.getConfiguration('queryInsight').get<unknown>('boxes');
  const had = new Set(Array.isArray(current) ? current.map((b: { ssh?: unknown }) => (typeof b?.ssh === 'string' ? b.ssh : '')) : []);
  const other = { label: '$(add) Another host…', description: '[user@]host[:port]', other: true };
  const picked = await vscode.window.showQuickPick([
    ...hosts.map((h) => ({ label: h, description: 'from ~/.ssh/config', picked: had.has(h), other: false })), other,
  ], { title: 'Set up boxes: the team\'s servers to read logs from over SSH', canPickMany: true, placeHolder: hosts.length ? 'Pick the boxes (hosts of ~/.ssh/config)' : 'No Host in ~/.ssh/config: add one by hand' });
  if (!picked?.length) return undefined;
  const targets = picked.filter((p) => !p.other).map((p) => p.label);
  if (picked.some((p) => p.other)) {
    const typed = await vscode.window.showInputBox({
      title: 'Set up boxes: another host', prompt: 'SSH targets, separated by spaces: [user@]host[:port] or a ~/.ssh/config alias',
      validateInput: (v) => (v.trim().split(/\s+/).every((t) => parseSshTarget(t)) ? undefined : 'Each target is [user@]host[:port]'),
    });
    if (typed?.trim()) targets.push(...typed.trim().split(/\s+/));
  }
  if (!targets.length) return undefined;
  const ask = (what: string, value: string) => vscode.window.showInputBox({
    title: `Set up boxes: the ${what} on each box`, value, prompt: `An absolute path on the boxes; empty: no ${what} is read`,
    validateInput: (v) => (!v.trim() || v.trim().startsWith('/') ? undefined : 'An absolute path (like /var/log/nginx/access.log)'),
  });
  const accessLog = await ask('access log', '/var/log/nginx/access.log');
  if (accessLog === undefined) return undefined;
  const slowLog = await ask('slow query log', '/var/log/mysql/mysql-slow.log');
  if (slowLog === undefined) return undefined;
  if (!accessLog.trim() && !slowLog.trim()) { void vscode.window.showWarningMessage('Query Insight: a box needs an access log or a slow log to read; nothing was set up.'); return undefined; }
  const used = new Set<string>();
  const boxes = targets.map((ssh) => {
    // why: the name is what reports split by; the host part of the target, made unique.
    const base = (parseSshTarget(ssh)?.host ?? ssh).replace(/[^\w.-]+/g, '-').slice(0, 40) || 'box';
    let name = base;
    for (let i = 2; used.has(name); i++) name = `${base}-${i}`;
    used.add(name);
    return { name, ssh, ...(accessLog.trim() ? { accessLog: accessLog.trim() } : {}), ...(slowLog.trim() ? { slowLog: slowLog.trim() } : {}) };
  });
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration('queryInsight').update('boxes', boxes, target);
  const go = 'Import from boxes';
  void vscode.window.showInformationMessage(`Query Insight: ${boxes.length} box${boxes.length === 1 ? '' : 'es'} set up (${boxes.map((b) => b.name).join(', ')}) in the ${target === vscode.ConfigurationTarget.Workspace ? 'workspace' : 'user'} settings.`, go)
    .then((c) => { if (c === go) void vscode.commands.executeCommand(COMMANDS.importFromBoxes); });
  return boxes;
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
    command(logger, COMMANDS.setUpBoxes, 'could not set up the boxes', () => setUpBoxes()),
    command(logger, COMMANDS.watchBoxes, 'could not watch the boxes\' logs', () => boxes.toggleWatch(true)),
    command(logger, COMMANDS.stopWatchingBoxes, 'could not stop watching the boxes\' logs', () => boxes.toggleWatch(false)),
  );
};
