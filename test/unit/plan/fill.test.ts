import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import { fillPlaceholders, sqlLiteral, typedLiteral, type SampleSource, type SampleValue } from '../../../src/core/sql/fillPlaceholders';
import { connectionHints } from '../../../src/core/sql/connectionHints';
import { PlanCache } from '../../../src/core/plan/planCache';
import type { Schema } from '../../../src/core/model';

const schema = JSON.parse(readFileSync(join(FIXTURES, 'schemas', 'isuconish.schema.json'), 'utf8')) as Schema;

/** Values per `table.column`, as a database would return them; records what was asked. */
class TableSamples implements SampleSource {
  asked: string[] = [];
  constructor(private readonly data: Record<string, SampleValue[]>, private readonly fail = false) {}
  async sample(table: string, column: string, count: number): Promise<SampleValue[]> {
    this.asked.push(`${table}.${column}`);
    if (this.fail) throw new Error('connection lost');
    return (this.data[`${table}.${column}`] ?? []).slice(0, count);
  }
}

const data = new TableSamples({
  'posts.user_id': [7920, 5839], 'posts.id': [1, 2, 3, 4], 'users.account_name': ["o'brien", 'user2'],
  'posts.created_at': ['2024-01-01 00:01:00', '2024-01-01 00:02:00'], 'items.status': ['on_sale'], 'comments.post_id': [10, 20, 30],
});

async function fill(sql: string, samples: SampleSource | undefined = data) {
  const r = await fillPlaceholders(sql, schema, samples);
  assert.ok(r.ok, `expected ${sql} to fill: ${'reason' in r ? r.reason : ''}`);
  return r;
}

void test('fill: ? compared with a column gets a sampled value of that column', async () => {
  const r = await fill('SELECT * FROM posts WHERE user_id = ? ORDER BY created_at DESC LIMIT ?');
  assert.equal(r.sql, 'SELECT * FROM posts WHERE user_id = 7920 ORDER BY created_at DESC LIMIT 20');
  assert.deepEqual(r.substitutions.map((s) => [s.placeholder, s.value, s.source, s.column]), [['?', '7920', 'sample', 'posts.user_id'], ['?', '20', 'limit', undefined]]);
});

void test('fill: a range is never empty: BETWEEN gets its lower sampled value first, whatever order the sample came in', async () => {
  const desc = new TableSamples({ 'posts.created_at': ['2024-03-01 00:00:00', '2024-01-01 00:00:00'], 'posts.user_id': [900, 12] });
  const r = await fill('SELECT * FROM posts WHERE created_at BETWEEN ? AND ? AND user_id BETWEEN ? AND ? LIMIT ?', desc);
  assert.equal(r.sql, "SELECT * FROM posts WHERE created_at BETWEEN '2024-01-01 00:00:00' AND '2024-03-01 00:00:00' AND user_id BETWEEN 12 AND 900 LIMIT 20");
  assert.deepEqual(r.substitutions.map((s) => s.value), ["'2024-01-01 00:00:00'", "'2024-03-01 00:00:00'", '12', '900', '20']);
  assert.match(r.substitutions[1].note ?? '', /BETWEEN bounds put in order/);
  const asc = await fill('SELECT * FROM posts WHERE user_id BETWEEN ? AND ?', new TableSamples({ 'posts.user_id': [3, 40] }));
  assert.equal(asc.sql, 'SELECT * FROM posts WHERE user_id BETWEEN 3 AND 40');
});

void test('fill: aliases, :name and quoting of sampled strings', async () => {
  const r = await fill('SELECT p.id FROM posts p JOIN users u ON u.id = p.user_id WHERE u.account_name = :name');
  assert.equal(r.sql, "SELECT p.id FROM posts p JOIN users u ON u.id = p.user_id WHERE u.account_name = 'o''brien'");
  assert.equal(r.substitutions[0].column, 'users.account_name');
});

void test('fill: IN (?) is expanded to several sampled values; $n and %s styles', async () => {
  const r = await fill('SELECT * FROM comments WHERE post_id IN (?)');
  assert.equal(r.sql, 'SELECT * FROM comments WHERE post_id IN (10, 20, 30)');
  assert.match(r.substitutions[0].note ?? '', /expanded to 3/);
  assert.equal((await fill('UPDATE posts SET user_id = $1 WHERE id = $2')).sql, 'UPDATE posts SET user_id = 7920 WHERE id = 1');
  assert.equal((await fill('DELETE FROM posts WHERE user_id = %s AND id = %s')).sql, 'DELETE FROM posts WHERE user_id = 7920 AND id = 1');
});

void test('fill: same column twice takes the next sample; BETWEEN and LIMIT ?, ?', async () => {
  const r = await fill('SELECT * FROM posts WHERE created_at BETWEEN ? AND ? LIMIT ?, ?');
  assert.equal(r.sql, "SELECT * FROM posts WHERE created_at BETWEEN '2024-01-01 00:01:00' AND '2024-01-01 00:02:00' LIMIT 0, 20");
});

