import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DYNAMIC_MARK } from '../../../src/core/model';
import { DYNAMIC_TOKEN, fingerprint, fingerprintBytes, fingerprintInto, lastFingerprintBytes, decodeFingerprint } from '../../../src/core/sql/fingerprint';

function sameFingerprint(variants: string[]): string {
  const fps = variants.map(fingerprint);
  for (let i = 1; i < fps.length; i++) assert.equal(fps[i], fps[0], `${variants[i]}\n  vs\n${variants[0]}`);
  return fps[0];
}

void test('different literals give one fingerprint', () => {
  const fp = sameFingerprint([
    "SELECT * FROM users WHERE id = 42 AND name = 'alice'",
    "SELECT * FROM users WHERE id = -7 AND name = 'it''s'",
    "SELECT * FROM users WHERE id = 3.25 AND name = 'O\\'Reilly'",
    'SELECT * FROM users WHERE id = 1e-3 AND name = "say \\"hi\\""',
    "SELECT * FROM users WHERE id = 0x1F AND name = X'4142'",
    'SELECT * FROM users WHERE id = NULL AND name = N\'x\'',
  ]);
  assert.equal(fp, 'select * from users where id = ? and name = ?');
});

void test('IN lists of any length and VALUES rows collapse', () => {
  assert.equal(sameFingerprint([
    'SELECT * FROM posts WHERE id IN (1)',
    'SELECT * FROM posts WHERE id IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)',
    "SELECT * FROM posts WHERE id IN ('a','b')",
    'SELECT * FROM posts WHERE id IN (?, ?, ?)',
  ]), 'select * from posts where id in(?+)');
  assert.equal(sameFingerprint([
    "INSERT INTO t (a, b) VALUES (1, 'x')",
    "INSERT INTO t (a, b) VALUES (1, 'x'), (2, 'y'),(3,'z')",
    'INSERT INTO t (a, b) VALUES (?, ?)',
    'insert into t(a,b) values(-1, NULL)',
  ]), 'insert into t(a, b) values(?+)');
  // a subquery in IN stays
  assert.equal(fingerprint('SELECT * FROM a WHERE id IN (SELECT a_id FROM b WHERE x = 1)'),
    'select * from a where id in(select a_id from b where x = ?)');
  assert.equal(fingerprint("INSERT INTO t (a) VALUES (1),(2) ON DUPLICATE KEY UPDATE a = 5"),
    'insert into t(a) values(?+) on duplicate key update a = ?');
});

void test('spacing, case, backquotes, comments and the final ; are folded', () => {
  assert.equal(sameFingerprint([
    'SELECT `id`, `name` FROM `users` WHERE `id`=5 ORDER BY `id` ASC LIMIT 10;',
    'select id,name\n  from users\n\twhere id = 5\n  order by id limit 10',
    '/* app:GET /users */ SELECT id , name FROM users WHERE id= 7 ORDER BY id LIMIT 5 -- trailing\n',
    'SELECT id, name # note\nFROM users WHERE id =8 ORDER BY id LIMIT 3, 10',
    'SELECT id, name FROM users WHERE id = 9 ORDER BY id LIMIT 10 OFFSET 20',
  ]), 'select id, name from users where id = ? order by id limit ?');
  assert.equal(fingerprint('SELECT COUNT( * ) AS c FROM t'), fingerprint('select count(*) as c from t'));
});

void test('placeholders of source SQL become ?', () => {
  sameFingerprint([
    'SELECT * FROM t WHERE a = ? AND b IN (?, ?)',
    'SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)',
    'SELECT * FROM t WHERE a = :a AND b IN (:b1, :b2)',
    'SELECT * FROM t WHERE a = %s AND b IN (%s, %s)',
    'SELECT * FROM t WHERE a = %(a)s AND b IN (%(b)s)',
    "SELECT * FROM t WHERE a = 'x' AND b IN (1, 2, 3, 4)",
  ]);
});

void test('different statements get different fingerprints', () => {
  const fps = [
    'SELECT * FROM users WHERE id = 1',
    'SELECT * FROM users WHERE id IN (1)',
    'SELECT * FROM users WHERE id > 1',
    'SELECT * FROM posts WHERE id = 1',
    'SELECT id FROM users WHERE id = 1',
    'SELECT * FROM users WHERE id = 1 ORDER BY id DESC',
    'SELECT * FROM users WHERE id = 1 FOR UPDATE',
    'DELETE FROM users WHERE id = 1',
    'UPDATE users SET name = 1 WHERE id = 1',
    'SELECT * FROM users_2023 WHERE id = 1',
    'SELECT * FROM users WHERE a IS NULL',
    'SELECT * FROM users WHERE a IS NOT NULL',
    'SELECT a - 1 FROM users',
    'COMMIT',
  ].map(fingerprint);
  assert.equal(new Set(fps).size, fps.length, fps.join('\n'));
});

