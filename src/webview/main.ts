/**
 * The report page's script (bundled into dist/webview.js, loaded with the CSP nonce). It keeps the
 * page state, renders it with views.ts on every change, posts PageMessages to the host and applies
 * the HostMessages it gets. Keyboard: arrow keys move between tabs (Left/Right) and between rows
 * of a chart, the table or the plan tree (Up/Down); Home/End jump to the first/last.
 */
import type { HostMessage, PageMessage } from '../core/report/protocol';
import { render } from './dom';
import { pageView, TABS, type Actions, type PageState, type Tab } from './views';

interface VsCodeApi {
  postMessage(message: PageMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const saved = (vscode.getState() ?? {}) as Partial<Pick<PageState, 'tab' | 'beforeId' | 'afterId'>>;
const state: PageState = {
  tab: TABS.some((t) => t.id === saved.tab) ? saved.tab! : 'run',
  runs: [],
  beforeId: saved.beforeId,
  afterId: saved.afterId,
};

const post = (m: PageMessage) => vscode.postMessage(m);

const actions: Actions = {
  selectTab(tab: Tab) { state.tab = tab; update(`tab-${tab}`); },
  showRun(id) { if (id) post({ type: 'showRun', runId: id }); },
  pick(which, id) {
    state[which] = id || undefined;
    if (which === 'beforeId') {
      const before = state.runs.find((r) => r.id === id);
      const after = state.runs.find((r) => r.id === state.afterId);
      if (after && (after.id === id || after.kind !== before?.kind)) state.afterId = undefined;
    }
    update(which === 'beforeId' ? 'before-pick' : 'after-pick');
  },
  compare() {
    if (state.beforeId && state.afterId && state.beforeId !== state.afterId) post({ type: 'compare', beforeId: state.beforeId, afterId: state.afterId });
  },
  exportComparison(target) { post({ type: 'exportComparison', target }); },
  showPlanAtCursor() { post({ type: 'showPlanAtCursor' }); },
  measurePlan() { post({ type: 'measurePlan' }); },
  chooseCpuEndpoint(endpoint) { state.cpuEndpoint = endpoint; update('cpu-endpoint'); },
};

const root = document.getElementById('root')!;

/** What to focus after a re-render: an element id, else the focused row's data-key / data-tab. */
function focusKey(): string | undefined {
  const el = document.activeElement as HTMLElement | null;
  if (!el || el === document.body) return undefined;
  if (el.id) return el.id;
  const key = el.getAttribute('data-key');
  return key !== null ? `key:${key}` : undefined;
}

function update(focus = focusKey()): void {
  vscode.setState({ tab: state.tab, beforeId: state.beforeId, afterId: state.afterId });
  root.replaceChildren(render(pageView(state, actions)));
  if (!focus) return;
  const el = focus.startsWith('key:')
    ? [...root.querySelectorAll<HTMLElement>('[data-key]')].find((e) => e.getAttribute('data-key') === focus.slice(4))
    : document.getElementById(focus);
  el?.focus();
}

function apply(m: HostMessage): void {
  switch (m.type) {
    case 'runs':
      state.runs = m.runs;
      if (state.beforeId && !m.runs.some((r) => r.id === state.beforeId)) state.beforeId = undefined;
      if (state.afterId && !m.runs.some((r) => r.id === state.afterId)) state.afterId = undefined;
      if (state.run && !m.runs.some((r) => r.id === state.run!.id)) state.run = undefined;
      break;
    case 'run': state.run = m.run; state.endpoint = m.endpoint; state.tab = 'run'; state.notice = undefined; break;
    case 'findings': state.findings = m.summary; break;
    case 'trend': state.trend = m.trend; break;
    case 'comparison':
      state.comparison = m.comparison;
      state.beforeId = m.comparison.before.id;
      state.afterId = m.comparison.after.id;
      state.tab = 'compare';
      state.notice = undefined;
      break;
    case 'plan': state.plan = { title: m.title, sql: m.sql, plan: m.plan, findings: m.findings, measurement: m.measurement, measurable: m.measurable }; state.tab = 'plan'; break;
    case 'profile': state.profile = m.profile; state.cpuEndpoint = m.endpoint ?? state.cpuEndpoint; state.tab = 'cpu'; break;
    case 'notice': state.notice = { level: m.level, message: m.message }; break;
  }
  update();
}

window.addEventListener('message', (event: MessageEvent) => {
  const m = event.data as HostMessage | undefined;
  if (m && typeof m === 'object' && typeof m.type === 'string') apply(m);
});

// Roving focus inside a group of [data-nav] elements.
document.addEventListener('keydown', (event: KeyboardEvent) => {
  const el = event.target as Element | null;
  const group = el?.getAttribute?.('data-nav');
  if (!el || !group) return;
  const horizontal = group === 'tabs';
  const prev = horizontal ? 'ArrowLeft' : 'ArrowUp';
  const next = horizontal ? 'ArrowRight' : 'ArrowDown';
  if (![prev, next, 'Home', 'End'].includes(event.key)) {
    if (group === 'tabs' && (event.key === 'Enter' || event.key === ' ')) { event.preventDefault(); (el as HTMLElement).click(); }
    return;
  }
  const items = [...root.querySelectorAll<HTMLElement | SVGElement>(`[data-nav="${group}"]`)];
  const i = items.indexOf(el as HTMLElement);
  const j = event.key === 'Home' ? 0 : event.key === 'End' ? items.length - 1 : event.key === prev ? Math.max(0, i - 1) : Math.min(items.length - 1, i + 1);
  event.preventDefault();
  const target = items[j];
  if (group === 'tabs') { const tab = target.getAttribute('data-tab') as Tab; actions.selectTab(tab); return; }
  target.focus();
});

update();
post({ type: 'ready' });
