/** The Endpoints view: one row per endpoint, in the chosen order; a row opens its handler. */
import * as vscode from 'vscode';
import type { EndpointStats } from '../../core/logs/accessAnalysis';
import { COMMANDS } from '../commands';
import { cpuCell, cpuOfEndpoint } from '../profile/profileRows';
import { endpointDescription, endpointLabel, endpointTooltip, SORT_LABELS } from './endpointRows';
import type { EndpointsModel } from './endpointsModel';

export const ENDPOINTS_VIEW = 'queryInsight.endpoints';

export class EndpointsTree implements vscode.TreeDataProvider<EndpointStats>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<EndpointStats | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly sub: vscode.Disposable;

  constructor(private readonly model: EndpointsModel) {
    this.sub = model.onDidChange(() => this.changed.fire(undefined));
  }

  getChildren(element?: EndpointStats): EndpointStats[] {
    return element ? [] : this.model.rows();
  }

  getTreeItem(e: EndpointStats): vscode.TreeItem {
    const item = new vscode.TreeItem(endpointLabel(e), vscode.TreeItemCollapsibleState.None);
    const route = this.model.routeOf(e);
    const known = !!(route?.handler?.file && route.handler.range && this.model.uriOf(route.handler.file));
    const cpu = cpuOfEndpoint(this.model.profile, e.method, e.uri);
    item.description = endpointDescription(e, this.model.sort) + (cpu ? ` · ${cpuCell(cpu)}` : '') + (known ? '' : ' · no handler');
    const total = this.model.report?.endpoints.reduce((s, x) => s + x.sum, 0);
    item.tooltip = new vscode.MarkdownString(endpointTooltip({ ...e, route: route ?? e.route }, total));
    item.iconPath = new vscode.ThemeIcon(e.s5xx ? 'error' : known ? 'symbol-method' : 'circle-outline');
    item.contextValue = known ? 'queryInsight.endpoint' : 'queryInsight.endpointWithoutHandler';
    if (known) item.command = { command: COMMANDS.openEndpointHandler, title: 'Open handler', arguments: [{ method: e.method, uri: e.uri }] };
    item.id = `${e.method} ${e.uri} ${e.kind}`;
    return item;
  }

  /** The view's description: the log, the order, the watch state. */
  describe(): string {
    if (!this.model.report) return '';
    return `${this.model.source} · by ${SORT_LABELS[this.model.sort].toLowerCase()}${this.model.watching ? ' · watching' : ''}`;
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}
