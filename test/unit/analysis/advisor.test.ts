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
