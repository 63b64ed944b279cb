import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { QueryStats } from '../../../src/core/logs/slowStats';
import {
  buildQueryModel, codeLensTitle, examinedPerSentText, figuresText, hoverSection, queryDescription, queryLabel, queryTooltip, siteKey,
} from '../../../src/extension/queries/queryRows';
import { collect, site, T0, type Ent } from './queriesSupport';

/** A hand-made QueryStats with the figures the issue quotes. */
function stats(over: Partial<QueryStats> = {}): QueryStats {
  return {
    fingerprint: 'select * from users where id = ?', count: 1234,
    queryTime: { total: 56.7, mean: 56.7 / 1234, min: 0.001, max: 0.5, p95: 0.12 },
    lockTime: { total: 0.01, mean: 0, max: 0.001 }, rowsSent: { total: 1234, mean: 1, max: 1 },
    rowsExamined: { total: 4000 * 1234, mean: 4000, max: 4000 }, examinedPerSent: 4000,
    example: 'SELECT * FROM `users` WHERE `id` = 7', exampleQueryTime: 0.5, exampleSchema: 'isupic', admin: false,
    peakPerSecond: 300, activeSeconds: 10, repeats: 1000, fullScan: 0, filesort: 0, tmpTableOnDisk: 0, ...over,
  };
}

void test('the figures line reads as the issue asks: calls · total · p95 · examined/sent', () => {
  assert.equal(figuresText(stats()), '1,234 calls · 56.7 s · p95 120 ms · examined/sent 4,000');
  assert.equal(figuresText(stats({ count: 1, examinedPerSent: 2.5 })), '1 call · 56.7 s · p95 120 ms · examined/sent 2.5');
  // a write sends no rows: the rows it examines per call instead of a ratio
  assert.equal(figuresText(stats({ examinedPerSent: null, rowsSent: { total: 0, mean: 0, max: 0 } })), '1,234 calls · 56.7 s · p95 120 ms · examined 4,000/call');
  assert.equal(figuresText(stats({ examinedPerSent: null, rowsExamined: { total: 0, mean: 0, max: 0 } })), '1,234 calls · 56.7 s · p95 120 ms');
  assert.equal(examinedPerSentText(stats({ examinedPerSent: 12.4 })), '12');
  assert.equal(examinedPerSentText(stats({ examinedPerSent: null })), undefined);
});

const entries: Ent[] = [];
// 200 fast lookups by id (two call sites), 3 slow scans, 5 counts, 2 statements no site sends
for (let i = 0; i < 200; i++) entries.push({ t: T0 + i * 5, thread: 1, qt: 0.0004, sql: `SELECT * FROM \`users\` WHERE \`id\` = ${i + 1}`, sent: 1, exam: 1 });
for (let i = 0; i < 3; i++) entries.push({ t: T0 + 2000 + i, thread: 2, qt: 0.9, sql: `SELECT \`id\` FROM \`posts\` WHERE \`user_id\` = ${i} ORDER BY \`created_at\` DESC`, sent: 10, exam: 100000 });
for (let i = 0; i < 5; i++) entries.push({ t: T0 + 3000 + i, thread: 3, qt: 0.05, sql: `SELECT COUNT(*) AS \`count\` FROM \`comments\` WHERE \`post_id\` = ${i}`, sent: 1, exam: 200 });
for (let i = 0; i < 2; i++) entries.push({ t: T0 + 4000 + i, thread: 4, qt: 0.002, sql: `SELECT @@version_comment LIMIT ${i + 1}`, sent: 1, exam: 0 });

const sites = [
  site('webapp/go/main.go', 88, 'SELECT * FROM `users` WHERE `id` = ?', true),
  site('webapp/go/main.go', 93, 'SELECT * FROM `users` WHERE `id` = ?'),
  site('webapp/go/main.go', 154, 'SELECT `id` FROM `posts` WHERE `user_id` = ? ORDER BY `created_at` DESC'),
  site('webapp/go/main.go', 75, 'SELECT COUNT(*) AS `count` FROM `comments` WHERE `post_id` = ?', true),
  site('webapp/go/main.go', 40, 'SELECT * FROM `items` WHERE `id` = ?'),
];

