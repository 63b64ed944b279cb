/** The report's Plan tab: the tree with tables, access type, rows estimated / read and the findings on their nodes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Plan, PlanRow } from '../../../src/core/plan/planModel';
import { planView } from '../../../src/webview/planView';
import { findAll, hasClass, textOf, toMarkup } from '../../../src/webview/vnode';

function row(id: number, table: string, type: string, rows: number, key: string | null = null): PlanRow {
  return { id, selectType: 'SIMPLE', table, partitions: null, type, possibleKeys: [], key, keyLen: null, ref: null, rows, filtered: 100, extra: [] };
}
const none = { showPlanAtCursor() {}, measurePlan() {} };
const plan: Plan = { flavor: 'mariadb', rows: [row(1, 'posts', 'ALL', 9800), row(1, 'users', 'eq_ref', 1, 'PRIMARY')], source: 'json' };

void test('no plan yet: says how to get one', () => {
  assert.match(textOf(planView(undefined, none)), /hover a statement and choose "Show plan"/);
});

void test('one treeitem per node, nested by level; tables show access type, estimate, rows read and their findings', () => {
  const v = planView({
    title: 'main.go:155', sql: 'SELECT * FROM posts p JOIN users u ON u.id = p.user_id WHERE p.user_id = ?', plan,
    findings: [{ code: 'full-table-scan', severity: 'error', message: 'full table scan of posts: reads ~9,800 rows', planRows: [0] }],
    measurement: { rowsRead: 9_900, rowsSent: 3, ms: 12, capped: false, accesses: [{ table: 'posts', estimate: 9800, rowsRead: 9_800, loops: 1 }, { table: 'users', estimate: 1, rowsRead: 100, loops: 100 }] },
  }, none);
  const items = findAll(v, (n) => n.attrs.role === 'treeitem');
  assert.deepEqual(items.map((i) => [i.attrs['data-kind'], i.attrs['aria-level']]), [['query', 1], ['select', 2], ['table', 3], ['table', 3]]);
  assert.equal(findAll(v, (n) => n.attrs.role === 'tree').length, 1);
  const posts = items[2];
  const text = (cls: string) => textOf(findAll(posts, (n) => hasClass(n, cls))[0]);
  assert.equal(text('plan-label'), 'posts');
  assert.equal(text('plan-access'), 'ALL');
  assert.equal(text('plan-rows-estimated'), '~9,800 est.');
  assert.equal(text('plan-rows-measured'), '9,800 read');
  assert.equal(text('plan-detail'), 'no key', 'the detail does not repeat the access type and rows');
  assert.match(text('plan-finding'), /full-table-scan full table scan of posts/);
  assert.ok(hasClass(posts, 'warn'));
  const users = items[3];
  assert.equal(textOf(findAll(users, (n) => hasClass(n, 'plan-rows-measured'))[0]), '100 read in 100 loops');
  assert.equal(findAll(users, (n) => hasClass(n, 'plan-finding')).length, 0);
  assert.match(textOf(v), /read by the last Measure/);
});

void test('text from the statement and the server stays text', () => {
  const v = planView({ title: '<b>x</b>', sql: 'SELECT "<script>"', plan, findings: [{ code: 'c', severity: 'info', message: '<img src=x>', planRows: [1] }] }, none);
  const markup = toMarkup(v);
  assert.ok(!markup.includes('<script>') && !markup.includes('<img') && !markup.includes('<b>x'), markup);
  assert.match(textOf(v), /Measure the statement to see the rows it really reads/);
});

void test('the tab\'s buttons: Show plan before any plan, Measure (then Measure again) on a plan of a known statement', () => {
  const asked: string[] = [];
  const actions = { showPlanAtCursor() { asked.push('show'); }, measurePlan() { asked.push('measure'); } };
  const button = (v: ReturnType<typeof planView>, id: string) => findAll(v, (n) => n.tag === 'button' && n.attrs.id === id)[0];
  const empty = planView(undefined, actions);
  assert.equal(textOf(button(empty, 'plan-show')), 'Show plan');
  button(empty, 'plan-show').on?.click?.(undefined as never);
  const shown = planView({ title: 'main.go:155', plan, measurable: true }, actions);
  assert.equal(button(shown, 'plan-show'), undefined);
  assert.equal(textOf(button(shown, 'plan-measure')), 'Measure');
  button(shown, 'plan-measure').on?.click?.(undefined as never);
  assert.deepEqual(asked, ['show', 'measure']);
  const again = planView({ title: 'main.go:155', plan, measurable: true, measurement: { rowsRead: 1, rowsSent: 1, ms: 1, capped: false, accesses: [] } }, actions);
  assert.equal(textOf(button(again, 'plan-measure')), 'Measure again');
  assert.equal(button(planView({ title: 'x', plan }, actions), 'plan-measure'), undefined, 'no Measure without the statement');
});
