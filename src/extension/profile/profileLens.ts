/** The CPU CodeLens over each profiled handler (`CPU 23 % · 1.2 ms/req`); clicking it shows the endpoint's flame graph. */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import type { EndpointsModel } from '../endpoints/endpointsModel';
import { cpuLensesForFile } from './profileRows';

/** The CPU lenses of a workspace-relative file, from the model's profile and access log. */
export function cpuCodeLenses(file: string, model: EndpointsModel): vscode.CodeLens[] {
  return cpuLensesForFile(file, model.profile, model.report?.endpoints).map(({ endpoint, line, title }) => new vscode.CodeLens(new vscode.Range(line, 0, line, 0), {
    title, command: COMMANDS.showEndpointCpu, arguments: [endpoint.endpoint],
    tooltip: `${endpoint.handler.name}: ${endpoint.cpuSeconds.toFixed(2)} s CPU (${(endpoint.shareOfTotal * 100).toFixed(1)} % of the profile) in ${model.profileSource}; click for its flame graph`,
  }));
}
