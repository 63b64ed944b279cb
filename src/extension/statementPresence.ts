/**
 * Where statements are: in the active editor's file, anywhere in the workspace. Kept as context keys
 * (`queryInsight.editorHasStatements`, `queryInsight.hasStatements`) for the commands' `when`
 * clauses, and as an event for what shows only where it is wanted (the connection's status item).
 */
import * as vscode from 'vscode';
import type { SiteIndex } from './siteIndex';

export class StatementPresence implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when either answer changes. */
  readonly onDidChange = this.changed.event;
  private readonly subs: vscode.Disposable[];
  inEditor = false;
  inWorkspace = false;

  constructor(private readonly index: SiteIndex) {
    this.subs = [index.onDidChange(() => this.update()), vscode.window.onDidChangeActiveTextEditor(() => this.update()), this.changed];
    void vscode.commands.executeCommand('setContext', 'queryInsight.editorHasStatements', false);
    void vscode.commands.executeCommand('setContext', 'queryInsight.hasStatements', false);
    this.update();
  }

  private update(): void {
    const doc = vscode.window.activeTextEditor?.document;
    const inEditor = !!doc && (this.index.get(doc.uri)?.facts.sites.length ?? 0) > 0;
    const inWorkspace = inEditor || this.index.hasSites();
    if (inEditor === this.inEditor && inWorkspace === this.inWorkspace) return;
    if (inEditor !== this.inEditor) void vscode.commands.executeCommand('setContext', 'queryInsight.editorHasStatements', inEditor);
    if (inWorkspace !== this.inWorkspace) void vscode.commands.executeCommand('setContext', 'queryInsight.hasStatements', inWorkspace);
    this.inEditor = inEditor;
    this.inWorkspace = inWorkspace;
    this.changed.fire();
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}
