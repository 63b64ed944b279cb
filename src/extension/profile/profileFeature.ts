/**
 * CPU profiles in the editor: *Import profile* reads a pprof profile (a `.pb.gz` file or an HTTP URL
 * such as http://127.0.0.1:6060/debug/pprof/profile?seconds=30), folded stacks or a V8 `.cpuprofile`,
 * folds it onto the workspace's handlers (the same routes the Endpoints view uses) and shows it as
 * the Endpoints view's CPU column, a CodeLens over each handler and the report's CPU tab with each
 * endpoint's flame graph. The profile is kept with the newest recorded run (its record's `profile`,
 * the run ledger in `.query-insight/runs`), and in workspace storage when no run is recorded yet;
 * either is shown again when the window reopens.
 */
import * as vscode from 'vscode';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { CpuAttribution } from '../../core/profile/cpuAttribution';
import { isKeptProfile, keepProfile, type KeptProfile } from '../../core/profile/keptProfile';
import { requestsByRoutes } from '../../core/profile/requestCounts';
import type { ProfileView } from '../../core/report/protocol';
import { parseProfileSource, readProfileSource, type ProfileSource } from '../../node/profileSource';
import { COMMANDS } from '../commands';
import type { EndpointsService } from '../endpoints/endpointsFeature';
import { command, type Feature } from '../feature';
import type { Logger } from '../logger';
import type { ReportServices } from '../report/reportFeature';
import type { RoundsService } from '../rounds/roundsFeature';
import type { SiteIndex } from '../siteIndex';
import { sharePct } from './profileRows';

const PROFILE_FILES = '**/*.{pb.gz,pprof,prof,folded,collapsed,stacks,cpuprofile}';
const STATE_FILE = 'profile.json';

export interface ProfileDeps {
  logger: Logger;
  index: SiteIndex;
  endpoints: EndpointsService;
  report: ReportServices;
  rounds: RoundsService;
}

/** The imported profile: reads it, keeps it in workspace storage, hands it to the Endpoints model and the report. */
export class ProfileService {
  constructor(private readonly storage: vscode.Uri, private readonly deps: ProfileDeps) {}

  private get model() { return this.deps.endpoints.model; }

  /** The profile kept from an earlier session: the newest run's, else the one in workspace storage (none when unreadable). */
  async restore(): Promise<void> {
    const latest = await this.deps.rounds.store()?.latest().catch(() => undefined);
    if (latest?.profile) { this.model.setProfile(latest.profile, latest.profile.source); return; }
    try {
      const saved: unknown = JSON.parse(await readFile(vscode.Uri.joinPath(this.storage, STATE_FILE).fsPath, 'utf8'));
      if (isKeptProfile(saved)) this.model.setProfile(saved, saved.source);
    } catch { /* none kept */ }
  }

  private async pick(): Promise<string | undefined> {
    const found = await vscode.workspace.findFiles(PROFILE_FILES, '**/node_modules/**', 50);
    type Item = vscode.QuickPickItem & { value?: string; action?: 'url' | 'browse' };
    const items: Item[] = [
      ...found.map((u) => ({ label: vscode.workspace.asRelativePath(u), description: 'in the workspace', value: u.fsPath })),
      { label: '$(globe) Fetch from a URL…', description: 'Go net/http/pprof: /debug/pprof/profile?seconds=30', action: 'url' },
      { label: '$(folder-opened) Browse…', action: 'browse' },
    ];
    const chosen = await vscode.window.showQuickPick(items, { title: 'Import profile', placeHolder: 'pprof (.pb.gz), folded stacks (perf, py-spy, rbspy) or a .cpuprofile' });
    if (!chosen) return undefined;
    if (chosen.value) return chosen.value;
    if (chosen.action === 'url') {
      return vscode.window.showInputBox({
        title: 'Import profile from a URL', value: 'http://127.0.0.1:6060/debug/pprof/profile?seconds=30',
        validateInput: (v) => (/^https?:\/\/\S+$/.test(v.trim()) ? undefined : 'An http:// or https:// URL'),
      });
    }
    return (await vscode.window.showOpenDialog({ title: 'Import profile', canSelectMany: false, openLabel: 'Import' }))?.[0]?.fsPath;
  }

