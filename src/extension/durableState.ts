/**
 * The workspace's state (runs, loaded logs, walkthrough steps done …) kept in a file under the
 * extension's workspace storage, `<storageUri>/state.json`, in place of VS Code's workspaceState.
 *
 * In a browser workbench (code-server, the usual editor on a contest box) workspaceState lives in the
 * browser's IndexedDB: a window reloaded just after an update can come back without it, and another
 * browser, or the same one with a fresh profile, starts with none of it. The file is written by the
 * extension host, on the machine with the workspace, each time a value changes: whole, to a temporary
 * file renamed over the old one with the system's rename (atomic, where VS Code's file system API
 * deletes the old file first: a host stopped by a reload in between would leave no state at all).
 *
 * The first time (no file yet) the values of workspaceState are taken over, so state kept by an
 * earlier version is not lost. A file that cannot be read is set aside under a new name, never
 * overwritten, and the log says where it went.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { parseStateFile, stateFileText } from '../core/workspaceStateFile';
import type { Logger } from './logger';

const FILE = 'state.json';

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}

export class DurableState implements vscode.Memento {
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly dir: string,
    private readonly values: Map<string, unknown>,
    private readonly logger: Logger,
  ) {}

  /**
   * The state of the workspace whose storage is `storage`; `fallback` (workspaceState) when the window
   * has no workspace storage on this machine (no folder open).
   */
  static async open(storage: vscode.Uri | undefined, fallback: vscode.Memento, logger: Logger): Promise<vscode.Memento> {
    if (storage?.scheme !== 'file') { logger.info('state: no workspace storage on this machine (no folder open); state is kept in VS Code\'s workspace state'); return fallback; }
    const dir = storage.fsPath;
    const file = join(dir, FILE);
    let text: string | undefined;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if (!isMissing(err)) {
        logger.warn(`state: could not read ${file} (${(err as Error).message}); this window keeps its state in memory and in VS Code's workspace state`);
        return fallback;
      }
    }
    if (text !== undefined) {
      try {
        const values = parseStateFile(text);
        logger.info(`state: ${values.size} entr${values.size === 1 ? 'y' : 'ies'} read from ${file}`);
        return new DurableState(dir, values, logger);
      } catch (err) {
        const aside = join(dir, `${FILE}.unreadable-${Date.now()}`);
        try {
          await rename(file, aside);
        } catch (moveErr) {
          logger.warn(`state: ${file} is not a state file (${(err as Error).message}) and could not be moved aside (${(moveErr as Error).message}); this window keeps its state in memory and in VS Code's workspace state`);
          return fallback;
        }
        logger.warn(`state: ${file} is not a state file (${(err as Error).message}); moved to ${aside}, starting from VS Code's workspace state`);
      }
    }
    const taken = new Map(fallback.keys().map((k) => [k, fallback.get(k)] as const));
    if (!taken.size) logger.info(`state: none yet; it will be kept in ${file}`);
    const state = new DurableState(dir, taken, logger);
    if (taken.size) {
      logger.info(`state: ${taken.size} entr${taken.size === 1 ? 'y' : 'ies'} taken over from VS Code's workspace state into ${file}`);
      await state.save();
    }
    return state;
  }

  keys(): readonly string[] {
    return [...this.values.keys()];
  }

  get<T>(key: string): T | undefined;
  get<T>(key: string, defaultValue: T): T;
  get<T>(key: string, defaultValue?: T): T | undefined {
    return this.values.has(key) ? this.values.get(key) as T : defaultValue;
  }

  /** Sets the value at once (what `get` returns next); the promise settles when it is on disk. */
  update(key: string, value: unknown): Thenable<void> {
    // why: a copy, as workspaceState keeps one: changing the caller's object later changes nothing here.
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, JSON.parse(JSON.stringify(value)) as unknown);
    return this.save();
  }

  /** Writes after the writes already asked for, so the file ends with the latest values. */
  private save(): Promise<void> {
    const next = this.writing.then(() => this.write());
    this.writing = next.catch(() => undefined);
    return next;
  }

  private async write(): Promise<void> {
    const file = join(this.dir, FILE);
    const temp = join(this.dir, `${FILE}.writing`);
    try {
      await mkdir(this.dir, { recursive: true });
      await writeFile(temp, stateFileText(this.values), 'utf8');
      await rename(temp, file);
    } catch (err) {
      this.logger.warn(`state: could not write ${file}: ${(err as Error).message}`);
      throw err;
    }
  }
}
