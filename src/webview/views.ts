/**
 * The report page as a function of its state: tabs for the shown run, the comparison of two runs,
 * a plan and the findings summary. Pure (element trees out); main.ts renders them and wires the actions.
 */
import { formatCount, formatWhole } from '../core/format/numbers';
import { formatSeconds, type Comparison } from '../core/report/compare';
import type { FindingsSummary } from '../core/report/findingsSummary';
import type { Run, RunEndpoint, RunInfo } from '../core/report/runs';
import { barChart, dotChart, type BarRow, type Segment } from './charts';
import { compareTab } from './compareView';
import { trendSection } from './trendView';
import type { Trend } from '../core/runs/trend';
import { cpuTab } from './flameGraph';
import type { ProfileView } from '../core/report/protocol';
import { planView, type PlanActions, type PlanState } from './planView';
import { runPicker } from './runPicker';
import { h, on, type VNode } from './vnode';

export type Tab = 'run' | 'compare' | 'plan' | 'cpu' | 'findings';
export const TABS: { id: Tab; title: string }[] = [
  { id: 'run', title: 'Run' }, { id: 'compare', title: 'Compare' }, { id: 'plan', title: 'Plan' }, { id: 'cpu', title: 'CPU' }, { id: 'findings', title: 'Findings' },
];

export interface PageState {
  tab: Tab;
  runs: RunInfo[];
  run?: Run;
  /** The endpoint whose figures the Run tab opens on (the endpoint CodeLens). */
  endpoint?: { method: string; uri: string };
  findings?: FindingsSummary;
  comparison?: Comparison;
  /** The recorded rounds' score and top endpoints by commit. */
  trend?: Trend;
  plan?: PlanState;
  /** The imported CPU profile, and the endpoint whose flame graph is shown. */
  profile?: ProfileView;
  cpuEndpoint?: string;
  notice?: { level: 'info' | 'error'; message: string };
  beforeId?: string;
  afterId?: string;
}

export interface Actions extends PlanActions {
  selectTab(tab: Tab): void;
  showRun(id: string): void;
  pick(which: 'beforeId' | 'afterId', id: string): void;
  compare(): void;
  exportComparison(target: 'file' | 'clipboard'): void;
  chooseCpuEndpoint(endpoint: string): void;
}

/** Rows drawn in a chart (the largest first); the rest are summed in one row. */
export const CHART_ROWS = 20;

const secs = (v: number) => formatSeconds(v);
const CLASSES = ['s1xx', 's2xx', 's3xx', 's4xx', 's5xx'] as const;
const CLASS_NAMES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

/**
 * An endpoint's total time split by status class. The access-log statistics keep time per endpoint,
 * not per status, so the split follows the request counts of each class (said in the chart caption).
 */
const CLASS_TIMES = ['time1xx', 'time2xx', 'time3xx', 'time4xx', 'time5xx'] as const;

/**
 * The bar of one endpoint split by status class: the measured time per class when the run has it;
 * runs saved before that was measured are split in proportion to the requests of each class.
 */
export function statusSegments(e: RunEndpoint): Segment[] {
  if (CLASS_TIMES.every((k) => typeof e[k] === 'number')) {
    const segs: Segment[] = CLASSES.map((c, i) => ({ cls: c, name: CLASS_NAMES[i], value: e[CLASS_TIMES[i]] as number }));
    const rest = e.sum - segs.reduce((a, s) => a + s.value, 0);
    // why: time of lines with a status outside 100–599; float sums leave crumbs, so ignore those.
    if (rest > 1e-9 * Math.max(1, e.sum)) segs.push({ cls: 'sother', name: 'other', value: rest });
    return segs;
  }
  const counts = CLASSES.map((c) => e[c]);
  const n = counts.reduce((a, b) => a + b, 0);
  const other = e.count - n;
  const segs: Segment[] = CLASSES.map((c, i) => ({ cls: c, name: CLASS_NAMES[i], value: n + other > 0 ? (e.sum * counts[i]) / (n + other) : 0 }));
  if (other > 0) segs.push({ cls: 'sother', name: 'other', value: (e.sum * other) / (n + other) });
  return segs;
}

