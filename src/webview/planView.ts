/**
 * The Plan tab: the statement, then its plan as a tree (an ARIA tree of nested lists, so the
 * findings under a table wrap like text): each table with its access type, the rows EXPLAIN
 * estimated and, when the statement was measured, the rows really read; the findings on the row
 * they rest on. Pure (element trees out), like views.ts.
 */
import { planTree, type PlanNode, type TreeFinding } from '../core/report/planTree';
import type { Measurement } from '../core/plan/measured';
import type { Plan } from '../core/plan/planModel';
import { h, on, type VNode } from './vnode';

/** What the page keeps of a `plan` message. */
export interface PlanState {
  title: string;
  sql?: string;
  plan: Plan;
  findings?: TreeFinding[];
  measurement?: Measurement;
  /** The host knows the statement: the tab offers Measure. */
  measurable?: boolean;
}

/** What the Plan tab's buttons ask the host for. */
export interface PlanActions {
  /** The plan of the statement under the editor's cursor. */
  showPlanAtCursor(): void;
  /** Measure the shown statement (ANALYZE), then draw its plan again. */
  measurePlan(): void;
}

const SEVERITY_MARK: Record<string, string> = { error: '✖', warning: '⚠', info: 'ℹ', hint: '•' };

function findingList(n: PlanNode): VNode | undefined {
  if (!n.findings.length) return undefined;
  return h('ul', { class: 'plan-findings' }, n.findings.map((f) => h('li', { class: `plan-finding finding-${f.severity}` },
    h('span', { class: 'finding-mark', 'aria-hidden': 'true' }, SEVERITY_MARK[f.severity] ?? '•'), ' ',
    h('code', {}, f.code), ' ', f.message)));
}

function nodeLine(n: PlanNode): VNode {
  if (n.kind !== 'table') return h('div', { class: 'plan-line' }, h('span', { class: 'plan-label' }, n.label), ' ', h('span', { class: 'plan-detail' }, n.detail));
  const rows = n.rows;
  const measured = rows?.measured;
  return h('div', { class: 'plan-line' },
    h('span', { class: 'plan-label' }, n.label), ' ',
    n.access ? h('span', { class: `plan-access${n.access === 'ALL' || n.access === 'index' ? ' scan' : ''}`, title: 'access type' }, n.access) : undefined, ' ',
    rows && rows.estimated !== null ? h('span', { class: 'plan-rows-estimated', title: 'rows EXPLAIN estimated per scan' }, `~${rows.estimated.toLocaleString('en-US')} est.`) : undefined, ' ',
    measured ? h('span', { class: 'plan-rows-measured', title: 'rows ANALYZE read over all loops' },
      `${measured.capped ? '≥' : ''}${measured.read.toLocaleString('en-US')} read${measured.loops > 1 ? ` in ${measured.loops.toLocaleString('en-US')} loops` : ''}`) : undefined, ' ',
    h('span', { class: 'plan-detail' }, n.more ?? ''));
}

function treeItem(n: PlanNode, level: number): VNode {
  const aria = `${n.label}: ${n.detail}${n.findings.length ? `; ${n.findings.map((f) => `${f.code}: ${f.message}`).join('; ')}` : ''}`;
  return h('li', {
    role: 'treeitem', 'aria-level': level, 'aria-label': aria, tabindex: level === 1 ? 0 : -1, 'data-nav': 'tree',
    class: `plan-node ${n.kind}${n.warn ? ' warn' : ''}`, 'data-kind': n.kind, ...(n.children.length ? { 'aria-expanded': 'true' } : {}),
  },
  nodeLine(n), findingList(n),
  n.children.length ? h('ul', { role: 'group' }, n.children.map((c) => treeItem(c, level + 1))) : undefined);
}

/** The Plan tab's content. */
export function planView(p: PlanState | undefined, a: PlanActions): VNode {
  if (!p) {
    return h('div', {},
      h('p', { class: 'empty' }, 'No plan yet: put the cursor on a SQL statement in the code and choose Show plan (or hover a statement and choose "Show plan").'),
      on(h('button', { id: 'plan-show' }, 'Show plan'), { click: () => a.showPlanAtCursor() }));
  }
  const tree = planTree(p.plan, p.title, { findings: p.findings, measurement: p.measurement });
  const note = p.measurement ? 'rows estimated by EXPLAIN and read by the last Measure (ANALYZE)' : 'rows estimated by EXPLAIN; Measure the statement to see the rows it really reads';
  const measure = p.measurable
    ? h('div', { class: 'controls' },
      on(h('button', { id: 'plan-measure', title: 'Runs this SELECT once under ANALYZE, within the time limit, to count the rows it really reads' },
        p.measurement ? 'Measure again' : 'Measure'), { click: () => a.measurePlan() }),
      h('span', { class: 'chart-caption' }, ' runs the SELECT once under ANALYZE and shows the rows it really reads'))
    : undefined;
  return h('div', {},
    p.sql ? h('pre', { class: 'sql' }, p.sql) : undefined,
    measure,
    h('figure', { class: 'plan' },
      h('figcaption', {}, h('span', { class: 'chart-title' }, `Plan of ${p.title}`), h('span', { class: 'chart-caption' }, ` — ${note}; selects, their tables in join order, derived tables and subqueries under what reads them`)),
      h('ul', { role: 'tree', id: 'plan-tree', class: 'plan-tree', 'aria-label': `Plan of ${p.title}` }, treeItem(tree, 1))));
}
