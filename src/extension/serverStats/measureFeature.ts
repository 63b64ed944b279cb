/**
 * Start measuring / Stop measuring: a performance_schema snapshot when the benchmark starts,
 * another when it ends (a status-bar item counts the time in between and stops it). The window
 * becomes a run (Runs view, report), the Queries view's figures with their CodeLens and hover, the
 * runtime N+1 evidence, and the findings of serverStatsDiagnostics.ts. Only SELECTs on
 * performance_schema / information_schema are sent (src/db/serverStatsReader.ts).
 */
import { formatCount } from '../../core/format/numbers';
import * as vscode from 'vscode';
import type { ServerSnapshot } from '../../core/serverStats/snapshot';
import { queryStatsOf, serverStatsBetween, type ServerStatsResult } from '../../core/serverStats/serverStatsRun';
import { checkServerStats, readServerSnapshot, ServerStatsUnavailable } from '../../db/serverStatsReader';
import { COMMANDS } from '../commands';
import { command, type Feature } from '../feature';
import type { Services } from '../extension';
import type { QueriesService } from '../queries/queriesFeature';
import { ServerStatsDiagnostics } from './serverStatsDiagnostics';

const MEASURING_CONTEXT = 'queryInsight.measuring';

/** What Stop measuring returns (for tests and callers). */
export interface MeasureResult {
  seconds: number;
  statements: number;
  shapes: number;
  mapped: number;
  unusedIndexes: string[];
  runId: string;
}

export class Measuring implements vscode.Disposable {
  private start: { snapshot: ServerSnapshot; at: number } | undefined;
  private readonly status = vscode.window.createStatusBarItem('queryInsight.measuring', vscode.StatusBarAlignment.Left, 50);
  private ticker: NodeJS.Timeout | undefined;
  readonly diagnostics: ServerStatsDiagnostics;

  constructor(private readonly services: Services, private readonly queries: QueriesService) {
    this.status.name = 'Query Insight: measuring';
    this.status.command = COMMANDS.stopMeasuring;
    this.diagnostics = new ServerStatsDiagnostics(services);
  }

  get measuring(): boolean { return this.start !== undefined; }

  private async db() {
    const session = await this.services.connection.ensure();
    if (!session) throw new Error('no database connection: configure one (Query Insight: Connect to database) and try again');
    return session.service.db;
  }

  async startCommand(): Promise<boolean> {
    if (this.start) {
      vscode.window.setStatusBarMessage('Query Insight: already measuring; Stop measuring ends the window.', 5000);
      return false;
    }
    const db = await this.db();
    try {
      await checkServerStats(db);
    } catch (err) {
      if (!(err instanceof ServerStatsUnavailable)) throw err;
      void vscode.window.showErrorMessage(`Query Insight: ${err.message}`, { modal: false });
      this.services.logger.warn(err.message);
      return false;
    }
    const snapshot = await readServerSnapshot(db);
    this.start = { snapshot, at: Date.now() };
    this.services.logger.info(`measuring: first snapshot of ${db.options.database} (${snapshot.digests.length} digests, ${snapshot.indexUsage.length} index counters)`);
    await vscode.commands.executeCommand('setContext', MEASURING_CONTEXT, true);
    this.tick();
    this.ticker = setInterval(() => this.tick(), 1000);
    this.status.show();
    return true;
  }

  private tick(): void {
    const s = Math.floor((Date.now() - (this.start?.at ?? Date.now())) / 1000);
    this.status.text = `$(record) Measuring ${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
    this.status.tooltip = 'Query Insight is measuring the server (performance_schema). Click to stop and see the figures.';
  }

  async stopCommand(): Promise<MeasureResult | undefined> {
    const start = this.start;
    if (!start) {
      vscode.window.setStatusBarMessage('Query Insight: not measuring; Start measuring begins a window.', 5000);
      return undefined;
    }
    const db = await this.db();
    const end = await readServerSnapshot(db);
    this.start = undefined;
    clearInterval(this.ticker);
    this.status.hide();
    await vscode.commands.executeCommand('setContext', MEASURING_CONTEXT, false);
    return this.finish(serverStatsBetween(start.snapshot, end));
  }

  private async finish(result: ServerStatsResult): Promise<MeasureResult> {
    const seconds = result.diff.windowSeconds;
    const source = `performance_schema ${result.database}`;
    await this.services.index.ready();
    this.queries.showStats(queryStatsOf(result.shapes, seconds), source);
    const mapped = this.queries.current().model?.rows.filter((r) => r.how !== 'none').length ?? 0;
    const info = await this.services.report.recordRun({ kind: 'server', result, source });
    const unplaced = await this.diagnostics.show(result);
    const statements = result.shapes.reduce((n, s) => n + s.count, 0);
    const unused = result.indexes.unused.map((u) => `${u.table}.${u.index}`);
    this.services.logger.info(`measured ${seconds.toFixed(1)} s: ${statements} statements, ${result.shapes.length} shapes (${mapped} found in the source); `
      + `unused indexes: ${unused.join(', ') || 'none'}${unplaced.length ? ` (not in a workspace schema file: ${unplaced.join(', ')})` : ''}`);
    for (const k of result.indexes.kept) this.services.logger.info(`  not proposed: ${k.table}.${k.index}: ${k.reason}`);
    if (result.diff.lost) this.services.logger.warn(`${result.diff.lost} statements went to performance_schema's overflow row (raise performance_schema_digests_size)`);
    // why: the figures are in the Queries view and the unused indexes in Problems; this only confirms the window ended.
    vscode.window.setStatusBarMessage(`$(check) Measured ${seconds.toFixed(0)} s: ${formatCount(statements)} statements, ${result.shapes.length} query shapes, `
      + `${mapped} found in the source${unused.length ? `; ${unused.length} index(es) never used` : ''}`, 10_000);
    return { seconds, statements, shapes: result.shapes.length, mapped, unusedIndexes: unused, runId: info.id };
  }

  dispose(): void {
    clearInterval(this.ticker);
    this.status.dispose();
    this.diagnostics.dispose();
  }
}

/** Start / Stop measuring and the unused-index fix. */
export const measureFeature: Feature = ({ context, services }) => {
  const measuring = new Measuring(services, services.queries);
  context.subscriptions.push(
    measuring,
    command(services.logger, COMMANDS.startMeasuring, 'could not start measuring', () => measuring.startCommand()),
    command(services.logger, COMMANDS.stopMeasuring, 'could not stop measuring', () => measuring.stopCommand()),
    ...measuring.diagnostics.register(),
  );
};
