/** Plans as trees: joins in order, derived tables and subqueries nested under what reads them, unions. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Plan, PlanRow } from '../../../src/core/plan/planModel';
import { planTree, referencedSelects, type PlanNode } from '../../../src/core/report/planTree';

function row(id: number | null, selectType: string, table: string | null, type: string | null, extra: string[] = [], key: string | null = null): PlanRow {
  return { id, selectType, table, partitions: null, type, possibleKeys: [], key, keyLen: null, ref: null, rows: 10, filtered: 100, extra };
}
const plan = (rows: PlanRow[]): Plan => ({ flavor: 'mysql', rows, source: 'tabular' });
const shape = (n: PlanNode): unknown => (n.children.length ? [n.label, n.children.map(shape)] : n.label);

void test('a join: one select, tables in join order; full scans and filesort are flagged', () => {
  const t = planTree(plan([row(1, 'SIMPLE', 'p', 'ALL', ['Using where', 'Using filesort']), row(1, 'SIMPLE', 'u', 'eq_ref', [], 'PRIMARY')]), 'q');
  assert.deepEqual(shape(t), ['q', [['select #1 SIMPLE', ['p', 'u']]]]);
  const p = t.children[0].children[0];
  assert.equal(p.warn, true);
  assert.equal(p.detail, 'type ALL · no key · rows 10 · Using where; Using filesort');
  assert.equal(t.children[0].children[1].warn, false);
  assert.equal(t.children[0].warn, true);
});

void test('a derived table nests under the row reading it; a dependent subquery under its outer select', () => {
  const t = planTree(plan([
    row(1, 'PRIMARY', '<derived2>', 'ALL'), row(1, 'PRIMARY', 'u', 'eq_ref'),
    row(2, 'DERIVED', 'c', 'index'), row(3, 'DEPENDENT SUBQUERY', 'l', 'ref'),
  ]));
  // the subquery (id 3) hangs under the nearest lower select (2), beside that select's tables
  assert.deepEqual(shape(t), ['statement', [['select #1 PRIMARY', [['<derived2>', [['select #2 DERIVED', ['c', ['select #3 DEPENDENT SUBQUERY', ['l']]]]]], 'u']]]]);
});

void test('a union: UNION RESULT holds its selects', () => {
  const t = planTree(plan([row(1, 'PRIMARY', 'a', 'ALL'), row(2, 'UNION', 'b', 'ALL'), row(null, 'UNION RESULT', '<union1,2>', 'ALL', ['Using temporary'])]));
  assert.deepEqual(shape(t), ['statement', [['<union1,2>', [['select #1 PRIMARY', ['a']], ['select #2 UNION', ['b']]]]]]);
  assert.deepEqual(referencedSelects('<union1,2>'), [1, 2]);
  assert.deepEqual(referencedSelects('<subquery3>'), [3]);
  assert.deepEqual(referencedSelects('users'), []);
});

void test('every row appears exactly once', () => {
  const rows = [row(1, 'PRIMARY', 'a', 'ref'), row(2, 'SUBQUERY', 'b', 'ALL'), row(3, 'SUBQUERY', '<derived4>', 'ALL'), row(4, 'DERIVED', 'c', 'ALL')];
  const t = planTree(plan(rows));
  const tables: string[] = [];
  const walk = (n: PlanNode) => { if (n.kind === 'table') tables.push(n.label); n.children.forEach(walk); };
  walk(t);
  assert.deepEqual(tables.sort(), ['<derived4>', 'a', 'b', 'c']);
});
