import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Finding } from '../../../src/core/model';
import { runtimeOverlay } from '../../../src/extension/queries/runtimeOverlay';
import { collect, site, T0, type Ent } from './queriesSupport';

const lookupInLoop = site('webapp/go/main.go', 88, 'SELECT * FROM `users` WHERE `id` = ?', true);
const lookupOutside = site('webapp/go/main.go', 93, 'SELECT * FROM `users` WHERE `id` = ?');
const countInLoop = site('webapp/go/main.go', 75, 'SELECT COUNT(*) AS `count` FROM `comments` WHERE `post_id` = ?', true);
const sites = [lookupInLoop, lookupOutside, countInLoop];

function staticFinding(s: typeof lookupInLoop, extra: Record<string, unknown> = {}): Finding {
  return { code: 'n-plus-one', severity: 'warning', file: s.file, range: s.range, message: `N+1: "${s.sql}" runs once per iteration of the for loop`, data: { loopLine: s.range.start.line, ...extra } };
}
const statics = [staticFinding(lookupInLoop), staticFinding(countInLoop)];

// the lookup: 200 calls in bursts on one connection, 0.4 ms each; the count: 5 calls, far apart
const burst: Ent[] = [];
for (let i = 0; i < 200; i++) burst.push({ t: T0 + i * 2, thread: 1, qt: 0.0004, sql: `SELECT * FROM \`users\` WHERE \`id\` = ${i}`, sent: 1, exam: 1 });
for (let i = 0; i < 5; i++) burst.push({ t: T0 + 5000 + i * 3000, thread: 2, qt: 0.05, sql: `SELECT COUNT(*) AS \`count\` FROM \`comments\` WHERE \`post_id\` = ${i}`, sent: 1, exam: 100 });

void test('a static N+1 the log confirms is raised to an error and keeps its message, with the observed rate appended', () => {
  const shown = runtimeOverlay(collect(burst), sites)(statics);
  const raised = shown.find((f) => f.code === 'n-plus-one' && f.range === lookupInLoop.range)!;
  assert.equal(raised.severity, 'error');
  assert.ok(raised.message.startsWith(`${statics[0].message} — confirmed by the slow log: `), raised.message);
  assert.match(raised.message, /200 calls, peak 200\/s/);
  assert.equal(raised.data?.loopLine, 88, 'the static facts stay (the quick fix needs them)');
  assert.equal((raised.data?.runtime as { calls: number }).calls, 200);
});

void test('the same query sent from a site outside any known loop becomes a suspected N+1; unconfirmed statics stay as they were', () => {
  const shown = runtimeOverlay(collect(burst), sites)(statics);
  const suspected = shown.filter((f) => f.code === 'n-plus-one-suspected');
  assert.equal(suspected.length, 1);
  assert.equal(suspected[0].range, lookupOutside.range);
  assert.equal(suspected[0].severity, 'warning');
  assert.match(suspected[0].message, /^Suspected N\+1: .*no enclosing loop/);
  assert.deepEqual(shown.find((f) => f.range === countInLoop.range), statics[1], 'too few calls: not confirmed, unchanged');
  assert.equal(shown.length, 3);
});

void test('without the pattern in the log the static findings are shown unchanged', () => {
  const calm: Ent[] = [];
  for (let i = 0; i < 200; i++) calm.push({ t: T0 + i * 1000, thread: 1 + (i % 7), qt: 0.0004, sql: `SELECT * FROM \`users\` WHERE \`id\` = ${i}`, sent: 1, exam: 1 });
  assert.deepEqual(runtimeOverlay(collect(calm), sites)(statics), statics);
  assert.deepEqual(runtimeOverlay([], sites)(statics), statics);
});
