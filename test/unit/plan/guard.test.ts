import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guardStatement, sampleQuery, GuardError } from '../../../src/db/guard';
import { explainability, readPartAsSelect as r } from '../../../src/core/plan/explainable';
import { parseServerVersion } from '../../../src/db/connection';

const ok = (sql: string, purpose: Parameters<typeof guardStatement>[1], confirmed = false) => assert.doesNotThrow(() => guardStatement(sql, purpose, { confirmed }), sql);
const no = (sql: string, purpose: Parameters<typeof guardStatement>[1], confirmed = false) => assert.throws(() => guardStatement(sql, purpose, { confirmed }), GuardError, sql);

void test('guard: EXPLAIN of the statement kinds that have plans, never EXPLAIN ANALYZE', () => {
  ok('EXPLAIN SELECT * FROM posts', 'explain');
  ok('EXPLAIN FORMAT=JSON UPDATE posts SET mime = 1 WHERE id = 2', 'explain');
  ok('EXPLAIN DELETE FROM posts WHERE id = 2', 'explain');
  ok('EXPLAIN (SELECT 1) UNION (SELECT 2)', 'explain');
  no('EXPLAIN ANALYZE SELECT * FROM posts', 'explain');
  no('ANALYZE SELECT * FROM posts', 'explain');
  no('SELECT * FROM posts', 'explain');
  no('EXPLAIN SELECT 1; DROP TABLE posts', 'explain');
  no('DELETE FROM posts', 'explain');
});

void test('guard: schema reads only from information_schema or SHOW', () => {
  ok("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'isu'", 'schema');
  ok('SELECT VERSION()', 'schema');
  ok('SHOW INDEX FROM posts', 'schema');
  no('SELECT * FROM posts', 'schema');
  no("SELECT t.TABLE_NAME FROM information_schema.TABLES t JOIN isu.users u ON 1", 'schema');
  no("SELECT TABLE_NAME FROM information_schema.TABLES INTO OUTFILE '/tmp/x'", 'schema');
});

void test('guard: server-stats snapshots read performance_schema, and nothing beside it', () => {
  ok('SELECT SCHEMA_NAME, DIGEST, COUNT_STAR FROM performance_schema.events_statements_summary_by_digest', 'schema');
  ok("SELECT * FROM `performance_schema`.`table_io_waits_summary_by_index_usage` WHERE OBJECT_SCHEMA = 'isu'", 'schema');
  no('SELECT d.DIGEST FROM performance_schema.events_statements_summary_by_digest d JOIN isu.users u ON 1', 'schema');
  no('SELECT * FROM performance_schema.setup_consumers FOR UPDATE', 'schema');
  no("UPDATE performance_schema.setup_consumers SET ENABLED = 'YES'", 'schema');
  no('TRUNCATE TABLE performance_schema.events_statements_summary_by_digest', 'schema');
});

void test('guard: sampling only in the shape sampleQuery builds', () => {
  ok(sampleQuery('isu', 'posts', 'user_id', 5), 'sample');
  ok(sampleQuery('isu', 'we`ird', 'c`ol', 3), 'sample');
  no('SELECT * FROM posts', 'sample');
  no('SELECT DISTINCT `a` FROM `isu`.`posts` WHERE `a` IS NOT NULL LIMIT 5 UNION SELECT password FROM mysql.user', 'sample');
});

void test('guard: SET of session variables only', () => {
  ok('SET SESSION TRANSACTION READ ONLY', 'set');
  ok('SET SESSION max_statement_time = 5', 'set');
  no('SET GLOBAL max_connections = 1', 'set');
  no('SET @@global.read_only = 0', 'set');
  no('SET PASSWORD = PASSWORD("x")', 'set');
});

void test('guard: index DDL only when confirmed', () => {
  ok('ALTER TABLE posts ADD INDEX idx_user (user_id)', 'ddl', true);
  ok('ALTER TABLE `isu`.`posts` DROP INDEX idx_user', 'ddl', true);
  no('ALTER TABLE posts ADD INDEX idx_user (user_id)', 'ddl', false);
  no('ALTER TABLE posts DROP COLUMN user_id', 'ddl', true);
  no('ALTER TABLE posts ADD INDEX i (a), DROP COLUMN b', 'ddl', true);
  no('DROP TABLE posts', 'ddl', true);
});

void test('explainability: INSERT … VALUES has no plan, INSERT … SELECT and REPLACE do', () => {
  assert.deepEqual(explainability('SELECT 1'), { explain: true, kind: 'select' });
  assert.deepEqual(explainability('INSERT INTO t SELECT * FROM u'), { explain: true, kind: 'insert-select' });
  assert.deepEqual(explainability('REPLACE INTO t (a) VALUES (?)'), { explain: true, kind: 'replace' });
  const v = explainability('INSERT INTO t (a) VALUES (?)');
  assert.equal(v.explain, false);
  assert.equal(explainability('CREATE TABLE t (a int)').explain, false);
});

void test('server version text → flavor and version', () => {
  assert.deepEqual(parseServerVersion('10.11.6-MariaDB-0+deb12u1'), { flavor: 'mariadb', version: '10.11.6-MariaDB-0+deb12u1', major: 10, minor: 11 });
  assert.equal(parseServerVersion('11.4.2-MariaDB').major, 11);
  assert.deepEqual(parseServerVersion('8.0.36'), { flavor: 'mysql', version: '8.0.36', major: 8, minor: 0 });
  assert.equal(parseServerVersion('5.7.44-log').flavor, 'mysql');
});

void test('readPartAsSelect: the read of UPDATE / DELETE / INSERT … SELECT as a SELECT', () => {
  assert.equal(r('UPDATE posts SET mime = 1 WHERE user_id = 3 ORDER BY id LIMIT 2'), 'SELECT * FROM posts WHERE user_id = 3 ORDER BY id LIMIT 2');
  assert.equal(r('UPDATE posts p JOIN users u ON u.id=p.user_id SET p.mime=(SELECT 1) WHERE u.del_flg=1'), 'SELECT * FROM posts p JOIN users u ON u.id=p.user_id WHERE u.del_flg=1');
  assert.equal(r('UPDATE users SET del_flg = 1'), 'SELECT * FROM users');
  assert.equal(r('DELETE FROM comments WHERE user_id = 5'), 'SELECT * FROM comments WHERE user_id = 5');
  assert.equal(r('DELETE c FROM comments c JOIN posts p ON p.id=c.post_id WHERE p.user_id=1'), 'SELECT * FROM comments c JOIN posts p ON p.id=c.post_id WHERE p.user_id=1');
  assert.equal(r('DELETE FROM c USING comments c JOIN posts p WHERE p.id=1'), 'SELECT * FROM comments c JOIN posts p WHERE p.id=1');
  assert.equal(r('INSERT INTO tags (id,name) SELECT id+100, name FROM tags WHERE id < 3 ON DUPLICATE KEY UPDATE name=VALUES(name)'), 'SELECT id+100, name FROM tags WHERE id < 3');
  assert.equal(r('INSERT INTO t (a) (SELECT a FROM u)'), 'SELECT a FROM u');
  assert.equal(r('REPLACE INTO tags (id, name) VALUES (1, 2)'), undefined);
  assert.equal(r('SELECT 1'), undefined);
});
