/**
 * A plan's rows as a tree: one node per SELECT (by id), its table accesses in join order as
 * children, and each derived table / materialised subquery / union nested under the row that reads
 * it (`<derived2>`, `<subquery3>`, `<union1,2>`); other subqueries hang under the nearest lower SELECT.
 * Each table node carries its access type, the rows EXPLAIN estimated and, when the statement was
 * measured (ANALYZE), the rows really read; the plan's findings sit on the rows they rest on.
 */
import type { Severity } from '../model';
import { matchAccesses, type Measurement } from '../plan/measured';
import type { Plan, PlanRow } from '../plan/planModel';

/** A finding as the tree shows it (PlanFinding's shape: `planRows` are indices into plan.rows). */
export interface TreeFinding {
  code: string;
  severity: Severity;
  message: string;
  planRows: readonly number[];
}

export interface PlanNode {
  /** `select #1 PRIMARY` or the table name. */
  label: string;
  /** Access type, key, rows estimated / read, filtered, Extra — as short text. */
  detail: string;
  kind: 'query' | 'select' | 'table';
  /** Full scans, filesort, temporary tables, or a finding of warning level or worse: what a tuner looks at first. */
  warn: boolean;
  children: PlanNode[];
  /** Table nodes: key, filter and Extra (the detail without the access type and rows). */
  more?: string;
  /** Table nodes: the access type (`ALL`, `ref` …), when the server gave one. */
  access?: string;
  /** Table nodes: rows EXPLAIN estimated per scan, and what ANALYZE measured over all loops. */
  rows?: { estimated: number | null; measured?: { read: number; loops: number; capped: boolean } };
  /** Findings resting on this row (the root holds those tied to no row). */
  findings: { code: string; severity: Severity; message: string }[];
}

