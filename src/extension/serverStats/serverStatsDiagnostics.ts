/**
 * The findings of a measured window as diagnostics (so the Problems panel and the Findings view show
 * them): `full-scan-observed` on statements, `unused-index` on index definitions in the workspace's
 * .sql schema files, with a quick fix that drops the index from the database after a modal
 * confirmation showing the exact statement (the guard sends DDL only when confirmed).
 */
import * as vscode from 'vscode';
import type { Finding } from '../../core/model';
import { findIndexDefinition } from '../../core/serverStats/indexLocations';
import { fullScanFindings, unusedIndexFindings } from '../../core/serverStats/serverStatsFindings';
import type { ServerStatsResult } from '../../core/serverStats/serverStatsRun';
import { dropUnusedIndex, dropUnusedIndexSql } from '../../db/indexDrop';
import { COMMANDS } from '../commands';
import { command } from '../feature';
import { toDiagnostic } from '../convert';
import type { Services } from '../extension';
import { workspaceSqlFiles } from '../schemaFiles';

/** The quick fix's argument: which index, in which database. */
export interface DropIndexTarget { schema: string; table: string; index: string }

function isTarget(v: unknown): v is DropIndexTarget {
  const o = v as Record<string, unknown> | undefined;
  return !!o && typeof o.schema === 'string' && typeof o.table === 'string' && typeof o.index === 'string';
}

export class ServerStatsDiagnostics implements vscode.Disposable, vscode.CodeActionProvider {
  private readonly collection = vscode.languages.createDiagnosticCollection('query-insight-server-stats');

  constructor(private readonly services: Services) {}

  /** Replaces the diagnostics with the window's; returns the unused indexes no schema file defines. */
  async show(result: ServerStatsResult): Promise<string[]> {
    const sites = this.services.index.sites();
    const uris = new Map(sites.map((s) => [s.site.file, s.uri]));
    const files = await workspaceSqlFiles();
    for (const f of files) uris.set(f.path, f.uri);
    const scans = fullScanFindings(result.shapes, sites.map((s) => s.site));
    const { findings, unplaced } = unusedIndexFindings(result.indexes.unused, (u) => findIndexDefinition(files, u.table, u.index));
    const byUri = new Map<string, { uri: vscode.Uri; list: vscode.Diagnostic[] }>();
    const uriOf = (file: string): vscode.Uri => uris.get(file) ?? vscode.Uri.file(file);
    for (const f of [...scans, ...findings] as Finding[]) {
      const uri = uriOf(f.file);
      let e = byUri.get(uri.toString());
      if (!e) { e = { uri, list: [] }; byUri.set(uri.toString(), e); }
      const d = toDiagnostic(f, uriOf);
      if (f.code === 'unused-index') (d as vscode.Diagnostic & { target?: DropIndexTarget }).target = { schema: String(f.data?.schema), table: String(f.data?.table), index: String(f.data?.index) };
      e.list.push(d);
    }
    this.collection.clear();
    for (const e of byUri.values()) this.collection.set(e.uri, e.list);
    return unplaced.map((u) => `${u.table}.${u.index}`);
  }

  provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, ctx: vscode.CodeActionContext): vscode.CodeAction[] {
    const out: vscode.CodeAction[] = [];
    for (const d of ctx.diagnostics) {
      const target = (this.collection.get(doc.uri) ?? []).find((x) => x === d || (x.range.isEqual(d.range) && x.message === d.message)) as (vscode.Diagnostic & { target?: DropIndexTarget }) | undefined;
      if (!target?.target) continue;
      const a = new vscode.CodeAction(`Drop index ${target.target.index} from ${target.target.table} in the database…`, vscode.CodeActionKind.QuickFix);
      a.diagnostics = [d];
      a.command = { title: a.title, command: COMMANDS.dropUnusedIndex, arguments: [target.target] };
      out.push(a);
    }
    return out;
  }

  /** The quick fix: confirm the exact statement, send it, refresh the schema, clear the finding. */
  async dropCommand(arg: unknown): Promise<string | undefined> {
    if (!isTarget(arg)) return undefined;
    const sql = dropUnusedIndexSql(arg.table, arg.index, arg.schema);
    const ok = await vscode.window.showWarningMessage(`Drop index ${arg.index} from table ${arg.table} in database ${arg.schema}?`, {
      modal: true,
      detail: `${sql};\n\nThe measured window never read it. Other workloads (batch jobs, admin pages) may need it; `
        + 'remove its definition from the schema file too, or re-initialisation brings it back.',
    }, 'Drop index');
    if (ok !== 'Drop index') return undefined;
    const session = await this.services.connection.ensure();
    if (!session) throw new Error('no database connection');
    const sent = await dropUnusedIndex(session.service.db, { table: arg.table, index: arg.index, database: arg.schema }, { confirmed: true });
    this.services.logger.info(`sent: ${sent}`);
    this.collection.forEach((uri, list) => {
      const keep = list.filter((d) => { const t = (d as vscode.Diagnostic & { target?: DropIndexTarget }).target; return !t || t.table !== arg.table || t.index !== arg.index; });
      if (keep.length !== list.length) this.collection.set(uri, keep);
    });
    await this.services.connection.refreshSchema();
    void vscode.window.showInformationMessage(`Query Insight: dropped ${arg.index} from ${arg.table}.`);
    return sent;
  }

  register(): vscode.Disposable[] {
    return [
      vscode.languages.registerCodeActionsProvider([{ language: 'sql' }, { pattern: '**/*.sql' }], this, { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }),
      command(this.services.logger, COMMANDS.dropUnusedIndex, 'could not drop the index', (arg: unknown) => this.dropCommand(arg)),
    ];
  }

  dispose(): void { this.collection.dispose(); }
}
