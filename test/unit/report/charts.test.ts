/** SVG chart builders and the page's views: structure, geometry, accessibility attributes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { barChart, CHART_WIDTH, deltaChart, dotChart, fit, niceTicks } from '../../../src/webview/charts';
import { findAll, hasClass, toMarkup, type VNode } from '../../../src/webview/vnode';

const byClass = (n: VNode, c: string) => findAll(n, (x) => hasClass(x, c));
const num = (n: VNode, a: string) => Number(n.attrs[a]);

void test('niceTicks: round steps from 0 covering the maximum', () => {
  assert.deepEqual(niceTicks(1), [0, 0.5, 1]);
  assert.deepEqual(niceTicks(7), [0, 2, 4, 6, 8]);
  assert.deepEqual(niceTicks(0.0031), [0, 0.001, 0.002, 0.003, 0.004]);
  assert.deepEqual(niceTicks(0), [0]);
  assert.deepEqual(niceTicks(NaN), [0]);
});

void test('bar chart: one focusable row per bar, stacked segments proportional to their values', () => {
  const chart = barChart([
    { label: 'GET /a', segments: [{ cls: 's2xx', name: '2xx', value: 3 }, { cls: 's5xx', name: '5xx', value: 1 }], valueText: '4 s' },
    { label: 'GET /b', segments: [{ cls: 's2xx', name: '2xx', value: 2 }, { cls: 's4xx', name: '4xx', value: 0 }], valueText: '2 s' },
  ], { title: 'Total time', tick: (v) => `${v} s`, legend: [{ cls: 's2xx', name: '2xx' }] });
  assert.equal(chart.tag, 'figure');
  const svg = findAll(chart, (n) => n.tag === 'svg' && hasClass(n, 'chart-svg'))[0];
  assert.equal(svg.attrs.role, 'list');
  assert.equal(svg.attrs['aria-label'], 'Total time');
  const rows = byClass(chart, 'row');
  assert.equal(rows.length, 2);
  for (const r of rows) { assert.equal(r.attrs.tabindex, 0); assert.equal(r.attrs.role, 'listitem'); }
  assert.equal(rows[0].attrs['aria-label'], 'GET /a: 4 s (2xx 3 s, 5xx 1 s)');
  const segs = byClass(chart, 'seg');
  assert.equal(segs.length, 3, 'zero-width segments are left out');
  // scale: ticks 0..4 over the plot, so 3 s : 1 s : 2 s widths are 3 : 1 : 2
  const [a2, a5, b2] = segs.map((s) => num(s, 'width'));
  assert.ok(Math.abs(a2 / a5 - 3) < 1e-9 && Math.abs(b2 / a5 - 2) < 1e-9);
  assert.ok(Math.abs(num(segs[1], 'x') - (num(segs[0], 'x') + a2)) < 1e-9, 'the 5xx segment starts where 2xx ends');
  assert.ok(num(segs[0], 'x') + a2 + a5 <= CHART_WIDTH);
  assert.deepEqual(byClass(chart, 'legend').length, 1);
  assert.ok(!toMarkup(chart).includes('style='), 'no inline style (the CSP forbids it)');
});

void test('labels are cut to fit and escaped in markup; text never becomes elements', () => {
  assert.equal(fit('abcdefghij', 40), 'abcde…');
  const chart = barChart([{ label: '<script>alert(1)</script>', segments: [{ cls: 'share', name: 'share', value: 1 }], valueText: '1' }], { title: 't', tick: String });
  assert.equal(findAll(chart, (n) => n.tag === 'script').length, 0);
  assert.ok(!toMarkup(chart).includes('<script>'));
});

void test('dot chart: a range line and one dot per percentile, on the same scale', () => {
  const chart = dotChart([{ label: 'GET /a', points: [{ cls: 'p50', name: 'p50', value: 1 }, { cls: 'p99', name: 'p99', value: 4 }] }], { title: 'p', tick: String });
  const dots = byClass(chart, 'dot');
  assert.deepEqual(dots.map((d) => d.attrs['data-name']), ['p50', 'p99']);
  const line = byClass(chart, 'range')[0];
  assert.equal(num(line, 'x1'), num(dots[0], 'cx'));
  assert.equal(num(line, 'x2'), num(dots[1], 'cx'));
  assert.equal(byClass(chart, 'row')[0].attrs['aria-label'], 'GET /a: p50 1, p99 4');
});

void test('delta chart: regressions to the right of zero, gains to the left', () => {
  const chart = deltaChart([
    { label: 'slower', delta: 2, text: '+2 s' }, { label: 'faster', delta: -1, text: '−1 s' }, { label: 'same', delta: 0, text: '±0' },
  ], { title: 'Δ', tick: String });
  const zero = num(byClass(chart, 'zero')[0], 'x1');
  const [up, down, flat] = byClass(chart, 'seg');
  assert.ok(hasClass(up, 'regression') && num(up, 'x') === zero && num(up, 'width') > 0);
  assert.ok(hasClass(down, 'gain') && Math.abs(num(down, 'x') + num(down, 'width') - zero) < 1e-9);
  assert.ok(Math.abs(num(up, 'width') / num(down, 'width') - 2) < 1e-9);
  assert.equal(num(flat, 'width'), 0);
  assert.match(String(byClass(chart, 'row')[0].attrs['aria-label']), /slower: \+2 s slower/);
});
