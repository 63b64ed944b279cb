/**
 * Chart builders in plain SVG: horizontal bars (optionally stacked), dot plots of percentiles,
 * diverging bars of deltas, and an indented tree. Pure: they return element trees (vnode.ts). Colours
 * come from CSS classes mapped to the theme's --vscode-charts-* variables in media/report.css, so
 * the charts follow the theme; geometry is in SVG attributes (no inline style, which the CSP forbids).
 * Every data row is a focusable group with an aria-label that reads out its figures.
 */
import { h, type VNode } from './vnode';

export interface Segment {
  /** CSS class giving the colour (`s2xx`, `p99`, `gain` …). */
  cls: string;
  name: string;
  value: number;
}

export interface BarRow {
  label: string;
  /** Segments drawn left to right; the bar's length is their sum. */
  segments: Segment[];
  /** Text after the bar (the total, formatted). */
  valueText: string;
  /** Extra words for the row's aria-label / tooltip. */
  note?: string;
}

export interface LegendItem { cls: string; name: string }

export interface ChartOptions {
  title: string;
  /** Formats axis ticks. */
  tick: (v: number) => string;
  legend?: LegendItem[];
  /** Text under the title (what the chart shows, caveats). */
  caption?: string;
}

const LABEL_W = 250;
const PLOT_W = 420;
const VALUE_W = 110;
const ROW_H = 22;
const BAR_H = 14;
const TOP = 22;
const CHAR_W = 6.6;
export const CHART_WIDTH = LABEL_W + PLOT_W + VALUE_W;

/** Cuts text to what fits in `px` pixels of the chart's font (… at the end). */
export function fit(text: string, px: number): string {
  const n = Math.max(4, Math.floor(px / CHAR_W));
  return text.length > n ? text.slice(0, n - 1) + '…' : text;
}

/** Round tick values from 0 to at least `max` (about `count` steps of 1, 2 or 5 × 10ⁿ). */
export function niceTicks(max: number, count = 4): number[] {
  if (!(max > 0) || !Number.isFinite(max)) return [0];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let v = 0; v < max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  if (ticks[ticks.length - 1] < max) ticks.push(Number((ticks[ticks.length - 1] + step).toPrecision(12)));
  return ticks;
}

function legend(items: LegendItem[] | undefined): VNode | undefined {
  if (!items?.length) return undefined;
  return h('ul', { class: 'legend', 'aria-label': 'legend' }, items.map((i) => h('li', {},
    h('svg', { width: 10, height: 10, 'aria-hidden': 'true', class: 'swatch' }, h('rect', { x: 0, y: 0, width: 10, height: 10, class: i.cls })),
    ` ${i.name}`)));
}

function figure(opts: ChartOptions, svg: VNode): VNode {
  return h('figure', { class: 'chart' },
    h('figcaption', {}, h('span', { class: 'chart-title' }, opts.title), opts.caption ? h('span', { class: 'chart-caption' }, ` — ${opts.caption}`) : undefined),
    legend(opts.legend), svg);
}

function axis(scale: (v: number) => number, ticks: number[], height: number, fmt: (v: number) => string): VNode {
  return h('g', { class: 'axis', 'aria-hidden': 'true' }, ticks.map((t) => h('g', {},
    h('line', { x1: scale(t), x2: scale(t), y1: TOP - 4, y2: height, class: 'grid' }),
    h('text', { x: scale(t), y: TOP - 8, 'text-anchor': 'middle', class: 'tick' }, fmt(t)))));
}

function rowGroup(i: number, aria: string, title: string, group: string, ...children: VNode[]): VNode {
  const y = TOP + i * ROW_H;
  return h('g', { class: 'row', tabindex: 0, role: 'listitem', 'aria-label': aria, 'data-nav': group },
    h('title', {}, title),
    h('rect', { class: 'row-bg', x: 0, y, width: CHART_WIDTH, height: ROW_H }),
    ...children);
}

function rowLabel(i: number, text: string): VNode {
  return h('text', { x: LABEL_W - 8, y: TOP + i * ROW_H + ROW_H / 2 + 4, 'text-anchor': 'end', class: 'label' }, fit(text, LABEL_W - 12));
}

function svgRoot(title: string, height: number, ...children: (VNode | VNode[])[]): VNode {
  return h('svg', {
    class: 'chart-svg', role: 'list', 'aria-label': title, xmlns: 'http://www.w3.org/2000/svg',
    width: CHART_WIDTH, height, viewBox: `0 0 ${CHART_WIDTH} ${height}`,
  }, ...children);
}

