/**
 * N+1 in the editor: diagnostics with code `n-plus-one` on the inner statement (the loop, each call
 * on the path and the outer query as related information), a hover with core's advice, and a quick
 * fix that inserts the batched statement as a comment at the loop. Detection is static (core's
 * detectNPlusOne over the SiteIndex's facts, re-run debounced when facts change); when connected, the
 * outer queries are explained and the findings gain the estimated iterations.
 */
import * as vscode from 'vscode';
import { detectNPlusOne, N_PLUS_ONE, type NPlusOneFinding } from '../../core/analysis/nPlusOne';
import { adviseNPlusOne } from '../../core/analysis/nPlusOneAdvice';
import type { Finding } from '../../core/model';
import type { ConnectionManager } from '../connection/connectionManager';
import { DIAGNOSTIC_SOURCE, fromVsPosition, toDiagnostic, toVsPosition, toVsRange } from '../convert';
import { SOURCE_SELECTOR } from '../explain/explainFeature';
import type { Feature } from '../feature';
import type { Logger } from '../logger';
import type { SiteIndex } from '../siteIndex';
import { findingsAt, findingsByFile, indentOf, loopIterations } from './nPlusOneMapping';
import { statementFacts } from '../../core/analysis/planFindingsQuery';

const DEBOUNCE_MS = 200;

export class NPlusOneService implements vscode.Disposable, vscode.HoverProvider, vscode.CodeActionProvider {
  readonly collection = vscode.languages.createDiagnosticCollection('queryInsight.nPlusOne');
  private readonly subscriptions: vscode.Disposable[] = [this.collection];
  private findings: NPlusOneFinding[] = [];
  private byFile = new Map<string, NPlusOneFinding[]>();
  // --- runtime evidence hook (the slow log, src/extension/queries/) ---
  /** Turns the static findings into the ones shown (raised, annotated, added); none = the static ones. */
  private overlay: ((statics: readonly NPlusOneFinding[]) => Finding[]) | undefined;
  private shownByFile: Map<string, Finding[]> | undefined;
  /** Estimated result rows of outer statements, by SQL, for the current connection and schema. */
  private estimates = new Map<string, { rows: number; from: string }>();
  private timer: NodeJS.Timeout | undefined;
  private estimating = false;

  constructor(private readonly index: SiteIndex, private readonly manager: ConnectionManager, private readonly logger: Logger) {
    const ws = vscode.workspace;
    this.subscriptions.push(
      index.onDidChange(() => this.schedule()),
      ws.onDidOpenTextDocument((d) => this.show(d.uri)),
      ws.onDidCloseTextDocument((d) => this.collection.delete(d.uri)),
      manager.onDidChangeSchema(() => { this.estimates.clear(); this.schedule(); }),
      manager.onDidChangeState((s) => { if (s.kind !== 'connected' && this.estimates.size) { this.estimates.clear(); this.schedule(); } }),
    );
  }

