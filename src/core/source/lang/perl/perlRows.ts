/**
 * Where a Perl loop's list comes from (the Perl side of rowFlow.ts): the variables the list is derived
 * from, followed back through the assignments (`my @entries = map { … } @$rows;`) and pushes
 * (`push @entries, $row;`, also inside another loop over rows) written before the loop in its sub.
 */
import type { Token } from './perlLexer';
import { isCloser, isOp, isOpener } from './perlTerms';

interface Span { start: number; end: number }

/** A loop as perlLoopSources needs it: where it is, its list's text and where that list is written. */
export interface PerlLoop { start: number; end: number; iterable?: string; head?: Span }

const MAX_DEPTH = 4;
const MAX_NAMES = 24;
const MAX_VALUES = 16;

/** `$rows`, `@rows`, `%h`, `$#rows` → `rows` (undefined for `$_`, `@_` and punctuation variables). */
function bare(text: string): string | undefined {
  const m = /^(?:\$#|[$@%])+\{?([A-Za-z_]\w*)/.exec(text);
  return m && m[1] !== '_' ? m[1] : undefined;
}

/** The names a piece of Perl source uses (`@{ $rows }`, `$rows->@*` → rows). */
function namesOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\$#|[$@%])+\{?\s*\$?([A-Za-z_]\w*)/g)) if (m[1] !== '_' && !out.includes(m[1])) out.push(m[1]);
  return out;
}

/**
 * The sources of `loop` in the sub spanning [fnStart, fnEnd) (the file when there is none): names and the
 * spans of the values given to them. `tokens` are the file's, `match` pairs its brackets, `loops` are all of
 * the file's loops (an element pushed inside one comes from its list).
 */
export function perlLoopSources(text: string, tokens: readonly Token[], match: ArrayLike<number>, loop: PerlLoop, loops: readonly PerlLoop[],
  fnStart: number, fnEnd: number): { names: string[]; values: Span[] } | undefined {
  if (!loop.iterable) return undefined;
  const names: string[] = [];
  const values: Span[] = [];
  const seen = new Set<string>();
  const adds = addsOf(tokens);
  let lo = 0, hi = adds.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (tokens[adds[mid].tok].start < fnStart) lo = mid + 1; else hi = mid; }
  const first = lo;
  let frontier = namesOf(loop.iterable);
  for (let depth = 0; depth < MAX_DEPTH && frontier.length; depth++) {
    const next: string[] = [];
    const want = new Set(frontier.filter((x) => !seen.has(x)));
    for (const x of want) seen.add(x);
    if (!want.size) break;
    for (let a = first; a < adds.length; a++) {
      const { tok, name, valueFrom } = adds[a];
      if (tokens[tok].start >= loop.start || tokens[tok].start >= fnEnd) break;
      if (!want.has(name)) continue;
      const end = statementEnd(tokens, match, valueFrom);
      const span = { start: tokens[valueFrom].start, end: tokens[end].end };
      if (!names.includes(name)) names.push(name);
      if (names.length > MAX_NAMES) break;
      const given: Span[] = [span];
      // A push inside another loop of the sub: the element comes from that loop's list.
      for (const l of loops) {
        if (l === loop || !l.head || l.start < fnStart || l.start > span.start || l.end < span.end) continue;
        if (span.start >= l.head.start && span.end <= l.head.end) continue;
        given.push(l.head);
      }
      for (const g of given) {
        if (values.length < MAX_VALUES && !values.some((v) => v.start === g.start && v.end === g.end)) values.push(g);
        for (const k of namesOf(text.slice(g.start, g.end))) if (!seen.has(k) && !next.includes(k)) next.push(k);
      }
    }
    frontier = next;
  }
  return names.length ? { names, values } : undefined;
}

/** A value given to a variable: `NAME = …` or `push NAME, …` at token `tok`, the value from token `valueFrom`. */
interface Add { tok: number; name: string; valueFrom: number }

const addsByFile = new WeakMap<readonly Token[], Add[]>();

/** Every assignment and push of a file, in order (one pass, kept for the file's other loops). */
function addsOf(tokens: readonly Token[]): Add[] {
  let adds = addsByFile.get(tokens);
  if (adds) return adds;
  adds = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    let name: string | undefined;
    if (t.kind === 'var' && isOp(tokens[i + 1], '=') && (name = bare(t.text)) !== undefined && i + 2 < tokens.length) {
      adds.push({ tok: i, name, valueFrom: i + 2 });
    } else if (t.kind === 'word' && t.text === 'push') {
      // `push @xs, …`, `push(@xs, …)`, `push $xs->@*, …`, `push @{ $xs }, …`: the first variable is the collection.
      let j = i + 1;
      while (j < i + 4 && tokens[j] && tokens[j].kind !== 'var') j++;
      const target = tokens[j];
      if (target?.kind === 'var' && (name = bare(target.text)) !== undefined) {
        let k = j + 1;
        while (k < tokens.length && k < j + 6 && !isOp(tokens[k], ',') && !isOp(tokens[k], ';')) k++;
        if (isOp(tokens[k], ',') && k + 1 < tokens.length) adds.push({ tok: i, name, valueFrom: k + 1 });
      }
    }
  }
  addsByFile.set(tokens, adds);
  return adds;
}

/** The last token of the statement that starts at `from`: before its `;` (or the closing bracket around it). */
function statementEnd(tokens: readonly Token[], match: ArrayLike<number>, from: number): number {
  let k = from;
  for (; k < tokens.length; k++) {
    const t = tokens[k];
    if (isOpener(t)) {
      if (match[k] < 0) return tokens.length - 1;
      k = match[k];
      continue;
    }
    if (isOp(t, ';') || isCloser(t)) return Math.max(from, k - 1);
  }
  return tokens.length - 1;
}

/** Words that leave a loop (or the sub) when the pass succeeds. */
const PERL_LEAVES = new Set(['last', 'return']);

/**
 * True when the block opened at `open` ends with an unconditional `last` / `return` (no `if` / `unless`
 * after it): a pass that gets to the end leaves, and only `next` (an error path) goes round again — a retry loop.
 */
export function perlRetryBody(tokens: readonly Token[], match: ArrayLike<number>, open: number): boolean {
  const close = match[open];
  if (close < 0) return false;
  // The start of the last statement: after the last `;` or block `}` at the body's own depth.
  let start = open + 1;
  let end = close - 1;
  while (end > open && isOp(tokens[end], ';')) end--;
  for (let k = open + 1; k <= end; k++) {
    const t = tokens[k];
    if (isOpener(t)) {
      if (match[k] < 0) return false;
      k = match[k];
      if (isOp(tokens[k], '}') && tokens[k].block && k < end) start = k + 1;
      continue;
    }
    if (isOp(t, ';') && k < end) start = k + 1;
  }
  if (start > end) return false;
  const first = tokens[start];
  if (first.kind !== 'word' || !PERL_LEAVES.has(first.text)) return false;
  for (let k = start + 1; k <= end; k++) {
    const t = tokens[k];
    if (isOpener(t) && match[k] >= 0) { k = match[k]; continue; }
    if (t.kind === 'word' && (t.text === 'if' || t.text === 'unless')) return false;
  }
  return true;
}
