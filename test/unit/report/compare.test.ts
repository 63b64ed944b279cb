/** Comparison of two runs: hand-computed figures, new/gone rows, order by the largest change, kinds. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import { compareRuns, CompareError, formatDelta, formatRatio, formatSeconds } from '../../../src/core/report/compare';
import type { Run } from '../../../src/core/report/runs';
import { loadRunFromFile } from '../../../src/node/runFile';

const dir = join(FIXTURES, 'report');
const load = (f: string) => loadRunFromFile(join(dir, f), { meta: { id: f.replace(/\W/g, '-'), source: f } });
const close = (a: number | null, b: number) => assert.ok(a !== null && Math.abs(a - b) < 1e-9, `${a} ≈ ${b}`);

void test('access runs: per endpoint before → after, delta and ratio (hand-computed from the fixtures)', async () => {
  const c = compareRuns(await load('before.ltsv'), await load('after.ltsv'));
  assert.equal(c.kind, 'access');
  assert.equal(c.tailLabel, 'p99');
  // |Δ total|: items −0.8 = login +0.8 (tie → by key: "GET …" < "POST …"), old −0.05, new +0.02
  assert.deepEqual(c.rows.map((r) => [r.key, r.status]), [
    ['GET /items/:id', 'changed'], ['POST /login', 'changed'], ['GET /old', 'gone'], ['GET /new', 'new'],
  ]);
  const [items, login, old, neu] = c.rows;
  assert.deepEqual([items.count.before, items.count.after, items.count.delta], [4, 4, 0]);
  close(items.total.before, 1.0); close(items.total.after, 0.2); close(items.total.delta, -0.8); close(items.total.ratio, 0.2);
  close(items.mean.before, 0.25); close(items.mean.after, 0.05);
  close(items.tail.before, 0.4); close(items.tail.after, 0.05);
  assert.deepEqual([login.count.before, login.count.after, login.count.delta], [2, 3, 1]);
  close(login.total.delta, 0.8); close(login.total.ratio, 1.8); close(login.tail.after, 0.6);
  assert.deepEqual([old.total.after, old.total.ratio, old.count.after], [null, null, null]);
  close(old.total.delta, -0.05);
  assert.deepEqual([neu.total.before, neu.total.ratio], [null, null]);
  close(neu.total.delta, 0.02);
  assert.deepEqual([neu.method, neu.uri], ['GET', '/new']);
  assert.deepEqual([c.totals.count.before, c.totals.count.after], [7, 9]);
  close(c.totals.total.delta, 2.02 - 2.05);
});

void test('slow runs: per fingerprint with p95 as the tail', async () => {
  const c = compareRuns(await load('before.slow.log'), await load('after.slow.log'));
  assert.equal(c.tailLabel, 'p95');
  assert.deepEqual(c.rows.map((r) => [r.fingerprint, r.status]), [
    ['select * from posts order by created_at desc limit ?', 'changed'],
    ['select * from users where id = ?', 'changed'],
    ['select count(*) from comments where post_id = ?', 'gone'],
    ['select * from tags where name = ?', 'new'],
  ]);
  close(c.rows[0].total.delta, -0.28); close(c.rows[0].tail.after, 0.02);
  close(c.rows[1].total.delta, 0.01); close(c.rows[1].total.ratio, 1.5);
  assert.deepEqual([c.rows[1].count.before, c.rows[1].count.after], [2, 3]);
});

void test('a run against itself: every row the same, no change; regressions and gains both sort by size', async () => {
  const a = await load('before.ltsv');
  const c = compareRuns(a, a);
  assert.ok(c.rows.every((r) => r.status === 'same' && r.total.delta === 0 && r.total.ratio === 1));
  const mk = (rows: [string, number][]): Run => ({
    ...a, endpoints: rows.map(([uri, sum]) => ({ ...a.endpoints![0], uri, sum, count: 1, avg: sum, p99: sum })),
  });
  const d = compareRuns(mk([['/a', 1], ['/b', 1], ['/c', 1]]), mk([['/a', 1.1], ['/b', 0.5], ['/c', 3]]));
  assert.deepEqual(d.rows.map((r) => r.uri), ['/c', '/b', '/a']);
});

void test('runs of different kinds cannot be compared', async () => {
  const a = await load('before.ltsv');
  const s = await load('before.slow.log');
  assert.throws(() => compareRuns(a, s), CompareError);
});

void test('formatting of deltas, ratios and seconds', () => {
  assert.equal(formatSeconds(1.5), '1.500 s');
  assert.equal(formatSeconds(0.0123), '12.3 ms');
  assert.equal(formatSeconds(0.009999999999999998), '10.0 ms');
  assert.equal(formatSeconds(0), '0 ms');
  assert.equal(formatDelta(-0.8, 's'), '−800 ms');
  assert.equal(formatDelta(2, 'n'), '+2');
  assert.equal(formatDelta(0, 'n'), '±0');
  assert.equal(formatRatio({ before: 2, after: 3, delta: 1, ratio: 1.5 }), '×1.50');
  assert.equal(formatRatio({ before: null, after: 3, delta: 3, ratio: null }), 'new');
  assert.equal(formatRatio({ before: 3, after: null, delta: -3, ratio: null }), 'gone');
  assert.equal(formatRatio({ before: 0, after: 3, delta: 3, ratio: null }), '–');
});
