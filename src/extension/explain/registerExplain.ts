/**
 * Wires EXPLAIN into the editor: the hover, the plan diagnostics, "Explain statement under cursor"
 * (the plan as a tree in the report's Plan tab, also the hover's "Show plan"), and the index quick
 * fixes with their commands.
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import type { ConnectionManager } from '../connection/connectionManager';
import type { Logger } from '../logger';
import type { SiteIndex } from '../siteIndex';
import {
  addIndexToDatabaseCommand, addIndexToSchemaFileCommand, copyDdlCommand, IndexFixProvider,
} from '../fixes/indexFixes';
import { ExplainDiagnostics } from './explainDiagnostics';
import { ExplainHoverProvider, type SiteHoverSection } from './explainHover';
import type { ReportServices } from '../report/registerReport';
import { explainStatementCommand } from './explainPanel';
import { measureStatementCommand } from './measureCommand';

/** Source files of every language the extension reads, on disk or over Remote-SSH. */
export const SOURCE_SELECTOR: vscode.DocumentSelector = ['go', 'ruby', 'python', 'php', 'javascript', 'javascriptreact',
  'typescript', 'typescriptreact', 'perl', 'rust'].flatMap((language) => [{ language, scheme: 'file' }, { language, scheme: 'vscode-remote' }]);

/** `hoverSections`: other features' Markdown appended to the hover (the slow-log figures). */
export function registerExplain(context: vscode.ExtensionContext, index: SiteIndex, manager: ConnectionManager, logger: Logger,
  report: Pick<ReportServices, 'showPlan'>, hoverSections: readonly SiteHoverSection[] = []): ExplainDiagnostics {
  const diagnostics = new ExplainDiagnostics(index, manager, logger);
  context.subscriptions.push(
    diagnostics,
    vscode.languages.registerHoverProvider(SOURCE_SELECTOR, new ExplainHoverProvider(index, manager, logger, hoverSections)),
    vscode.commands.registerCommand(COMMANDS.explainStatement, explainStatementCommand(index, manager, report, logger)),
    vscode.commands.registerCommand(COMMANDS.measureStatement, measureStatementCommand(index, manager, logger)),
    vscode.languages.registerCodeActionsProvider(SOURCE_SELECTOR, new IndexFixProvider(index, manager), { providedCodeActionKinds: IndexFixProvider.kinds }),
    vscode.commands.registerCommand(COMMANDS.addIndexToDatabase, addIndexToDatabaseCommand(index, manager, logger)),
    vscode.commands.registerCommand(COMMANDS.addIndexToSchemaFile, addIndexToSchemaFileCommand(index, manager, logger)),
    vscode.commands.registerCommand(COMMANDS.copyIndexDdl, copyDdlCommand(index, manager, logger)),
  );
  diagnostics.refreshAll();
  return diagnostics;
}
