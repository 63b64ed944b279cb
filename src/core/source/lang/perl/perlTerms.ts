/**
 * Walking Perl token runs as expressions: matched brackets, where a term (`$self->dbh`,
 * `join(',', @ids)`, `$row->{id}`) starts or ends, and where a statement ends.
 */
import type { Token } from './perlLexer';

const OPENERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
const CLOSERS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

/** Words that take the rest of the list as arguments, so a term starting with them runs to the list's end. */
const LIST_OPS = new Set(['join', 'sprintf', 'map', 'grep', 'sort', 'reverse', 'push', 'unshift']);

export interface Brackets {
  /** For each bracket token, the index of its partner; -1 when it has none (and for other tokens). */
  match: Int32Array;
  /** Offset of the first unbalanced bracket, if any. */
  unbalancedAt?: number;
}

export function isOp(t: Token | undefined, text: string): boolean {
  return t !== undefined && t.kind === 'op' && t.text === text;
}

export function isOpener(t: Token | undefined): boolean {
  return t !== undefined && t.kind === 'op' && t.text in OPENERS;
}

export function isCloser(t: Token | undefined): boolean {
  return t !== undefined && t.kind === 'op' && t.text in CLOSERS;
}

/** Pairs brackets. A closer that does not fit the innermost opener closes the nearest one that fits (or nothing). */
export function matchBrackets(tokens: readonly Token[]): Brackets {
  const match = new Int32Array(tokens.length).fill(-1);
  const stack: number[] = [];
  let unbalancedAt: number | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind !== 'op' || t.text.length !== 1) continue;
    const c = t.text.charCodeAt(0);
    if (c === 40 || c === 91 || c === 123) { stack.push(i); continue; }
    if (c !== 41 && c !== 93 && c !== 125) continue;
    const want = CLOSERS[t.text];
    let k = stack.length - 1;
    while (k >= 0 && tokens[stack[k]].text !== want) k--;
    if (k < 0) { unbalancedAt ??= t.start; continue; }
    if (k !== stack.length - 1) unbalancedAt ??= tokens[stack[stack.length - 1]].start;
    match[stack[k]] = i;
    match[i] = stack[k];
    stack.length = k;
  }
  if (stack.length) unbalancedAt ??= tokens[stack[0]].start;
  return { match, unbalancedAt };
}

/** Index of the first token of the term whose last token is `j` (`$self->{dbh}`, `foo(1)`, `Class->m`); -1 when `j` ends no term. */
export function termStartBack(tokens: readonly Token[], match: Int32Array, j: number): number {
  if (j < 0) return -1;
  let s = j;
  // why: asked for every call of a chain (`$q->a(…)->b(…)->…`); past MAX_TERM_STEPS links the term is taken to start
  // where the look stopped, so a chain of n calls costs n steps each at most MAX_TERM_STEPS, not n squared.
  for (let guard = 0; guard < MAX_TERM_STEPS; guard++) {
    const t = tokens[s];
    if (isCloser(t)) {
      const o = match[s];
      if (o < 0) return -1;
      s = o;
      const p = tokens[s - 1];
      if (isOp(p, '->')) { s -= 2; if (s < 0) return -1; continue; }
      const call = tokens[s].text === '(';
      if (p && (call ? p.kind === 'word' : p.kind === 'var' || isCloser(p))) { s -= 1; continue; }
      return s;
    }
    if (t.kind === 'word' || t.kind === 'var' || t.kind === 'str' || t.kind === 'num' || t.kind === 'opaque') {
      if (isOp(tokens[s - 1], '->') && s >= 2) { s -= 2; continue; }
      return s;
    }
    return -1;
  }
  return s;
}

/** Steps termStartBack takes back over one term at most. */
export const MAX_TERM_STEPS = 128;

/** Index of the token that ends the statement or list containing `j` (the `;`, `,`-free closer, or the last token). */
export function listEnd(tokens: readonly Token[], match: Int32Array, j: number): number {
  let k = j;
  while (k < tokens.length) {
    const t = tokens[k];
    if (isOpener(t)) { if (match[k] < 0) return tokens.length - 1; k = match[k] + 1; continue; }
    if (isCloser(t) || isOp(t, ';')) return k - 1;
    k++;
  }
  return tokens.length - 1;
}

/** Index of the last token of the term starting at `j`; -1 when no term starts there. */
export function termEndForward(tokens: readonly Token[], match: Int32Array, j: number): number {
  const t = tokens[j];
  if (!t) return -1;
  let e: number;
  if (isOpener(t)) {
    e = match[j];
    if (e < 0) return -1;
  } else if (t.kind === 'op' && (t.text === '-' || t.text === '!' || t.text === '\\' || t.text === '+')) {
    return termEndForward(tokens, match, j + 1);
  } else if (t.kind === 'word') {
    if (isOp(tokens[j + 1], '(')) { e = match[j + 1]; if (e < 0) return -1; }
    else if (isOp(tokens[j + 1], '->') || isOp(tokens[j + 1], '::')) e = j;
    else if (LIST_OPS.has(t.text)) return Math.max(j, listEnd(tokens, match, j + 1));
    else e = j;
  } else if (t.kind === 'var' || t.kind === 'str' || t.kind === 'num' || t.kind === 'opaque') e = j;
  else return -1;
  for (;;) {
    const nx = tokens[e + 1];
    if (isOp(nx, '->')) {
      const a = tokens[e + 2];
      if (a && a.kind === 'word') { e += 2; if (isOp(tokens[e + 1], '(') && match[e + 1] > 0) e = match[e + 1]; continue; }
      if (isOpener(a) && match[e + 2] > 0) { e = match[e + 2]; continue; }
      return e;
    }
    if (nx && (nx.text === '[' || (nx.text === '{' && nx.block === false)) && nx.kind === 'op' && match[e + 1] > 0
      && (tokens[e].kind === 'var' || isCloser(tokens[e]))) { e = match[e + 1]; continue; }
    return e;
  }
}
