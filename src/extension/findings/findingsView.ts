/**
 * The "Findings" tree in the Query Insight side bar: the extension's current diagnostics in the
 * workspace (plan findings, N+1, runtime evidence …) grouped by code, counts in the group labels;
 * a finding's click opens its location. Follows vscode.languages.onDidChangeDiagnostics, keeping
 * only diagnostics whose source is Query Insight (debounced; the tree redraws only on a change).
 */
import * as vscode from 'vscode';
import type { Feature } from '../feature';
import { DIAGNOSTIC_SOURCE } from '../convert';
import { entryLabels, groupFindings, groupsSignature, totalLabel, type EntrySeverity, type FindingEntry, type FindingGroup } from './findingGroups';

export const FINDINGS_VIEW = 'queryInsight.findings';
const DEBOUNCE_MS = 150;

type Node = { kind: 'group'; group: FindingGroup } | { kind: 'entry'; entry: FindingEntry };

function severityOf(s: vscode.DiagnosticSeverity): EntrySeverity {
  switch (s) {
    case vscode.DiagnosticSeverity.Error: return 'error';
    case vscode.DiagnosticSeverity.Warning: return 'warning';
    case vscode.DiagnosticSeverity.Information: return 'info';
    default: return 'hint';
  }
}

function codeOf(d: vscode.Diagnostic): string {
  const c = d.code;
  if (c === undefined) return '';
  return typeof c === 'object' ? String(c.value) : String(c);
}

const ICONS: Record<EntrySeverity, vscode.ThemeIcon> = {
  error: new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground')),
  warning: new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground')),
  info: new vscode.ThemeIcon('info', new vscode.ThemeColor('problemsInfoIcon.foreground')),
  hint: new vscode.ThemeIcon('lightbulb'),
};

/** Query Insight's diagnostics in the workspace, as entries. */
export function currentEntries(): FindingEntry[] {
  const out: FindingEntry[] = [];
  for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
    for (const d of diagnostics) {
      if (d.source !== DIAGNOSTIC_SOURCE) continue;
      out.push({
        code: codeOf(d), message: d.message, severity: severityOf(d.severity), uri: uri.toString(),
        file: vscode.workspace.asRelativePath(uri, false), line: d.range.start.line, character: d.range.start.character,
      });
    }
  }
  return out;
}

export class FindingsTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private groups: FindingGroup[] = [];
  private signature = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly subscriptions: vscode.Disposable[] = [this.emitter];
  /** Fires after the groups changed (the view's description follows it). */
  readonly onDidUpdate: vscode.Event<readonly FindingGroup[]>;
  private readonly updateEmitter = new vscode.EventEmitter<readonly FindingGroup[]>();

  constructor() {
    this.onDidUpdate = this.updateEmitter.event;
    this.subscriptions.push(this.updateEmitter, vscode.languages.onDidChangeDiagnostics(() => this.schedule()));
    this.update();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.update(), DEBOUNCE_MS);
  }

  private update(): void {
    const groups = groupFindings(currentEntries());
    const sig = groupsSignature(groups);
    if (sig === this.signature) return;
    this.signature = sig;
    this.groups = groups;
    this.emitter.fire();
    this.updateEmitter.fire(groups);
  }

  /** The groups shown now. */
  get current(): readonly FindingGroup[] { return this.groups; }

  getChildren(node?: Node): Node[] {
    if (!node) return this.groups.map((group) => ({ kind: 'group', group }));
    if (node.kind === 'group') return node.group.entries.map((entry) => ({ kind: 'entry', entry }));
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'group') {
      const g = node.group;
      const item = new vscode.TreeItem(g.label, vscode.TreeItemCollapsibleState.Expanded);
      // why: a stable id keeps a group's expanded state across refreshes while its count changes.
      item.id = `group:${g.code}`;
      item.description = g.description;
      item.iconPath = ICONS[g.severity];
      item.contextValue = 'queryInsight.findingGroup';
      return item;
    }
    const e = node.entry;
    const labels = entryLabels(e);
    const item = new vscode.TreeItem(labels.label, vscode.TreeItemCollapsibleState.None);
    item.description = labels.description;
    item.tooltip = new vscode.MarkdownString().appendText(`${e.code ? `${e.code}: ` : ''}${e.message}\n\n${labels.description}`);
    item.iconPath = ICONS[e.severity];
    const at = new vscode.Range(e.line, e.character, e.line, e.character);
    item.command = { title: 'Open', command: 'vscode.open', arguments: [vscode.Uri.parse(e.uri), { selection: at }] };
    return item;
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const d of this.subscriptions) d.dispose();
  }
}

/** The Findings view; its description carries the total, its message says when it is empty. */
export const findingsFeature: Feature = ({ context }) => {
  const tree = new FindingsTree();
  const view = vscode.window.createTreeView(FINDINGS_VIEW, { treeDataProvider: tree, showCollapseAll: true });
  const describe = (groups: readonly FindingGroup[]) => {
    view.description = totalLabel(groups);
    view.message = groups.length ? undefined : 'No findings in the open files. Open a source file with SQL; plan findings need a database connection.';
  };
  describe(tree.current);
  context.subscriptions.push(tree, view, tree.onDidUpdate(describe));
};
