import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FileFacts, Language, LoopInfo, Range, SqlSite } from '../../../src/core/model';
import { detectNPlusOne } from '../../../src/core/analysis/nPlusOne';
import { adviseNPlusOne } from '../../../src/core/analysis/nPlusOneAdvice';

const r = (a: number, c0 = 0, c1 = 50): Range => ({ start: { line: a, character: c0 }, end: { line: a, character: c1 } });
const loop: LoopInfo = { kind: 'range', range: { start: { line: 5, character: 1 }, end: { line: 9, character: 2 } }, iterable: 'posts' };

/** One function: the outer query on line 4 (result in `posts`, unless `outerSql` is undefined), the inner one on line 8 inside the loop. */
function finding(outerSql: string | undefined, innerSql: string, placeholders: string[] = ['?'], language: Language = 'go') {
  const s = (line: number, sql: string, extra: Partial<SqlSite>): SqlSite => ({ file: 'app.x', language, range: r(line), literalRanges: [r(line)], sql, placeholders: [], dynamic: false, loops: [], ...extra });
  const sites = [s(7, innerSql, { placeholders, loops: [loop], call: 'db.query' })];
  if (outerSql) sites.unshift(s(3, outerSql, { resultVar: 'posts' }));
  const facts: FileFacts = { file: 'app.x', language, sites, functions: [{ name: 'index', range: { start: { line: 0, character: 0 }, end: { line: 20, character: 0 } }, nameRange: r(0) }], calls: [{ name: 'query', receiver: 'db', range: r(7, 0, 60), loops: [loop] }], routes: [], errors: [] };
  const [f] = detectNPlusOne([facts]);
  assert.ok(f, 'expected a finding');
  return f;
}

void test('a lookup by id per outer row becomes an IN list from the outer rows and a JOIN folded into the outer query', () => {
  const a = adviseNPlusOne(finding('SELECT * FROM posts ORDER BY created_at DESC LIMIT 50', 'SELECT name, account_name FROM users WHERE id = ? AND del_flg = 0'), { indent: '\t' });
  assert.equal(a.batchSql, 'SELECT name, account_name FROM users WHERE id IN (?, ?, …) AND del_flg = 0');
  assert.equal(a.joinSql, 'SELECT p.*, u.name, u.account_name FROM posts p INNER JOIN users u ON u.id = p.user_id AND u.del_flg = 0 ORDER BY p.created_at DESC LIMIT 50');
  assert.match(a.markdown, /the `posts` rows' `user_id`/);
  assert.match(a.markdown, /```sql\nSELECT p\.\*, u\.name/);
  assert.deepEqual(a.insertAt, { line: 5, character: 0 });
  assert.equal(a.insertFile, 'app.x');
  for (const line of a.snippet.trimEnd().split('\n')) assert.match(line, /^\t\/\/ /);
  assert.ok(a.snippet.includes('WHERE id IN (?, ?, …)'));
});

void test('the snippet uses the language\'s line comment', () => {
  const py = adviseNPlusOne(finding('SELECT * FROM posts', 'SELECT * FROM users WHERE id = %s', ['%s'], 'python'));
  for (const line of py.snippet.trimEnd().split('\n')) assert.match(line, /^# /);
  assert.equal(py.batchSql, 'SELECT * FROM users WHERE id IN (%s, %s, …)');
  const pl = adviseNPlusOne(finding('SELECT * FROM posts', 'SELECT * FROM users WHERE id = ?', ['?'], 'perl'));
  assert.match(pl.snippet, /^# N\+1/);
});

void test('a count per outer row becomes one grouped statement; no JOIN is offered', () => {
  const a = adviseNPlusOne(finding('SELECT id, body FROM posts LIMIT 20', 'SELECT COUNT(*) AS count FROM comments WHERE post_id = ?'));
  assert.equal(a.batchSql, 'SELECT post_id, COUNT(*) AS count FROM comments WHERE post_id IN (?, ?, …) GROUP BY post_id');
  assert.equal(a.joinSql, undefined);
  assert.match(a.markdown, /`posts` rows' `id`/);
});

void test('the first N rows per outer row become a window over one statement; numbered placeholders keep their style', () => {
  const a = adviseNPlusOne(finding('SELECT * FROM posts LIMIT 20', 'SELECT * FROM comments WHERE post_id = $1 ORDER BY created_at DESC LIMIT 3', ['$1']));
  assert.equal(a.batchSql, 'SELECT * FROM (SELECT comments.*, ROW_NUMBER() OVER (PARTITION BY post_id ORDER BY created_at DESC) AS rn FROM comments WHERE post_id IN ($1, $2, …)) AS ranked WHERE rn <= 3');
});

void test('writes per row become one multi-row INSERT or one UPDATE … IN', () => {
  assert.equal(adviseNPlusOne(finding(undefined, 'INSERT INTO post_views (post_id, viewed_at) VALUES (?, NOW())')).batchSql,
    'INSERT INTO post_views (post_id, viewed_at) VALUES (?, NOW()), (?, NOW()), …');
  assert.equal(adviseNPlusOne(finding(undefined, 'UPDATE posts SET views = views + 1 WHERE id = ?')).batchSql, 'UPDATE posts SET views = views + 1 WHERE id IN (?, ?, …)');
  const perRow = adviseNPlusOne(finding(undefined, 'UPDATE posts SET views = ? WHERE id = ?', ['?', '?']));
  assert.equal(perRow.batchSql, undefined);
  assert.match(perRow.markdown, /ON DUPLICATE KEY UPDATE/);
});

void test('without an outer query the IN list is built from the loop\'s collection; unparsable SQL still gets prose advice', () => {
  const a = adviseNPlusOne(finding(undefined, 'SELECT * FROM users WHERE id = :id', [':id']));
  assert.equal(a.batchSql, 'SELECT * FROM users WHERE id IN (:id, :id, …)');
  assert.match(a.markdown, /values of `posts`/);
  const d = adviseNPlusOne(finding(undefined, 'SELECT * FROM t WHERE /*?dynamic*/', []));
  assert.equal(d.batchSql, undefined);
  assert.match(d.markdown, /WHERE …/);
  assert.match(d.snippet, /^\/\/ N\+1/);
});

void test('backquoted identifiers keep their backticks in the hover (the code span is fenced longer than they are)', () => {
  const a = adviseNPlusOne(finding('SELECT * FROM `posts`', 'SELECT * FROM `users` WHERE `id` = ?'));
  assert.ok(a.markdown.includes('``SELECT * FROM `users` WHERE `id` = ?``'), a.markdown);
  assert.ok(a.markdown.includes('``SELECT * FROM `posts```') === false);
  assert.ok(a.markdown.includes('`` SELECT * FROM `posts` ``'), a.markdown);
  assert.ok(!a.markdown.includes("'users'"));
});
