/**
 * The index quick fixes on plan findings (and the same actions as hover links):
 * - "Add index … to the database": modal confirmation showing the DDL, then verifyIndex with
 *   keep=true (progress, cancellable), a schema refresh (so cached plans miss and the diagnostics
 *   are recomputed), a fresh EXPLAIN, and rows examined before → after;
 * - "Add index … to the schema file": the workspace `.sql` file whose CREATE TABLE defines the
 *   table (core's findSchemaFile), edited in the file's own style and saved;
 * - "Copy DDL".
 */
import * as vscode from 'vscode';
import { PLAN_FINDING_CODES } from '../../core/analysis/planFindings';
import { addIndexToSchemaText, findSchemaFile } from '../../core/analysis/schemaFileEdit';
import { formatCompact } from '../../core/format/numbers';
import type { IndexSuggestion, SqlSite } from '../../core/model';
import { summarizePlan, verifyIndex, VerifyCancelled } from '../../db/indexVerifier';
import { measureRefusal } from '../../db/measureService';
import { COMMANDS } from '../commands';
import type { ConnectionManager } from '../connection/connectionManager';
import { DIAGNOSTIC_SOURCE, toVsRange } from '../convert';
import type { Logger } from '../logger';
import type { SiteIndex } from '../siteIndex';
import { workspaceSqlFiles } from '../schemaFiles';
import { analyzeSite, refOf, siteOf, type SiteAnalysis, type SiteRef } from '../explain/siteAnalysis';
import { suggestionFor } from '../explain/explainFindings';
import { indexFixSets } from '../../core/analysis/indexFixSets';

const PLAN_CODES: ReadonlySet<string> = new Set(PLAN_FINDING_CODES);

/** The suggestions an action applies: all of the statement's, or the named one and the rest of its index-merge group. */
function chosen(a: SiteAnalysis, ref: SiteRef): IndexSuggestion[] {
  const all = a.advice.suggestions;
  if (ref.all === true) return [...all];
  const one = (ref.index ? all.find((s) => s.name === ref.index) : undefined) ?? suggestionFor(ref.table, all) ?? all[0];
  if (!one) return [];
  return one.mergeGroup ? all.filter((s) => s.mergeGroup === one.mergeGroup) : [one];
}

export class IndexFixProvider implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(private readonly index: SiteIndex, private readonly manager: ConnectionManager) {}

  /**
   * For each statement under the cursor with plan findings: every index the advisor suggests for it
   * (a join names the index on its other table too: "the join also needs livestreams(user_id)"), each
   * with one set of actions (database, schema file, copy), however many findings point at it; the
   * index on the table a finding is about comes first. Each action lists all the statement's diagnostics.
   */
  async provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): Promise<vscode.CodeAction[]> {
    const bySite = new Map<SqlSite, vscode.Diagnostic[]>();
    for (const d of context.diagnostics) {
      if (d.source !== DIAGNOSTIC_SOURCE || typeof d.code !== 'string' || !PLAN_CODES.has(d.code)) continue;
      const found = siteOf(this.index, { uri: doc.uri.toString(), line: d.range.start.line, character: d.range.start.character });
      if (!found || !this.manager.live) continue;
      bySite.set(found.site, [...(bySite.get(found.site) ?? []), d]);
    }
    const out: vscode.CodeAction[] = [];
    for (const [site, diagnostics] of bySite) {
      const a = await analyzeSite(this.manager, site);
      if (!a) continue;
      // The Measure action, once per statement: runs the SELECT under ANALYZE only when chosen (never a locking read).
      if (!measureRefusal(a.result)) {
        const m = new vscode.CodeAction('Measure this SELECT (runs it once under ANALYZE)', vscode.CodeActionKind.QuickFix);
        m.diagnostics = diagnostics;
        m.command = { title: m.title, command: COMMANDS.measureStatement, arguments: [refOf(doc.uri, site)] };
        out.push(m);
      }
      const findingTables = diagnostics.map((d) => a.result.findings.find((f) => f.code === d.code && d.message.startsWith(f.message))?.table);
      const sets = indexFixSets(a.advice.suggestions, findingTables);
      const make = (title: string, command: string, ref: SiteRef, preferred = false) => {
        const action = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
        action.diagnostics = diagnostics;
        action.isPreferred = preferred;
        action.command = { title, command, arguments: [ref] };
        return action;
      };
      // why: a join chain needs an index per table, and one alone may leave the plan as it was (the
      // optimizer keeps the scan until the other lookup exists): the whole set comes first, preferred.
      const several = sets.length > 1;
      if (several) {
        const ref = refOf(doc.uri, site, { all: true });
        const names = sets.flat().map((x) => x.name);
        out.push(
          make(`Add indexes ${names.join(' + ')} (all this statement needs) to the database`, COMMANDS.addIndexToDatabase, ref, true),
          make(`Add indexes ${names.join(' + ')} to the schema files`, COMMANDS.addIndexToSchemaFile, ref),
          make(`Copy DDL of ${names.join(', ')}`, COMMANDS.copyIndexDdl, ref),
        );
      }
      for (const [k, set] of sets.entries()) {
        const s = set[0];
        const ref = refOf(doc.uri, site, { index: s.name, table: s.table });
        const label = `${set.map((x) => `${x.name} (${x.columns.join(', ')})`).join(' + ')} on ${s.table}`;
        out.push(
          make(`Add index ${label} to the database`, COMMANDS.addIndexToDatabase, ref, !several && k === 0),
          make(`Add index ${label} to the schema file`, COMMANDS.addIndexToSchemaFile, ref),
        );
        // One Copy DDL per statement is enough when the whole set has one.
        if (!several) out.push(make(`Copy DDL of ${set.map((x) => x.name).join(', ')}`, COMMANDS.copyIndexDdl, ref));
      }
    }
    return out;
  }
}