  /** Re-detects after the debounce delay. */
  schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.detect(), DEBOUNCE_MS);
  }

  private detect(): void {
    const t0 = performance.now();
    const facts = this.index.all().map((f) => f.facts);
    this.findings = detectNPlusOne(facts, { estimatedRows: (site) => this.estimates.get(site.sql) });
    this.byFile = findingsByFile(this.findings);
    this.applyOverlay();
    this.logger.debug(`N+1: ${this.findings.length} findings over ${facts.length} files in ${(performance.now() - t0).toFixed(0)} ms`);
    this.collection.clear();
    for (const d of vscode.workspace.textDocuments) this.show(d.uri);
    void this.estimate();
  }

  /** Explains the outer queries (when connected) and re-detects once with their row estimates. */
  private async estimate(): Promise<void> {
    if (this.estimating || !this.manager.live) return;
    // why: the outer query's LIMIT ? is explained at the number the code passes (its literal, constant or default), as the hover explains it.
    const outers = new Map<string, number | undefined>();
    for (const f of this.findings) if (f.data.outer && !this.estimates.has(f.data.outer.sql)) outers.set(f.data.outer.sql, f.data.outer.limit);
    if (!outers.size) return;
    this.estimating = true;
    let added = 0;
    try {
      for (const [sql, bound] of outers) {
        const got = await this.manager.explain(sql, bound);
        // why: the loop's passes are the rows its query returns: its LIMIT bounds them (a LIMIT ? as explained), not the rows a scan examines.
        const limit = got?.result.filledSql ? statementFacts(got.result.filledSql).limit : undefined;
        const rows = got?.result.plan ? loopIterations(got.result.plan, limit, bound !== undefined ? 'code' : /\bLIMIT\b/i.test(sql) && !/\bLIMIT\s+\d/i.test(sql) ? 'page' : 'text') : undefined;
        if (rows !== undefined) { this.estimates.set(sql, rows); added++; }
      }
    } catch (err) {
      this.logger.error('N+1: estimating iterations failed', err);
    } finally {
      this.estimating = false;
    }
    if (added) this.detect();
  }

  private show(uri: vscode.Uri): void {
    const file = this.index.get(uri);
    if (!file) return;
    const list = (this.shownByFile ?? this.byFile).get(file.facts.file) ?? [];
    this.collection.set(uri, list.map((f) => toDiagnostic(f, (p) => this.uriOf(p, uri))));
  }

  private uriOf(file: string, fallback: vscode.Uri): vscode.Uri {
    return this.index.all().find((f) => f.facts.file === file)?.uri ?? fallback;
  }

  provideHover(doc: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const file = this.index.get(doc.uri);
    if (!file) return undefined;
    const hits = findingsAt(this.findings, file.facts.file, fromVsPosition(position));
    if (!hits.length) return undefined;
    // why: core's advice Markdown quotes source text in code spans and fences; it carries no links,
    // so the hover is not trusted at all.
    const md = new vscode.MarkdownString(hits.map((f) => adviseNPlusOne(f).markdown).join('\n\n---\n\n'));
    md.isTrusted = false;
    return new vscode.Hover(md, toVsRange(hits[0].range));
  }

  async provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): Promise<vscode.CodeAction[]> {
    const file = this.index.get(doc.uri);
    if (!file) return [];
    const out: vscode.CodeAction[] = [];
    for (const d of context.diagnostics) {
      if (d.source !== DIAGNOSTIC_SOURCE || d.code !== N_PLUS_ONE) continue;
      const f = this.findings.find((x) => x.file === file.facts.file && (x.message === d.message || d.message.startsWith(`${x.message} — `)));
      if (!f) continue;
      const loopUri = this.uriOf(f.data.loopFile, doc.uri);
      const loopDoc = await vscode.workspace.openTextDocument(loopUri);
      const line = f.data.loopRange.start.line;
      const advice = adviseNPlusOne(f, { indent: line < loopDoc.lineCount ? indentOf(loopDoc.lineAt(line).text) : '' });
      const action = new vscode.CodeAction('Insert batched query as a comment', vscode.CodeActionKind.QuickFix);
      action.diagnostics = [d];
      action.edit = new vscode.WorkspaceEdit();
      action.edit.insert(loopUri, toVsPosition(advice.insertAt), advice.snippet);
      out.push(action);
    }
    return out;
  }

  /**
   * Runtime evidence hook: `overlay` maps the static findings to the findings to show (the slow-log
   * import raises confirmed N+1s and adds suspected ones); undefined shows the static ones again.
   */
  setRuntimeOverlay(overlay: ((statics: readonly NPlusOneFinding[]) => Finding[]) | undefined): void {
    this.overlay = overlay;
    this.applyOverlay();
    this.collection.clear();
    for (const d of vscode.workspace.textDocuments) this.show(d.uri);
  }

  private applyOverlay(): void {
    if (!this.overlay) { this.shownByFile = undefined; return; }
    const byFile = new Map<string, Finding[]>();
    for (const f of this.overlay(this.findings)) {
      const list = byFile.get(f.file);
      if (list) list.push(f); else byFile.set(f.file, [f]);
    }
    this.shownByFile = byFile;
  }

  /** The current findings (for tests and other views). */
  all(): readonly NPlusOneFinding[] { return this.findings; }

  dispose(): void {
    clearTimeout(this.timer);
    for (const d of this.subscriptions) d.dispose();
  }
}

/** The N+1 diagnostics (services.nPlusOne), its hover and its quick fix. */
export const nPlusOneFeature: Feature = ({ context, services: { nPlusOne } }) => {
  context.subscriptions.push(
    vscode.languages.registerHoverProvider(SOURCE_SELECTOR, nPlusOne),
    vscode.languages.registerCodeActionsProvider(SOURCE_SELECTOR, nPlusOne, { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }),
  );
  nPlusOne.schedule();
};
