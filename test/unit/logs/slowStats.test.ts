import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DYNAMIC_MARK, type Finding, type SqlSite } from '../../../src/core/model';
import { SlowLogParser } from '../../../src/core/logs/slowLogParser';
import { forEachLine } from '../../../src/core/logs/lineSource';
import { SlowStatsCollector, sortStats, type QueryStats, type SlowStatsOptions } from '../../../src/core/logs/slowStats';
import { indexSites, sitesFor } from '../../../src/core/logs/slowMapping';
import { looksLikeNPlusOne, runtimeNPlusOne } from '../../../src/core/analysis/runtimeNPlusOne';

interface Ent { t: number; thread?: number; qt: number; sql: string; sent?: number; exam?: number; lock?: number }

/** Writes entries in the MySQL 8 format and runs them through the real parser and collector. */
function collect(entries: Ent[], options?: SlowStatsOptions): QueryStats[] {
  const text = entries.map((e) => `# Time: ${new Date(e.t).toISOString().replace('Z', '000Z')}\n`
    + `# User@Host: app[app] @ localhost []  Id: ${e.thread ?? 1}\n`
    + `# Query_time: ${e.qt.toFixed(6)}  Lock_time: ${(e.lock ?? 0).toFixed(6)} Rows_sent: ${e.sent ?? 0}  Rows_examined: ${e.exam ?? 0}\n`
    + `SET timestamp=${Math.floor(e.t / 1000)};\n${e.sql};\n`).join('');
  const c = new SlowStatsCollector(options);
  const p = new SlowLogParser((e) => c.add(e));
  forEachLine(new TextEncoder().encode(text), (b, s, e, n) => p.line(b, s, e, n));
  const summary = p.end();
  assert.equal(summary.malformed, 0, JSON.stringify(summary.problems));
  return c.result();
}

const T0 = Date.UTC(2024, 0, 1, 0, 0, 0);

function site(file: string, line: number, sql: string, loops = false): SqlSite {
  const range = { start: { line, character: 4 }, end: { line, character: 4 + sql.length } };
  return {
    file, language: 'go', range, literalRanges: [range], sql, placeholders: [], dynamic: sql.includes(DYNAMIC_MARK),
    loops: loops ? [{ kind: 'for', range: { start: { line: line - 2, character: 0 }, end: { line: line + 3, character: 1 } } }] : [],
  };
}

void test('count, total/mean/min/max/p95, lock, rows and their ratio, first/last seen, slowest example', () => {
  const entries: Ent[] = [];
  for (let i = 1; i <= 100; i++) entries.push({ t: T0 + i * 10, qt: i / 1000, sql: `SELECT * FROM users WHERE id = ${i}`, sent: 1, exam: 10, lock: 0.00001 });
  entries.push({ t: T0 + 5000, qt: 0.5, sql: 'SELECT COUNT(*) FROM posts', sent: 1, exam: 10000 });
  const stats = collect(entries);
  assert.equal(stats.length, 2);
  const u = stats.find((s) => s.fingerprint === 'select * from users where id = ?')!;
  assert.equal(u.count, 100);
  assert.ok(Math.abs(u.queryTime.total - 5.05) < 1e-9);
  assert.ok(Math.abs(u.queryTime.mean - 0.0505) < 1e-9);
  assert.equal(u.queryTime.min, 0.001);
  assert.equal(u.queryTime.max, 0.1);
  assert.equal(u.queryTime.p95, 0.095);
  assert.ok(Math.abs(u.lockTime.total - 0.001) < 1e-9);
  assert.equal(u.rowsSent.total, 100);
  assert.equal(u.rowsExamined.total, 1000);
  assert.equal(u.examinedPerSent, 10);
  assert.equal(u.firstSeen, T0 + 10);
  assert.equal(u.lastSeen, T0 + 1000);
  assert.equal(u.example, 'SELECT * FROM users WHERE id = 100');
  assert.deepEqual(sortStats(stats, 'sum').map((s) => s.count), [100, 1]);
  assert.deepEqual(sortStats(stats, 'avg').map((s) => s.count), [1, 100]);
  assert.deepEqual(sortStats(stats, 'count').map((s) => s.count), [100, 1]);
});

void test('p95 stays close beyond the exact-sample limit (histogram)', () => {
  const entries: Ent[] = [];
  for (let i = 1; i <= 2000; i++) entries.push({ t: T0 + i, qt: i / 10000, sql: 'SELECT 1' });
  const [s] = collect(entries, { exactSamples: 100 });
  assert.equal(s.count, 2000);
  assert.ok(Math.abs(s.queryTime.p95 - 0.19) / 0.19 < 0.01, String(s.queryTime.p95));
  assert.equal(s.queryTime.max, 0.2);
});

