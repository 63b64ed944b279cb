/**
 * The report's Compare tab: two run pickers, the whole-run summary, the chart of the change of the
 * time per request (per call), and one table row per endpoint or query. Colour follows the verdict
 * (src/core/report/compare.ts): faster in the gain colour, slower in the regression colour, opposite
 * moves of mean and tail as mixed, and nothing for a change within noise. Total time is shown beside
 * the figures that decide, never coloured: it grows with the load a faster app is sent.
 */
import { arrow } from '../core/report/markdown';
import {
  bandText, formatCount, formatDelta, formatRatio, type Change, type Comparison, type ComparisonRow, type Verdict,
} from '../core/report/compare';
import type { Shift } from '../core/report/compareNoise';
import type { RunInfo } from '../core/report/runs';
import { deltaChart } from './charts';
import { runPicker } from './runPicker';
import { h, on, type VNode } from './vnode';

/** The part of the page state the tab reads. */
export interface CompareState {
  runs: RunInfo[];
  comparison?: Comparison;
  beforeId?: string;
  afterId?: string;
}

export interface CompareActions {
  pick(which: 'beforeId' | 'afterId', id: string): void;
  compare(): void;
  exportComparison(target: 'file' | 'clipboard'): void;
}

/** Rows drawn in the chart. */
const CHART_ROWS = 20;
/** Rows of the comparison table. */
export const TABLE_ROWS = 200;

/** CSS class of each verdict (media/report.css). */
export const VERDICT_CLASS: Record<Verdict, string> = {
  faster: 'gain', slower: 'regression', mixed: 'mixed', noise: 'noise', unknown: 'unknown', new: 'new', gone: 'gone',
};

/** What the verdict cell says. */
export const VERDICT_TEXT: Record<Verdict, string> = {
  faster: 'faster', slower: 'slower', mixed: 'mixed', noise: 'within noise', unknown: 'too few to judge', new: 'new', gone: 'gone',
};

const BADGE: Record<Verdict, string> = { faster: '▼', slower: '▲', mixed: '◆', noise: '≈', unknown: '?', new: 'new', gone: 'gone' };

/** A figure's cell class: coloured only when it moved beyond noise (larger is worse for time and rows examined). */
function shiftClass(s: Shift): string {
  return s === 'up' ? 'regression' : s === 'down' ? 'gain' : '';
}

function shiftTitle(s: Shift, what: string): string {
  return s === 'up' || s === 'down' ? `${what} ${s === 'up' ? 'rose' : 'fell'} beyond the runs' own spread`
    : s === 'noise' ? `${what}: the change is within the runs' own spread` : `${what}: too few values to judge`;
}

/** `2.318 s → 494 ms (×0.21)`. */
function timeChange(c: Change): string {
  return c.before !== null && c.after !== null ? `${arrow(c, 's')} (${formatRatio(c)})` : arrow(c, 's');
}

/** `7 → 57 (+50)`. */
function countChange(c: Change): string {
  return c.before !== null && c.after !== null ? `${arrow(c, 'n')} (${formatDelta(c.delta, 'n')})` : arrow(c, 'n');
}

function perExec(c: Change): string {
  const f = (v: number | null) => (v === null ? '–' : formatCount(v >= 100 ? Math.round(v) : v));
  return `${f(c.before)} → ${f(c.after)}`;
}

function rate(c: Change): string {
  const f = (v: number | null) => (v === null ? '–' : `${v.toFixed(v >= 10 ? 0 : 1)}/s`);
  return `${f(c.before)} → ${f(c.after)}`;
}

/** The comparison table (HTML, one focusable row per endpoint or query). */
export function comparisonTable(c: Comparison, limit = TABLE_ROWS): VNode {
  const rows = c.rows.slice(0, limit);
  const access = c.kind === 'access';
  const withRate = rows.some((r) => r.rate);
  const heads = ['', access ? 'endpoint' : 'query', 'verdict', 'why (requests before → after, interval of the mean\'s change)', access ? 'mean' : 'mean per call', c.tailLabel,
    ...(access ? [] : ['rows examined per call']), access ? 'requests' : 'calls', ...(withRate ? ['per second'] : []), 'total', 'Δ total'];
  const head = h('tr', {}, heads.map((t) => h('th', { scope: 'col' }, t)));
  const body = rows.map((r) => {
    const cls = VERDICT_CLASS[r.verdict];
    const aria = `${r.key}: ${VERDICT_TEXT[r.verdict]}, mean ${arrow(r.mean, 's')}, ${access ? 'requests' : 'calls'} ${arrow(r.count, 'n')}, total ${arrow(r.total, 's')}`;
    return h('tr', { tabindex: 0, class: `row ${cls}`, 'data-nav': 'table', 'data-key': r.key, 'data-verdict': r.verdict, 'aria-label': aria },
      h('td', { class: `badge ${cls}` }, BADGE[r.verdict]),
      h('td', { class: 'key', title: r.key }, r.key.length > 100 ? r.key.slice(0, 99) + '…' : r.key),
      h('td', { class: `verdict ${cls}`, title: whyOf(r, access ? 'request' : 'call') }, VERDICT_TEXT[r.verdict]),
      h('td', { class: 'why', title: whyOf(r, access ? 'request' : 'call') }, r.verdict === 'noise' || r.verdict === 'mixed' || r.verdict === 'unknown' ? bandWords(r, access ? 'request' : 'call') : ''),
      h('td', { class: `num mean ${shiftClass(r.shifts.mean)}`, title: shiftTitle(r.shifts.mean, 'the mean') }, timeChange(r.mean)),
      h('td', { class: `num tail ${shiftClass(r.shifts.tail)}`, title: shiftTitle(r.shifts.tail, `the ${c.tailLabel}`) }, timeChange(r.tail)),
      access ? undefined : h('td', { class: `num rows ${shiftClass(r.shifts.rowsExamined ?? 'unknown')}`, title: shiftTitle(r.shifts.rowsExamined ?? 'unknown', 'rows examined per call') },
        r.rowsExamined ? perExec(r.rowsExamined) : '–'),
      h('td', { class: 'num count' }, countChange(r.count)),
      withRate ? h('td', { class: 'num rate' }, r.rate ? rate(r.rate) : '–') : undefined,
      h('td', { class: 'num total' }, arrow(r.total, 's')),
      h('td', { class: 'num delta' }, formatDelta(r.total.delta, 's')));
  });
  return h('table', { class: 'comparison', id: 'comparison-table', 'aria-label': `comparison, ${c.rows.length} rows` },
    h('thead', {}, head), h('tbody', {}, body),
    rows.length < c.rows.length ? h('caption', {}, `${c.rows.length - rows.length} more rows with smaller changes (in the Markdown export)`) : undefined);
}

