/**
 * A plan's rows as a tree: one node per SELECT (by id), its table accesses in join order as
 * children, and each derived table / materialised subquery / union nested under the row that reads
 * it (`<derived2>`, `<subquery3>`, `<union1,2>`); other subqueries hang under the nearest lower SELECT.
 */
import type { Plan, PlanRow } from '../plan/planModel';

export interface PlanNode {
  /** `select #1 PRIMARY` or the table name. */
  label: string;
  /** Access type, key, rows, filtered, Extra — as short text. */
  detail: string;
  kind: 'query' | 'select' | 'table';
  /** Full scans, filesort, temporary tables: what a tuner looks at first. */
  warn: boolean;
  children: PlanNode[];
}

const WARN_EXTRA = ['using filesort', 'using temporary', 'using join buffer'];

function rowWarn(r: PlanRow): boolean {
  return r.type === 'ALL' || r.type === 'index' || r.extra.some((e) => WARN_EXTRA.some((w) => e.toLowerCase().startsWith(w)));
}

function rowDetail(r: PlanRow): string {
  const parts: string[] = [];
  if (r.type) parts.push(`type ${r.type}`);
  parts.push(r.key ? `key ${r.key}` : 'no key');
  if (r.rows !== null) parts.push(`rows ${r.rows}`);
  if (r.filtered !== null && r.filtered !== 100) parts.push(`filtered ${r.filtered}%`);
  if (r.extra.length) parts.push(r.extra.join('; '));
  return parts.join(' · ');
}

/** Select ids a server-made table name refers to: `<derived2>` → [2], `<union1,2>` → [1, 2]. */
export function referencedSelects(table: string | null): number[] {
  const m = table ? /^<(?:derived|subquery|union)([\d,]+)>$/.exec(table) : null;
  return m ? m[1].split(',').filter(Boolean).map(Number) : [];
}

/** Builds the tree of a plan (the root is the whole statement). */
export function planTree(plan: Plan, title = 'statement'): PlanNode {
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
    selectNodes.set(id, { label: `select #${id} ${s.selectType}`, detail: `${s.rows.length} table${s.rows.length === 1 ? '' : 's'}`, kind: 'select', warn: false, children: [] });
  }
  const attached = new Set<number>();
  const tableNode = (r: PlanRow): PlanNode => ({ label: r.table ?? '(no table)', detail: rowDetail(r), kind: 'table', warn: rowWarn(r), children: [] });
  const rowNodes: { row: PlanRow; node: PlanNode }[] = [];
  for (const id of order) {
    for (const r of selects.get(id)!.rows) {
      const n = tableNode(r);
      selectNodes.get(id)!.children.push(n);
      rowNodes.push({ row: r, node: n });
    }
  }
  const root: PlanNode = { label: title, detail: `${plan.flavor}${plan.cost !== undefined ? ` · cost ${plan.cost}` : ''}`, kind: 'query', warn: false, children: [] };
  // UNION RESULT rows (id null) hold the selects they combine
  for (const r of loose) {
    const n = tableNode(r);
    n.label = r.table ?? r.selectType;
    root.children.push(n);
    rowNodes.push({ row: r, node: n });
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
  root.warn = plan.rows.some(rowWarn);
  return root;
}

function isDescendant(node: PlanNode, of: PlanNode): boolean {
  return of.children.some((c) => c === node || isDescendant(node, c));
}
