/**
 * The "Runs" tree in the Query Insight side bar: the recorded benchmark rounds first (score, commit,
 * memo, health; newest first), then every imported log kept as a run, with its kind, size and total
 * time; a click on an import shows it in the report; its context menu renames or deletes it.
 */
import * as vscode from 'vscode';
import { formatSeconds } from '../../core/report/compare';
import type { RecordInfo } from '../../core/runs/record';
import type { RunInfo } from '../../core/report/runs';
import type { RunStore } from './runStore';

export const RUNS_VIEW = 'queryInsight.runs';

/** The tree item of an imported run (also the argument the item's context-menu commands receive). */
export interface RunNode { run: RunInfo }
/** The tree item of a recorded round. */
export interface RoundNode { round: RecordInfo }

/** Where the recorded rounds come from (the rounds feature). */
export interface RoundsSource {
  list(): RecordInfo[];
  readonly onDidChange: vscode.Event<void>;
}

/** `score 12345 · 3f2a1c4+` — what a round is known by. */
export function roundLabel(r: RecordInfo): string {
  const score = r.failed !== undefined ? `FAILED${r.score !== null ? ` ${r.score}` : ''}` : r.score === null ? 'no score' : `score ${r.score}`;
  return `${score} · ${r.commit ? r.commit.slice(0, 7) + (r.dirty ? '+' : '') : 'no commit'}`;
}

export class RunsTree implements vscode.TreeDataProvider<RunNode | RoundNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly subs: vscode.Disposable[];

  constructor(private readonly store: RunStore, private readonly showRunCommand: string, private readonly rounds?: RoundsSource) {
    this.subs = [store.onDidChange(() => this.emitter.fire()), ...(rounds ? [rounds.onDidChange(() => this.emitter.fire())] : [])];
  }

  getChildren(node?: RunNode | RoundNode): (RunNode | RoundNode)[] {
    if (node) return [];
    return [...(this.rounds?.list() ?? []).map((round) => ({ round })), ...this.store.list().map((run) => ({ run }))];
  }

  getTreeItem(node: RunNode | RoundNode): vscode.TreeItem {
    if ('round' in node) return roundItem(node.round);
    const r = node.run;
    const item = new vscode.TreeItem(r.label, vscode.TreeItemCollapsibleState.None);
    const what = r.kind === 'access' ? 'requests' : 'statements';
    item.description = `${r.kind === 'access' ? 'access' : r.origin === 'performance_schema' ? 'server stats' : 'slow'} · ${r.summary.count} ${what} · ${formatSeconds(r.summary.totalTime)}`;
    item.tooltip = `${r.source}\n${new Date(r.createdAt).toLocaleString()}\n${r.summary.rows} ${r.kind === 'access' ? 'endpoints' : 'fingerprints'}`;
    item.iconPath = new vscode.ThemeIcon(r.kind === 'access' ? 'globe' : r.origin === 'performance_schema' ? 'pulse' : 'database');
    item.contextValue = 'queryInsight.run';
    item.id = r.id;
    item.command = { title: 'Show run', command: this.showRunCommand, arguments: [r.id] };
    return item;
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.emitter.dispose();
  }
}

function roundItem(r: RecordInfo): vscode.TreeItem {
  const item = new vscode.TreeItem(roundLabel(r), vscode.TreeItemCollapsibleState.None);
  const parts = [r.memo, r.requests !== null ? `${r.requests} requests` : undefined, r.health.length ? `⚠ ${r.health.map((h) => h.code).join(', ')}` : undefined];
  item.description = parts.filter(Boolean).join(' · ');
  const md = new vscode.MarkdownString();
  md.appendText(`Run ${r.id} · ${new Date(r.createdAt).toLocaleString()}\n`);
  if (r.failed !== undefined) md.appendText(`The benchmark failed: ${r.failed}\n`);
  if (r.memo) md.appendText(`Memo: ${r.memo}\n`);
  md.appendText(`Window: ${r.window.from ?? '?'} → ${r.window.to ?? '?'} (${r.window.origin === 'initialize' ? 'from the last POST /initialize' : r.window.origin === 'since' ? 'given by hand' : 'no /initialize: everything since the previous run'})\n`);
  for (const h of r.health) md.appendText(`⚠ ${h.message}\n`);
  item.tooltip = md;
  item.iconPath = new vscode.ThemeIcon(r.failed !== undefined ? 'error' : r.health.length ? 'warning' : 'pass');
  item.contextValue = 'queryInsight.round';
  item.id = `round:${r.id}`;
  return item;
}
