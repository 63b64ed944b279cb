/**
 * Wires EXPLAIN into the editor: the hover (with the slow-log figures of services.queries), the plan
 * diagnostics, "Explain statement under cursor" (the plan as a tree in the report's Plan tab, also
 * the hover's "Show plan"), "Measure statement under cursor", and the index quick fixes with their commands.
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import { command, type Feature } from '../feature';
import {
  addIndexToDatabaseCommand, addIndexToSchemaFileCommand, copyDdlCommand, IndexFixProvider,
} from '../fixes/indexFixes';
import { ExplainDiagnostics } from './explainDiagnostics';
import { ExplainHoverProvider } from './explainHover';
import { explainStatementCommand } from './explainPanel';
import { measureStatementCommand } from './measureCommand';
import type { SiteRef } from './siteAnalysis';

/** Source files of every language the extension reads, on disk or over Remote-SSH. */
export const SOURCE_SELECTOR: vscode.DocumentSelector = ['go', 'ruby', 'python', 'php', 'javascript', 'javascriptreact',
  'typescript', 'typescriptreact', 'perl', 'rust'].flatMap((language) => [{ language, scheme: 'file' }, { language, scheme: 'vscode-remote' }]);

export const explainFeature: Feature = ({ context, services }) => {
  const { index, connection: manager, logger, report, queries, workspaceTables } = services;
  const diagnostics = new ExplainDiagnostics(index, manager, logger);
  const explainStatement = explainStatementCommand(index, manager, report, logger);
  // why: a Plan tab open on the measured statement is drawn again, with the rows read beside the estimates.
  const measured = async (site: SiteRef) => { if (report.panel.showsPlanOf(site)) await explainStatement(site); };
  // why: a failure on a table no schema file defined may be judged otherwise once one does (and back).
  context.subscriptions.push(workspaceTables.onDidChange(() => diagnostics.refreshAll()));
  context.subscriptions.push(
    diagnostics,
    vscode.languages.registerHoverProvider(SOURCE_SELECTOR, new ExplainHoverProvider(index, manager, logger, [queries.hoverSection])),
    vscode.languages.registerCodeActionsProvider(SOURCE_SELECTOR, new IndexFixProvider(index, manager), { providedCodeActionKinds: IndexFixProvider.kinds }),
    command(logger, COMMANDS.explainStatement, 'could not explain the statement', explainStatement),
    command(logger, COMMANDS.measureStatement, 'could not measure the statement', measureStatementCommand(index, manager, logger, measured)),
    command(logger, COMMANDS.addIndexToDatabase, 'could not add the index to the database', addIndexToDatabaseCommand(index, manager, logger)),
    command(logger, COMMANDS.addIndexToSchemaFile, 'could not add the index to the schema file', addIndexToSchemaFileCommand(index, manager, logger)),
    command(logger, COMMANDS.copyIndexDdl, 'could not copy the DDL', copyDdlCommand(index, manager, logger)),
  );
  diagnostics.refreshAll();
};
