/**
 * The workspace's runs: each run a JSON file under the extension's workspace storage
 * (`<storageUri>/runs/<id>.json`), the list of runs (without their rows) in the workspace's state (durableState.ts), so the
 * Runs view and the quick picks never read the files. At most `maxRuns` are kept (oldest dropped).
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { parseRun, runInfo, serializeRun, type Run, type RunInfo } from '../../core/report/runs';
import type { Logger } from '../logger';

export const RUNS_INDEX_KEY = 'queryInsight.runs';

/** A fresh run id: time (base 36) and 6 random hex digits, e.g. `lx3k9a2f-9c01be`. */
export function newRunId(now = Date.now()): string {
  return `${now.toString(36)}-${randomBytes(3).toString('hex')}`;
}

export class RunStore implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  /** Fires after a run is added, renamed or deleted. */
  readonly onDidChange = this.emitter.event;

  constructor(
    private readonly dir: vscode.Uri,
    private readonly state: vscode.Memento,
    private readonly logger: Logger,
    private readonly maxRuns = 100,
  ) {}

  /** Runs, newest first. */
  list(): RunInfo[] {
    const v = this.state.get<RunInfo[]>(RUNS_INDEX_KEY, []);
    return Array.isArray(v) ? [...v].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0)) : [];
  }

  info(id: string): RunInfo | undefined {
    return this.list().find((r) => r.id === id);
  }

  private fileOf(id: string): vscode.Uri {
    return vscode.Uri.joinPath(this.dir, 'runs', `${id}.json`);
  }

  /** Reads a run; the label comes from the index (renames do not rewrite the file). */
  async get(id: string): Promise<Run> {
    const info = this.info(id);
    if (!info) throw new Error(`no run with id ${id}`);
    const bytes = await vscode.workspace.fs.readFile(this.fileOf(id));
    const run = parseRun(Buffer.from(bytes).toString('utf8'));
    return { ...run, id, label: info.label };
  }

  /** Stores a run (a run with an id already stored gets a new id). */
  async add(run: Run): Promise<RunInfo> {
    const stored = this.info(run.id) ? { ...run, id: newRunId() } : run;
    await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(this.dir, 'runs'));
    await vscode.workspace.fs.writeFile(this.fileOf(stored.id), Buffer.from(serializeRun(stored), 'utf8'));
    const list = [runInfo(stored), ...this.list()];
    const dropped = list.splice(this.maxRuns);
    await this.state.update(RUNS_INDEX_KEY, list);
    for (const d of dropped) {
      this.logger.info(`runs: more than ${this.maxRuns}, dropping the oldest, "${d.label}"`);
      await this.removeFile(d.id);
    }
    this.logger.info(`runs: recorded "${stored.label}" (${stored.kind}, ${stored.summary.count} ${stored.kind === 'access' ? 'requests' : 'statements'}, from ${stored.source})`);
    this.emitter.fire();
    return runInfo(stored);
  }

  async rename(id: string, label: string): Promise<void> {
    const list = this.list();
    const r = list.find((x) => x.id === id);
    if (!r) throw new Error(`no run with id ${id}`);
    r.label = label;
    await this.state.update(RUNS_INDEX_KEY, list);
    this.emitter.fire();
  }

  async delete(id: string): Promise<void> {
    await this.state.update(RUNS_INDEX_KEY, this.list().filter((r) => r.id !== id));
    await this.removeFile(id);
    this.emitter.fire();
  }

  private async removeFile(id: string): Promise<void> {
    try {
      await vscode.workspace.fs.delete(this.fileOf(id));
    } catch (err) {
      this.logger.warn(`runs: could not delete ${this.fileOf(id).fsPath}: ${(err as Error).message}`);
    }
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