function summaryLine(run: Run): VNode {
  const s = run.summary;
  const parts = [
    `${formatCount(s.count)} ${run.kind === 'access' ? 'requests' : 'statements'}`,
    `total ${secs(s.totalTime)}`,
    `${s.rows} ${run.kind === 'access' ? 'endpoints' : 'fingerprints'}`,
  ];
  if (s.malformed) parts.push(`${s.malformed} malformed lines`);
  if (run.omitted.rows) parts.push(`${run.omitted.rows} smaller rows not kept (${secs(run.omitted.time)})`);
  return h('p', { class: 'summary', id: 'run-summary' }, `${run.source} · ${new Date(run.createdAt).toLocaleString()} · ${parts.join(' · ')}`);
}

/** One endpoint's figures as a table, above the charts: what its CodeLens summarises, in full. */
export function endpointFigures(run: Run, which: { method: string; uri: string } | undefined): VNode[] {
  if (!which) return [];
  const name = `${which.method} ${which.uri}`;
  const e = run.endpoints?.find((x) => x.method === which.method && x.uri === which.uri);
  if (!e) return [h('p', { class: 'empty', id: 'endpoint-figures' }, `${name} is not among the ${formatCount(run.endpoints?.length ?? 0)} endpoints this run kept.`)];
  const share = run.summary.totalTime > 0 ? ` (${(100 * e.sum / run.summary.totalTime).toFixed(1)} % of all time)` : '';
  const rows: [string, string][] = [
    ['requests', formatCount(e.count)],
    ['total', `${secs(e.sum)}${share}`],
    ['mean', `${secs(e.avg)}${e.stddev !== undefined ? ` (stddev ${secs(e.stddev)})` : ''}`],
    ['min / max', `${secs(e.min)} / ${secs(e.max)}`],
    ['p50 / p90 / p95 / p99', [e.p50, e.p90, e.p95, e.p99].map(secs).join(' / ')],
    ['2xx / 3xx / 4xx / 5xx', [e.s2xx, e.s3xx, e.s4xx, e.s5xx].map(formatCount).join(' / ')],
    ...(e.s499 ? [['client aborts (499)', formatCount(e.s499)] as [string, string]] : []),
    ...(e.handler ? [['handler', `${e.handler.file}:${e.handler.line}`] as [string, string]] : []),
  ];
  return [h('section', { class: 'endpoint-figures', id: 'endpoint-figures', 'aria-label': `Figures of ${name}` },
    h('h3', {}, name),
    h('table', { class: 'compare' }, h('tbody', {}, rows.map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', { class: 'num' }, v))))))];
}

function accessCharts(run: Run): VNode[] {
  const eps = [...(run.endpoints ?? [])].sort((a, b) => b.sum - a.sum).slice(0, CHART_ROWS);
  const bars: BarRow[] = eps.map((e) => ({
    label: `${e.method} ${e.uri}`, segments: statusSegments(e), valueText: secs(e.sum),
    note: `${e.count} requests, ${e.s4xx} 4xx, ${e.s5xx} 5xx`,
  }));
  const legend = CLASSES.map((c, i) => ({ cls: c, name: CLASS_NAMES[i] }));
  return [
    barChart(bars, { title: 'Total time by endpoint', tick: secs, legend, caption: 'stacked by the time spent answering each status class' }),
    dotChart(eps.map((e) => ({
      label: `${e.method} ${e.uri}`,
      points: [{ cls: 'p50', name: 'p50', value: e.p50 }, { cls: 'p90', name: 'p90', value: e.p90 }, { cls: 'p95', name: 'p95', value: e.p95 }, { cls: 'p99', name: 'p99', value: e.p99 }],
    })), { title: 'Latency percentiles by endpoint', tick: secs, legend: ['p50', 'p90', 'p95', 'p99'].map((p) => ({ cls: p, name: p })) }),
  ];
}

function slowCharts(run: Run): VNode[] {
  const qs = [...(run.queries ?? [])].sort((a, b) => b.total - a.total);
  const total = run.summary.totalTime || 1;
  const shown = qs.slice(0, CHART_ROWS);
  const rest = qs.slice(CHART_ROWS).reduce((s, q) => s + q.total, 0) + run.omitted.time;
  const rows: BarRow[] = shown.map((q) => ({
    label: q.fingerprint, segments: [{ cls: 'share', name: 'share', value: q.total / total }],
    valueText: `${(100 * q.total / total).toFixed(1)}% · ${secs(q.total)}`, note: `${q.count} executions, mean ${secs(q.mean)}, ${q.p95 === null ? `max ${secs(q.max)}` : `p95 ${secs(q.p95)}`}`,
  }));
  if (rest > 0) rows.push({ label: `${qs.length - shown.length + run.omitted.rows} other fingerprints`, segments: [{ cls: 'share other', name: 'share', value: rest / total }], valueText: `${(100 * rest / total).toFixed(1)}% · ${secs(rest)}` });
  return [barChart(rows, { title: 'Share of query time by fingerprint', tick: (v) => `${Math.round(v * 100)}%` }), ...unusedIndexTable(run)];
}

/** A server-stats run's indexes that the window never read, with the rows written meanwhile. */
function unusedIndexTable(run: Run): VNode[] {
  if (run.origin !== 'performance_schema') return [];
  const list = run.unusedIndexes ?? [];
  const title = h('h3', {}, 'Indexes the benchmark never used');
  if (!list.length) return [title, h('p', { class: 'empty', id: 'unused-indexes' }, 'Every index of the tables read in this window was used.')];
  const head = h('tr', {}, ['table', 'index', 'columns', 'rows written'].map((t) => h('th', { scope: 'col' }, t)));
  return [title, h('table', { class: 'compare', id: 'unused-indexes' }, h('thead', {}, head),
    h('tbody', {}, list.map((u) => h('tr', {}, h('td', {}, u.table), h('td', {}, u.index), h('td', {}, u.columns.join(', ')), h('td', { class: 'num' }, formatCount(u.tableWrites))))))];
}

function runTab(s: PageState, a: Actions): VNode {
  const picker = runPicker('run-pick', 'Run', s.runs, s.run?.id, (id) => a.showRun(id));
  if (!s.run) return h('div', {}, picker, h('p', { class: 'empty' }, s.runs.length ? 'Choose a run to see where its time goes.' : 'No runs yet: import an access log or a slow log (each import is kept as a run).'));
  return h('div', {}, picker, summaryLine(s.run), ...(s.run.kind === 'access' ? [...endpointFigures(s.run, s.endpoint), ...accessCharts(s.run)] : slowCharts(s.run)));
}

function planTab(s: PageState, a: Actions): VNode {
  return planView(s.plan, a);
}

const SEVERITIES = ['error', 'warning', 'info', 'hint'] as const;

function findingsTab(s: PageState): VNode {
  const f = s.findings;
  if (!f || f.total === 0) return h('p', { class: 'empty' }, 'No findings in the workspace right now.');
  const rows: BarRow[] = f.codes.map((c) => ({
    label: c.code, segments: SEVERITIES.map((sev) => ({ cls: `sev-${sev}`, name: sev, value: c.bySeverity[sev] ?? 0 })),
    valueText: formatCount(c.count), note: `in ${c.files} file${c.files === 1 ? '' : 's'}`,
  }));
  return h('div', {}, h('p', { class: 'summary' }, `${f.total} findings of ${f.codes.length} kinds`),
    barChart(rows, { title: 'Findings by code', tick: (v) => formatWhole(v), legend: SEVERITIES.map((sev) => ({ cls: `sev-${sev}`, name: sev })) }));
}

/** The whole page. */
export function pageView(s: PageState, a: Actions): VNode {
  const tabs = h('div', { role: 'tablist', class: 'tabs', 'aria-label': 'Report sections' }, TABS.map((t) => on(h('button', {
    role: 'tab', id: `tab-${t.id}`, 'aria-selected': t.id === s.tab ? 'true' : 'false', 'aria-controls': 'panel',
    tabindex: t.id === s.tab ? 0 : -1, 'data-nav': 'tabs', 'data-tab': t.id,
  }, t.title), { click: () => a.selectTab(t.id) })));
  const body = s.tab === 'run' ? runTab(s, a) : s.tab === 'compare' ? h('div', {}, compareTab(s, a), trendSection(s.trend)) : s.tab === 'plan' ? planTab(s, a)
    : s.tab === 'cpu' ? cpuTab(s.profile, s.cpuEndpoint, (e) => a.chooseCpuEndpoint(e)) : findingsTab(s);
  return h('main', {},
    tabs,
    s.notice ? h('div', { class: `notice ${s.notice.level}`, role: s.notice.level === 'error' ? 'alert' : 'status' }, s.notice.message) : undefined,
    h('section', { role: 'tabpanel', id: 'panel', 'aria-labelledby': `tab-${s.tab}`, class: `panel-${s.tab}` }, body));
}
