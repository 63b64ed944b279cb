/**
 * The CPU tab: each endpoint's share of the CPU under handlers as bars, and the flame graph of the
 * chosen endpoint in plain SVG (the handler at the bottom, what it calls above, each box as wide as
 * its CPU time). Pure builders (element trees out); colours come from CSS classes, text from the
 * profile goes in as text nodes and <title> elements, never as markup.
 */
import type { EndpointCpu, FlameNode } from '../core/profile/cpuAttribution';
import type { ProfileView } from '../core/report/protocol';
import { barChart, fit, type BarRow } from './charts';
import { h, on, type VNode } from './vnode';

const WIDTH = 780;
const ROW = 18;
/** Boxes narrower than this are not drawn (their time is in their parent's width). */
const MIN_PX = 0.5;

function pct(x: number): string { return `${(x * 100).toFixed(1)} %`; }

function colour(node: FlameNode, depth: number): string {
  if (depth === 0) return 'flame-handler';
  let hash = 0;
  for (let i = 0; i < node.name.length; i++) hash = (hash * 31 + node.name.charCodeAt(i)) | 0;
  return `flame-c${Math.abs(hash) % 5}`;
}

/** The flame graph of one endpoint as an SVG element tree. */
export function flameGraph(root: FlameNode, title: string): VNode {
  const boxes: VNode[] = [];
  let maxDepth = 0;
  const total = root.seconds || 1;
  const walk = (n: FlameNode, x: number, depth: number): void => {
    const w = (n.seconds / total) * WIDTH;
    if (w < MIN_PX) return;
    maxDepth = Math.max(maxDepth, depth);
    const label = `${n.name}${n.file ? ` (${n.file})` : ''}: ${n.seconds.toFixed(3)} s, ${pct(n.seconds / total)}`;
    boxes.push(h('g', { class: 'flame-box', 'data-depth': depth, tabindex: -1, 'aria-label': label },
      h('title', {}, label),
      h('rect', { x: x.toFixed(2), y: -(depth + 1) * ROW, width: Math.max(0, w - 0.5).toFixed(2), height: ROW - 1, class: colour(n, depth) }),
      w > 28 ? h('text', { x: (x + 3).toFixed(2), y: -(depth + 1) * ROW + 12, class: 'flame-label' }, fit(n.name, w - 6)) : undefined));
    let cx = x;
    for (const c of n.children) { walk(c, cx, depth + 1); cx += (c.seconds / total) * WIDTH; }
  };
  walk(root, 0, 0);
  const height = (maxDepth + 1) * ROW;
  return h('figure', { class: 'chart flame' },
    h('figcaption', {}, title),
    h('svg', { viewBox: `0 ${-height} ${WIDTH} ${height}`, width: WIDTH, height, role: 'img', 'aria-label': `flame graph of ${title}`, id: 'flame-graph' }, boxes));
}

function endpointOption(e: EndpointCpu, selected: boolean): VNode {
  return h('option', { value: e.endpoint, ...(selected ? { selected: 'selected' } : {}) }, `${e.endpoint} · CPU ${pct(e.share)}`);
}

/** The CPU tab's body: the profile's summary, the endpoints' shares, the chosen endpoint's flame graph. */
export function cpuTab(profile: ProfileView | undefined, chosen: string | undefined, choose: (endpoint: string) => void): VNode {
  if (!profile) return h('p', { class: 'empty' }, 'No CPU profile yet: run "Query Insight: Import profile" (pprof, folded stacks or a .cpuprofile).');
  const eps = profile.endpoints;
  const current = eps.find((e) => e.endpoint === chosen) ?? eps[0];
  const buckets = profile.buckets.map((b) => `${b.label} ${pct(b.share)}`).join(', ');
  const summary = h('p', { class: 'summary', id: 'cpu-summary' },
    `${profile.source} · ${profile.totalSeconds.toFixed(2)} s CPU, ${pct(profile.totalSeconds ? profile.handlerSeconds / profile.totalSeconds : 0)} under handlers · outside: ${buckets}`);
  if (!current) return h('div', {}, summary, h('p', { class: 'empty' }, 'No sample fell under a handler of the workspace\'s routes.'));
  const rows: BarRow[] = eps.slice(0, 20).map((e) => ({
    label: e.endpoint, segments: [{ cls: 'cpu-app', name: 'app', value: e.appSeconds }, { cls: 'cpu-driver', name: 'driver', value: e.driverSeconds }],
    valueText: `${pct(e.share)} · ${e.cpuSeconds.toFixed(2)} s`,
    note: `${e.handler.name} in ${e.handler.file}:${e.handler.line}${e.msPerRequest !== undefined ? `, ${e.msPerRequest.toFixed(2)} ms CPU per request` : ''}`,
  }));
  const picker = h('label', { class: 'run-pick' }, 'Endpoint ',
    on(h('select', { id: 'cpu-endpoint' }, eps.map((e) => endpointOption(e, e === current))), { change: (ev) => choose((ev as { target: { value: string } }).target.value) }));
  return h('div', {},
    summary,
    barChart(rows, { title: 'CPU by endpoint', tick: (v) => `${v.toFixed(1)} s`, legend: [{ cls: 'cpu-app', name: 'app code' }, { cls: 'cpu-driver', name: 'database driver' }] }),
    picker,
    current.flame ? flameGraph(current.flame, `${current.endpoint}: ${current.handler.name} (${current.handler.file}:${current.handler.line}), ${current.cpuSeconds.toFixed(2)} s`) : undefined);
}