/** Why a row reads as it does: the counts of both runs and the interval of the mean's change. */
function whyOf(r: ComparisonRow, per: string): string {
  return r.verdict === 'new' || r.verdict === 'gone' ? `only in the ${r.verdict === 'new' ? 'after' : 'before'} run` : bandText(r.band, per);
}

/** The same, short enough to sit under the verdict: `n 3 → 4 · 99 % interval −25.1 ms … +5.9 ms`. */
function bandWords(r: ComparisonRow, per: string): string {
  const full = bandText(r.band, per);
  return full.replace(/, mean [^,]+, /, ' · ');
}

/** `3 faster, 1 slower, 2 within noise`: how many rows read each way. */
export function verdictCounts(c: Comparison): string {
  const order: Verdict[] = ['faster', 'slower', 'mixed', 'noise', 'unknown', 'new', 'gone'];
  return order.map((v) => [v, c.rows.filter((r) => r.verdict === v).length] as const)
    .filter(([, n]) => n > 0).map(([v, n]) => `${n} ${VERDICT_TEXT[v]}`).join(', ');
}

function summary(c: Comparison): VNode {
  const t = c.totals;
  const what = c.kind === 'access' ? 'requests' : 'statements';
  const parts = [
    `${what} ${arrow(t.count, 'n')} (${formatDelta(t.count.delta, 'n')}, ${formatRatio(t.count)})`,
    ...(t.rate ? [`throughput ${rate(t.rate)}`] : []),
    `total time ${arrow(t.total, 's')} (${formatDelta(t.total.delta, 's')}, ${formatRatio(t.total)})`,
  ];
  return h('div', {},
    h('p', { class: 'summary', id: 'comparison-summary' }, `${c.before.label} → ${c.after.label}: ${parts.join(' · ')}`),
    h('p', { class: 'summary', id: 'comparison-verdicts' }, `${verdictCounts(c)} — by the time per ${c.kind === 'access' ? 'request' : 'call'} (mean and ${c.tailLabel}); a change within the runs' own spread is not coloured.`),
    c.hostsNote ? h('p', { class: 'notice info' }, c.hostsNote) : undefined);
}

/** The whole tab. */
export function compareTab(s: CompareState, a: CompareActions): VNode {
  const before = s.runs.find((r) => r.id === s.beforeId);
  const afterRuns = before ? s.runs.filter((r) => r.kind === before.kind && r.id !== before.id) : s.runs;
  const controls = h('div', { class: 'controls' },
    runPicker('before-pick', 'Before', s.runs, s.beforeId, (id) => a.pick('beforeId', id)),
    runPicker('after-pick', 'After', afterRuns, s.afterId, (id) => a.pick('afterId', id)),
    on(h('button', { id: 'compare-button', disabled: s.beforeId && s.afterId && s.beforeId !== s.afterId ? undefined : 'disabled' }, 'Compare'), { click: () => a.compare() }));
  const c = s.comparison;
  if (!c) return h('div', {}, controls, h('p', { class: 'empty' }, 'Pick two runs of the same kind (two access logs or two slow logs) to compare them.'));
  const exports = h('div', { class: 'controls' },
    on(h('button', { id: 'export-file' }, 'Save as Markdown…'), { click: () => a.exportComparison('file') }),
    on(h('button', { id: 'export-clipboard', class: 'secondary' }, 'Copy Markdown'), { click: () => a.exportComparison('clipboard') }));
  const per = c.kind === 'access' ? 'request' : 'call';
  const charted = c.rows.filter((r) => r.mean.before !== null && r.mean.after !== null).slice(0, CHART_ROWS);
  const chart = deltaChart(charted.map((r) => ({
    label: r.key, delta: r.mean.delta, text: `${formatDelta(r.mean.delta, 's')} ${VERDICT_TEXT[r.verdict]}`, cls: VERDICT_CLASS[r.verdict],
  })), {
    title: `Change of the mean time per ${per}`, tick: (v) => formatDelta(v, 's'),
    legend: [{ cls: 'gain', name: 'faster' }, { cls: 'regression', name: 'slower' }, { cls: 'mixed', name: 'mixed' }, { cls: 'noise', name: 'within noise' }],
    caption: `coloured when the mean or the ${c.tailLabel} moved beyond the runs' own spread (Welch's test for the mean, 95 % intervals for the ${c.tailLabel})`,
  });
  return h('div', {}, controls, summary(c), exports, chart, comparisonTable(c));
}