/** What the tree adds to the plan's rows: its findings and the statement's measurement. */
export interface PlanTreeExtras {
  findings?: readonly TreeFinding[];
  measurement?: Measurement;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const plural = (n: number, one: string): string => `${fmt(n)} ${one}${n === 1 ? '' : 's'}`;

const WARN_EXTRA = ['using filesort', 'using temporary', 'using join buffer'];

function rowWarn(r: PlanRow): boolean {
  return r.type === 'ALL' || r.type === 'index' || r.extra.some((e) => WARN_EXTRA.some((w) => e.toLowerCase().startsWith(w)));
}

/** Key, filter and Extra: what a table row says besides its access type and rows. */
function rowMore(r: PlanRow): string {
  const parts: string[] = [r.key ? `key ${r.key}` : 'no key'];
  if (r.filtered !== null && r.filtered !== 100) parts.push(`filtered ${r.filtered}%`);
  if (r.extra.length) parts.push(r.extra.join('; '));
  return parts.join(' · ');
}

function rowDetail(r: PlanRow, measured?: NonNullable<PlanNode['rows']>['measured']): string {
  const parts: string[] = [];
  if (r.type) parts.push(`type ${r.type}`);
  parts.push(r.key ? `key ${r.key}` : 'no key');
  if (r.rows !== null) parts.push(`~${plural(r.rows, 'row')} estimated`);
  if (measured) parts.push(`${measured.capped ? 'at least ' : ''}${fmt(measured.read)} read${measured.loops > 1 ? ` in ${plural(measured.loops, 'loop')}` : ''}`);
  if (r.filtered !== null && r.filtered !== 100) parts.push(`filtered ${r.filtered}%`);
  if (r.extra.length) parts.push(r.extra.join('; '));
  return parts.join(' · ');
}

/** Select ids a server-made table name refers to: `<derived2>` → [2], `<union1,2>` → [1, 2]. */
export function referencedSelects(table: string | null): number[] {
  const m = table ? /^<(?:derived|subquery|union)([\d,]+)>$/.exec(table) : null;
  return m ? m[1].split(',').filter(Boolean).map(Number) : [];
}

/** Builds the tree of a plan (the root is the whole statement), with its findings and measurement when given. */
export function planTree(plan: Plan, title = 'statement', extras: PlanTreeExtras = {}): PlanNode {
  const m = extras.measurement;
  const measuredRow = new Map<number, NonNullable<PlanNode['rows']>['measured']>();
  if (m) matchAccesses(plan.rows, m.accesses).forEach((i, k) => { if (i >= 0) measuredRow.set(i, { read: m.accesses[k].rowsRead, loops: m.accesses[k].loops, capped: m.capped }); });
  const selects = new Map<number, { rows: PlanRow[]; selectType: string }>();
  const order: number[] = [];
  const loose: PlanRow[] = [];
  for (const r of plan.rows) {
    if (r.id === null) { loose.push(r); continue; }
    let s = selects.get(r.id);
    if (!s) { s = { rows: [], selectType: r.selectType }; selects.set(r.id, s); order.push(r.id); }
    s.rows.push(r);
  }
  const selectNodes = new Map<number, PlanNode>();
  for (const id of order) {
    const s = selects.get(id)!;
    selectNodes.set(id, { label: `select #${id} ${s.selectType}`, detail: `${s.rows.length} table${s.rows.length === 1 ? '' : 's'}`, kind: 'select', warn: false, children: [], findings: [] });
  }
  const attached = new Set<number>();
  const byRow = new Map<PlanRow, number>(plan.rows.map((r, i) => [r, i]));
  const tableNode = (r: PlanRow): PlanNode => {
    const measured = measuredRow.get(byRow.get(r)!);
    return {
      label: r.table ?? '(no table)', detail: rowDetail(r, measured), more: rowMore(r), kind: 'table', warn: rowWarn(r), children: [], findings: [],
      ...(r.type ? { access: r.type } : {}), rows: { estimated: r.rows, ...(measured ? { measured } : {}) },
    };
  };
  const rowNodes: { row: PlanRow; node: PlanNode }[] = [];
  for (const id of order) {
    for (const r of selects.get(id)!.rows) {
      const n = tableNode(r);
      selectNodes.get(id)!.children.push(n);
      rowNodes.push({ row: r, node: n });
    }
  }
  const head = [plan.flavor, ...(plan.cost !== undefined ? [`cost ${plan.cost}`] : [])];
  if (m) head.push(`measured: read ${m.capped ? 'at least ' : ''}${plural(m.rowsRead, 'row')}, returned ${fmt(m.rowsSent)}, ${m.ms.toFixed(1)} ms`);
  const root: PlanNode = { label: title, detail: head.join(' · '), kind: 'query', warn: false, children: [], findings: [] };
  // UNION RESULT rows (id null) hold the selects they combine
  for (const r of loose) {
    const n = tableNode(r);
    n.label = r.table ?? r.selectType;
    root.children.push(n);
    rowNodes.push({ row: r, node: n });
  }
  // each finding on the rows it rests on; one tied to no row (or to rows the plan lacks) on the whole statement
  const nodeOfRow = new Map<number, PlanNode>(rowNodes.map(({ row, node }) => [byRow.get(row)!, node]));
  for (const f of extras.findings ?? []) {
    const item = { code: f.code, severity: f.severity, message: f.message };
    const nodes = [...new Set(f.planRows.map((i) => nodeOfRow.get(i)).filter((n): n is PlanNode => n !== undefined))];
    for (const n of nodes.length ? nodes : [root]) {
      n.findings.push(item);
      if (f.severity === 'error' || f.severity === 'warning') n.warn = true;
    }
  }
  // nest selects under the row that reads them (a select is attached once; never under itself)
  for (const { row, node } of rowNodes) {
    for (const id of referencedSelects(row.table)) {
      const child = selectNodes.get(id);
      if (!child || attached.has(id) || row.id === id) continue;
      node.children.push(child);
      attached.add(id);
    }
  }
  for (const id of order) {
    if (attached.has(id)) continue;
    const lower = order.filter((o) => o < id && !isDescendant(selectNodes.get(o)!, selectNodes.get(id)!));
    const isTop = lower.length === 0 || /^(PRIMARY|SIMPLE|UNION)$/i.test(selects.get(id)!.selectType);
    if (isTop) root.children.push(selectNodes.get(id)!);
    else selectNodes.get(lower[lower.length - 1])!.children.push(selectNodes.get(id)!);
    attached.add(id);
  }
  for (const n of selectNodes.values()) n.warn = n.children.some((c) => c.warn);
  root.warn ||= plan.rows.some(rowWarn) || rowNodes.some(({ node }) => node.warn);
  return root;
}

function isDescendant(node: PlanNode, of: PlanNode): boolean {
  return of.children.some((c) => c === node || isDescendant(node, c));
}
