/**
 * A user's `-m` expression matched on a path's bytes, without building a string per request. Only
 * the shape contest `-m` lists are written in is compiled: anchored at `^`, a sequence of literal
 * characters and character classes (`[0-9a-f-]`, `\d`, `\w`, `.`) each with an optional quantifier
 * (`?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}`), groups of literal alternatives (`\.(jpg|png)`, optionally
 * `?`), and `$` at the end. Anything else (flags, lookarounds, nested groups, classes we cannot read)
 * gives undefined and the expression is matched as a string by the regex engine as before.
 *
 * A repeated class takes as many bytes as it can and never gives any back. That answers the same as
 * a backtracking engine because compilation requires that no byte of the class can start what
 * follows it; only the literal alternatives are tried one after the other. So a match costs time
 * linear in the path (times the alternatives), and the time guard of regexGuard.ts is not needed.
 * Paths with bytes outside ASCII are left to the string matcher (the classes are read as ASCII).
 */

/** A compiled expression: true when the ASCII bytes b[s, e) match it. */
export type ByteMatcher = (b: Uint8Array, s: number, e: number) => boolean;

/** A class repeated min..max times (max Infinity for `*`, `+`, `{n,}`). */
interface ClassItem { kind: 0; set: Uint8Array; min: number; max: number }
/** Literal alternatives, tried in order; `optional`: the group may match nothing (`(…)?`). */
interface AltItem { kind: 1; alts: Uint8Array[]; optional: boolean }
type Item = ClassItem | AltItem;

const ASCII = 128;