async function resolve(index: SiteIndex, manager: ConnectionManager, ref: SiteRef, logger: Logger): Promise<{ a: SiteAnalysis; uri: vscode.Uri; suggestions: IndexSuggestion[] } | undefined> {
  const found = siteOf(index, ref);
  if (!found) { void vscode.window.showWarningMessage('Query Insight: the statement moved or changed; hover it again.'); return undefined; }
  const a = await analyzeSite(manager, found.site);
  if (!a) { logger.showError('Query Insight: no database connection'); return undefined; }
  const suggestions = chosen(a, ref);
  if (!suggestions.length) { void vscode.window.showInformationMessage('Query Insight: no index to suggest for this statement.'); return undefined; }
  return { a, uri: found.uri, suggestions };
}

export function copyDdlCommand(index: SiteIndex, manager: ConnectionManager, logger: Logger): (ref: SiteRef) => Promise<string | undefined> {
  return async (ref) => {
    const r = await resolve(index, manager, ref, logger);
    if (!r) return undefined;
    const ddl = r.suggestions.map((s) => `${s.ddl.replace(/;?\s*$/, '')};`).join('\n');
    await vscode.env.clipboard.writeText(ddl);
    void vscode.window.showInformationMessage(`Query Insight: copied ${r.suggestions.map((s) => s.name).join(', ')} DDL to the clipboard.`);
    return ddl;
  };
}

