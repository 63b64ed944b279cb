/**
 * The "SQL Statements" tree in the Query Insight side bar: files, then their statements; a click
 * opens the statement. Refreshed from the index's change event.
 */
import * as vscode from 'vscode';
import { toVsRange } from '../convert';
import type { IndexedFile, SiteIndex } from '../siteIndex';
import type { SqlSite } from '../../core/model';
import { siteLabels, siteRow } from './siteRows';

type Node = { kind: 'file'; file: IndexedFile } | { kind: 'site'; uri: vscode.Uri; site: SqlSite };

export const STATEMENTS_VIEW = 'queryInsight.statements';

export class StatementsTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly sub: vscode.Disposable;

  constructor(private readonly index: SiteIndex) {
    this.sub = index.onDidChange(() => this.emitter.fire());
  }

  getChildren(node?: Node): Node[] {
    if (!node) return this.index.all().filter((f) => f.facts.sites.length > 0).map((file) => ({ kind: 'file', file }));
    if (node.kind === 'file') return node.file.facts.sites.map((site) => ({ kind: 'site', uri: node.file.uri, site }));
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'file') {
      const item = new vscode.TreeItem(node.file.uri, vscode.TreeItemCollapsibleState.Expanded);
      item.description = `${node.file.facts.sites.length}`;
      item.tooltip = node.file.facts.file;
      return item;
    }
    const labels = siteLabels(siteRow(node.site));
    const item = new vscode.TreeItem(labels.label, vscode.TreeItemCollapsibleState.None);
    item.description = `line ${node.site.range.start.line + 1} · ${labels.detail}`;
    item.tooltip = new vscode.MarkdownString().appendCodeblock(node.site.sql, 'sql');
    item.iconPath = new vscode.ThemeIcon(node.site.loops.length ? 'sync' : 'database');
    const start = toVsRange({ start: node.site.range.start, end: node.site.range.start });
    item.command = { title: 'Open', command: 'vscode.open', arguments: [node.uri, { selection: start }] };
    return item;
  }

  dispose(): void {
    this.sub.dispose();
    this.emitter.dispose();
  }
}