void test('maxFingerprints bounds memory; extra entries are counted', () => {
  const c = new SlowStatsCollector({ maxFingerprints: 2 });
  const p = new SlowLogParser((e) => c.add(e));
  const text = ['a', 'b', 'c', 'a'].map((t) => `# User@Host: x[x] @ h []  Id: 1\n# Query_time: 0.1 Lock_time: 0 Rows_sent: 0  Rows_examined: 0\nSELECT * FROM ${t};\n`).join('');
  forEachLine(new TextEncoder().encode(text), (b, s, e, n) => p.line(b, s, e, n));
  p.end();
  assert.equal(c.result().length, 2);
  assert.equal(c.overflowEntries, 1);
  assert.equal(c.result()[0].count, 2);
});

void test('mapping: exact fingerprint to every site, dynamic parts as anchored wildcards, unmapped', () => {
  const a = site('app/users.go', 10, 'SELECT * FROM users WHERE id = ?');
  const b = site('app/admin.go', 20, 'select * from `users` where `id` = $1');
  const c = site('app/posts.go', 30, `SELECT * FROM posts ORDER BY ${DYNAMIC_MARK} LIMIT ?`);
  const d = site('app/any.go', 40, `${DYNAMIC_MARK}`);
  const e = site('app/in.go', 50, `SELECT * FROM tags WHERE id IN (${DYNAMIC_MARK})`);
  const index = indexSites([a, b, c, d, e]);
  assert.deepEqual(sitesFor(index, 'select * from users where id = ?').sites, [a, b]);
  assert.equal(sitesFor(index, 'select * from users where id = ?').how, 'exact');
  const p = sitesFor(index, 'select * from posts order by created_at desc limit ?');
  assert.deepEqual(p, { sites: [c], how: 'pattern' });
  assert.deepEqual(sitesFor(index, 'select * from tags where id in(?+)').sites, [e]);
  assert.equal(sitesFor(index, 'select * from comments where id = ?').how, 'none', 'a fully dynamic site does not match everything');
  assert.equal(sitesFor(index, 'select * from posts order by a limit ?; drop table x').how, 'none');
});

function burst(thread: number, start: number, n: number, sql: (i: number) => string, gapMs = 2, qt = 0.0003): Ent[] {
  return Array.from({ length: n }, (_, i) => ({ t: start + i * gapMs, thread, qt, sql: sql(i) }));
}

void test('runtime N+1: bursts of a cheap query on one connection; confirmed in a loop, suspected without', () => {
  const entries: Ent[] = [];
  // 20 requests, each: one list query then 30 comment counts in a loop, on connections 1..4
  for (let r = 0; r < 20; r++) {
    const start = T0 + r * 50;
    const th = 1 + (r % 4);
    entries.push({ t: start, thread: th, qt: 0.002, sql: 'SELECT * FROM posts ORDER BY created_at DESC LIMIT 30' });
    entries.push(...burst(th, start + 1, 30, (i) => `SELECT COUNT(*) FROM comments WHERE post_id = ${r * 100 + i}`, 1));
    entries.push({ t: start + 40, thread: th, qt: 0.0002, sql: `SELECT * FROM users WHERE id = ${r}` });
  }
  entries.sort((x, y) => x.t - y.t);
  const stats = collect(entries);
  const count = stats.find((s) => s.fingerprint.startsWith('select count(*)'))!;
  const list = stats.find((s) => s.fingerprint.startsWith('select * from posts'))!;
  assert.equal(count.count, 600);
  assert.ok(count.repeats >= 580, String(count.repeats));
  assert.ok(count.peakPerSecond >= 500);
  assert.equal(looksLikeNPlusOne(count), true);
  assert.equal(looksLikeNPlusOne(list), false, 'once per request is not N+1');

  const inLoop = site('main.go', 42, 'SELECT COUNT(*) FROM comments WHERE post_id = ?', true);
  const r1 = runtimeNPlusOne(stats, [inLoop]);
  assert.equal(r1.findings.length, 1);
  assert.equal(r1.findings[0].code, 'n-plus-one');
  assert.equal(r1.findings[0].severity, 'error');
  assert.match(r1.findings[0].message, /600 calls, peak \d+\/s/);
  assert.equal(r1.findings[0].related?.[0].range.start.line, 40);

  const noLoop = site('main.go', 42, 'SELECT COUNT(*) FROM comments WHERE post_id = ?');
  const r2 = runtimeNPlusOne(stats, [noLoop]);
  assert.deepEqual(r2.findings.map((f) => [f.code, f.severity, f.file, f.range.start.line]), [['n-plus-one-suspected', 'warning', 'main.go', 42]]);

  // a static finding covering the site is annotated, not duplicated
  const staticFinding: Finding = { code: 'n-plus-one', severity: 'warning', message: 'Query in a loop', file: 'main.go', range: { start: { line: 40, character: 0 }, end: { line: 45, character: 0 } } };
  const r3 = runtimeNPlusOne(stats, [noLoop], { staticFindings: [staticFinding] });
  assert.equal(r3.findings.length, 1);
  assert.equal(r3.findings[0].severity, 'error');
  assert.match(r3.findings[0].message, /^Query in a loop — confirmed by the slow log: 600 calls/);
  // listed loop sites count as loops too
  assert.equal(runtimeNPlusOne(stats, [noLoop], { loopSites: [noLoop] }).findings[0].code, 'n-plus-one');

  const r4 = runtimeNPlusOne(stats, []);
  assert.deepEqual(r4.unmapped.map((s) => s.fingerprint), [count.fingerprint]);
});

