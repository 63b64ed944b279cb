/**
 * Small text and range helpers for N+1 detection: comparing ranges, reading identifiers out of a
 * loop's iterable, recognising a short literal collection (`[]string{"a", "b"}`, `qw(a b)`, `0..3`)
 * in any of the supported languages, and the cheap forms of a few string operations detection runs
 * once per statement (with the set of statement/loop pairs already reported).
 */
import type { Position, Range } from '../model';

/** True when `inner` lies within `outer` (ends included). */
export function containsRange(outer: Range, inner: Range): boolean {
  return cmp(outer.start, inner.start) <= 0 && cmp(inner.end, outer.end) <= 0;
}

export function sameRange(a: Range, b: Range): boolean {
  return cmp(a.start, b.start) === 0 && cmp(a.end, b.end) === 0;
}

/** True when `a` ends before `b` starts. */
export function rangeBefore(a: Range, b: Range): boolean {
  return cmp(a.end, b.start) <= 0;
}

function cmp(a: Range['start'], b: Range['start']): number {
  return a.line - b.line || a.character - b.character;
}

/** `Handler.getUser` → `getUser`, `$dbh->prepare` → `prepare`, `Foo::bar` → `bar`. */
export function lastNameSegment(name: string): string {
  const parts = name.split(/\.|->|::|#/).filter((p) => p.length > 0);
  return parts.length ? parts[parts.length - 1] : name;
}

/** Character codes of `$ @ % & * {`: the first character of a name stripSigil changes. */
const SIGIL_OR_BRACE = new Set([...'$@%&*{'].map((c) => c.charCodeAt(0)));

/** Drops Perl / PHP / Ruby sigils: `$rows` → `rows`, `@posts` → `posts`, `@$rows` → `rows`. */
export function stripSigil(name: string): string {
  // why: called for every receiver and result variable of a workspace; most names have neither sigil nor braces.
  if (!SIGIL_OR_BRACE.has(name.charCodeAt(0))) return name;
  // = name.replace(/^[$@%&*]+/, '').replace(/^\{(.*)\}$/, '$1') without the regular expressions.
  let i = 0;
  while (i < name.length && SIGIL_OR_BRACE.has(name.charCodeAt(i)) && name.charCodeAt(i) !== BRACE_OPEN) i++;
  const rest = i ? name.slice(i) : name;
  const braced = rest.length >= 2 && rest.charCodeAt(0) === BRACE_OPEN && rest.charCodeAt(rest.length - 1) === BRACE_CLOSE && !/[\n\r\u2028\u2029]/.test(rest);
  return braced ? rest.slice(1, -1) : rest;
}

const BRACE_OPEN = 123;
const BRACE_CLOSE = 125;


/** Identifiers named in a piece of source (sigils dropped), in order: `@$rows` → [rows], `posts[:10]` → [posts]. */
export function identifiersOf(text: string): string[] {
  const out: string[] = [];
  // A name after `.`, `->` or `::` is a member, not a variable a statement's result can be assigned to.
  const re = /(\.|->|::)?\s*[$@%]*([A-Za-z_][\w]*)/g;
  const bare = text.replace(/(["'`]).*?\1/g, ' ');
  for (let m = re.exec(bare); m; m = re.exec(bare)) if (!m[1]) out.push(m[2]);
  return out;
}

const SCALAR = /^(?:-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|:[A-Za-z_]\w*|true|false|nil|null|None|True|False|undef|[A-Z_][A-Z0-9_]*)$/;

/** Splits `a, "b,c", (d, e)` at top-level commas. */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0, cur = '', q = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (q) { cur += c; if (c === '\\') { cur += s[++i] ?? ''; } else if (c === q) q = ''; continue; }
    if (c === '"' || c === "'") { q = c; cur += c; continue; }
    if ('([{'.includes(c)) depth++;
    if (')]}'.includes(c)) depth--;
    if (c === ',' && depth === 0) { out.push(cur.trim()); cur = ''; continue; }
    cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/**
 * True when `iterable` is a literal collection of at most `max` constant elements, or a numeric
 * range of at most `max` steps, in any supported language: `[]string{"a", "b"}`, `[1, 2]`,
 * `("a", "b")`, `%w[a b]`, `qw(a b)`, `array(1, 2)`, `vec![1, 2]`, `[1, 2].iter()`, `range(3)`, `1..3`, `0..=2`.
 */
export function isSmallConstantCollection(iterable: string, max = 5): boolean {
  let t = iterable.trim()
    .replace(/^[&*\s]+/, '')
    .replace(/(?:\.(?:iter|into_iter|iter_mut|each|each_with_index|each_with_object|map|enumerate|copied|cloned|entries|keys|values|forEach)\s*(?:\(\s*\))?)+$/g, '')
    .trim();
  // Rust/Ruby ranges and Go 1.22 integer ranges: `0..3`, `1...4`, `0..=2`, `(1..3)`, `3`.
  const paren = /^\((.*)\)$/s.exec(t);
  const inner = paren && !paren[1].includes(',') ? paren[1].trim() : t;
  const rng = /^(-?\d+)\s*(\.\.=|\.\.\.|\.\.)\s*(-?\d+)$/.exec(inner);
  if (rng) {
    // why: `..` is inclusive in Ruby and exclusive in Rust; counting it inclusive errs towards "not small".
    const n = Number(rng[3]) - Number(rng[1]) + (rng[2] === '...' ? 0 : 1);
    return n <= max;
  }
  if (/^\d+$/.test(inner)) return Number(inner) <= max;
  // C-style counted loops: `i := 0; i < 3; i++`, `$i = 0; $i < 3; $i++`, `let i = 0; i <= 2; i++`.
  const counted = /^(?:(?:let|var|int|my)\s+)?\$?(\w+)\s*:?=\s*(\d+)\s*;\s*\$?(\w+)\s*(<=?)\s*(\d+)\s*;/.exec(inner);
  if (counted && counted[1] === counted[3]) return Number(counted[5]) - Number(counted[2]) + (counted[4] === '<=' ? 1 : 0) <= max;
  const pyRange = /^range\(\s*(-?\d+)\s*(?:,\s*(-?\d+)\s*)?\)$/.exec(t);
  if (pyRange) return (pyRange[2] === undefined ? Number(pyRange[1]) : Number(pyRange[2]) - Number(pyRange[1])) <= max;
  // Word lists: %w[a b], %i(a b), qw(a b) / qw/a b/.
  const words = /^(?:%[wWiI]|qw)\s*([([{/<|])(.*)[)\]}/>|]$/s.exec(t);
  if (words) return words[2].trim().split(/\s+/).filter(Boolean).length <= max;
  // Bracketed literals, with an optional type or constructor in front: []T{…}, [N]T{…}, vec![…], array(…), list(…), tuple(…), Set[…].
  t = t.replace(/^(?:\[[^\]]*\][\w.*]+|vec!|array|list|tuple|set|frozenset|Set\.new|new Set|Array)\s*/i, '');
  const br = /^[[({]([\s\S]*)[\])}]$/.exec(t);
  if (!br) return false;
  const els = splitTop(br[1]);
  if (els.length === 0 || els.length > max) return els.length === 0;
  return els.every((e) => SCALAR.test(e) || /^[[(]([^[\]()]*)[\])]$/.test(e) && splitTop(e.slice(1, -1)).every((x) => SCALAR.test(x)));
}

/** `a.localeCompare(b)`, without asking the collator about equal strings (the common case when sorting findings). */
export function compareText(a: string, b: string): number {
  return a === b ? 0 : a.localeCompare(b);
}

/**
 * Each text's place in compareText's order (texts that compare equal share one), so a sort by many keys compares
 * numbers: `ranks.get(a)! - ranks.get(b)!` has the sign of compareText(a, b).
 * why: localeCompare costs a collation per call; sorting the findings of a large workspace by file asked it
 * hundreds of thousands of times for a few thousand distinct paths.
 */
export function textRanks(texts: Iterable<string>): Map<string, number> {
  const distinct = [...new Set(texts)].sort(compareText);
  const ranks = new Map<string, number>();
  let rank = 0;
  for (let i = 0; i < distinct.length; i++) {
    if (i > 0 && compareText(distinct[i - 1], distinct[i]) !== 0) rank++;
    ranks.set(distinct[i], rank);
  }
  return ranks;
}

/** A position as one number, exact while line and character stay below 2^26; -1 when they do not. */
function packed(p: Position): number {
  return p.line >= 0 && p.line < 0x4000000 && p.character >= 0 && p.character < 0x4000000 && Number.isInteger(p.line) && Number.isInteger(p.character)
    ? p.line * 0x4000000 + p.character : -1;
}

/**
 * The (statement position, loop position) pairs already reported.
 * why: one key string per candidate finding was a measurable share of detection; per file, a map from the
 * packed statement position to its loops does the same without building strings (positions too large to
 * pack fall back to a string key).
 */
export class PairSet {
  /** Statement file → statement position → its loops so far, flat: loop file, loop position, loop file, … */
  private readonly packedPairs = new Map<string, Map<number, (string | number)[]>>();
  private readonly other = new Set<string>();
  private lastFile: string | undefined;
  private lastByAt: Map<number, (string | number)[]> | undefined;

  /** Adds the pair; false when it was already there. */
  add(file: string, at: Position, loopFile: string, loopAt: Position): boolean {
    const a = packed(at), b = packed(loopAt);
    if (a < 0 || b < 0) {
      const key = `${file}:${at.line}:${at.character}|${loopFile}:${loopAt.line}:${loopAt.character}`;
      if (this.other.has(key)) return false;
      this.other.add(key);
      return true;
    }
    let byAt = file === this.lastFile ? this.lastByAt : this.packedPairs.get(file);
    if (!byAt) this.packedPairs.set(file, byAt = new Map());
    this.lastFile = file;
    this.lastByAt = byAt;
    const loops = byAt.get(a);
    if (!loops) {
      byAt.set(a, [loopFile, b]);
      return true;
    }
    for (let i = 0; i < loops.length; i += 2) if (loops[i] === loopFile && loops[i + 1] === b) return false;
    loops.push(loopFile, b);
    return true;
  }
}