/** Horizontal bars, one per row, each stacked from its segments; the longest bar spans the plot. */
export function barChart(rows: readonly BarRow[], opts: ChartOptions): VNode {
  const max = Math.max(0, ...rows.map((r) => r.segments.reduce((s, x) => s + x.value, 0)));
  const ticks = niceTicks(max);
  const top = ticks[ticks.length - 1] || 1;
  const scale = (v: number) => LABEL_W + (v / top) * PLOT_W;
  const height = TOP + rows.length * ROW_H + 4;
  const body = rows.map((r, i) => {
    const y = TOP + i * ROW_H + (ROW_H - BAR_H) / 2;
    let x = 0;
    const rects: VNode[] = [];
    for (const s of r.segments) {
      if (s.value <= 0) continue;
      rects.push(h('rect', { class: `seg ${s.cls}`, x: scale(x), y, width: Math.max(0.5, scale(x + s.value) - scale(x)), height: BAR_H, 'data-name': s.name }));
      x += s.value;
    }
    const parts = r.segments.filter((s) => s.value > 0).map((s) => `${s.name} ${opts.tick(s.value)}`).join(', ');
    const aria = `${r.label}: ${r.valueText}${parts && r.segments.length > 1 ? ` (${parts})` : ''}${r.note ? `; ${r.note}` : ''}`;
    return rowGroup(i, aria, aria, 'bars', rowLabel(i, r.label), ...rects,
      h('text', { x: scale(x) + 4, y: TOP + i * ROW_H + ROW_H / 2 + 4, class: 'value' }, r.valueText));
  });
  return figure(opts, svgRoot(opts.title, height, axis(scale, ticks, height, opts.tick), body));
}

export interface DotRow {
  label: string;
  /** Points on one line, e.g. p50 … p99; drawn as a range from the smallest to the largest. */
  points: Segment[];
}

/** One line per row from its smallest to its largest point, a dot per point (percentiles). */
export function dotChart(rows: readonly DotRow[], opts: ChartOptions): VNode {
  const max = Math.max(0, ...rows.flatMap((r) => r.points.map((p) => p.value)));
  const ticks = niceTicks(max);
  const top = ticks[ticks.length - 1] || 1;
  const scale = (v: number) => LABEL_W + (v / top) * PLOT_W;
  const height = TOP + rows.length * ROW_H + 4;
  const body = rows.map((r, i) => {
    const cy = TOP + i * ROW_H + ROW_H / 2;
    const vals = r.points.map((p) => p.value);
    const aria = `${r.label}: ${r.points.map((p) => `${p.name} ${opts.tick(p.value)}`).join(', ')}`;
    return rowGroup(i, aria, aria, 'dots', rowLabel(i, r.label),
      h('line', { class: 'range', x1: scale(Math.min(...vals)), x2: scale(Math.max(...vals)), y1: cy, y2: cy }),
      ...r.points.map((p) => h('circle', { class: `dot ${p.cls}`, cx: scale(p.value), cy, r: 4, 'data-name': p.name })),
      h('text', { x: LABEL_W + PLOT_W + 6, y: cy + 4, class: 'value' }, opts.tick(vals[vals.length - 1] ?? 0)));
  });
  return figure(opts, svgRoot(opts.title, height, axis(scale, ticks, height, opts.tick), body));
}

export interface DeltaRow {
  label: string;
  delta: number;
  /** The delta as text (`+1.2 s`). */
  text: string;
  note?: string;
  /** Colour class when the sign alone does not say it (a change within noise); default by the sign. */
  cls?: string;
}

/** Bars from a centre line: gains (negative) to the left, regressions to the right, coloured by the row's class or else by the sign. */
export function deltaChart(rows: readonly DeltaRow[], opts: ChartOptions): VNode {
  const max = Math.max(0, ...rows.map((r) => Math.abs(r.delta)));
  const ticks = niceTicks(max, 2);
  const top = ticks[ticks.length - 1] || 1;
  const mid = LABEL_W + PLOT_W / 2;
  const scale = (v: number) => mid + (v / top) * (PLOT_W / 2);
  const allTicks = [...ticks.slice(1).reverse().map((t) => -t), ...ticks];
  const height = TOP + rows.length * ROW_H + 4;
  const body = rows.map((r, i) => {
    const y = TOP + i * ROW_H + (ROW_H - BAR_H) / 2;
    const x0 = Math.min(scale(0), scale(r.delta));
    const w = Math.max(r.delta === 0 ? 0 : 0.5, Math.abs(scale(r.delta) - scale(0)));
    const cls = r.cls ?? (r.delta > 0 ? 'regression' : r.delta < 0 ? 'gain' : 'unchanged');
    const aria = `${r.label}: ${r.text}${r.cls ? '' : r.delta > 0 ? ' slower' : r.delta < 0 ? ' faster' : ''}${r.note ? `; ${r.note}` : ''}`;
    return rowGroup(i, aria, aria, 'delta', rowLabel(i, r.label),
      h('rect', { class: `seg ${cls}`, x: x0, y, width: w, height: BAR_H }),
      h('text', { x: LABEL_W + PLOT_W + 6, y: y + BAR_H - 3, class: `value ${cls}` }, r.text));
  });
  return figure(opts, svgRoot(opts.title, height, axis(scale, allTicks, height, opts.tick),
    h('line', { class: 'zero', x1: mid, x2: mid, y1: TOP - 4, y2: height }), body));
}
