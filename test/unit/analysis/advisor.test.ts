import { test } from 'node:test';
import assert from 'node:assert/strict';
import { adviseStatement } from '../../../src/core/analysis/advisor';
import { CASES, SCHEMA } from './advisorCases';

void test('advisor table covers at least 40 statements', () => {
  assert.ok(CASES.length >= 40, `only ${CASES.length} cases`);
});

for (const c of CASES) {
  void test(`advise: ${c.sql}`, () => {
    const advice = adviseStatement(c.sql, { schema: SCHEMA });
    assert.equal(advice.error, undefined);
    const got = advice.suggestions.map((s) => `${s.table}(${s.columns.join(',')})`);
    if (c.expect === 'none') {
      assert.deepEqual(got, [], `expected no index, got ${got.join(' ')}; reasons: ${advice.suggestions.map((s) => s.reason).join(' | ')}`);
      return;
    }
    assert.deepEqual(got, c.expect, advice.suggestions.map((s) => s.reason).join(' | '));
    if (c.servesOrderBy !== undefined) assert.equal(advice.suggestions[0].servesOrderBy, c.servesOrderBy, 'servesOrderBy');
    if (c.covering !== undefined) assert.equal(advice.suggestions[0].covering, c.covering, 'covering');
    assert.equal(advice.suggestions[0].replaces, c.replaces, 'replaces');
    if (c.merge) {
      assert.ok(advice.suggestions.every((s) => s.mergeGroup && s.mergeGroup === advice.suggestions[0].mergeGroup), 'one merge group');
      assert.match(advice.suggestions[0].reason, /index merge/);
    }
  });
}

void test('the reason claims "more distinct values first" only when the distinct counts of two equality columns are known', () => {
  // events.tenant_id has a cardinality (idx_tenant), kind has none: the order is known-first, which is no comparison of the two.
  const one = adviseStatement('SELECT id FROM events WHERE kind = ? AND tenant_id = ? ORDER BY created_at', { schema: SCHEMA });
  assert.equal(one.suggestions.length, 1);
  assert.doesNotMatch(one.suggestions[0].reason, /more distinct values first/, one.suggestions[0].reason);
  // items.category_id (60) and status (5) both lead an index: the claim compares them.
  const two = adviseStatement('SELECT id FROM items WHERE status = ? AND category_id = ? AND seller_id = ?', { schema: SCHEMA });
  assert.match(two.suggestions[0]?.reason ?? '', /more distinct values first/, JSON.stringify(two));
});

void test('a table the database lacks gets no index when the schema is the database\'s own; from schema files it still does', () => {
  // A statement on a table of another database (a tenant table kept in SQLite), joined with one of this database.
  const sql = 'SELECT s.points FROM match_score s JOIN users u ON u.id = s.user_id WHERE s.round_id = ? ORDER BY s.points DESC';
  const db = adviseStatement(sql, { schema: SCHEMA, fromDatabase: true });
  assert.deepEqual(db.suggestions, []);
  assert.deepEqual(db.served.filter((t) => t.missing).map((t) => [t.table, t.reason]), [['match_score', 'not in database isuconp: no index can be added there']]);
  const files = adviseStatement(sql, { schema: SCHEMA });
  assert.deepEqual(files.suggestions.map((s) => `${s.table}(${s.columns.join(',')})`), ['match_score(round_id,points)']);
  assert.ok(files.served.every((t) => !t.missing));
  // Tables the database has are advised as before.
  assert.deepEqual(adviseStatement('SELECT * FROM posts WHERE user_id = ?', { schema: SCHEMA, fromDatabase: true }).suggestions.map((s) => s.columns), [['user_id']]);
});
