/**
 * Choosing a log file to import: the recently imported logs of this workspace (kept in
 * workspace's state, most recent first, only those still on disk offered), well-known places and the
 * workspace's log files, each listed only when it sniffs as the kind asked for (the others, an empty
 * nginx default or a slow log offered as an access log, sit under "Other file…"), and "Browse…" for
 * the file dialog. Both log imports use it, each under its own key.
 */
import { existsSync, statSync } from 'node:fs';
import { formatSize } from '../../core/format/numbers';
import { isAbsolute } from 'node:path';
import * as vscode from 'vscode';
import { describeLogKind, type FileKind } from '../../core/logs/nothingRead';
import { sniffLogFile } from '../../node/logSniffFile';

const MAX_RECENT = 8;

export class RecentLogs {
  constructor(private readonly state: vscode.Memento, private readonly key: string) {}

  /** Recent paths, most recent first. */
  list(): string[] {
    const v = this.state.get<unknown>(this.key);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  }

  /** Puts a path first. */
  async remember(path: string): Promise<void> {
    await this.state.update(this.key, [path, ...this.list().filter((p) => p !== path)].slice(0, MAX_RECENT));
  }
}

type Item = vscode.QuickPickItem & { path?: string; browse?: boolean; other?: boolean };

export interface PickLogOptions {
  title: string;
  /** The kind of log asked for: files that sniff as anything else are listed under "Other file…". */
  kind: 'access' | 'slow';
  openLabel: string;
  placeHolder?: string;
  /** Well-known places offered when they exist (`/var/log/mysql/mysql-slow.log`). */
  defaults?: readonly string[];
  /** How those places are described in the list (default `default location`). */
  defaultsLabel?: string;
  /** Log files in the workspace offered too (a glob such as `logs/*slow*.log`). */
  workspaceGlob?: string;
  filters?: Record<string, string[]>;
  /** A folder the file dialog opens in when it exists (`/var/log/nginx`); else the workspace folder. */
  browseFrom?: string;
  /** Show the list (only "Browse…" in it) even when nothing is offered, instead of going straight to the dialog. */
  listWhenEmpty?: boolean;
}

/** `logs/slow.log` for a file inside the workspace, the absolute path otherwise. */
export function logSourceName(path: string): string {
  const rel = vscode.workspace.asRelativePath(vscode.Uri.file(path), false);
  return isAbsolute(rel) ? path : rel;
}

/**
 * Asks for a log file: a quick pick of the recent ones, the well-known places and the workspace's
 * matching files (each with its size), plus "Browse…" for the file dialog. Returns the file's path,
 * or undefined when the user backs out.
 */
export async function pickLogFile(recent: RecentLogs, opts: PickLogOptions): Promise<string | undefined> {
  const items: Item[] = [];
  const others: Item[] = [];
  const seen = new Set<string>();
  const add = (path: string, description: string): void => {
    if (seen.has(path) || !existsSync(path)) return;
    seen.add(path);
    let size = '';
    let kind: FileKind = 'unknown';
    try {
      size = formatSize(statSync(path).size);
      kind = sniffLogFile(path).kind;
    } catch { /* unreadable: offered among the others; the import reports the error */ }
    const item = { label: logSourceName(path), path };
    if (kind === opts.kind) items.push({ ...item, description: [description, size].filter(Boolean).join(' · ') });
    else others.push({ ...item, description: [description, describeLogKind(kind)].join(' · ') });
  };
  for (const p of recent.list()) add(p, 'recent');
  for (const p of opts.defaults ?? []) add(p, opts.defaultsLabel ?? 'default location');
  if (opts.workspaceGlob) {
    const found = await vscode.workspace.findFiles(opts.workspaceGlob, '**/node_modules/**', 20);
    for (const u of found) if (u.scheme === 'file' || u.scheme === 'vscode-remote') add(u.fsPath, 'in the workspace');
  }
  let browse = items.length === 0 && others.length === 0 && !opts.listWhenEmpty;
  if (!browse) {
    const browseItem: Item = { label: '$(folder-opened) Browse…', browse: true, alwaysShow: true };
    const list: Item[] = [...items, ...(others.length ? [{ label: '$(files) Other file…', description: `${others.length} not ${describeLogKind(opts.kind)}`, other: true, alwaysShow: true }] : []), browseItem];
    let picked = await vscode.window.showQuickPick(list, { title: opts.title, placeHolder: opts.placeHolder, matchOnDescription: true });
    if (picked?.other) picked = await vscode.window.showQuickPick([...others, browseItem], { title: `${opts.title}: other files`, placeHolder: `Files that are not ${describeLogKind(opts.kind)}`, matchOnDescription: true });
    if (!picked) return undefined;
    if (picked.path) return picked.path;
    browse = true;
  }
  const uris = await vscode.window.showOpenDialog({
    title: opts.title, openLabel: opts.openLabel, canSelectMany: false, canSelectFiles: true, canSelectFolders: false,
    defaultUri: opts.browseFrom !== undefined ? (existsSync(opts.browseFrom) ? vscode.Uri.file(opts.browseFrom) : vscode.workspace.workspaceFolders?.[0]?.uri)
      : items[0]?.path ? vscode.Uri.file(items[0].path) : vscode.workspace.workspaceFolders?.[0]?.uri,
    filters: opts.filters,
  });
  return uris?.[0]?.fsPath;
}
