import { test } from 'node:test';
import assert from 'node:assert/strict';
import { incompleteReason, prepareStatement } from '../../../src/core/plan/statementPrep';
import { DYNAMIC_MARK } from '../../../src/core/model';

const ok = (sql: string) => {
  const p = prepareStatement(sql);
  assert.ok(p.ok, `${sql}: ${!p.ok ? p.reason : ''}`);
  return p;
};

void test('every locking clause is left out and named', () => {
  const cases: [string, string, string][] = [
    ['SELECT * FROM stock WHERE item_id = ? FOR UPDATE', 'SELECT * FROM stock WHERE item_id = ?', 'FOR UPDATE'],
    ['SELECT * FROM stock WHERE item_id = ? FOR SHARE', 'SELECT * FROM stock WHERE item_id = ?', 'FOR SHARE'],
    ['SELECT * FROM stock WHERE item_id = ? LOCK IN SHARE MODE', 'SELECT * FROM stock WHERE item_id = ?', 'LOCK IN SHARE MODE'],
    ['select * from stock where item_id = ? for update nowait', 'select * from stock where item_id = ?', 'FOR UPDATE NOWAIT'],
    ['SELECT id FROM jobs WHERE state = 0 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED', 'SELECT id FROM jobs WHERE state = 0 ORDER BY id LIMIT 1', 'FOR UPDATE SKIP LOCKED'],
    ['SELECT * FROM a JOIN b ON a.id = b.a_id WHERE a.id = ? FOR UPDATE OF a, b', 'SELECT * FROM a JOIN b ON a.id = b.a_id WHERE a.id = ?', 'FOR UPDATE OF a, b'],
    ['SELECT * FROM stock WHERE item_id = ? FOR UPDATE WAIT 5', 'SELECT * FROM stock WHERE item_id = ?', 'FOR UPDATE WAIT 5'],
    ['SELECT * FROM stock WHERE item_id = ? LOCK IN SHARE MODE SKIP LOCKED', 'SELECT * FROM stock WHERE item_id = ?', 'LOCK IN SHARE MODE SKIP LOCKED'],
  ];
  for (const [sql, want, clause] of cases) {
    const p = ok(sql);
    assert.equal(p.ok && p.sql, want, sql);
    assert.equal(p.ok && p.lockingClause, clause, sql);
    assert.deepEqual(p.ok && p.without, [clause]);
  }
  // Not a locking clause: an upsert's UPDATE, a string that says FOR UPDATE.
  const up = ok('INSERT INTO t (a) SELECT a FROM s ON DUPLICATE KEY UPDATE a = VALUES(a)');
  assert.equal(up.ok && up.lockingClause, undefined);
  const str = ok("SELECT * FROM notes WHERE body = 'for update'");
  assert.equal(str.ok && str.sql, "SELECT * FROM notes WHERE body = 'for update'");
});

void test('INTO @var is left out; INTO OUTFILE / DUMPFILE is never sent', () => {
  const a = ok('SELECT COUNT(*) INTO @n FROM posts WHERE user_id = ?');
  assert.equal(a.ok && a.sql, 'SELECT COUNT(*) FROM posts WHERE user_id = ?');
  assert.deepEqual(a.ok && a.without, ['INTO @n']);
  const b = ok('SELECT id, name FROM users WHERE id = ? INTO @id, @name');
  assert.equal(b.ok && b.sql, 'SELECT id, name FROM users WHERE id = ?');
  const c = prepareStatement("SELECT * FROM users INTO OUTFILE '/tmp/u.csv'");
  assert.ok(!c.ok && /never sent/.test(c.reason));
  const d = prepareStatement("SELECT * INTO DUMPFILE '/tmp/x' FROM users");
  assert.ok(!d.ok && /DUMPFILE/.test(d.reason));
  // INSERT … SELECT keeps its INTO.
  const e = ok('INSERT INTO t (a) SELECT a FROM s WHERE b = ?');
  assert.equal(e.ok && e.sql, 'INSERT INTO t (a) SELECT a FROM s WHERE b = ?');
});

