import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildQueryModel, neutralizePlaceholders } from '../../../src/core/sql/queryModel';

const model = (sql: string) => {
  const r = buildQueryModel(sql);
  assert.ok(r.ok, r.ok ? '' : r.error);
  return r.model;
};

void test('placeholders of every driver style become one token; strings, comments and :: casts are left alone', () => {
  const out = neutralizePlaceholders("SELECT '?', `a?` FROM t WHERE a = ? AND b = $2 AND c = :name AND d = %s AND e = %(x)s AND f = @p -- ?\n AND g::int = 1");
  assert.equal((out.match(/918273645/g) ?? []).length, 6);
  assert.ok(out.includes("'?'") && out.includes('`a?`') && out.includes('g::int'));
});

void test('per-table facts: equalities (single vs list), ranges, LIKE prefix, functions, ORDER BY, LIMIT', () => {
  const m = model("SELECT id, title FROM posts WHERE user_id = ? AND status IN (?, ?) AND kind IN (3) AND created_at >= ? AND title LIKE 'ab%' AND body LIKE '%x' AND DATE(updated_at) = ? ORDER BY created_at DESC LIMIT 10 OFFSET 20");
  const t = m.blocks[0].tables[0];
  assert.deepEqual(t.where.equalities.map((e) => `${e.column}:${e.kind}:${e.values}:${e.param}`), ['user_id:single:1:true', 'status:list:2:true', 'kind:single:1:false']);
  assert.deepEqual(t.where.ranges.map((r) => `${r.column}${r.op}`), ['created_at>=', 'titleLIKE']);
  assert.deepEqual(t.where.unindexable.map((u) => u.column), ['body', 'updated_at']);
  assert.deepEqual(m.blocks[0].orderBy, [{ table: 'posts', column: 'created_at', desc: true }]);
  assert.equal(m.blocks[0].limit, 10);
  assert.equal(m.blocks[0].offset, 20);
  assert.deepEqual(t.columnsUsed.sort(), ['body', 'created_at', 'id', 'kind', 'status', 'title', 'updated_at', 'user_id']);
});

void test('ORs: same column → IN list, keyset pagination → range, across columns → OR group', () => {
  const a = model('SELECT * FROM t WHERE a = 1 OR a = 2').blocks[0].tables[0];
  assert.deepEqual(a.where.equalities.map((e) => `${e.column}:${e.kind}`), ['a:list']);
  const k = model('SELECT * FROM t WHERE (c < ? OR (c = ? AND id < ?))').blocks[0].tables[0];
  assert.deepEqual(k.where.ranges, [{ column: 'c', op: 'OR' }]);
  const g = model('SELECT * FROM t WHERE x = ? OR y > ?').blocks[0].tables[0];
  assert.equal(g.orGroups.length, 1);
  assert.deepEqual(g.orGroups[0].map((b) => [...b.equalities.map((e) => e.column), ...b.ranges.map((r) => r.column)]), [['x'], ['y']]);
});

void test('joins, correlated subqueries, UPDATE/DELETE, unparsable input', () => {
  const j = model('SELECT c.* FROM comments c LEFT JOIN users u ON u.id = c.user_id WHERE c.post_id = ?').blocks[0];
  assert.deepEqual(j.tables.map((t) => `${t.key}:${t.table}:${t.join}`), ['c:comments:from', 'u:users:left']);
  assert.deepEqual(j.tables[1].where.joins, [{ column: 'id', otherTable: 'c', otherColumn: 'user_id' }]);
  const s = model('SELECT * FROM users u WHERE EXISTS (SELECT 1 FROM posts p WHERE p.user_id = u.id)');
  assert.equal(s.blocks.length, 2);
  assert.equal(s.blocks[1].parent, 0);
  assert.deepEqual(s.blocks[1].tables[0].where.joins, [{ column: 'user_id', otherTable: 'u', otherColumn: 'id' }]);
  assert.equal(model('UPDATE t SET a = 1 WHERE b = ?').statement, 'update');
  assert.equal(model('DELETE FROM t WHERE b < ?').blocks[0].tables[0].where.ranges[0].column, 'b');
  const bad = buildQueryModel('SELEKT nothing');
  assert.equal(bad.ok, false);
  assert.match(!bad.ok ? bad.error : '', /cannot parse/);
});
