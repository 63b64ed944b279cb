/**
 * The "Runs" tree in the Query Insight side bar: every recorded run, newest first, with its kind,
 * size and total time; a click shows it in the report; the context menu renames or deletes it.
 */
import * as vscode from 'vscode';
import { formatSeconds } from '../../core/report/compare';
import type { RunInfo } from '../../core/report/runs';
import type { RunStore } from './runStore';

export const RUNS_VIEW = 'queryInsight.runs';

/** The tree item of a run (also the argument the item's context-menu commands receive). */
export interface RunNode { run: RunInfo }

export class RunsTree implements vscode.TreeDataProvider<RunNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly sub: vscode.Disposable;

  constructor(private readonly store: RunStore, private readonly showRunCommand: string) {
    this.sub = store.onDidChange(() => this.emitter.fire());
  }

  getChildren(node?: RunNode): RunNode[] {
    return node ? [] : this.store.list().map((run) => ({ run }));
  }

  getTreeItem(node: RunNode): vscode.TreeItem {
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
    this.sub.dispose();
    this.emitter.dispose();
  }
}