void test('incomplete statements are not explainable: built at run time, with the known part', () => {
  for (const sql of [
    'SELECT * FROM items WHERE id IN (',
    `SELECT * FROM items WHERE id IN (${DYNAMIC_MARK}`,
    `SELECT * FROM items WHERE ${DYNAMIC_MARK}`.replace(DYNAMIC_MARK, '') + 'status = ? AND',
    'SELECT * FROM items WHERE',
    `SELECT * FROM items WHERE category_id = ${DYNAMIC_MARK}`.replace(DYNAMIC_MARK, ''),
    'SELECT * FROM items ORDER BY',
    'SELECT a, FROM',
  ]) {
    const p = prepareStatement(sql);
    assert.ok(!p.ok, sql);
    assert.match(!p.ok ? p.reason : '', /^not explainable: built at run time \(.*(ends with|left open)/, sql);
  }
  const open = prepareStatement(`SELECT * FROM items WHERE id IN (${DYNAMIC_MARK}`);
  assert.match(!open.ok ? open.reason : '', /"WHERE id IN \("/);
  // Complete statements, with dynamic parts fill can complete.
  for (const sql of [`SELECT * FROM items WHERE id IN (${DYNAMIC_MARK})`, `SELECT * FROM items ${DYNAMIC_MARK}`, 'SELECT * FROM t FOR UPDATE', 'SELECT COUNT(*) FROM t', 'SELECT * FROM t WHERE a = ? LIMIT ?']) {
    assert.equal(incompleteReason(sql), undefined, sql);
  }
});

void test('a part built at run time after LIMIT, OFFSET or a comparison is a value: the statement is complete', () => {
  // Go: "… ORDER BY created_at DESC LIMIT " + strconv.Itoa(limit); the page size only changes how soon the walk stops.
  for (const sql of [
    `SELECT * FROM items WHERE shop_id = ? ORDER BY created_at DESC LIMIT ${DYNAMIC_MARK}`,
    `SELECT * FROM items ORDER BY id LIMIT ? OFFSET ${DYNAMIC_MARK}`,
    `SELECT * FROM items ORDER BY id LIMIT ?, ${DYNAMIC_MARK}`,
    `SELECT * FROM items WHERE id = ${DYNAMIC_MARK}`,
    `SELECT * FROM items WHERE created_at >= ${DYNAMIC_MARK}`,
    `SELECT * FROM items WHERE name LIKE ${DYNAMIC_MARK}`,
  ]) {
    assert.equal(incompleteReason(sql), undefined, sql);
    assert.ok(prepareStatement(sql).ok, sql);
  }
  // A condition or a list built at run time is no value: what it narrows is unknown, so it stays unsent.
  for (const sql of [`SELECT * FROM items WHERE ${DYNAMIC_MARK}`, `SELECT * FROM items WHERE a = 1 AND ${DYNAMIC_MARK}`, `SELECT * FROM items WHERE id IN (${DYNAMIC_MARK}`, `SELECT * FROM items ORDER BY ${DYNAMIC_MARK}`]) {
    assert.ok(incompleteReason(sql), sql);
  }
});

void test('the LIMIT offset is read from the text: a number, or run-time for a placeholder or a built part; a subquery\'s is not the statement\'s', () => {
  const off = (sql: string) => { const p = prepareStatement(sql); return p.ok ? p.offset : 'refused'; };
  assert.equal(off('SELECT * FROM t ORDER BY id LIMIT 20 OFFSET ?'), 'run-time');
  assert.equal(off('SELECT * FROM t ORDER BY id LIMIT ?, 20'), 'run-time');
  assert.equal(off(`SELECT * FROM t ORDER BY id LIMIT 20 OFFSET ${DYNAMIC_MARK}`), 'run-time');
  assert.equal(off('SELECT * FROM t ORDER BY id LIMIT 5000, 20'), 5000);
  assert.equal(off('SELECT * FROM t ORDER BY id LIMIT 20 OFFSET 40 FOR UPDATE'), 40);
  assert.equal(off('SELECT * FROM t ORDER BY id LIMIT 20'), undefined);
  assert.equal(off('SELECT * FROM t WHERE id IN (SELECT id FROM u LIMIT 10 OFFSET 5)'), undefined);
});