void test('numbers and operators: signs, arithmetic, identifiers with digits', () => {
  assert.equal(fingerprint('SELECT a-1, b - -2, c*3 FROM t2 WHERE x=-5 AND y>=+6 AND id % 50 = 0'),
    'select a - ?, b - ?, c * ? from t2 where x = ? and y >= ? and id % ? = ?');
  assert.equal(fingerprint('SELECT * FROM 2fa_codes WHERE l2.tip = 1'), 'select * from 2fa_codes where l2.tip = ?');
  assert.equal(fingerprint('SELECT @a := 1, @@session.sql_mode'), 'select @a := ?, @@session.sql_mode');
});

void test('use db, administrator commands, COMMIT', () => {
  assert.equal(fingerprint('use isucon'), 'use ?');
  assert.equal(fingerprint('USE `other`'), 'use ?');
  assert.equal(fingerprint('administrator command: Quit'), 'administrator command: quit');
  assert.equal(fingerprint('COMMIT'), 'commit');
});

void test('DYNAMIC_MARK: a value where values go, else a wildcard token', () => {
  assert.equal(fingerprint(`SELECT * FROM t WHERE id = ${DYNAMIC_MARK}`), fingerprint('SELECT * FROM t WHERE id = 5'));
  assert.equal(fingerprint(`SELECT * FROM t WHERE id IN (${DYNAMIC_MARK})`), fingerprint('SELECT * FROM t WHERE id IN (1,2,3)'));
  assert.equal(fingerprint(`SELECT * FROM t WHERE id IN ${DYNAMIC_MARK}`), fingerprint('SELECT * FROM t WHERE id IN (1,2,3)'));
  assert.equal(fingerprint(`SELECT * FROM t ORDER BY ${DYNAMIC_MARK}`), `select * from t order by ${DYNAMIC_TOKEN}`);
  assert.equal(fingerprint(`SELECT * FROM t ${DYNAMIC_MARK}`), `select * from t ${DYNAMIC_TOKEN}`);
  // an ordinary comment is still dropped
  assert.equal(fingerprint('SELECT /* x */ 1'), 'select ?');
});

void test('bytes and text entry points agree, also for non-ASCII', () => {
  const q = "SELECT `名前` FROM users WHERE name = 'ä' AND x IN (1,2)";
  const bytes = new TextEncoder().encode(`xx${q}yy`);
  assert.equal(fingerprintBytes(bytes, 2, bytes.length - 2), fingerprint(q));
  const n = fingerprintInto(bytes, 2, bytes.length - 2);
  assert.equal(decodeFingerprint(lastFingerprintBytes(), n), fingerprint(q));
  assert.equal(fingerprint(q), 'select 名前 from users where name = ? and x in(?+)');
});

void test('unterminated literals and comments do not throw', () => {
  assert.equal(fingerprint("SELECT 'abc"), 'select ?');
  assert.equal(fingerprint('SELECT 1 /* open'), 'select ?');
  assert.equal(fingerprint('SELECT (1'), 'select(?');
  assert.equal(fingerprint(''), '');
});

void test('executable comments are SQL: their content is kept (the version gate dropped), so different ones stay apart', () => {
  assert.equal(fingerprint('/*!40101 SET NAMES utf8 */'), 'set names utf8');
  assert.equal(fingerprint('/*!40101 SET NAMES utf8 */;'), fingerprint('SET NAMES utf8'));
  assert.notEqual(fingerprint('/*!40101 SET NAMES utf8 */'), fingerprint('/*!40101 SET character_set_client = utf8mb4 */'));
  assert.equal(fingerprint("/*M!100401 SET sql_mode='' */"), 'set sql_mode = ?');
  assert.equal(fingerprint('SELECT /*! STRAIGHT_JOIN */ a FROM t WHERE id = 3'), 'select straight_join a from t where id = ?');
  assert.equal(fingerprint('SELECT /* a plain comment */ a FROM t WHERE id = 3'), 'select a from t where id = ?');
  assert.equal(fingerprint('/*!*/;'), '');
});

void test('VALUES(col) after ON DUPLICATE KEY UPDATE keeps its column; the row list still collapses', () => {
  const a = 'INSERT INTO t (a, b) VALUES (1, 2), (3, 4) ON DUPLICATE KEY UPDATE a = VALUES(a), b = VALUES(b)';
  assert.equal(fingerprint(a), 'insert into t(a, b) values(?+) on duplicate key update a = values(a), b = values(b)');
  assert.notEqual(fingerprint(a), fingerprint('INSERT INTO t (a, b) VALUES (1, 2) ON DUPLICATE KEY UPDATE a = VALUES(b), b = VALUES(a)'));
  assert.equal(fingerprint('INSERT INTO t (a) VALUES (?)'), 'insert into t(a) values(?+)');
  assert.equal(fingerprint('INSERT INTO t (a, b) VALUES (1, 2) ON DUPLICATE KEY UPDATE b = b + 1'), 'insert into t(a, b) values(?+) on duplicate key update b = b + ?');
});