void test('fill: typed literals when there is nothing to sample or sampling fails', async () => {
  const r = await fill('SELECT * FROM items WHERE seller_id = ? AND created_at > ? AND name = ?', new TableSamples({}));
  assert.equal(r.sql, "SELECT * FROM items WHERE seller_id = 1 AND created_at > '2024-01-01 00:00:00' AND name = 'a'");
  assert.ok(r.substitutions.every((s) => s.source === 'typed'));
  const f = await fill('SELECT * FROM posts WHERE user_id = ?', new TableSamples({}, true));
  assert.equal(f.sql, 'SELECT * FROM posts WHERE user_id = 1');
  assert.match(f.substitutions[0].note ?? '', /sampling failed: connection lost/);
  const none = await fill('SELECT * FROM items WHERE status = ?', undefined);
  assert.equal(none.sql, "SELECT * FROM items WHERE status = 'on_sale'");
});

void test('fill: a placeholder inside a function of a column samples that column', async () => {
  const r = await fill('SELECT * FROM users WHERE LOWER(account_name) = ?');
  assert.equal(r.substitutions[0].column, 'users.account_name');
});

void test('fill: unknown column gets a neutral default and says so', async () => {
  const r = await fill('SELECT * FROM posts WHERE nonesuch = ?');
  assert.equal(r.substitutions[0].source, 'default');
  assert.match(r.substitutions[0].note ?? '', /not found|not identified/);
});

void test('fill: token-scan fallback when the parser cannot read the statement', async () => {
  const r = await fill('SELECT * FROM posts p WHERE p.user_id = ? AND MATCH(body) AGAINST (? IN BOOLEAN MODE) STRANGE ?');
  assert.equal(r.parsed, false);
  assert.equal(r.substitutions[0].column, 'posts.user_id');
});

void test('fill: dynamic parts completed plausibly, or a reason', async () => {
  const inList = await fill('SELECT * FROM posts WHERE id IN (/*?dynamic*/) ORDER BY /*?dynamic*/');
  assert.equal(inList.sql, 'SELECT * FROM posts WHERE id IN (1, 2, 3) ORDER BY id');
  const cond = await fill('SELECT * FROM posts WHERE /*?dynamic*/ ORDER BY created_at /*?dynamic*/');
  assert.equal(cond.sql.trim(), 'SELECT * FROM posts WHERE 1=1 ORDER BY created_at');
  const tail = await fill('SELECT * FROM posts WHERE user_id = ? /*?dynamic*/');
  assert.equal(tail.sql.trim(), 'SELECT * FROM posts WHERE user_id = 7920');
  const r = await fillPlaceholders('SELECT * FROM /*?dynamic*/ WHERE id = ?', schema, data);
  assert.deepEqual(r, { ok: false, reason: 'the table name is chosen at run time' });
  const c = await fillPlaceholders('SELECT * FROM posts WHERE /*?dynamic*/ = ?', schema, data);
  assert.equal(c.ok, false);
});

void test('typedLiteral / sqlLiteral follow the column type', () => {
  assert.equal(typedLiteral("enum('on_sale','sold')"), "'on_sale'");
  assert.equal(typedLiteral('bigint(20) unsigned'), '1');
  assert.equal(typedLiteral('date'), "'2024-01-01'");
  assert.equal(sqlLiteral(42, 'varchar(10)'), "'42'");
  assert.equal(sqlLiteral('42', 'int'), '42');
  assert.equal(sqlLiteral('a\\b', 'text'), "'a\\\\b'");
});

void test('connection hints from env.sh, .env and docker-compose.yml', () => {
  const env = connectionHints('export ISUCON_DB_HOST=127.0.0.1\nexport ISUCON_DB_PORT=3306\nISUCON_DB_USER="isucon"\nISUCON_DB_PASSWORD=isucon\nISUCON_DB_NAME=isuports\nOTHER=1\nDB_HOST=${X}\n', 'env.sh');
  assert.deepEqual(env.map((h) => [h.field, h.value, h.line]), [['host', '127.0.0.1', 0], ['port', '3306', 1], ['user', 'isucon', 2], ['password', 'isucon', 3], ['database', 'isuports', 4]]);
  const dot = connectionHints('MYSQL_HOST=db\nMYSQL_USER=app # comment\nMYSQL_DATABASE=app\nDB_PASS=s3cret\n', '.env');
  assert.deepEqual(dot.map((h) => [h.field, h.value]), [['host', 'db'], ['user', 'app'], ['database', 'app'], ['password', 's3cret']]);
  const compose = connectionHints([
    'services:', '  app:', '    environment:', '      DB_HOST: mysql', '      DB_PORT: "3306"', '    image: x', '  mysql:', '    environment:',
    '      - MYSQL_DATABASE=isucon', '      - MYSQL_ROOT_PASSWORD=root', '    ports: ["3306:3306"]', '  other:', '    command: DB_USER=no',
  ].join('\n'), 'docker-compose.yml');
  assert.deepEqual(compose.map((h) => [h.field, h.value, h.key]), [['host', 'mysql', 'DB_HOST'], ['port', '3306', 'DB_PORT'], ['database', 'isucon', 'MYSQL_DATABASE'], ['password', 'root', 'MYSQL_ROOT_PASSWORD']]);
});

void test('PlanCache: keyed by statement and generation, LRU bounded', () => {
  const c = new PlanCache<number>(2);
  c.set('a', 1, 1); c.set('b', 1, 2);
  assert.equal(c.get('a', 1), 1);
  assert.equal(c.get('a', 2), undefined);
  c.set('c', 1, 3);
  assert.equal(c.get('b', 1), undefined, 'least recently used is evicted');
  assert.equal(c.get('a', 1), 1);
  c.prune(2);
  assert.equal(c.size, 0);
});
