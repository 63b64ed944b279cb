/**
 * Runs and the report panel in the extension: `createReport` builds the run store, the panel and
 * `recordRun`, which the access-log and slow-log import features call after each import;
 * `reportFeature` registers the Runs view and the report commands over them.
 *
 * Usage from another feature (services.report is built in extension.ts):
 *   await services.report.recordRun({ kind: 'access', report, source: 'logs/access.log' });
 *   await services.report.recordRun({ kind: 'slow', stats, lines: summary.lines, malformed: summary.malformed, source });
 *   services.report.showPlan(plan, 'app/main.go:155', sql, { findings, measurement });
 */
import { formatCount } from '../../core/format/numbers';
import * as vscode from 'vscode';
import type { AccessReport } from '../../core/logs/accessAnalysis';
import type { QueryStats } from '../../core/logs/slowStats';
import type { Severity } from '../../core/model';
import type { Plan } from '../../core/plan/planModel';
import type { PlanTreeExtras } from '../../core/report/planTree';
import { formatSeconds } from '../../core/report/compare';
import { summarizeFindings, type FindingsSummary } from '../../core/report/findingsSummary';
import type { Comparison } from '../../core/report/compare';
import { runFromAccessReport, runFromSlowStats, type Run, type RunInfo, type RunRead } from '../../core/report/runs';
import { runFromServerStats, type ServerStatsResult } from '../../core/serverStats/serverStatsRun';
import { bufferDecoder } from '../../node/accessLogFile';
import { loadRunFromFile } from '../../node/runFile';
import { sniffLogFile } from '../../node/logSniffFile';
import { reportNothingRead } from '../logs/nothingReadNotice';
import { COMMANDS } from '../commands';
import { command, type Feature } from '../feature';
import { DIAGNOSTIC_SOURCE } from '../convert';
import type { SiteRef } from '../explain/siteAnalysis';
import type { Logger } from '../logger';
import { ReportPanel } from './reportPanel';
import { RUNS_VIEW, RunsTree, type RunNode } from './runsView';
import { newRunId, RunStore } from './runStore';

/** What an import hands to `recordRun`. `source` is the log file as the user knows it (workspace-relative when inside). */
export type RunInput = (
  | { kind: 'access'; report: AccessReport; source: string; label?: string }
  | { kind: 'slow'; stats: readonly QueryStats[]; lines: number; malformed: number; source: string; label?: string }
  | { kind: 'server'; result: ServerStatsResult; source: string; label?: string }
) & { /** The files read, per host (several boxes). */ reads?: RunRead[] };

export interface ReportServices {
  store: RunStore;
  panel: ReportPanel;
  /** Keeps an import as a run (bounded summaries, in workspace storage); returns what the Runs view shows. */
  recordRun(input: RunInput): Promise<RunInfo>;
  /** Draws a plan as a tree in the report panel's Plan tab, with its findings and measurement when given. */
  showPlan(plan: Plan, title: string, sql?: string, extras?: PlanTreeExtras, site?: SiteRef): void;
}

const SEVERITY: Record<vscode.DiagnosticSeverity, Severity> = {
  [vscode.DiagnosticSeverity.Error]: 'error', [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'info', [vscode.DiagnosticSeverity.Hint]: 'hint',
};

/** The findings currently shown as Query Insight diagnostics, summarised by code. */
export function currentFindings(): FindingsSummary {
  const items: { code: string; severity: Severity; file: string }[] = [];
  for (const [uri, diags] of vscode.languages.getDiagnostics()) {
    for (const d of diags) {
      if (d.source !== DIAGNOSTIC_SOURCE) continue;
      const code = typeof d.code === 'object' ? String(d.code.value) : d.code === undefined ? 'other' : String(d.code);
      items.push({ code, severity: SEVERITY[d.severity], file: uri.toString() });
    }
  }
  return summarizeFindings(items);
}

function runItem(r: RunInfo): vscode.QuickPickItem & { run: RunInfo } {
  const what = r.kind === 'access' ? 'requests' : 'statements';
  return {
    label: r.label, run: r,
    description: `${r.kind === 'access' ? 'access log' : r.origin === 'performance_schema' ? 'server stats' : 'slow log'} · ${r.summary.count} ${what} · ${formatSeconds(r.summary.totalTime)}`,
    detail: `${r.source} · ${new Date(r.createdAt).toLocaleString()}`,
  };
}

async function pickRun(store: RunStore, title: string, filter: (r: RunInfo) => boolean = () => true): Promise<RunInfo | undefined> {
  const runs = store.list().filter(filter);
  if (!runs.length) {
    void vscode.window.showInformationMessage('No runs to choose from: import an access log or a slow log first (each import is kept as a run).');
    return undefined;
  }
  return (await vscode.window.showQuickPick(runs.map(runItem), { title, matchOnDescription: true, matchOnDetail: true }))?.run;
}

/** A run id from a command argument: an id string, a Runs view node, or nothing. */
function idOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg && typeof arg === 'object' && 'run' in arg) return (arg as RunNode).run.id;
  return undefined;
}

