/** CodeLens above each route handler with its endpoint's figures from the imported access log. */
import * as vscode from 'vscode';
import { cpuCodeLenses } from '../profile/profileLens';
import { relativePath } from '../siteIndex';
import { codeLensTitle, lensesForFile } from './endpointRows';
import type { EndpointsModel } from './endpointsModel';

export class EndpointsCodeLens implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly sub: vscode.Disposable;

  constructor(private readonly model: EndpointsModel) {
    this.sub = model.onDidChange(() => this.changed.fire());
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const report = this.model.report;
    const file = relativePath(doc.uri);
    const cpu = cpuCodeLenses(file, this.model);
    if (!report) return cpu;
    return cpu.concat(lensesForFile(file, this.model.routes(), report.endpoints).map(({ endpoint, line }) => {
      const at = new vscode.Range(line, 0, line, 0);
      // why: a lens with an empty command id shows its title as plain text; the figures need no action.
      return new vscode.CodeLens(at, { title: codeLensTitle(endpoint), command: '', tooltip: `From ${this.model.source}` });
    }));
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}
