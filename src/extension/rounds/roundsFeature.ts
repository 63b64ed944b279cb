/**
 * Recorded benchmark rounds in the editor: *Record run* (the view's button and the palette) asks for
 * the score — a number, or the benchmarker's output pasted — and a memo, reads the logs named in
 * `.query-insight/config.json` (else the boxes of `queryInsight.boxes` over SSH; else it asks for
 * them once and writes them there) from where the previous
 * round stopped, and keeps the round as a JSON file in the workspace (`queryInsight.runs.store`),
 * the same files the command line's `query-insight runs` reads and writes. The newest round's figures
 * fill the Endpoints and Queries views, the CodeLenses and the slow-log N+1 evidence — at once, and
 * again after a window reload. *Compare recorded runs* shows any two side by side as Markdown made
 * for a pull request: the score first, the verdicts, and the handlers and statements the commits
 * between them changed.
 */
import { isAbsolute, join, relative } from 'node:path';
import * as vscode from 'vscode';
import { parseLogSource, type LogSource } from '../../core/logs/logSource';
import { parseBenchOutput } from '../../core/runs/benchScore';
import { recordInfo, shortCommit, type RecordInfo, type RunRecord } from '../../core/runs/record';
import { diffRecords, type RecordDiff } from '../../core/runs/recordDiff';
import { diffText, trendText } from '../../core/runs/recordOutput';
import { reportFromRun, statsFromRun } from '../../core/runs/restore';
import { trendOf } from '../../core/runs/trend';
import { codeChangesBetween } from '../../node/runs/git';
import { recordRound } from '../../node/runs/recordRun';
import { readRunsConfig, RecordStore, writeRunsConfig } from '../../node/runs/recordStore';
import { RemoteLogReader } from '../../node/remoteLog';
import { parseBoxes } from '../boxes/boxesConfig';
import { editorBoxLogin } from '../boxes/boxLogin';
import { COMMANDS } from '../commands';
import { readConfig } from '../config';
import type { EndpointsService } from '../endpoints/endpointsFeature';
import { command, type Feature } from '../feature';
import type { Logger } from '../logger';
import type { QueriesService } from '../queries/queriesFeature';
import type { SiteIndex } from '../siteIndex';

/** What the record command takes from a caller (tests, other commands) instead of asking. */
export interface RecordArgs {
  score?: number | string;
  memo?: string;
}

/** The recorded rounds of the first workspace folder, kept in step with the store's files. */
export class RoundsService implements vscode.Disposable {
  private infos: RecordInfo[] = [];
  private readonly emitter = new vscode.EventEmitter<void>();
  /** Fires when the list of rounds changed (a round recorded here or by the command line). */
  readonly onDidChange = this.emitter.event;
  private readonly subs: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly logger: Logger) {
    this.subs.push(this.emitter, vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('queryInsight.runs.store')) { this.watch(); void this.refresh(); }
    }));
    this.watch();
  }

  /** The workspace folder the rounds belong to (undefined without one). */
  root(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  store(): RecordStore | undefined {
    const root = this.root();
    return root ? new RecordStore(join(root, readConfig(this.logger).runs.store)) : undefined;
  }

  private watcher: vscode.FileSystemWatcher | undefined;

  private watch(): void {
    this.watcher?.dispose();
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) return;
    const rel = readConfig(this.logger).runs.store.replace(/\\/g, '/').replace(/\/+$/, '');
    // why: the command line records rounds too; the view follows the store's files, debounced.
    this.watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, `${rel}/*.json`));
    const later = () => { clearTimeout(this.timer); this.timer = setTimeout(() => void this.refresh(), 300); };
    this.watcher.onDidCreate(later);
    this.watcher.onDidChange(later);
    this.watcher.onDidDelete(later);
  }

  /** Rounds, newest first. */
  list(): RecordInfo[] {
    return this.infos;
  }

  /** Reads the store again; returns every record (oldest first). */
  async refresh(): Promise<RunRecord[]> {
    const store = this.store();
    if (!store) return [];
    const { records, problems } = await store.all();
    for (const p of problems) this.logger.warn(`runs: skipped ${p.file}: ${p.message}`);
    this.infos = records.map(recordInfo).reverse();
    this.emitter.fire();
    return records;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.watcher?.dispose();
    for (const s of this.subs) s.dispose();
  }
}

/** The score from what the user typed: a number, or a benchmarker's output to read it from. */
export function scoreFromInput(text: string): { score: number | null; failed?: string } {
  const t = text.trim();
  if (!t) return { score: null };
  if (/^-?\d+(\.\d+)?$/.test(t)) return { score: Number(t) };
  return parseBenchOutput(t);
}