  /** Import profile: a path or URL (string or Uri) argument, else the picker. Returns the endpoints that have CPU, undefined when nothing was imported. */
  async importProfile(arg?: string | vscode.Uri): Promise<number | undefined> {
    const { logger, endpoints } = this.deps;
    const text = typeof arg === 'string' ? arg : arg instanceof vscode.Uri ? arg.fsPath : await this.pick();
    if (!text) return undefined;
    let source: ProfileSource;
    try {
      source = parseProfileSource(text.trim());
    } catch (err) {
      logger.showError(`Query Insight: ${text} is not a profile source`, err);
      return undefined;
    }
    if (source.kind === 'ssh' || (source.kind === 'url' && source.via)) {
      logger.showError(`Query Insight: ${text}: a profile on another box is read by the command line (query-insight profile ssh://…); in the editor, open the workspace on that box (Remote-SSH) and import it there`);
      return undefined;
    }
    const name = source.kind === 'local' ? vscode.workspace.asRelativePath(source.path) : source.url;
    // why: the routes come from the workspace scan, which may still be running at start-up.
    await this.deps.index.ready();
    const cpu = new CpuAttribution(endpoints.model.routes());
    const abort = new AbortController();
    const read = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Query Insight: reading the profile ${name}`, cancellable: true }, (_p, token) => {
      token.onCancellationRequested(() => abort.abort(new vscode.CancellationError()));
      return readProfileSource(source, cpu, { signal: abort.signal });
    });
    const access = this.model.report?.endpoints;
    const report = cpu.report({ flame: true, top: 15, ...(access ? { requests: (r) => requestsByRoutes(access, r) } : {}) });
    if (report.totalSeconds === 0) {
      logger.showError(`Query Insight: nothing imported from ${name}: it holds no CPU samples (${read.format}${read.malformed ? `, ${read.malformed} malformed lines` : ''})`);
      return undefined;
    }
    const kept = keepProfile(report, name);
    this.model.setProfile(kept, name);
    logger.info(`profile ${name}: ${read.format}, ${read.samples} samples, ${report.totalSeconds.toFixed(2)} s CPU, ${report.endpoints.length} endpoints with CPU, ${sharePct(report.totalSeconds ? report.handlerSeconds / report.totalSeconds : 0)} under handlers`);
    if (read.malformed) logger.warn(`${name}: ${read.malformed} malformed lines: ${JSON.stringify(read.malformedByReason)}`);
    if (!report.endpoints.length) {
      void vscode.window.showWarningMessage(`${name}: no sample fell under a handler of the workspace's routes; the CPU is in runtime/GC, database driver and other (see the report's CPU tab).`, 'Show Log')
        .then((c) => { if (c) logger.show(); });
    } else {
      vscode.window.setStatusBarMessage(`$(flame) Profile ${name}: ${report.endpoints[0].endpoint} has ${sharePct(report.endpoints[0].share)} of the handlers' CPU`, 8000);
    }
    await this.keep(kept).catch((err) => logger.error('keeping the profile failed', err));
    return report.endpoints.length;
  }

  /** Keeps the profile with the newest recorded run, else in workspace storage. */
  private async keep(p: KeptProfile): Promise<void> {
    const store = this.deps.rounds.store();
    const latest = await store?.latest();
    if (store && latest) {
      await store.save({ ...latest, profile: p });
      this.deps.logger.info(`profile ${p.source} kept with run ${latest.id}`);
      return;
    }
    await mkdir(this.storage.fsPath, { recursive: true });
    await writeFile(vscode.Uri.joinPath(this.storage, STATE_FILE).fsPath, JSON.stringify(p));
  }

  /** The report's CPU tab on `endpoint` (the CPU lens), or on the largest; false without a profile. */
  showEndpoint(endpoint?: string): boolean {
    const p = this.model.profile;
    if (!p) { void vscode.window.showInformationMessage('Query Insight: import a profile first (Import profile).'); return false; }
    const view: ProfileView = { source: p.source, totalSeconds: p.totalSeconds, handlerSeconds: p.handlerSeconds, endpoints: p.endpoints, buckets: p.buckets };
    this.deps.report.panel.showProfile(view, typeof endpoint === 'string' ? endpoint : undefined);
    return true;
  }
}

/** The profile commands over the Endpoints service; the kept profile is shown again at start-up. */
export const profileFeature: Feature = ({ context, services }) => {
  const { logger, endpoints, report, index, rounds } = services;
  const profiles = new ProfileService(context.storageUri ?? context.globalStorageUri, { logger, endpoints, report, index, rounds });
  void profiles.restore();
  context.subscriptions.push(
    command(logger, COMMANDS.importProfile, 'could not import the profile', (arg?: string | vscode.Uri) => profiles.importProfile(arg)),
    command(logger, COMMANDS.showEndpointCpu, 'could not show the CPU flame graph', (endpoint?: string) => profiles.showEndpoint(endpoint)),
  );
};
