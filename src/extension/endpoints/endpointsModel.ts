/**
 * What the Endpoints view and the CodeLenses show: the imported log's figures, the sort order, the
 * watch state, and the workspace's routes (from the site index, handlers resolved across files).
 */
import * as vscode from 'vscode';
import type { AccessReport, EndpointStats } from '../../core/logs/accessAnalysis';
import type { Route } from '../../core/model';
import type { KeptProfile } from '../../core/profile/keptProfile';
import { resolveHandlers } from '../../core/source/routes/resolveHandlers';
import type { SiteIndex } from '../siteIndex';
import type { AccessLogSession } from './accessLogSession';
import { ENDPOINT_SORTS, sortEndpoints, type EndpointSort } from './endpointRows';

const SORT_KEY = 'queryInsight.endpoints.sort';

export class EndpointsModel implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the figures, the order, the watch state or the routes change. */
  readonly onDidChange = this.changed.event;
  session: AccessLogSession | undefined;
  /** The log as the user knows it (workspace-relative when inside the workspace). */
  source = '';
  report: AccessReport | undefined;
  /** The imported CPU profile folded onto the handlers (the CPU column and lenses), and where it came from. */
  profile: KeptProfile | undefined;
  profileSource = '';
  watching = false;
  private routeCache: { routes: Route[]; uris: Map<string, vscode.Uri> } | undefined;
  private readonly sub: vscode.Disposable;

  constructor(private readonly state: vscode.Memento, private readonly index: SiteIndex) {
    this.sub = index.onDidChange(() => { this.routeCache = undefined; this.changed.fire(); });
  }

  get sort(): EndpointSort {
    const s = this.state.get<string>(SORT_KEY);
    return (ENDPOINT_SORTS as readonly string[]).includes(s ?? '') ? (s as EndpointSort) : 'total';
  }

  async setSort(sort: EndpointSort): Promise<void> {
    await this.state.update(SORT_KEY, sort);
    this.changed.fire();
  }

  /** The endpoints in the current order (empty before an import). */
  rows(): EndpointStats[] {
    return this.report ? sortEndpoints(this.report.endpoints, this.sort) : [];
  }

  /** New figures; `session` is the local log they came from (undefined for figures read elsewhere, e.g. from the boxes). */
  setReport(session: AccessLogSession | undefined, source: string, report: AccessReport): void {
    this.session = session;
    this.source = source;
    this.report = report;
    void vscode.commands.executeCommand('setContext', 'queryInsight.endpointsLoaded', true);
    this.changed.fire();
  }

  /** A new CPU profile (undefined: none). */
  setProfile(profile: KeptProfile | undefined, source: string): void {
    this.profile = profile;
    this.profileSource = source;
    void vscode.commands.executeCommand('setContext', 'queryInsight.profileLoaded', !!profile);
    this.changed.fire();
  }

  setWatching(on: boolean): void {
    this.watching = on;
    void vscode.commands.executeCommand('setContext', 'queryInsight.accessLogWatching', on);
    this.changed.fire();
  }

  /** Every route in the workspace, handlers named in one file and defined in another resolved. */
  routes(): Route[] {
    return this.cache().routes;
  }

  /** The Uri of a workspace-relative file of the index. */
  uriOf(file: string): vscode.Uri | undefined {
    return this.cache().uris.get(file);
  }

  /** The route now defining an endpoint (the index may have been updated since the import). */
  routeOf(e: Pick<EndpointStats, 'method' | 'uri' | 'route'>): Route | undefined {
    return this.routes().find((r) => r.pattern === e.uri && (r.method === e.method || r.method === 'ANY')) ?? e.route;
  }

  private cache(): { routes: Route[]; uris: Map<string, vscode.Uri> } {
    if (!this.routeCache) {
      const files = this.index.all();
      this.routeCache = { routes: resolveHandlers(files.map((f) => f.facts)), uris: new Map(files.map((f) => [f.facts.file, f.uri])) };
    }
    return this.routeCache;
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}
