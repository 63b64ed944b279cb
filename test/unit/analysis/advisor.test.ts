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
