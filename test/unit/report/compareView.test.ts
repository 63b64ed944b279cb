/**
 * The Compare tab on a load-changed pair of runs (test/support/loadChangedLogs.ts): rows coloured by
 * the time per request, never by the total; the request count shown as a change; a row within noise
 * in no verdict colour; the same verdicts in the Markdown export. Runs saved before the spread was
 * kept are judged with the bound their min and max allow.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareRuns, type Comparison } from '../../../src/core/report/compare';
import { comparisonMarkdown } from '../../../src/core/report/markdown';
import type { Run } from '../../../src/core/report/runs';
import { loadRunFromFile } from '../../../src/node/runFile';
import { compareTab } from '../../../src/webview/compareView';
import { findAll, textOf, type VNode } from '../../../src/webview/vnode';
import { writeLoadChangedLogs } from '../../support/loadChangedLogs';

const noop = { pick() {}, compare() {}, exportComparison() {} };
const GROUPS = ['^/posts/[0-9]+$', '^/@[a-z0-9]+$'];

async function loadPair(): Promise<[Run, Run]> {
  const dir = mkdtempSync(join(tmpdir(), 'qi-compare-'));
  try {
    const { before, after } = writeLoadChangedLogs(dir);
    const load = (path: string, id: string) => loadRunFromFile(path, { meta: { id, source: path, label: id }, access: { matchingGroups: GROUPS } });
    return [await load(before, 'round1'), await load(after, 'round2')];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function render(c: Comparison): VNode {
  return compareTab({ runs: [c.before, c.after], comparison: c, beforeId: c.before.id, afterId: c.after.id }, noop);
}

const classOf = (n: VNode) => String(n.attrs.class ?? '').split(' ');
function rowOf(page: VNode, key: string): VNode {
  const row = findAll(page, (n) => n.tag === 'tr' && n.attrs['data-key'] === key)[0];
  assert.ok(row, `a row for ${key}`);
  return row;
}
function cell(row: VNode, cls: string): VNode {
  return findAll(row, (n) => n.tag === 'td' && classOf(n).includes(cls))[0];
}

void test('load-changed runs: faster/slower by the time per request; the request count is shown; noise is not coloured', async () => {
  const [before, after] = await loadPair();
  const c = compareRuns(before, after);
  const page = render(c);

  const root = rowOf(page, 'GET /');
  assert.ok(classOf(root).includes('gain'), `GET / is coloured as a gain: ${root.attrs.class}`);
  assert.equal(root.attrs['data-verdict'], 'faster');
  assert.equal(textOf(cell(root, 'verdict')), 'faster');
  assert.ok(classOf(cell(root, 'mean')).includes('gain'));
  assert.equal(textOf(cell(root, 'mean')), '2.318 s → 494 ms (×0.21)');
  assert.equal(textOf(cell(root, 'count')), '7 → 57 (+50)');
  // the total rose and is shown, uncoloured
  const total = cell(root, 'total');
  assert.match(textOf(total), /^16\.226 s → 28\.158 s$/);
  assert.ok(!classOf(total).includes('regression') && !classOf(cell(root, 'delta')).includes('regression'));
  assert.equal(textOf(cell(root, 'delta')), '+11.932 s');

  const posts = rowOf(page, 'GET ^/posts/[0-9]+$');
  assert.equal(posts.attrs['data-verdict'], 'faster');
  assert.equal(textOf(cell(posts, 'count')), '60 → 300 (+240)');

  const users = rowOf(page, 'GET ^/@[a-z0-9]+$');
  assert.equal(users.attrs['data-verdict'], 'noise');
  assert.ok(classOf(users).includes('noise') && !classOf(users).includes('regression'));
  assert.equal(textOf(cell(users, 'verdict')), 'within noise');
  assert.equal(cell(users, 'mean').attrs.class, 'num mean ');

  const login = rowOf(page, 'POST /comment');
  assert.equal(login.attrs['data-verdict'], 'slower');
  assert.ok(classOf(cell(login, 'mean')).includes('regression'));
  assert.equal(rowOf(page, 'POST /initialize').attrs['data-verdict'], 'unknown');

  const summary = textOf(findAll(page, (n) => n.attrs.id === 'comparison-verdicts')[0]);
  assert.match(summary, /^2 faster, 1 slower, 1 within noise, 1 too few to judge/);
  // the chart draws the change of the mean, GET / in the gain colour
  const bars = findAll(page, (n) => n.tag === 'rect' && classOf(n).includes('seg'));
  assert.ok(bars.some((b) => classOf(b).includes('gain')) && bars.some((b) => classOf(b).includes('noise')), 'gain and noise bars');

  const md = comparisonMarkdown(c);
  assert.match(md, /\| `GET \/` \| \*\*faster\*\* \| 7 → 57 \|/);
  assert.match(md, /\| `GET \^\/@\[a-z0-9\]\+\$` \| within noise \(n 40 → 90, mean [^|]*, 99 % interval [^|]* \(holds 0\)\) \| 40 → 90 \|/);
  // why: "within noise" says why: the sample counts and the interval of the change, in the panel too
  assert.match(textOf(cell(users, 'why')), /^n 40 → 90 · 99 % interval −[\d.]+ ms … \+[\d.]+ ms \(holds 0\)$/);
});

void test('runs saved before the spread was kept: judged with the bound of their min and max, never more boldly', async () => {
  const [before, after] = await loadPair();
  const strip = (r: Run): Run => ({ ...r, endpoints: r.endpoints!.map(({ stddev: _s, p99Range: _p, ...e }) => e) });
  const c = compareRuns(strip(before), strip(after));
  const verdict = (key: string) => c.rows.find((r) => r.key === key)!.verdict;
  // GET / (1.9 … 2.826 s against 0.394 … 0.594 s) is far enough apart to show even with the bound
  assert.equal(verdict('GET /'), 'faster');
  assert.equal(verdict('GET ^/@[a-z0-9]+$'), 'noise');
  const full = compareRuns(before, after);
  for (const r of c.rows) {
    if (r.verdict !== 'noise' && r.verdict !== 'unknown') assert.equal(r.verdict, full.rows.find((x) => x.key === r.key)!.verdict, r.key);
  }
});
