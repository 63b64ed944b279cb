/**
 * Server stats from two recorded MySQL 8.0 performance_schema result sets (the full MySQL 8 column
 * set, its digest text notation): per-shape figures, new / reset / evicted digests, the overflow row,
 * the tool's own reads, unused indexes with the kept ones' reasons, and the mapping to source sites.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import { digestFingerprint } from '../../../src/core/serverStats/digestText';
import { diffDigests, statementShapes } from '../../../src/core/serverStats/digestDiff';
import { unusedIndexes } from '../../../src/core/serverStats/indexUsage';
import { parseSnapshot, serializeSnapshot, snapshotFromResultSets, SnapshotError, type ServerSnapshot } from '../../../src/core/serverStats/snapshot';
import { queryStatsOf, runFromServerStats, serverStatsBetween, statementRecords } from '../../../src/core/serverStats/serverStatsRun';
import { fingerprint } from '../../../src/core/sql/fingerprint';
import { parseRun, serializeRun } from '../../../src/core/report/runs';
import { compareRuns } from '../../../src/core/report/compare';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { FactsCache } from '../../../src/core/workspace';
import { fsGrammarSource } from '../../../src/node/grammars';
import { scanProject } from '../../../src/node/scanDir';

const dir = join(FIXTURES, 'serverStats');

function recorded(name: string): ServerSnapshot {
  const o = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Record<string, unknown>;
  return snapshotFromResultSets({
    server: o.server as string, database: 'isu', takenAt: new Date(o.takenAt as string),
    digests: o.digests as Record<string, unknown>[], indexUsage: o.indexUsage as Record<string, unknown>[],
    statistics: o.statistics as Record<string, unknown>[], keyColumnUsage: o.keyColumnUsage as Record<string, unknown>[],
  });
}

const before = recorded('mysql8-before.json');
const after = recorded('mysql8-after.json');

void test('MariaDB and MySQL digest texts fingerprint like the statements they stand for', () => {
  const cases: [string, string][] = [
    // MariaDB 10.11: keywords-as-identifiers upper case and unquoted, trailing space
    ['SELECT * FROM `u` WHERE ID = ? ', 'SELECT * FROM u WHERE id = 7'],
    ['SELECT * FROM `u` WHERE NAME IN (...) ', "SELECT * FROM u WHERE name IN ('a', 'b', 'c')"],
    ['SELECT * FROM `u` WHERE ID = - ? ', 'SELECT * FROM u WHERE id = -5'],
    ['INSERT INTO `u` VALUES (...) /* , ... */ ', "INSERT INTO u VALUES (1,'a',3,4),(2,'b',5,6)"],
    ['SELECT COUNT ( * ) FROM `u` ', 'select count(*) from u'],
    ['SELECT * FROM `u` WHERE NAME IS NULL ', 'SELECT * FROM u WHERE name IS NULL'],
    ['SELECT * FROM `u` WHERE `created_at` = ? ORDER BY `age` DESC LIMIT ? ', 'SELECT * FROM u WHERE created_at = 5 ORDER BY age DESC LIMIT 3'],
    // MySQL 8.0
    ['SELECT `id` , `name` FROM `isu` . `users` WHERE `id` IN (...) AND `del_flg` = ?', 'SELECT id, name FROM isu.users WHERE id IN (?, ?) AND del_flg = 0'],
    ['INSERT INTO `t` ( `a` , `b` , `c` ) VALUES ( ?, ... , NOW ( ) )', 'INSERT INTO t (a, b, c) VALUES (?, ?, NOW())'],
    ['SELECT * FROM `items` WHERE `price` BETWEEN - ? AND ? LIMIT ?, ?', 'SELECT * FROM items WHERE price BETWEEN -10 AND 20 LIMIT 5, 10'],
    ['SELECT `a` - ? FROM `t`', 'SELECT a - 1 FROM t'],
  ];
  for (const [digest, sql] of cases) {
    const d = digestFingerprint(digest);
    assert.equal(d.fingerprint, fingerprint(sql), digest);
    assert.equal(d.truncated, false, digest);
  }
  assert.equal(digestFingerprint('SELECT `a` FROM `t` WHERE `b` = ? AND ...').truncated, true);
});

