/**
 * A tiny element tree the page's views and charts are built as: plain data, so builders are pure
 * and testable under Node, and the page turns it into DOM nodes with createElement(NS) and text
 * nodes (never innerHTML, so text from logs cannot become markup).
 */

export type Handler = (event: unknown) => void;

export interface VNode {
  tag: string;
  attrs: Record<string, string | number>;
  children: Child[];
  /** Event listeners (the page attaches them; tests ignore them). */
  on?: Record<string, Handler>;
}

export type Child = VNode | string;

/** Builds an element; `undefined`/`false` children and attributes are dropped. */
export function h(tag: string, attrs: Record<string, string | number | undefined | false> = {}, ...children: (Child | Child[] | undefined | false)[]): VNode {
  const a: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== false) a[k] = v;
  const flat: Child[] = [];
  for (const c of children) {
    if (c === undefined || c === false) continue;
    if (Array.isArray(c)) flat.push(...c); else flat.push(c);
  }
  return { tag, attrs: a, children: flat };
}

/** Adds listeners to a node (returns it). */
export function on(node: VNode, events: Record<string, Handler>): VNode {
  node.on = { ...node.on, ...events };
  return node;
}

/** Every node of the tree (depth first, the node itself first) that satisfies `pred`. */
export function findAll(node: Child, pred: (n: VNode) => boolean, acc: VNode[] = []): VNode[] {
  if (typeof node === 'string') return acc;
  if (pred(node)) acc.push(node);
  for (const c of node.children) findAll(c, pred, acc);
  return acc;
}

/** The text content of a tree. */
export function textOf(node: Child): string {
  return typeof node === 'string' ? node : node.children.map(textOf).join('');
}

/** True when the node's class attribute contains `cls`. */
export function hasClass(node: VNode, cls: string): boolean {
  return String(node.attrs.class ?? '').split(/\s+/).includes(cls);
}

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Serialises a tree as markup (for tests and snapshots; the page builds DOM nodes instead). */
export function toMarkup(node: Child): string {
  if (typeof node === 'string') return node.replace(/[&<>"]/g, (c) => ESC[c]);
  const attrs = Object.entries(node.attrs).map(([k, v]) => ` ${k}="${String(v).replace(/[&<>"]/g, (c) => ESC[c])}"`).join('');
  return `<${node.tag}${attrs}>${node.children.map(toMarkup).join('')}</${node.tag}>`;
}