function roundItem(r: RecordInfo): vscode.QuickPickItem & { round: RecordInfo } {
  return {
    round: r, label: `${r.failed !== undefined ? 'FAILED' : r.score === null ? 'no score' : `score ${r.score}`} · ${r.commit ? r.commit.slice(0, 7) + (r.dirty ? '+' : '') : 'no commit'}`,
    description: [r.memo, r.requests !== null ? `${r.requests} requests` : undefined].filter(Boolean).join(' · '),
    detail: `${r.id} · ${new Date(r.createdAt).toLocaleString()}${r.health.length ? ` · ⚠ ${r.health.map((h) => h.code).join(', ')}` : ''}`,
  };
}

interface RoundsDeps {
  logger: Logger;
  index: SiteIndex;
  endpoints: EndpointsService;
  queries: QueriesService;
  rounds: RoundsService;
}

/** Shows a round's figures in the views (Endpoints, Queries, CodeLens, the N+1 evidence). */
async function showRound(d: RoundsDeps, r: RunRecord): Promise<void> {
  await d.index.ready();
  const label = `run ${r.id} (${shortCommit(r.git)}${r.score !== null ? `, score ${r.score}` : ''})`;
  if (r.access && r.access.summary.count > 0) d.endpoints.showReport(reportFromRun(r.access), label);
  if (r.slow && r.slow.summary.count > 0) d.queries.showStats(statsFromRun(r.slow), label);
}

/** The logs of the round: from the config file, else the boxes of `queryInsight.boxes` (over SSH), else asked for once (and written there). */
async function sourcesOf(root: string): Promise<{ access: LogSource[]; slow: LogSource[]; boxes?: true } | undefined> {
  const config = await readRunsConfig(root);
  let access = config.access ?? [];
  let slow = config.slow ?? [];
  if (!access.length && !slow.length) {
    const { boxes } = parseBoxes(vscode.workspace.getConfiguration('queryInsight').get('boxes'));
    const remote = { access: boxes.flatMap((b) => (b.accessLog ? [b.accessLog] : [])), slow: boxes.flatMap((b) => (b.slowLog ? [b.slowLog] : [])) };
    if (remote.access.length || remote.slow.length) return { ...remote, boxes: true };
  }
  if (!access.length && !slow.length) {
    const a = await vscode.window.showOpenDialog({ title: 'Record run: the access log(s) the benchmark writes (once; kept in .query-insight/config.json)', canSelectMany: true, openLabel: 'Use access log' });
    const s = await vscode.window.showOpenDialog({ title: 'Record run: the slow query log(s) (cancel for none)', canSelectMany: true, openLabel: 'Use slow log' });
    access = (a ?? []).map((u) => relative(root, u.fsPath).startsWith('..') ? u.fsPath : relative(root, u.fsPath));
    slow = (s ?? []).map((u) => relative(root, u.fsPath).startsWith('..') ? u.fsPath : relative(root, u.fsPath));
    if (!access.length && !slow.length) return undefined;
    await writeRunsConfig(root, { access, slow });
  }
  const local = (p: string): LogSource => {
    const s = parseLogSource(p);
    return s.kind === 'local' ? { kind: 'local', path: isAbsolute(p) ? p : join(root, p) } : s;
  };
  return { access: access.map(local), slow: slow.map(local) };
}

