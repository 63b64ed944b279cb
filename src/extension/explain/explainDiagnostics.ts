/**
 * Plan findings as diagnostics (source "Query Insight", code = finding code) on the SQL sites of the
 * files open in the editor: computed when a file opens, when its facts change (typing, debounced by
 * the index; a save), when the connection comes up and when the schema changes; cleared when the
 * file closes and when the connection goes away. Sites are explained one at a time over the one
 * connection; the ExplainService's plan cache makes unchanged statements free.
 */
import * as vscode from 'vscode';
import type { Finding } from '../../core/model';
import type { ConnectionManager } from '../connection/connectionManager';
import { toDiagnostic } from '../convert';
import type { Logger } from '../logger';
import type { SiteIndex } from '../siteIndex';
import { explainFindings } from './explainFindings';
import { analyzeSite } from './siteAnalysis';

export class ExplainDiagnostics implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection('queryInsight.plan');
  private readonly subscriptions: vscode.Disposable[] = [this.collection];
  /** Per document, the run that owns its diagnostics (a newer run makes older ones stop). */
  private readonly runs = new Map<string, number>();
  private queue: Promise<void> = Promise.resolve();
  private seq = 0;
  /** Findings last set per document, for the quick fixes and tests. */
  readonly findings = new Map<string, Finding[]>();

  constructor(private readonly index: SiteIndex, private readonly manager: ConnectionManager, private readonly logger: Logger) {
    const ws = vscode.workspace;
    this.subscriptions.push(
      ws.onDidOpenTextDocument((d) => this.schedule(d.uri)),
      ws.onDidSaveTextDocument((d) => this.schedule(d.uri)),
      ws.onDidCloseTextDocument((d) => this.clear(d.uri)),
      index.onDidChange((uris) => { for (const u of uris) if (this.isOpen(u)) this.schedule(u); }),
      manager.onDidChangeSchema(() => this.refreshAll()),
      manager.onDidChangeState((s) => {
        if (s.kind === 'unconfigured' || s.kind === 'untrusted' || s.kind === 'idle') { this.collection.clear(); this.findings.clear(); }
        if (s.kind === 'idle') this.refreshAll();
      }),
    );
  }

  private isOpen(uri: vscode.Uri): boolean {
    return vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString());
  }

  /** Re-explains the sites of every open document. */
  refreshAll(): void {
    for (const d of vscode.workspace.textDocuments) if (this.index.get(d.uri)) this.schedule(d.uri);
  }

  private clear(uri: vscode.Uri): void {
    this.runs.delete(uri.toString());
    this.collection.delete(uri);
    this.findings.delete(uri.toString());
  }

  /** Queues a refresh of one document (runs are serialised: one connection, one statement at a time). */
  schedule(uri: vscode.Uri): void {
    const key = uri.toString();
    if (!this.index.get(uri)) return;
    const run = ++this.seq;
    this.runs.set(key, run);
    this.queue = this.queue.then(() => this.refresh(uri, run)).catch((err) => this.logger.error(`diagnostics for ${uri.fsPath} failed`, err));
  }

  private async refresh(uri: vscode.Uri, run: number): Promise<void> {
    const key = uri.toString();
    const current = () => this.runs.get(key) === run;
    if (!current()) return;
    const file = this.index.get(uri);
    if (!file || !this.isOpen(uri)) return;
    if (this.manager.state.kind === 'unconfigured' || this.manager.state.kind === 'untrusted') return;
    const t0 = performance.now();
    const out: Finding[] = [];
    // why: the variants of one statement (a conditional `query += " LIMIT 3"`) share the literal's range
    // and mostly the same findings; one diagnostic per (place, code, message) is what a reader wants.
    const seen = new Set<string>();
    for (const site of file.facts.sites) {
      if (!current()) return;
      const a = await analyzeSite(this.manager, site);
      if (!a) {
        // No connection (failing): keep what was shown, the status bar says why.
        return;
      }
      for (const f of explainFindings(site, a.result, a.advice.suggestions)) {
        const k = `${f.code}|${f.range.start.line}:${f.range.start.character}|${f.message}`;
        if (!seen.has(k)) { seen.add(k); out.push(f); }
      }
    }
    if (!current()) return;
    this.findings.set(key, out);
    this.collection.set(uri, out.map((f) => toDiagnostic(f, (p) => this.uriOf(p, uri))));
    this.logger.debug(`explained ${file.facts.sites.length} statements of ${file.facts.file} in ${(performance.now() - t0).toFixed(0)} ms: ${out.length} findings`);
  }

  private uriOf(file: string, fallback: vscode.Uri): vscode.Uri {
    return this.index.all().find((f) => f.facts.file === file)?.uri ?? fallback;
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }
}