/** The run store, the report panel and `recordRun` (services.report); their disposables go into the context. */
export function createReport(context: vscode.ExtensionContext, state: vscode.Memento, logger: Logger): ReportServices {
  const dir = context.storageUri ?? context.globalStorageUri;
  const store = new RunStore(dir, state, logger);
  const panel = new ReportPanel(context.extensionUri, store, logger, currentFindings);
  context.subscriptions.push(store, panel);
  const recordRun = async (input: RunInput): Promise<RunInfo> => {
    const meta = { id: newRunId(), source: input.source, label: input.label, ...(input.reads ? { reads: input.reads } : {}) };
    const run: Run = input.kind === 'access' ? runFromAccessReport(input.report, meta)
      : input.kind === 'server' ? runFromServerStats(input.result, meta) : runFromSlowStats(input, meta);
    return store.add(run);
  };
  return { store, panel, recordRun, showPlan: (plan, title, sql, extras, site) => panel.showPlan(plan, title, sql, extras, site) };
}

/** The Runs view and the report commands (show, compare, add, rename, delete). */
export const reportFeature: Feature = ({ context, services }) => {
  const { logger, report: { store, panel } } = services;
  const tree = new RunsTree(store, COMMANDS.showRun, services.rounds);
  context.subscriptions.push(tree, vscode.window.createTreeView(RUNS_VIEW, { treeDataProvider: tree }));

  // why: Show, Compare, Rename and Delete appear in the palette only when there are runs to act on.
  const countRuns = () => void vscode.commands.executeCommand('setContext', 'queryInsight.runCount', store.list().length);
  countRuns();
  context.subscriptions.push(store.onDidChange(countRuns));

  context.subscriptions.push(
    command(logger, COMMANDS.showReport, 'could not show the report', () => panel.show()),
    command(logger, COMMANDS.showRun, 'could not show the run', async (arg?: unknown) => {
      const id = idOf(arg) ?? (await pickRun(store, 'Show which run?'))?.id;
      if (id) await panel.showRun(id);
    }),
    command(logger, COMMANDS.compareRuns, 'could not compare the runs', async (beforeArg?: unknown, afterArg?: unknown): Promise<Comparison | undefined> => {
      let beforeId = idOf(beforeArg);
      let afterId = typeof afterArg === 'string' ? afterArg : undefined;
      if (!beforeId) beforeId = (await pickRun(store, 'Compare: the run before the change'))?.id;
      if (!beforeId) return undefined;
      const before = store.info(beforeId);
      if (!afterId) afterId = (await pickRun(store, 'Compare: the run after the change', (r) => r.id !== beforeId && r.kind === before?.kind))?.id;
      if (!afterId) return undefined;
      return (await panel.compare(beforeId, afterId)).comparison;
    }),
    command(logger, COMMANDS.addRun, 'could not add the run', async (arg?: unknown, label?: unknown): Promise<RunInfo | undefined> => {
      let uri = arg instanceof vscode.Uri ? arg : typeof arg === 'string' ? vscode.Uri.file(arg) : undefined;
      if (!uri) {
        const picked = await vscode.window.showOpenDialog({ title: 'Add a run from an access log, a slow log or a saved run', canSelectMany: false, openLabel: 'Add run' });
        uri = picked?.[0];
      }
      if (!uri) return undefined;
      const source = vscode.workspace.asRelativePath(uri);
      const file = uri.fsPath;
      const run = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Reading ${source}`, cancellable: true }, (_p, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort(new vscode.CancellationError()));
        return loadRunFromFile(file, { meta: { id: newRunId(), source, ...(typeof label === 'string' ? { label } : {}) }, access: { decode: bufferDecoder }, signal: abort.signal });
      });
      if (run.summary.count === 0) {
        reportNothingRead(logger, { name: source, expected: run.kind === 'slow' ? 'slow' : 'access', sniffed: sniffLogFile(file).kind, lines: run.summary.lines });
        return undefined;
      }
      const info = await store.add(run.id && store.info(run.id) ? { ...run, id: newRunId() } : run);
      // why: the Runs view lists the new run with Show and Compare at hand; no notification needed.
      vscode.window.setStatusBarMessage(`$(check) Run "${info.label}" recorded (${formatCount(info.summary.count)} ${info.kind === 'access' ? 'requests' : 'statements'})`, 8000);
      return info;
    }),
    command(logger, COMMANDS.renameRun, 'could not rename the run', async (arg?: unknown, newLabel?: unknown) => {
      const id = idOf(arg) ?? (await pickRun(store, 'Rename which run?'))?.id;
      const info = id ? store.info(id) : undefined;
      if (!info) return;
      const label = typeof newLabel === 'string' ? newLabel : await vscode.window.showInputBox({
        title: 'Rename run', value: info.label, validateInput: (v) => (v.trim() ? undefined : 'A run needs a name'),
      });
      if (label?.trim()) await store.rename(info.id, label.trim());
    }),
    command(logger, COMMANDS.deleteRun, 'could not delete the run', async (arg?: unknown) => {
      const id = idOf(arg) ?? (await pickRun(store, 'Delete which run?'))?.id;
      const info = id ? store.info(id) : undefined;
      if (!info) return;
      // why: an id string passed by a caller (another command, a test) is an explicit choice; the view and the palette confirm.
      if (typeof arg !== 'string') {
        const ok = await vscode.window.showWarningMessage(`Delete the run "${info.label}"?`, { modal: true }, 'Delete');
        if (ok !== 'Delete') return;
      }
      await store.delete(info.id);
    }),
  );
};
