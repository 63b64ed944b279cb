/** Turns element trees (vnode.ts) into DOM nodes: createElement / createElementNS and text nodes, never innerHTML. */
import type { Child } from './vnode';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Builds the DOM for a tree; elements inside an <svg> get the SVG namespace. */
export function render(node: Child, inSvg = false): Node {
  if (typeof node === 'string') return document.createTextNode(node);
  const svg = inSvg || node.tag === 'svg';
  const el = svg ? document.createElementNS(SVG_NS, node.tag) : document.createElement(node.tag);
  for (const [k, v] of Object.entries(node.attrs)) {
    if (k === 'xmlns') continue;
    el.setAttribute(k, String(v));
  }
  for (const [type, fn] of Object.entries(node.on ?? {})) el.addEventListener(type, fn);
  for (const c of node.children) el.appendChild(render(c, svg));
  return el;
}