export function addIndexToDatabaseCommand(index: SiteIndex, manager: ConnectionManager, logger: Logger): (ref: SiteRef) => Promise<void> {
  return async (ref) => {
    const r = await resolve(index, manager, ref, logger);
    if (!r) return;
    const { a, suggestions } = r;
    const sql = a.result.explainedSql ?? a.result.filledSql;
    if (!sql) { void vscode.window.showWarningMessage(`Query Insight: this statement has no plan to compare (${a.result.skipped ?? a.result.error?.message ?? 'not explainable'}).`); return; }
    const names = suggestions.map((s) => s.name).join(', ');
    const db = a.session.settings.database;
    const detail = `${suggestions.map((s) => s.ddl).join(';\n')};\n\n${suggestions.flatMap((s) => s.warnings ?? []).join('\n')}`.trim();
    const tables = [...new Set(suggestions.map((s) => s.table))];
    const many = suggestions.length > 1;
    const ok = await vscode.window.showWarningMessage(`Add index${many ? 'es' : ''} ${names} to table${tables.length > 1 ? 's' : ''} ${tables.join(', ')} in database ${db}?`, { modal: true, detail }, many ? 'Add indexes' : 'Add index');
    if (ok !== 'Add index' && ok !== 'Add indexes') return;
    const before = a.result.plan ? summarizePlan(a.result.plan) : undefined;
    try {
      const verified = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Query Insight: adding ${names}`, cancellable: true }, async (progress, token) => {
        const abort = new AbortController();
        const sub = token.onCancellationRequested(() => abort.abort());
        try {
          return await verifyIndex(a.session.service.db, suggestions, sql, {
            confirmed: true, keep: true, signal: abort.signal, onProgress: (step) => { logger.info(`add index: ${step}`); progress.report({ message: step }); },
          });
        } finally { sub.dispose(); }
      });
      logger.info(`sent: ${verified.ddl.join('; ')}`);
      await manager.refreshSchema();
      const again = await analyzeSite(manager, a.site);
      const after = again?.result.plan ? summarizePlan(again.result.plan) : verified.after;
      const rowsBefore = (before ?? verified.before).rowsExamined;
      const msg = `Query Insight: added ${names}. Rows examined ${formatCompact(rowsBefore)} → ${formatCompact(after.rowsExamined)}`
        + ` (${after.access.join(', ')})${verified.filesortRemoved ? '; filesort gone' : ''}${verified.temporaryRemoved ? '; temporary table gone' : ''}.`;
      logger.info(msg);
      // why: once the index is in the database the statement has no suggestion left, so the schema
      // edit uses the suggestions just applied, and is offered only where the schema file lacks them.
      const missing = await missingFromSchemaFile(suggestions);
      if (!missing.length) { void vscode.window.showInformationMessage(msg); return; }
      void vscode.window.showInformationMessage(msg, 'Add to schema file too').then((c) => {
        if (c) void addToSchemaFile(missing, logger);
      });
    } catch (err) {
      if (err instanceof VerifyCancelled) { void vscode.window.showInformationMessage('Query Insight: cancelled; nothing was kept.'); return; }
      logger.showError(`Query Insight: adding ${names} failed`, err);
    }
  };
}

/** The suggestions whose table has a CREATE TABLE in a workspace .sql file that lacks the index. */
async function missingFromSchemaFile(suggestions: readonly IndexSuggestion[]): Promise<IndexSuggestion[]> {
  const files = await workspaceSqlFiles();
  return suggestions.filter((s) => {
    const file = findSchemaFile(files, s.table);
    if (!file) return false;
    const edit = addIndexToSchemaText(file.text, s.table, { name: s.name, columns: s.columns, ...(s.replaces ? { replaces: s.replaces } : {}) });
    return edit.ok && !('already' in edit);
  });
}

/** Adds each suggestion to the schema file that defines its table; returns the last file changed. */
async function addToSchemaFile(suggestions: readonly IndexSuggestion[], logger: Logger): Promise<vscode.Uri | undefined> {
  const files = await workspaceSqlFiles();
  let changed: vscode.Uri | undefined;
  for (const s of suggestions) {
    const file = findSchemaFile(files, s.table) as (typeof files)[number] | undefined;
    if (!file) { void vscode.window.showWarningMessage(`Query Insight: no .sql file in the workspace has a CREATE TABLE for ${s.table}.`); continue; }
    const edit = addIndexToSchemaText(file.text, s.table, { name: s.name, columns: s.columns, ...(s.replaces ? { replaces: s.replaces } : {}) });
    if (!edit.ok) { logger.showError(`Query Insight: cannot add ${s.name} to ${file.path}`, new Error(edit.error)); continue; }
    if ('already' in edit) { void vscode.window.showInformationMessage(`Query Insight: ${file.path} already has an index on those columns (${edit.existing}).`); continue; }
    const we = new vscode.WorkspaceEdit();
    we.replace(file.uri, toVsRange(edit.edit.range), edit.edit.newText);
    if (!await vscode.workspace.applyEdit(we)) { logger.showError(`Query Insight: editing ${file.path} failed`); continue; }
    const doc = await vscode.workspace.openTextDocument(file.uri);
    await doc.save();
    file.text = doc.getText();
    changed = file.uri;
    logger.info(`added ${s.name} to ${file.path} (${edit.style})`);
    void vscode.window.showInformationMessage(`Query Insight: added ${s.name} to ${file.path}.`, 'Open').then((c) => {
      if (c) void vscode.window.showTextDocument(file.uri, { selection: toVsRange(edit.edit.range) });
    });
  }
  return changed;
}

export function addIndexToSchemaFileCommand(index: SiteIndex, manager: ConnectionManager, logger: Logger): (ref: SiteRef) => Promise<vscode.Uri | undefined> {
  return async (ref) => {
    const r = await resolve(index, manager, ref, logger);
    if (!r) return undefined;
    return addToSchemaFile(r.suggestions, logger);
  };
}
