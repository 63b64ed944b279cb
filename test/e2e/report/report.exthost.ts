/**
 * Inside VS Code's extension host: two access logs recorded as runs (the Add run command), listed,
 * renamed, compared (the report panel opens with the comparison, whose figures are the CLI's), and
 * deleted again.
 */
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../src/extension/commands';
import type { Comparison } from '../../../src/core/report/compare';
import type { RunInfo } from '../../../src/core/report/runs';
import { FIXTURES } from '../../support/paths';
import { loadRunFromFile } from '../../../src/node/runFile';
import { compareRuns } from '../../../src/core/report/compare';

const dir = join(FIXTURES, 'report');

suite('Runs and the report panel', () => {
  let before: RunInfo;
  let after: RunInfo;

  test('Add a run records access logs as runs', async () => {
    const ext = vscode.extensions.getExtension('query-insight.query-insight')!;
    await ext.activate();
    before = (await vscode.commands.executeCommand<RunInfo>(COMMANDS.addRun, vscode.Uri.file(join(dir, 'before.ltsv')), 'round 1'))!;
    after = (await vscode.commands.executeCommand<RunInfo>(COMMANDS.addRun, vscode.Uri.file(join(dir, 'after.ltsv')), 'round 2'))!;
    assert.equal(before.label, 'round 1');
    assert.equal(before.kind, 'access');
    assert.equal(before.summary.count, 7);
    assert.equal(after.summary.count, 9);
    assert.notEqual(before.id, after.id);
  });

  test('Compare two runs opens the report with the comparison the CLI computes', async () => {
    await vscode.commands.executeCommand(COMMANDS.renameRun, after.id, 'round 2 (index on items)');
    const c = (await vscode.commands.executeCommand<Comparison>(COMMANDS.compareRuns, before.id, after.id))!;
    assert.ok(c, 'the command returns the comparison it showed');
    assert.equal(c.after.label, 'round 2 (index on items)');
    const meta = { id: 'x', source: 'x' };
    const expected = compareRuns(await loadRunFromFile(join(dir, 'before.ltsv'), { meta }), await loadRunFromFile(join(dir, 'after.ltsv'), { meta }));
    assert.deepEqual(c.rows, expected.rows);
    assert.deepEqual(c.rows.map((r) => [r.key, r.status]), [
      ['GET /items/:id', 'changed'], ['POST /login', 'changed'], ['GET /old', 'gone'], ['GET /new', 'new'],
    ]);
    // the panel's tab shows up in the tab model shortly after createWebviewPanel returns
    const tabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs);
    const isReport = (t: vscode.Tab) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('queryInsight.report');
    const end = Date.now() + 10_000;
    while (!tabs().some(isReport) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    const report = tabs().find(isReport);
    assert.ok(report, `the report panel is open (tabs: ${tabs().map((t) => `${t.label} ${t.input?.constructor?.name}`).join(', ')})`);
    assert.equal(report.label, 'Query Insight Report');
  });

  test('Delete run removes it', async () => {
    await vscode.commands.executeCommand(COMMANDS.deleteRun, before.id);
    await vscode.commands.executeCommand(COMMANDS.deleteRun, after.id);
    const c = await vscode.commands.executeCommand<Comparison | undefined>(COMMANDS.compareRuns, before.id, after.id);
    assert.equal(c, undefined, 'deleted runs cannot be compared');
  });
});
