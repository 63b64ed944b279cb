/**
 * "Query Insight: List SQL statements": a quick pick of every statement found in the workspace
 * (SQL on one line, file:line, enclosing function, loop depth); picking one opens the file at it.
 * The command resolves with the rows it shows once they are in the list, so scripts and tests get
 * them too; the pick itself is handled when the user makes it.
 */
import * as vscode from 'vscode';
import { toVsRange } from '../convert';
import type { SiteIndex } from '../siteIndex';
import { siteLabels, siteRow, type SiteRow } from './siteRows';

interface SiteItem extends vscode.QuickPickItem {
  uri: vscode.Uri;
  /** Where the cursor goes: the start of the statement's text. */
  at: vscode.Range;
}

/** Builds the command handler over the index. */
export function listSqlStatementsCommand(index: SiteIndex): () => Promise<SiteRow[]> {
  return async () => {
    const qp = vscode.window.createQuickPick<SiteItem>();
    qp.title = 'Query Insight: SQL statements';
    qp.placeholder = 'Filter by SQL, file or function';
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    qp.busy = true;
    qp.show();
    const disposables: vscode.Disposable[] = [qp];
    const done = () => { for (const d of disposables) d.dispose(); };
    disposables.push(
      qp.onDidHide(done),
      qp.onDidAccept(() => {
        const item = qp.selectedItems[0];
        done();
        if (item) void vscode.window.showTextDocument(item.uri, { selection: item.at, preview: false });
      }),
    );
    await index.ready();
    const sites = index.sites();
    const rows = sites.map((s) => siteRow(s.site));
    qp.items = sites.map((s, i) => ({ ...siteLabels(rows[i]), uri: s.uri, at: toVsRange({ start: s.site.range.start, end: s.site.range.start }) }));
    qp.busy = false;
    if (rows.length === 0) qp.placeholder = 'No SQL statements found in this workspace';
    return rows;
  };
}