void test('runtime N+1: a busy query spread over connections is not flagged', () => {
  const entries: Ent[] = [];
  for (let i = 0; i < 2000; i++) entries.push({ t: T0 + i * 2, thread: i % 50, qt: 0.0002, sql: `SELECT * FROM users WHERE id = ${i}` });
  const [s] = collect(entries);
  assert.ok(s.peakPerSecond >= 400);
  assert.equal(looksLikeNPlusOne(s), false, `repeats ${s.repeats}`);
});

void test('entries classed by their statement shape get the figures of entries classed by their fingerprint\'s bytes', () => {
  const shapes = [(i: number) => `SELECT * FROM users WHERE id = ${i}`, (i: number) => `SELECT * FROM users WHERE id IN (${Array.from({ length: 1 + (i % 4) }, (_, k) => k + i).join(', ')})`,
    (i: number) => `UPDATE users SET name = 'n${i}' WHERE id = ${i}`, () => '/* ping */', () => '/* pong */', (i: number) => `SELECT * FROM users WHERE id = '${i}'`];
  let text = '';
  for (let i = 0; i < 300; i++) {
    text += `# Time: ${new Date(T0 + i * 7).toISOString().replace('Z', '000Z')}\n# User@Host: app[app] @ localhost []  Id: ${1 + (i % 3)}\n`
      + `# Query_time: ${((i % 17) / 1000).toFixed(6)}  Lock_time: 0.000001 Rows_sent: 1  Rows_examined: ${i}\n${shapes[i % shapes.length](i)};\n`;
  }
  const byShape = new SlowStatsCollector();
  const byBytes = new SlowStatsCollector();
  let stable = 0;
  const p = new SlowLogParser((e) => {
    if (e.fingerprintShape >= 0) stable++;
    byShape.add(e);
    byBytes.add({ ...e, fingerprintShape: -1 });
  });
  forEachLine(new TextEncoder().encode(text), (b, s, e, n) => p.line(b, s, e, n));
  p.end();
  assert.ok(stable > 250, `${stable} entries came with their shape`);
  const a = byShape.result();
  assert.deepEqual(a, byBytes.result());
  // the two comments are two classes (a statement that is only a comment is classed by its text), the two IN lists one
  assert.deepEqual(a.map((q) => [q.fingerprint, q.count]), [
    ['select * from users where id = ?', 100], ['select * from users where id in(?+)', 50], ['update users set name = ? where id = ?', 50], ['/* ping */', 50], ['/* pong */', 50],
  ]);
});

void test('statement shapes from several parsers (one per file) into one collector: the same fingerprints as by their bytes alone', () => {
  const log = (from: number, n: number): Uint8Array => new TextEncoder().encode(Array.from({ length: n }, (_, i) => `# Time: ${new Date(T0 + (from + i) * 1000).toISOString()}\n`
    + `# User@Host: app[app] @ localhost []  Id: ${1 + (i % 3)}\n# Query_time: 0.00${1 + (i % 9)}000  Lock_time: 0.000000 Rows_sent: 1  Rows_examined: ${i}\n`
    + `SELECT * FROM t${(from + i) % 7} WHERE id = ${i} AND name = 'n${i}';\n`).join(''));
  const files = [log(0, 40), log(100, 40), log(3, 40)];
  const byShape = new SlowStatsCollector();
  const byBytes = new SlowStatsCollector();
  for (const file of files) {
    const p = new SlowLogParser((e) => { byShape.add(e); byBytes.add({ ...e, fingerprintShape: -1 }); });
    forEachLine(file, (b, s, e, n) => p.line(b, s, e, n));
    p.end();
  }
  const rows = (c: SlowStatsCollector): string[] => c.result().map((q) => `${q.fingerprint} ${q.count} ${q.queryTime.total}`);
  assert.equal(rows(byShape).length, 7);
  assert.deepEqual(rows(byShape), rows(byBytes));
});