void test('the model ranks by total time and maps each fingerprint to the sites that send it', () => {
  const m = buildQueryModel(collect(entries), sites);
  assert.deepEqual(m.rows.map((r) => [r.rank, r.stats.fingerprint.slice(0, 22), r.stats.count, r.how, r.sites.map((s) => s.range.start.line + 1)]), [
    [1, 'select id from posts w', 3, 'exact', [155]],
    [2, 'select count(*) as cou', 5, 'exact', [76]],
    [3, 'select * from users wh', 200, 'exact', [89, 94]],
    [4, 'select @@version_comme', 2, 'none', []],
  ]);
  assert.ok(Math.abs(m.totalTime - (2.7 + 0.25 + 0.08 + 0.004)) < 1e-9);
  assert.ok(Math.abs(m.rows[0].share - 2.7 / m.totalTime) < 1e-12);
  // both call sites of the lookup carry its row; the site no log entry reached carries none
  assert.equal(m.bySite.get(siteKey(sites[0]))?.[0].stats.count, 200);
  assert.equal(m.bySite.get(siteKey(sites[1]))?.[0].stats.count, 200);
  assert.equal(m.bySite.get(siteKey(sites[4])), undefined);
});

void test('other orders: calls, mean, max', () => {
  const s = collect(entries);
  assert.deepEqual(buildQueryModel(s, sites, 'count').rows.map((r) => r.stats.count), [200, 5, 3, 2]);
  assert.deepEqual(buildQueryModel(s, sites, 'avg').rows.map((r) => r.stats.count), [3, 5, 2, 200]);
  assert.deepEqual(buildQueryModel(s, sites, 'max').rows.map((r) => r.rank), [1, 2, 3, 4]);
  assert.deepEqual(buildQueryModel(s, sites, 'max').rows.map((r) => r.stats.count), [3, 5, 2, 200]);
});

void test('row texts: label, description led by the sort figure, unmapped marker, CodeLens title', () => {
  const m = buildQueryModel(collect(entries), sites);
  const [scan, , lookup, unmapped] = m.rows;
  assert.equal(queryLabel(scan.stats), 'select id from posts where user_id = ? order by created_at desc');
  assert.equal(queryLabel(scan.stats, 20), 'select id from post…');
  assert.match(queryDescription(scan), /^2\.70 s \(\d+\.\d%\) · 3 calls · p95 900 ms$/);
  assert.equal(queryDescription(lookup, 'count'), '200 calls · 80.0 ms · p95 0.40 ms');
  assert.match(queryDescription(unmapped), / · unmapped$/);
  assert.match(queryDescription({ ...unmapped, stats: { ...unmapped.stats, count: 1 } }), / · 1 call · /);
  assert.doesNotMatch(queryDescription(scan), /unmapped/);
  assert.match(codeLensTitle(lookup), /^#3 · 200 calls · 80\.0 ms · p95 0\.40 ms · examined\/sent 1 · \d+\.\d% of query time$/);
});

void test('tooltip and hover section escape what they quote and say where the query comes from', () => {
  const m = buildQueryModel(collect(entries), sites);
  const tip = queryTooltip(m.rows[2]);
  assert.match(tip, /```sql\nselect \* from users where id = \?\n```/);
  assert.match(tip, /Sent from webapp\/go\/main\\\.go:89, webapp\/go\/main\\\.go:94/);
  assert.match(queryTooltip(m.rows[3]), /unmapped/);
  const md = hoverSection(m.bySite.get(siteKey(sites[0]))!, 'logs/[slow].log');
  assert.match(md, /^\*\*Slow log\*\* · logs\/\\\[slow\\\]\\\.log/);
  assert.match(md, /#3 by total time · 200 calls · 80\\\.0 ms · p95 0\\\.40 ms · examined\/sent 1/);
  assert.match(md, /\| calls \| 200 \|/);
  assert.match(md, /\| peak calls per second \| \d+ \|/);
  assert.doesNotMatch(md, /\]\(/, 'no links');
});