function setOf(pred: (c: number) => boolean): Uint8Array {
  const s = new Uint8Array(ASCII);
  for (let c = 0; c < ASCII; c++) if (pred(c)) s[c] = 1;
  return s;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isWord = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/** The class of an escape `\x` (letter escapes: only \d and \w), or undefined when not supported. */
function escapeSet(ch: string): Uint8Array | undefined {
  if (ch === 'd') return setOf(isDigit);
  if (ch === 'w') return setOf(isWord);
  if (/[A-Za-z0-9]/.test(ch)) return undefined;
  const code = ch.charCodeAt(0);
  return code < ASCII ? setOf((c) => c === code) : undefined;
}

/** Reads `[...]` starting at `at` (the `[`): its set and the index after `]`, or undefined. */
function readClass(src: string, at: number): [Uint8Array, number] | undefined {
  let i = at + 1;
  let negate = false;
  if (src[i] === '^') { negate = true; i++; }
  const set = new Uint8Array(ASCII);
  // why: `[]` matches nothing and `[^]` anything in JavaScript; neither is worth a byte form.
  if (src[i] === ']') return undefined;
  while (i < src.length && src[i] !== ']') {
    let lo: number;
    if (src[i] === '\\') {
      const ch = src[i + 1];
      if (ch === undefined) return undefined;
      const esc = escapeSet(ch);
      if (!esc) return undefined;
      i += 2;
      if (ch === 'd' || ch === 'w') { for (let c = 0; c < ASCII; c++) set[c] |= esc[c]; continue; }
      lo = ch.charCodeAt(0);
    } else if (src[i] === '[') {
      return undefined; // why: `[[:alpha:]]` and nested sets are not JavaScript's syntax anyway
    } else {
      lo = src.charCodeAt(i);
      i++;
    }
    if (lo >= ASCII) return undefined;
    let hi = lo;
    if (src[i] === '-' && src[i + 1] !== ']' && src[i + 1] !== undefined) {
      let h: string | undefined = src[i + 1];
      if (h === '\\') {
        h = src[i + 2];
        if (h === undefined || /[A-Za-z0-9]/.test(h)) return undefined;
        i += 3;
      } else i += 2;
      hi = h.charCodeAt(0);
      if (hi >= ASCII || hi < lo) return undefined;
    }
    for (let c = lo; c <= hi; c++) set[c] = 1;
  }
  if (src[i] !== ']') return undefined;
  if (negate) for (let c = 0; c < ASCII; c++) set[c] ^= 1;
  return [set, i + 1];
}

/** Reads a quantifier at `at`: [min, max, length]; [1, 1, 0] when there is none, undefined when unsupported. */
function readQuantifier(src: string, at: number): [number, number, number] | undefined {
  const c = src[at];
  let q: [number, number, number] = [1, 1, 0];
  if (c === '?') q = [0, 1, 1];
  else if (c === '*') q = [0, Infinity, 1];
  else if (c === '+') q = [1, Infinity, 1];
  else if (c === '{') {
    const m = /^\{(\d{1,4})(,(\d{0,4}))?\}/.exec(src.slice(at, at + 12));
    if (!m) return undefined;
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : m[3] === '' ? Infinity : Number(m[3]);
    if (hi < lo) return undefined;
    q = [lo, hi, m[0].length];
  }
  // why: a lazy quantifier (`+?`) matches the same paths as a greedy one when only the answer counts.
  if (q[2] > 0 && src[at + q[2]] === '?') q[2]++;
  if (src[at + q[2]] === '+' || src[at + q[2]] === '?' || src[at + q[2]] === '*' || src[at + q[2]] === '{') return undefined;
  return q;
}

/** Reads `(…)` of literal alternatives at `at`: the alternatives and the index after `)`, or undefined. */
function readAlternatives(src: string, at: number): [Uint8Array[], number] | undefined {
  let i = at + 1;
  if (src[i] === '?') {
    if (src[i + 1] === ':') i += 2;
    else if (src[i + 1] === '<' && /^<[A-Za-z_]\w*>/.test(src.slice(i + 1, i + 40))) i = src.indexOf('>', i) + 1;
    else return undefined;
  }
  const alts: Uint8Array[] = [];
  let cur: number[] = [];
  for (; i < src.length; i++) {
    const c = src[i];
    if (c === ')') { alts.push(Uint8Array.from(cur)); return [alts, i + 1]; }
    if (c === '|') { alts.push(Uint8Array.from(cur)); cur = []; continue; }
    if (c === '\\') {
      const ch = src[i + 1];
      if (ch === undefined || /[A-Za-z0-9]/.test(ch) || ch.charCodeAt(0) >= ASCII) return undefined;
      cur.push(ch.charCodeAt(0));
      i++;
      continue;
    }
    if ('.^$?*+()[]{}'.includes(c) || c.charCodeAt(0) >= ASCII) return undefined;
    cur.push(c.charCodeAt(0));
  }
  return undefined;
}

/** The items of an expression's body, or undefined when it is not of the compiled shape. */
function parseItems(src: string): { items: Item[]; end: boolean } | undefined {
  if (!src.startsWith('^')) return undefined;
  const items: Item[] = [];
  let end = false;
  for (let i = 1; i < src.length;) {
    const c = src[i];
    if (c === '$') {
      if (i !== src.length - 1) return undefined;
      end = true;
      break;
    }
    if (c === '(') {
      const r = readAlternatives(src, i);
      if (!r) return undefined;
      i = r[1];
      let optional = false;
      if (src[i] === '?') { optional = true; i++; if (src[i] === '?') i++; }
      if ('?*+{'.includes(src[i] ?? '')) return undefined;
      items.push({ kind: 1, alts: r[0], optional });
      continue;
    }
    let set: Uint8Array | undefined;
    if (c === '[') {
      const r = readClass(src, i);
      if (!r) return undefined;
      set = r[0];
      i = r[1];
    } else if (c === '\\') {
      const ch = src[i + 1];
      if (ch === undefined) return undefined;
      set = escapeSet(ch);
      i += 2;
    } else if (c === '.') {
      set = setOf((x) => x !== 10 && x !== 13);
      i++;
    } else if ('^)|?*+{}]'.includes(c) || c.charCodeAt(0) >= ASCII) {
      return undefined;
    } else {
      const code = c.charCodeAt(0);
      set = setOf((x) => x === code);
      i++;
    }
    if (!set) return undefined;
    const q = readQuantifier(src, i);
    if (!q) return undefined;
    i += q[2];
    items.push({ kind: 0, set, min: q[0], max: q[1] });
  }
  return { items, end };
}

/** Whether some byte that can start items[from…] (past the ones that may match nothing) is in `set`. */
function overlapsWhatFollows(items: Item[], from: number, set: Uint8Array): boolean {
  for (let k = from; k < items.length; k++) {
    const it = items[k];
    if (it.kind === 0) {
      for (let c = 0; c < ASCII; c++) if (it.set[c] && set[c]) return true;
      if (it.min > 0) return false;
    } else {
      let empty = it.optional;
      for (const a of it.alts) { if (a.length === 0) empty = true; else if (set[a[0]]) return true; }
      if (!empty) return false;
    }
  }
  return false;
}

/**
 * Compiles `source` (an expression as the user wrote it, after `(?P<` was translated) with `flags`,
 * or undefined when it is not of the shape described above. `known`: text every path given to the
 * matcher starts with (the caller checked it); the literal characters it covers are not compared again.
 */
export function compileByteRegex(source: string, flags: string, known = ''): ByteMatcher | undefined {
  if (flags !== '') return undefined;
  const parsed = parseItems(source);
  if (!parsed) return undefined;
  const { items, end } = parsed;
  for (let k = 0; k < items.length; k++) {
    const it = items[k];
    if (it.kind === 0 && it.max > it.min && overlapsWhatFollows(items, k + 1, it.set)) return undefined;
  }
  // why: each item becomes a small function that calls the next one, so a match reads no item's
  // kind or bounds per byte; runs of single literal bytes (`/api/isu/`) are compared as one run,
  // where an interpreter over the items cost a loop and a polymorphic load per literal byte.
  // The leading literal characters the caller already checked (known).
  let skip = 0;
  while (skip < items.length && skip < known.length) {
    const it = items[skip];
    if (it.kind !== 0 || !isLiteral(it) || it.set[known.charCodeAt(skip)] !== 1) break;
    skip++;
  }
  let step: Step = end ? (_b, i, e) => i === e : () => true;
  for (let k = items.length - 1; k >= skip;) {
    const it = items[k];
    if (it.kind === 0 && isLiteral(it)) {
      let from = k;
      while (from > skip) { const prev = items[from - 1]; if (prev.kind !== 0 || !isLiteral(prev)) break; from--; }
      step = literalStep(items.slice(from, k + 1).map((x) => (x as ClassItem).set.indexOf(1)), step);
      k = from - 1;
      continue;
    }
    step = it.kind === 0 ? classStep(it, step) : altStep(it, step);
    k--;
  }
  if (skip === 0) return step;
  const rest = step;
  return (b, s, e) => rest(b, s + skip, e);
}

/** What is left of a match: true when bytes b[i, e) match the items from here on. */
type Step = (b: Uint8Array, i: number, e: number) => boolean;

/** A class that is exactly one byte, once (a literal character). */
function isLiteral(it: ClassItem): boolean {
  if (it.min !== 1 || it.max !== 1) return false;
  let n = 0;
  for (let c = 0; c < ASCII; c++) n += it.set[c];
  return n === 1;
}

function literalStep(codes: number[], next: Step): Step {
  const lit = Uint8Array.from(codes);
  const n = lit.length;
  return (b, i, e) => {
    if (e - i < n) return false;
    for (let j = 0; j < n; j++) if (b[i + j] !== lit[j]) return false;
    return next(b, i + n, e);
  };
}

/** The longest repetition read as a plain integer (`+`, `*` and `{n,}` have no bound). */
const UNBOUNDED = 0x3fffffff;

function classStep(it: ClassItem, next: Step): Step {
  // why: 256 entries, so a byte outside ASCII reads 0 (no match) without a test of its own.
  const set = new Uint8Array(256);
  set.set(it.set);
  const min = it.min;
  const max = it.max === Infinity ? UNBOUNDED : it.max;
  return (b, i, e) => {
    const stop = e - i > max ? i + max : e;
    const from = i;
    while (i < stop && set[b[i]] !== 0) i++;
    if (i - from < min) return false;
    return next(b, i, e);
  };
}

function altStep(it: AltItem, next: Step): Step {
  const alts = it.alts;
  const optional = it.optional;
  return (b, i, e) => {
    for (let k = 0; k < alts.length; k++) {
      const a = alts[k];
      if (startsWith(b, i, e, a) && next(b, i + a.length, e)) return true;
    }
    return optional && next(b, i, e);
  };
}

function startsWith(b: Uint8Array, i: number, e: number, a: Uint8Array): boolean {
  if (e - i < a.length) return false;
  for (let j = 0; j < a.length; j++) if (b[i + j] !== a[j]) return false;
  return true;
}
