import { test } from 'node:test';
import assert from 'node:assert/strict';
import { joinSqlParts, looksLikeSql, placeholdersOf } from '../../../src/core/source/sqlText';
import { DYNAMIC_MARK } from '../../../src/core/model';

const SQL = [
  'SELECT * FROM users WHERE id = ?',
  'select id, name from users',
  '  \n  SELECT `id` FROM `posts` ORDER BY created_at DESC LIMIT 20',
  '(SELECT 1) UNION (SELECT 2)',
  'SELECT 1',
  'SELECT NOW()',
  'SELECT LAST_INSERT_ID()',
  'SELECT @@version',
  'SELECT COUNT(*) AS cnt FROM comments WHERE post_id = ?',
  'SELECT EXTRACT(YEAR FROM d) AS y FROM t',
  'SELECT * FROM u JOIN p ON p.user_id = u.id',
  'SELECT * FROM users u WHERE u.id = $1',
  `SELECT * FROM ${DYNAMIC_MARK}`,
  `SELECT ${DYNAMIC_MARK} FROM users`,
  'SELECT * FROM %s WHERE id = %d',
  'INSERT INTO users (name) VALUES (?)',
  'insert into posts set body = ?',
  'INSERT IGNORE INTO t (a) VALUES (:a)',
  'INSERT users (a) VALUES (1)',
  'REPLACE INTO kv (k, v) VALUES (?, ?)',
  'UPDATE users SET name = ? WHERE id = ?',
  'update `posts` set del_flg = 1',
  'UPDATE users u JOIN t ON t.id = u.id SET u.x = 1',
  'DELETE FROM users WHERE id > 1000',
  'DELETE FROM sessions',
  'DELETE u FROM users u JOIN bans b ON b.user_id = u.id',
  'WITH t AS (SELECT 1) SELECT * FROM t',
  'WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r',
  '/* hint */ SELECT 1',
  '-- comment\nSELECT id FROM users',
  'Select * from users',
];
const NOT_SQL = [
  'Select a user',
  'Select a user from the list',
  'select failed: %v',
  'update failed: %v',
  'Update your profile',
  'Delete from the list',
  'DELETE FROM users failed: %v',
  'Insert a coin',
  'Replace the text',
  'With great power comes great responsibility',
  'selected rows',
  'SELECT',
  'select from users',
  'insert into the database failed',
  'Selecting users…',
  'updated 3 rows',
  'select one from the menu',
  'users SELECT',
  '',
];

void test('looksLikeSql accepts statements', () => {
  for (const s of SQL) assert.equal(looksLikeSql(s), true, s);
});
void test('looksLikeSql rejects prose and log messages', () => {
  for (const s of NOT_SQL) assert.equal(looksLikeSql(s), false, s);
});

void test('placeholdersOf finds every style outside quotes and comments', () => {
  assert.deepEqual(placeholdersOf('SELECT * FROM t WHERE a = ? AND b = ?'), ['?', '?']);
  assert.deepEqual(placeholdersOf('SELECT * FROM t WHERE a = $1 AND b = $2'), ['$1', '$2']);
  assert.deepEqual(placeholdersOf('SELECT * FROM t WHERE a = :id AND b::text = :name'), [':id', ':name']);
  assert.deepEqual(placeholdersOf("SELECT * FROM t WHERE a = %s AND b = %d AND c LIKE '%s%%' AND d = %(x)s"), ['%s', '%d', '%(x)s']);
  // a MySQL user variable is not a driver placeholder (no supported driver binds `@name`)
  assert.deepEqual(placeholdersOf('SELECT @@version, x FROM t WHERE a = @p1 AND b = ?'), ['?']);
  assert.deepEqual(placeholdersOf("SELECT '?' AS q, `a?` FROM t -- ?\n WHERE x = ? /* ? */ # ?\n AND y = ?"), ['?', '?']);
  assert.deepEqual(placeholdersOf("SELECT 'it''s ?', \"a\\\"?\" FROM t WHERE t = '12:30' AND z = ?"), ['?']);
  assert.deepEqual(placeholdersOf('SET @r := 0'), []);
  assert.deepEqual(placeholdersOf(`SELECT * FROM t WHERE ${DYNAMIC_MARK} AND id = ?`), ['?']);
});

void test('joinSqlParts marks each run of dynamic parts once', () => {
  assert.deepEqual(joinSqlParts([{ text: 'SELECT * FROM ' }, { dynamic: true }, { dynamic: true }, { text: ' WHERE id = ?' }]),
    { sql: `SELECT * FROM ${DYNAMIC_MARK} WHERE id = ?`, dynamic: true });
  assert.deepEqual(joinSqlParts([{ text: 'SELECT 1' }]), { sql: 'SELECT 1', dynamic: false });
});

void test('TRUNCATE, LOCK TABLES and UNLOCK TABLES are statements; prose with those words is not', () => {
  for (const sql of ['TRUNCATE TABLE visits', 'TRUNCATE visits', 'truncate table `visits`;', 'LOCK TABLES seats WRITE', 'LOCK TABLES seats AS s READ, users WRITE', 'UNLOCK TABLES', 'unlock tables;']) {
    assert.equal(looksLikeSql(sql), true, sql);
  }
  for (const text of ['truncate the table first', 'Lock tables before the import', 'lock the seats', 'unlock tables failed for user', 'TRUNCATE TABLE visits failed: %v']) {
    assert.equal(looksLikeSql(text), false, text);
  }
});