void test('a window: differences per digest, new digests counted whole, reset ones flagged, evicted ones listed, nothing negative', () => {
  const diff = diffDigests(before, after, { schemas: ['isu'] });
  const by = new Map(diff.digests.map((d) => [d.text, d]));
  const pk = by.get('SELECT * FROM `users` WHERE `id` = ?')!;
  assert.equal(pk.status, 'grown');
  assert.equal(pk.count, 4000);
  assert.equal(pk.totalTime, 4000 * 40e6 / 1e12);
  assert.equal(pk.maxExact, false, 'the max did not grow: only an upper bound');
  const posts = [...by.values()].find((d) => d.text.startsWith('SELECT `id` , `user_id`'))!;
  assert.equal(posts.count, 120);
  assert.equal(posts.noIndexUsed, 120);
  assert.equal(posts.sortRows, 1200);
  assert.equal(posts.rowsExamined, 120 * 50000);
  assert.equal(posts.maxTime, 0.012);
  assert.equal(posts.maxExact, true);
  // unchanged digest (COUNT of comments) is not in the window at all
  assert.ok(![...by.keys()].some((t) => t.startsWith('SELECT COUNT')));
  const inList = [...by.values()].find((d) => d.text.includes('IN (...)'))!;
  assert.equal(inList.status, 'new');
  assert.equal(inList.count, 250);
  const reset = [...by.values()].find((d) => d.text.includes('`categories`'))!;
  assert.equal(reset.status, 'reset');
  assert.equal(reset.count, 30, 'figures since the reset, not 30 - 900');
  for (const d of diff.digests) for (const v of [d.count, d.totalTime, d.rowsExamined, d.rowsSent, d.noIndexUsed]) assert.ok(v >= 0, `${d.text}: ${v}`);
  assert.deepEqual(diff.evicted.map((e) => e.fingerprint), ['select * from sessions where token = ?']);
  assert.equal(diff.lost, 5);
  assert.equal(diff.skipped, 1, 'the performance_schema read is the tool\'s own');
  assert.ok(!diff.digests.some((d) => d.schema === 'other'));
  assert.equal(diff.windowSeconds, 60);
  const trunc = diff.digests.find((d) => d.truncated)!;
  assert.match(trunc.text, /\.\.\.$/);
});

void test('shapes map to the source sites of the app through the slow log\'s fingerprint', async () => {
  const result = serverStatsBetween(before, after);
  const scan = await scanProject(join(dir, 'app'), new FactsCache(new ParserSet(fsGrammarSource()), { routes: false }));
  const records = statementRecords(result.shapes, scan.facts.flatMap((f) => f.sites));
  const where = (re: RegExp) => records.find((r) => re.test(r.fingerprint))!;
  assert.deepEqual(where(/from users where id/).sites, [{ file: 'main.go', line: 9 }]);
  assert.deepEqual(where(/from posts where user_id/).sites, [{ file: 'main.go', line: 14 }]);
  assert.deepEqual(where(/post_id in/).sites, [{ file: 'main.go', line: 19 }]);
  assert.deepEqual(where(/insert into comments/).sites, [{ file: 'main.go', line: 25 }]);
  assert.deepEqual(where(/from items/).sites, [{ file: 'main.go', line: 30 }]);
  assert.deepEqual(where(/from categories/).sites, [{ file: 'main.go', line: 35 }]);
  assert.equal(where(/from categories/).reset, true);
  const trunc = records.find((r) => r.truncated)!;
  assert.deepEqual(trunc.sites, []);
  assert.deepEqual(Object.keys(where(/from users where id/)).slice(0, 12),
    ['kind', 'fingerprint', 'count', 'totalTime', 'maxTime', 'rowsExamined', 'rowsSent', 'noIndexUsed', 'noGoodIndexUsed', 'tmpDiskTables', 'sortRows', 'sites']);
});

