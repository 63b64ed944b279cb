/**
 * The workspace's `.sql` files, as the index quick fixes, the unused-index diagnostics and the
 * EXPLAIN failure judgement read them: the files (text of open documents, unsaved edits included) and,
 * kept until a `.sql` file changes, the tables they define (core's schemaFileTables).
 */
import * as vscode from 'vscode';
import { definesTables, type WorkspaceSqlFile } from '../core/analysis/schemaFileEdit';
import { schemaFileTables, type SchemaFileTables } from '../core/plan/explainFailure';
import { relativePath } from './siteIndex';

/** Largest .sql file read: multi-megabyte dumps of data are never the schema file and would cost a read each. */
const MAX_BYTES = 2 * 1024 * 1024;

/** Every `.sql` file of the workspace (outside node_modules, vendor, .git), with its text. */
export async function workspaceSqlFiles(): Promise<(WorkspaceSqlFile & { uri: vscode.Uri })[]> {
  const uris = await vscode.workspace.findFiles('**/*.sql', '**/{node_modules,vendor,.git}/**', 500);
  const out: (WorkspaceSqlFile & { uri: vscode.Uri })[] = [];
  for (const uri of uris) {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open) { out.push({ uri, path: relativePath(uri), text: open.getText() }); continue; }
    if ((await vscode.workspace.fs.stat(uri)).size > MAX_BYTES) continue;
    out.push({ uri, path: relativePath(uri), text: Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8') });
  }
  return out;
}

/** The tables the workspace's schema files define, read once and again after a `.sql` file changes. */
export class WorkspaceTables implements vscode.Disposable {
  private current: Promise<SchemaFileTables[]> | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly subscriptions: vscode.Disposable[] = [this.changed];
  /** Fires after a `.sql` file was created, changed or deleted (on disk, or saved). */
  readonly onDidChange = this.changed.event;

  constructor() {
    const watcher = vscode.workspace.createFileSystemWatcher('**/*.sql');
    const stale = (): void => { this.current = undefined; this.changed.fire(); };
    this.subscriptions.push(watcher, watcher.onDidCreate(stale), watcher.onDidChange(stale), watcher.onDidDelete(stale),
      vscode.workspace.onDidSaveTextDocument((d) => { if (/\.sql$/i.test(d.uri.path)) stale(); }));
  }

  /** What each schema file (a `.sql` file with a CREATE TABLE) defines. */
  tables(): Promise<SchemaFileTables[]> {
    this.current ??= workspaceSqlFiles().then((files) => files
      .filter((f) => definesTables(f.text))
      .map((f) => schemaFileTables(f.path, f.text)));
    const p = this.current;
    // why: a failed read (a file deleted mid-way) is not kept: the next failure asks again.
    p.catch(() => { if (this.current === p) this.current = undefined; });
    return p;
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }
}
