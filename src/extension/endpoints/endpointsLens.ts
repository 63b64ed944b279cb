/** CodeLens above each route handler with its endpoint's figures from the imported access log. */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
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
      return new vscode.CodeLens(at, {
        title: codeLensTitle(endpoint), command: COMMANDS.showEndpointFigures, arguments: [{ method: endpoint.method, uri: endpoint.uri }],
        tooltip: `From ${this.model.source}: click for all its figures in the report`,
      });
    }));
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}
