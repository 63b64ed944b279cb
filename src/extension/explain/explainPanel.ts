/**
 * "Explain statement under cursor": the statement's plan as a read-only virtual JSON document beside
 * the editor (the raw EXPLAIN FORMAT=JSON document when the server gave one, the normalised rows,
 * the findings, what was substituted). A virtual document needs no webview, so no script runs.
 */
import * as vscode from 'vscode';
import type { Logger } from '../logger';
import type { ConnectionManager } from '../connection/connectionManager';
import type { SiteIndex } from '../siteIndex';
import { analyzeSite, siteAt } from './siteAnalysis';

export const PLAN_SCHEME = 'query-insight-plan';

export class PlanDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '{ "error": "this plan is no longer available: run Explain statement under cursor again" }';
  }

  /** Stores a text under a URI (re-showing the same statement updates the open document). */
  set(uri: vscode.Uri, text: string): void {
    this.texts.set(uri.toString(), text);
    this.emitter.fire(uri);
  }

  dispose(): void { this.emitter.dispose(); this.texts.clear(); }
}

export function explainStatementCommand(index: SiteIndex, manager: ConnectionManager, docs: PlanDocuments, logger: Logger): () => Promise<vscode.Uri | undefined> {
  return async () => {
    const editor = vscode.window.activeTextEditor;
    const site = editor && siteAt(index, editor.document.uri, editor.selection.active);
    if (!editor || !site) {
      void vscode.window.showInformationMessage('Query Insight: put the cursor on a SQL statement in the code first.');
      return undefined;
    }
    const a = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Query Insight: EXPLAIN' }, () => analyzeSite(manager, site));
    if (!a) {
      const s = manager.state;
      logger.showError('Query Insight: no database connection to explain with', s.kind === 'failing' ? new Error(s.reason) : undefined);
      return undefined;
    }
    const r = a.result;
    const body = {
      file: site.file, line: site.range.start.line + 1, sql: site.sql,
      ...(r.filledSql ? { filledSql: r.filledSql } : {}),
      ...(r.explainedSql ? { explainedSql: r.explainedSql } : {}),
      substitutions: r.substitutions, findings: r.findings,
      ...(r.skipped ? { skipped: r.skipped } : {}),
      ...(r.error ? { error: r.error } : {}),
      ...(r.plan ? { plan: r.plan.json ?? null, rows: r.plan.rows, source: r.plan.source } : {}),
      suggestions: a.advice.suggestions.map((s) => ({ table: s.table, columns: s.columns, ddl: s.ddl, reason: s.reason })),
    };
    const name = `${site.file.replace(/[^\w.-]+/g, '_')}-L${site.range.start.line + 1}.plan.json`;
    const uri = vscode.Uri.from({ scheme: PLAN_SCHEME, path: `/${name}` });
    docs.set(uri, JSON.stringify(body, null, 2));
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, 'json');
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
    return uri;
  };
}
