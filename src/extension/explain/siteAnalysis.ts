/**
 * What the hover, the diagnostics and the quick fixes share about one SQL site: its EXPLAIN result
 * (ExplainService caches plans by statement and schema generation) and the advisor's suggestions,
 * memoised on the connection's session so they go away with it. Also finds the site under a cursor.
 */
import * as vscode from 'vscode';
import { adviseStatement, type Advice } from '../../core/analysis/advisor';
import { DYNAMIC_MARK, type SqlSite } from '../../core/model';
import type { ExplainResult } from '../../db/explainService';
import type { ConnectionManager, ConnectionSession } from '../connection/connectionManager';
import { fromVsPosition } from '../convert';
import type { SiteIndex } from '../siteIndex';

export interface SiteAnalysis {
  site: SqlSite;
  result: ExplainResult;
  advice: Advice;
  session: ConnectionSession;
}

/** Identifies a site in command arguments (plain JSON: it travels through hover links). */
export interface SiteRef {
  uri: string;
  line: number;
  character: number;
  /** The suggested index the action is about, by name. */
  index?: string;
  /** The table of the finding the action is about. */
  table?: string;
  /** The action is about every index the statement needs (a join chain needs one per table). */
  all?: boolean;
}

function contains(site: SqlSite, line: number, character: number): boolean {
  const { start, end } = site.range;
  if (line < start.line || line > end.line) return false;
  if (line === start.line && character < start.character) return false;
  if (line === end.line && character > end.character) return false;
  return true;
}

/** The site whose range holds the position (the innermost, when ranges nest). */
export function siteAt(index: SiteIndex, uri: vscode.Uri, position: vscode.Position): SqlSite | undefined {
  const file = index.get(uri);
  if (!file) return undefined;
  const p = fromVsPosition(position);
  const hits = file.facts.sites.filter((s) => contains(s, p.line, p.character));
  return hits.sort((a, b) => (a.range.end.line - a.range.start.line) - (b.range.end.line - b.range.start.line))[0];
}

/**
 * The site under the cursor of the active editor or, while another part has focus (the report's own
 * "Show plan" button), of a visible editor.
 */
export function siteAtCursor(index: SiteIndex): { uri: vscode.Uri; site: SqlSite } | undefined {
  const active = vscode.window.activeTextEditor;
  for (const editor of active ? [active] : vscode.window.visibleTextEditors) {
    const site = siteAt(index, editor.document.uri, editor.selection.active);
    if (site) return { uri: editor.document.uri, site };
  }
  return undefined;
}

/** Resolves a SiteRef from a command argument; undefined when the file changed under it. */
export function siteOf(index: SiteIndex, ref: SiteRef): { uri: vscode.Uri; site: SqlSite } | undefined {
  if (!ref || typeof ref.uri !== 'string' || typeof ref.line !== 'number' || typeof ref.character !== 'number') return undefined;
  const uri = vscode.Uri.parse(ref.uri);
  const site = siteAt(index, uri, new vscode.Position(ref.line, ref.character));
  return site ? { uri, site } : undefined;
}

export function refOf(uri: vscode.Uri, site: SqlSite, extra: Partial<SiteRef> = {}): SiteRef {
  return { uri: uri.toString(), line: site.range.start.line, character: site.range.start.character, ...extra };
}

/** Explains a site and advises indexes for it; undefined when there is no connection. */
export async function analyzeSite(manager: ConnectionManager, site: SqlSite): Promise<SiteAnalysis | undefined> {
  const got = await manager.explain(site.sql, site.limit);
  if (!got) return undefined;
  const { result, session } = got;
  // why: one voice — the advice the findings were phrased from is the one the hover and quick fixes offer.
  let advice = result.advice;
  if (!advice) {
    const key = `advice:${result.generation}:${site.sql}`;
    advice = session.memo.get(key) as Advice | undefined;
    if (!advice) {
      const schema = await session.service.schema();
      const sql = site.sql.includes(DYNAMIC_MARK) ? (result.filledSql ?? site.sql) : site.sql;
      advice = adviseStatement(sql, { schema, fromDatabase: true });
      session.memo.set(key, advice);
    }
  }
  return { site, result, advice, session };
}
