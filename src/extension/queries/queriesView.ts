/**
 * The Queries view: the slow log's fingerprints ranked by the chosen figure (total time first), each
 * with its figures; children are the source sites that send it (a click opens the site). Fingerprints
 * no site sends are kept in the ranking with an "unmapped" marker.
 */
import * as vscode from 'vscode';
import type { SortKey } from '../../core/logs/slowStats';
import type { SqlSite } from '../../core/model';
import { queryDescription, queryLabel, queryTooltip, sitePlace, type QueryModel, type QueryRow } from './queryRows';

export const QUERIES_VIEW = 'queryInsight.queries';

export type QueryNode =
  | { kind: 'query'; row: QueryRow }
  | { kind: 'site'; row: QueryRow; site: SqlSite; uri: vscode.Uri | undefined };

/** Arguments of the open-site command: plain JSON. */
export interface SiteTarget { uri: string; line: number; character: number }

export class QueriesTree implements vscode.TreeDataProvider<QueryNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<QueryNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private model: QueryModel | undefined;
  private sort: SortKey = 'sum';
  private nodes = new Map<string, QueryNode>();

  constructor(private readonly openSiteCommand: string, private readonly uriOf: (file: string) => vscode.Uri | undefined) {}

  /** New figures or order; fires a refresh. */
  update(model: QueryModel | undefined, sort: SortKey): void {
    this.model = model;
    this.sort = sort;
    this.nodes = new Map(model?.rows.map((row) => [row.stats.fingerprint, { kind: 'query', row } as QueryNode]) ?? []);
    this.changed.fire(undefined);
  }

  /** The root node of a fingerprint (for reveal). */
  nodeOf(fingerprint: string): QueryNode | undefined {
    return this.nodes.get(fingerprint);
  }

  getChildren(node?: QueryNode): QueryNode[] {
    if (!this.model) return [];
    if (!node) return this.model.rows.map((row) => this.nodes.get(row.stats.fingerprint)!);
    if (node.kind === 'site') return [];
    return node.row.sites.map((site) => ({ kind: 'site', row: node.row, site, uri: this.uriOf(site.file) }));
  }

  getParent(node: QueryNode): QueryNode | undefined {
    return node.kind === 'site' ? this.nodes.get(node.row.stats.fingerprint) : undefined;
  }

  getTreeItem(node: QueryNode): vscode.TreeItem {
    if (node.kind === 'site') {
      const item = new vscode.TreeItem(sitePlace(node.site), vscode.TreeItemCollapsibleState.None);
      item.id = `site:${node.row.stats.fingerprint}:${sitePlace(node.site)}:${node.site.range.start.character}`;
      item.description = [node.site.function, node.site.loops.length ? 'in a loop' : undefined].filter(Boolean).join(' · ') || undefined;
      item.iconPath = new vscode.ThemeIcon('go-to-file');
      item.contextValue = 'queryInsight.querySite';
      if (node.uri) item.command = { title: 'Open', command: this.openSiteCommand, arguments: [targetOf(node.uri, node.site)] };
      return item;
    }
    const r = node.row;
    const mapped = r.how !== 'none';
    const item = new vscode.TreeItem(`${r.rank}. ${queryLabel(r.stats)}`,
      mapped ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = `query:${r.stats.fingerprint}`;
    item.description = queryDescription(r, this.sort);
    const tip = new vscode.MarkdownString(queryTooltip(r));
    tip.isTrusted = false;
    item.tooltip = tip;
    item.iconPath = new vscode.ThemeIcon(mapped ? 'database' : 'question');
    item.contextValue = mapped ? 'queryInsight.query' : 'queryInsight.query.unmapped';
    const only = r.sites.length === 1 ? this.uriOf(r.sites[0].file) : undefined;
    if (only) item.command = { title: 'Open', command: this.openSiteCommand, arguments: [targetOf(only, r.sites[0])] };
    return item;
  }

  dispose(): void { this.changed.dispose(); }
}

export function targetOf(uri: vscode.Uri, site: SqlSite): SiteTarget {
  return { uri: uri.toString(), line: site.range.start.line, character: site.range.start.character };
}
