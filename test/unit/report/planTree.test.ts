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
  assert.equal(p.detail, 'type ALL · no key · ~10 rows estimated · Using where; Using filesort');
  assert.equal(p.access, 'ALL');
  assert.deepEqual(p.rows, { estimated: 10 });
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

void test('findings sit on the rows they rest on; one tied to no row on the statement; warning or worse flags the node', () => {
  const rows = [row(1, 'SIMPLE', 'p', 'ALL', ['Using where']), row(1, 'SIMPLE', 'u', 'eq_ref', [], 'PRIMARY')];
  const t = planTree(plan(rows), 'q', { findings: [
    { code: 'full-table-scan', severity: 'error', message: 'full table scan of posts', planRows: [0] },
    { code: 'filesort', severity: 'info', message: 'sorts', planRows: [] },
    { code: 'join-without-index', severity: 'warning', message: 'u joined by no index', planRows: [1, 7] },
  ] });
  const [p, u] = t.children[0].children;
  assert.deepEqual(p.findings.map((f) => f.code), ['full-table-scan']);
  assert.deepEqual(u.findings.map((f) => [f.code, f.severity, f.message]), [['join-without-index', 'warning', 'u joined by no index']]);
  assert.equal(u.warn, true, 'a warning finding flags an eq_ref row');
  assert.deepEqual(t.findings.map((f) => f.code), ['filesort']);
  const info = planTree(plan([row(1, 'SIMPLE', 'u', 'ref')]), 'q', { findings: [{ code: 'x', severity: 'info', message: 'm', planRows: [0] }] });
  assert.equal(info.children[0].children[0].warn, false, 'an info finding alone does not');
});

void test('a measurement puts the rows read beside the estimate, matched by table in order', () => {
  const rows = [row(1, 'SIMPLE', 'c', 'ALL'), row(1, 'SIMPLE', 'u', 'eq_ref', [], 'PRIMARY'), row(2, 'SUBQUERY', 'c', 'ref')];
  const t = planTree(plan(rows), 'q', { measurement: {
    rowsRead: 30_120, rowsSent: 20, ms: 41.25, capped: false,
    accesses: [{ table: 'C', estimate: 10, rowsRead: 30_000, loops: 1 }, { table: 'u', estimate: 1, rowsRead: 100, loops: 100 }, { table: 'c', estimate: 10, rowsRead: 20, loops: 2 }],
  } });
  const tables: PlanNode[] = [];
  const walk = (n: PlanNode) => { if (n.kind === 'table') tables.push(n); n.children.forEach(walk); };
  walk(t);
  const [c1, u, c2] = tables;
  assert.deepEqual(c1.rows, { estimated: 10, measured: { read: 30_000, loops: 1, capped: false } });
  assert.equal(c1.detail, 'type ALL · no key · ~10 rows estimated · 30,000 read');
  assert.equal(u.detail, 'type eq_ref · key PRIMARY · ~10 rows estimated · 100 read in 100 loops');
  assert.deepEqual(c2.rows, { estimated: 10, measured: { read: 20, loops: 2, capped: false } });
  assert.equal(t.detail, 'mysql · measured: read 30,120 rows, returned 20, 41.3 ms');
  const capped = planTree(plan([row(1, 'SIMPLE', 'c', 'ALL'), row(1, 'SIMPLE', 'x', 'ALL')]), 'q', { measurement: { rowsRead: 5, rowsSent: 0, ms: 1, capped: true, accesses: [{ table: 'c', estimate: 10, rowsRead: 5, loops: 1 }] } });
  assert.match(capped.children[0].children[0].detail, /at least 5 read/);
  assert.deepEqual(capped.children[0].children[1].rows, { estimated: 10 }, 'a row the measurement lacks keeps its estimate only');
});
