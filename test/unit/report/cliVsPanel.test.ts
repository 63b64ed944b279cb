/**
 * The report panel's comparison shows the CLI's figures: `query-insight diff --format json` and the
 * message the panel receives (comparisonMessage, sent through postMessage's JSON clone) hold the
 * same rows with the same numbers, and the page's comparison table prints them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { FIXTURES, REPO_ROOT } from '../../support/paths';
import { diffCommand } from '../../../src/cli/commands/diff';
import { arrow } from '../../../src/core/report/markdown';
import { comparisonMessage, type HostMessage } from '../../../src/core/report/protocol';
import { bufferDecoder } from '../../../src/node/accessLogFile';
import { loadRunFromFile } from '../../../src/node/runFile';
import { pageView, type Actions, type PageState } from '../../../src/webview/views';
import { findAll, textOf } from '../../../src/webview/vnode';
import { VERDICT_TEXT } from '../../../src/webview/compareView';
import type { Verdict } from '../../../src/core/report/compare';

async function cli(args: string[]): Promise<string> {
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  err.resume();
  const code = await diffCommand.run(args, { stdout: out, stderr: err, env: {}, cwd: REPO_ROOT });
  assert.equal(code, 0);
  return Buffer.concat(chunks).toString('utf8');
}

/** What the extension does on "Add a run" for a file, then on "Compare" (the same loader and message builder). */
async function panelMessage(before: string, after: string): Promise<Extract<HostMessage, { type: 'comparison' }>> {
  const load = (f: string, id: string) => loadRunFromFile(f, { meta: { id, source: f }, access: { decode: bufferDecoder } });
  const m = comparisonMessage(await load(before, 'run-before'), await load(after, 'run-after'));
  // why: webview.postMessage delivers a JSON-compatible clone, which is what the page works on.
  return JSON.parse(JSON.stringify(m)) as Extract<HostMessage, { type: 'comparison' }>;
}

const noop: Actions = { selectTab() {}, showRun() {}, pick() {}, compare() {}, exportComparison() {}, showPlanAtCursor() {}, measurePlan() {}, chooseCpuEndpoint() {} };

for (const [name, b, a] of [['access logs', 'before.ltsv', 'after.ltsv'], ['slow logs', 'before.slow.log', 'after.slow.log']]) {
  void test(`${name}: the panel's comparison equals the CLI's, row for row`, async () => {
    const before = join(FIXTURES, 'report', b);
    const after = join(FIXTURES, 'report', a);
    const rows = (await cli([before, after, '--format', 'json'])).trim().split('\n').map((l) => JSON.parse(l));
    const { comparison } = await panelMessage(before, after);
    assert.ok(rows.length >= 4);
    assert.equal(comparison.rows.length, rows.length);
    comparison.rows.forEach((r, i) => {
      const c = rows[i];
      assert.equal(r.key, c.key, `row ${i} key`);
      assert.equal(r.status, c.status);
      assert.equal(r.verdict, c.verdict);
      assert.deepEqual(r.shifts, c.shifts);
      for (const f of ['count', 'total', 'mean', 'tail'] as const) assert.deepEqual(r[f], c[f], `${r.key} ${f}`);
      assert.equal(comparison.tailLabel, c.tailLabel);
    });

    // and the page prints those figures in its comparison table, in the same order
    const state: PageState = { tab: 'compare', runs: [comparison.before, comparison.after], comparison, beforeId: comparison.before.id, afterId: comparison.after.id };
    const table = findAll(pageView(state, noop), (n) => n.attrs.id === 'comparison-table')[0];
    assert.ok(table, 'the comparison table renders');
    const trs = findAll(table, (n) => n.tag === 'tr' && n.attrs['data-key'] !== undefined);
    assert.deepEqual(trs.map((t) => t.attrs['data-key']), rows.map((c) => c.key));
    trs.forEach((tr, i) => {
      const cell = (cls: string) => textOf(findAll(tr, (n) => n.tag === 'td' && String(n.attrs.class).split(' ').includes(cls))[0]);
      assert.equal(cell('verdict'), VERDICT_TEXT[rows[i].verdict as Verdict]);
      assert.ok(cell('count').startsWith(arrow(rows[i].count, 'n')), cell('count'));
      assert.equal(cell('total'), arrow(rows[i].total, 's'));
      assert.ok(cell('mean').startsWith(arrow(rows[i].mean, 's')), cell('mean'));
      assert.ok(cell('tail').startsWith(arrow(rows[i].tail, 's')), cell('tail'));
    });
  });
}

void test('the CLI reads runs it saved (--save) into the same comparison', async () => {
  const { mkdtempSync, readdirSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'qi-diff-'));
  try {
    const before = join(FIXTURES, 'report', 'before.ltsv');
    const after = join(FIXTURES, 'report', 'after.ltsv');
    const direct = await cli([before, after, '--format', 'json', '--save', dir]);
    assert.deepEqual(readdirSync(dir).sort(), ['after.ltsv.run.json', 'before.ltsv.run.json']);
    const saved = await cli([join(dir, 'before.ltsv.run.json'), join(dir, 'after.ltsv.run.json'), '--format', 'json']);
    assert.equal(saved, direct);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