/** *Record run*, *Compare recorded runs*, and the newest round's figures restored at start-up (the Runs view lists the rounds). */
export const roundsFeature: Feature = ({ context, services }) => {
    const { logger, index, endpoints, queries, rounds } = services;
    // why: the report's Compare tab draws the score and the top endpoints by commit from the same files.
    services.report.panel.setTrendSource(async () => {
      const store = rounds.store();
      const records = store ? (await store.all()).records : [];
      return records.length ? trendOf(records, 5, 'endpoint') : undefined;
    });
    context.subscriptions.push(rounds.onDidChange(() => services.report.panel.refreshTrend()));
    const d: RoundsDeps = { logger, index, endpoints, queries, rounds };

    const record = async (arg?: RecordArgs): Promise<RecordInfo | undefined> => {
      const root = rounds.root();
      const store = rounds.store();
      if (!root || !store) throw new Error('open a folder first: a run is kept in the workspace');
      let outcome: { score: number | null; failed?: string };
      let memo: string | undefined;
      if (arg && typeof arg === 'object' && !Array.isArray(arg)) {
        outcome = scoreFromInput(arg.score === undefined ? '' : String(arg.score));
        memo = arg.memo;
      } else {
        const typed = await vscode.window.showInputBox({
          title: 'Record run: the benchmark\'s score', prompt: 'A number, or paste the benchmarker\'s output (a JSON "score" or a "SCORE: N" line). Empty: no score.',
          placeHolder: 'e.g. 12345', ignoreFocusOut: true,
        });
        if (typed === undefined) return undefined;
        outcome = scoreFromInput(typed);
        if (typed.trim() && outcome.score === null && !outcome.failed) void vscode.window.showWarningMessage('No score found in what was pasted: the run is recorded without one.');
        memo = await vscode.window.showInputBox({ title: 'Record run: a memo (optional)', prompt: 'What this round tried, e.g. "index on items.user_id"', ignoreFocusOut: true });
        if (memo === undefined) return undefined;
      }
      const sources = await sourcesOf(root);
      if (!sources) return undefined;
      // why: the boxes are read over SSH with the editor's own login (keys, agent, known_hosts, passphrases in the secret storage).
      const remote = sources.boxes ? new RemoteLogReader(editorBoxLogin(context.secrets, logger)) : undefined;
      const { record: r } = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Query Insight: recording the run', cancellable: true }, async (_p, token) => {
        const abort = new AbortController();
        const sub = token.onCancellationRequested(() => abort.abort(new vscode.CancellationError()));
        try {
          await index.ready();
          return await recordRound({
            root, store, access: sources.access, slow: sources.slow, score: outcome.score, ...(outcome.failed ? { failed: outcome.failed } : {}),
            ...(memo?.trim() ? { memo: memo.trim() } : {}), routes: endpoints.model.routes(), signal: abort.signal, ...(remote ? { remote } : {}),
          });
        } finally {
          sub.dispose();
          await remote?.close().catch(() => undefined);
        }
      });
      logger.info(`runs: recorded ${r.id}: score ${r.score ?? '-'}, commit ${shortCommit(r.git)}, ${r.access?.summary.count ?? 0} requests, ${r.slow?.summary.count ?? 0} statements`);
      for (const s of r.sources) logger.info(`runs: ${s.kind} ${s.file}: bytes ${s.from}-${s.to}, ${s.lines} lines, ${s.outside} outside the window${s.restarted ? `, ${s.restarted}` : ''}${s.error ? `: ${s.error}` : ''}`);
      await rounds.refresh();
      await showRound(d, r);
      const health = r.health.length ? ` · ⚠ ${r.health.map((h) => h.message).join('; ')}` : '';
      if (health) void vscode.window.showWarningMessage(`Run recorded (score ${r.score ?? '-'}, ${shortCommit(r.git)})${health}`);
      else vscode.window.setStatusBarMessage(`$(check) Run recorded: score ${r.score ?? '-'}, ${shortCommit(r.git)}`, 8000);
      return recordInfo(r);
    };

    const pick = async (title: string, except?: string): Promise<string | undefined> => {
      const items = rounds.list().filter((r) => r.id !== except).map(roundItem);
      if (!items.length) {
        void vscode.window.showInformationMessage('Record two runs first (Record run, after each benchmark).');
        return undefined;
      }
      return (await vscode.window.showQuickPick(items, { title, matchOnDescription: true, matchOnDetail: true }))?.round.id;
    };

    const compare = async (beforeArg?: unknown, afterArg?: unknown): Promise<RecordDiff | undefined> => {
      const root = rounds.root();
      const store = rounds.store();
      if (!root || !store) return undefined;
      const records = await rounds.refresh();
      const idOf = (a: unknown) => (typeof a === 'string' ? a : a && typeof a === 'object' && 'round' in a ? (a as { round: RecordInfo }).round.id : undefined);
      let beforeId = idOf(beforeArg);
      let afterId = idOf(afterArg);
      if (!beforeId && !afterId && records.length >= 2 && beforeArg === undefined) {
        // why: the usual question is "did the last change help?": the last two, unless the user picks others.
        const choice = await vscode.window.showQuickPick([{ label: 'The last two runs', id: 'last' }, { label: 'Pick two runs…', id: 'pick' }], { title: 'Compare recorded runs' });
        if (!choice) return undefined;
        if (choice.id === 'last') { beforeId = records[records.length - 2].id; afterId = records[records.length - 1].id; }
      }
      beforeId ??= await pick('Compare: the run before the change');
      if (!beforeId) return undefined;
      afterId ??= await pick('Compare: the run after the change', beforeId);
      if (!afterId) return undefined;
      const before = await store.find(beforeId);
      const after = await store.find(afterId);
      await index.ready();
      const app = { routes: endpoints.model.routes(), sites: index.sites().map((s) => s.site) };
      const changes = await codeChangesBetween(root, before, after, app);
      const diff = diffRecords(before, after, changes);
      const text = diffText(diff, true) + '\n#### Trend\n\n' + trendText(trendOf(records, 5), true);
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: text });
      await vscode.window.showTextDocument(doc, { preview: false });
      return diff;
    };

    context.subscriptions.push(
      rounds,
      command(logger, COMMANDS.recordRun, 'could not record the run', (arg?: RecordArgs) => record(arg)),
      command(logger, COMMANDS.compareRecordedRuns, 'could not compare the runs', (a?: unknown, b?: unknown) => compare(a, b)),
    );

    // why: after a window reload the views would say "nothing imported" though the rounds are on disk.
    void (async () => {
      try {
        const records = await rounds.refresh();
        const latest = records[records.length - 1];
        if (latest && !endpoints.model.report) await showRound(d, latest);
        if (latest) logger.info(`runs: ${records.length} recorded; the figures of ${latest.id} restored`);
      } catch (err) {
        logger.warn(`runs: could not read the recorded runs: ${(err as Error).message}`);
      }
    })();
};
