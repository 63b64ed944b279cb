/**
 * Inside VS Code's extension host, on the sample app: the extension activates with a Go file, the List SQL
 * statements command returns the sites of the app, and an edit to a file updates its sites.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../src/extension/commands';
import type { SiteRow } from '../../../src/extension/statements/siteRows';

const EXTENSION_ID = 'query-insight.query-insight';
const MAIN_GO = 'webapp/go/main.go';

async function poll<T>(get: () => Promise<T> | T, ok: (v: T) => boolean, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(v)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function listSites(): Promise<SiteRow[]> {
  const rows = await vscode.commands.executeCommand<SiteRow[]>(COMMANDS.listSqlStatements);
  await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  return rows;
}

suite('Query Insight in the extension host', () => {
  test('activates when a file of one of the app\'s languages is opened', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is loaded`);
    // why: activation is by language (or a Query Insight view), not by whatever a workspace contains.
    const folder = vscode.workspace.workspaceFolders![0].uri;
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder, MAIN_GO)));
    await poll(() => ext.isActive, (a) => a, 'activation by onLanguage:go');
    const commands = await vscode.commands.getCommands(true);
    for (const id of Object.values(COMMANDS)) assert.ok(commands.includes(id), `${id} is registered`);
  });

  test('List SQL statements returns the sample app\'s statements with file, line, function and loop depth', async () => {
    const rows = await listSites();
    const at = (line: number) => rows.find((r) => r.file === MAIN_GO && r.line === line);
    assert.deepEqual(pick(at(109)), {
      file: MAIN_GO, line: 109, function: 'getIndex', loopDepth: 0,
      sql: 'SELECT `id`, `user_id`, `body`, `mime`, `created_at` FROM `posts` ORDER BY `created_at` DESC',
    });
    assert.deepEqual(pick(at(76)), {
      file: MAIN_GO, line: 76, function: 'makePosts', loopDepth: 1,
      sql: 'SELECT COUNT(*) AS `count` FROM `comments` WHERE `post_id` = ?',
    });
    assert.deepEqual(pick(at(89)), {
      file: MAIN_GO, line: 89, function: 'makePosts', loopDepth: 2, sql: 'SELECT * FROM `users` WHERE `id` = ?',
    });
    assert.equal(at(139)?.function, 'postComment');
    assert.match(at(139)?.sql ?? '', /^INSERT INTO comments \(post_id, user_id, comment\)\s+VALUES \(\?, \?, \?\)$/);
    assert.equal(at(68)?.sql, 'DELETE FROM users WHERE id > 1000');
    // every statement of the app, and nothing from its README or schema file
    assert.ok(rows.length >= 11, `at least 11 statements, got ${rows.length}`);
    assert.deepEqual([...new Set(rows.map((r) => r.file))], [MAIN_GO]);
  });

  test('an edit is picked up (debounced, this file only) and undone edits drop the statement again', async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri;
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder, MAIN_GO));
    await vscode.window.showTextDocument(doc);
    const sql = 'UPDATE users SET del_flg = 1 WHERE id = ?';
    const end = new vscode.Position(doc.lineCount, 0);
    const added = `\nfunc banUser(id int) {\n\tdb.Exec("${sql}", id)\n}\n`;
    const insert = new vscode.WorkspaceEdit();
    insert.insert(doc.uri, end, added);
    assert.ok(await vscode.workspace.applyEdit(insert));
    const line = doc.lineCount - 2; // 1-based line of the db.Exec call
    const before = (await listSites()).filter((x) => x.sql !== sql).length;
    const rows = await poll(listSites, (r) => r.some((x) => x.sql === sql), 'the new statement');
    assert.deepEqual(pick(rows.find((x) => x.sql === sql)), { file: MAIN_GO, line, function: 'banUser', loopDepth: 0, sql });
    // taking the lines out again (an edit, not a focus-dependent revert command) drops the statement
    const remove = new vscode.WorkspaceEdit();
    remove.delete(doc.uri, new vscode.Range(end, doc.positionAt(doc.getText().length)));
    assert.ok(await vscode.workspace.applyEdit(remove));
    const after = await poll(listSites, (r) => !r.some((x) => x.sql === sql), 'the removed statement to go');
    assert.equal(after.length, before);
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });

  test('a directory of source that .gitignore ignores is left out as the CLI leaves it out, and the log names it', async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri;
    const at = (p: string) => vscode.Uri.joinPath(folder, p);
    const write = (p: string, text: string) => vscode.workspace.fs.writeFile(at(p), Buffer.from(text));
    const kept = 'SELECT id FROM kept_rows WHERE id = ?';
    const ignored = 'DELETE FROM scratch_rows WHERE id = ?';
    const go = (fn: string, sql: string) => `package main\n\nfunc ${fn}(id int) {\n\tdb.Exec("${sql}", id)\n}\n`;
    await write('.gitignore', 'scratch/\n');
    await write('scratch/try.go', go('try', ignored));
    await write('tools/kept.go', go('kept', kept));
    try {
      await vscode.commands.executeCommand(COMMANDS.rescanWorkspace);
      await poll(listSites, (r) => r.some((x) => x.sql === kept), 'the statement of the file no rule ignores');
      // why: the watcher saw both files created; its re-reads (debounced) go through the same rule, so wait them out.
      await new Promise((r) => setTimeout(r, 2000));
      const rows = await listSites();
      assert.ok(rows.some((x) => x.sql === kept && x.file === 'tools/kept.go'), 'tools/kept.go is scanned');
      assert.ok(!rows.some((x) => x.sql === ignored), `scratch/ is ignored: ${JSON.stringify(rows.filter((x) => x.file.startsWith('scratch/')))}`);
    } finally {
      for (const p of ['scratch', 'tools', '.gitignore']) await vscode.workspace.fs.delete(at(p), { recursive: true });
      await vscode.commands.executeCommand(COMMANDS.rescanWorkspace);
    }
  });
});

function pick(r: SiteRow | undefined): Partial<SiteRow> | undefined {
  return r && { file: r.file, line: r.line, function: r.function, loopDepth: r.loopDepth, sql: r.sql };
}