void test('unused indexes: only on tables read in the window; PRIMARY, UNIQUE, FOREIGN KEY and FULLTEXT kept with a reason', () => {
  const r = unusedIndexes(before, after, { schemas: ['isu'] });
  // users was read (by PRIMARY) but never through idx_account_name; comments was read through idx_post_id
  assert.deepEqual(r.unused.map((u) => `${u.table}.${u.index} writes=${u.tableWrites}`),
    ['posts.idx_created_at writes=20', 'posts.idx_user_id writes=20', 'users.idx_account_name writes=0']);
  assert.deepEqual(r.unused.find((u) => u.index === 'idx_created_at')!.columns, ['created_at', 'id']);
  const kept = new Map(r.kept.map((k) => [`${k.table}.${k.index}`, k.reason]));
  assert.match(kept.get('comments.PRIMARY')!, /PRIMARY KEY/);
  assert.match(kept.get('comments.uk_comment_token')!, /UNIQUE/);
  assert.match(kept.get('comments.fk_comments_user')!, /FOREIGN KEY fk_comments_user/);
  assert.match(kept.get('comments.ft_comment')!, /FULLTEXT/);
  // sessions: its counters went down (truncated summary), nothing is said about it
  assert.deepEqual(r.reset, ['isu.sessions']);
  assert.ok(!r.unused.some((u) => u.table === 'sessions'));
});

void test('a window is a statement run: saved, read back, compared with a slow-log run by fingerprint', () => {
  const result = serverStatsBetween(before, after);
  const run = runFromServerStats(result, { id: 'w1', source: 'performance_schema@isu', createdAt: new Date(2024, 4, 1, 12, 31) });
  assert.equal(run.kind, 'slow');
  assert.equal(run.origin, 'performance_schema');
  const back = parseRun(serializeRun(run));
  assert.deepEqual(back, run);
  assert.equal(back.queries!.find((q) => q.fingerprint.includes('from users where id'))!.p95, null);
  assert.deepEqual(back.unusedIndexes!.map((u) => u.index), ['idx_created_at', 'idx_user_id', 'idx_account_name']);
  const stats = queryStatsOf(result.shapes, result.diff.windowSeconds);
  const pk = stats.find((s) => s.fingerprint.includes('from users where id'))!;
  assert.equal(pk.count, 4000);
  assert.equal(pk.peakPerSecond, Math.ceil(4000 / 60));
  assert.equal(pk.fromServer, true);
  const slowLike = { ...run, id: 'w0', origin: undefined, queries: run.queries!.map((q) => ({ ...q, count: q.count * 2, total: q.total * 2, min: 0, p95: q.mean })) };
  const c = compareRuns(slowLike, run);
  const row = c.rows.find((x) => x.key.includes('from users where id'))!;
  assert.equal(row.count.before, 8000);
  assert.equal(row.count.after, 4000);
  assert.equal(row.tail.after, null);
});

void test('a saved snapshot reads back; damaged ones are refused with a reason', () => {
  assert.deepEqual(parseSnapshot(serializeSnapshot(after)), after);
  assert.throws(() => parseSnapshot('{"format":"query-insight-run"}'), SnapshotError);
  const bad = JSON.parse(serializeSnapshot(after)) as ServerSnapshot;
  bad.digests[0].counters.count = '-3';
  assert.throws(() => parseSnapshot(JSON.stringify(bad)), /digests\[0\]\.counters\.count/);
  assert.throws(() => snapshotFromResultSets({ server: '8.0.36', database: 'isu', takenAt: new Date(), digests: [{ DIGEST: 'x' }], indexUsage: [], statistics: [], keyColumnUsage: [] }),
    /column COUNT_STAR is missing/);
  assert.equal(statementShapes([]).length, 0);
});
