/**
 * The values of Perl string literals: single-quoted text with its two escapes, and
 * double-quoted text split into literal runs and interpolated (dynamic) parts.
 * Works on the content between the delimiters, which the lexer has already found.
 */
import type { SqlPart } from '../../sqlText';

const CLOSERS: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };

/** The closing delimiter for an opening one: brackets pair, anything else closes itself. */
export function closerOf(open: string): string {
  return CLOSERS[open] ?? open;
}

/**
 * Index of the closing delimiter for a run that opened just before `from` (or -1 when the
 * text ends first). Bracketing delimiters nest; a backslash escapes the next character.
 */
export function findClose(text: string, from: number, open: string, close: string): number {
  const nests = open !== close;
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') { i++; continue; }
    if (c === close) {
      if (depth === 0) return i;
      depth--;
    } else if (nests && c === open) depth++;
  }
  return -1;
}

/** Value of a single-quoted body ('…', q{…}): only `\\` and a backslashed delimiter are escapes. */
export function singleQuotedValue(raw: string, open: string, close: string): string {
  if (!raw.includes('\\')) return raw;
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\' && i + 1 < raw.length) {
      const d = raw[i + 1];
      if (d === '\\' || d === open || d === close) { out += d; i++; continue; }
    }
    out += c;
  }
  return out;
}

function isIdentStart(c: string | undefined): boolean {
  return c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_');
}

function isIdentChar(c: string | undefined): boolean {
  return c !== undefined && (isIdentStart(c) || (c >= '0' && c <= '9'));
}

/** Index after the bracket group that opens at `i` in `s`, counting nesting; -1 when unclosed. */
function skipGroup(s: string, i: number): number {
  const open = s[i];
  const close = closerOf(open);
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    const c = s[j];
    if (c === '\\') { j++; continue; }
    if (c === open) depth++;
    else if (c === close && --depth === 0) return j + 1;
  }
  return -1;
}

/** Skips a (package-qualified) name at `j`; returns the index after it. */
function skipName(s: string, j: number): number {
  for (;;) {
    while (isIdentChar(s[j])) j++;
    if (s[j] === ':' && s[j + 1] === ':' && isIdentStart(s[j + 2])) { j += 2; continue; }
    return j;
  }
}

/**
 * If an interpolation starts at `i` (on `$` or `@`), returns the index after it: the variable,
 * `${name}`, `${\ expr}`, `@{[ expr ]}`, and element/slice subscripts (`[…]`, `{…}`, `->[…]`,
 * `->{…}`). Returns -1 when the sigil is a plain character (`$` before a space, `@` in `a@b.`).
 */
export function interpolationEnd(s: string, i: number): number {
  const sigil = s[i];
  let j = i + 1;
  if (s[j] === '{') {
    j = skipGroup(s, j);
    if (j < 0) return -1;
  } else {
    while (s[j] === '$') j++;
    if (isIdentStart(s[j]) || (s[j] === ':' && s[j + 1] === ':' && isIdentStart(s[j + 2]))) j = skipName(s, s[j] === ':' ? j + 2 : j);
    else if (sigil === '$' && j === i + 1 && s[j] >= '0' && s[j] <= '9') { while (s[j] >= '0' && s[j] <= '9') j++; return j; }
    else if (s[j] === '{' && j > i + 1) { j = skipGroup(s, j); if (j < 0) return -1; }
    else if (sigil === '$' && j > i + 1) return j; // `$$`: the process id
    else return -1;
  }
  for (;;) {
    const c = s[j];
    if (c === '[' || c === '{') {
      const e = skipGroup(s, j);
      if (e < 0) return j;
      j = e;
    } else if (c === '-' && s[j + 1] === '>' && (s[j + 2] === '[' || s[j + 2] === '{')) {
      const e = skipGroup(s, j + 2);
      if (e < 0) return j;
      j = e;
    } else return j;
  }
}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f', b: '\b', a: '\x07', e: '\x1b', '0': '\0' };

/**
 * Splits the body of an interpolating string ("…", qq{…}, <<"EOS") into literal text (escapes
 * resolved as Perl does) and dynamic parts (each interpolated variable or expression).
 */
export function interpolatedParts(raw: string): SqlPart[] {
  const parts: SqlPart[] = [];
  let lit = '';
  const n = raw.length;
  for (let i = 0; i < n; i++) {
    const c = raw[i];
    if (c === '\\' && i + 1 < n) {
      const d = raw[++i];
      if (d in SIMPLE_ESCAPES && !(d === '0' && raw[i + 1] >= '0' && raw[i + 1] <= '7')) { lit += SIMPLE_ESCAPES[d]; continue; }
      if (d === 'x') {
        let hex: string;
        if (raw[i + 1] === '{') { const e = raw.indexOf('}', i + 2); hex = e < 0 ? '' : raw.slice(i + 2, e); i = e < 0 ? i : e; }
        else { const m = /^[0-9a-fA-F]{0,2}/.exec(raw.slice(i + 1, i + 3)); hex = m ? m[0] : ''; i += hex.length; }
        const code = parseInt(hex || '0', 16);
        lit += Number.isFinite(code) ? String.fromCodePoint(Math.min(code, 0x10ffff)) : '';
        continue;
      }
      if (d >= '0' && d <= '7') {
        const m = /^[0-7]{1,3}/.exec(raw.slice(i, i + 3)) as RegExpExecArray;
        lit += String.fromCharCode(parseInt(m[0], 8));
        i += m[0].length - 1;
        continue;
      }
      if ('lLuUQEF'.includes(d)) continue; // case and quoting modifiers change only interpolated text
      lit += d; // any other backslashed character stands for itself, the delimiters included
      continue;
    }
    if (c === '$' || c === '@') {
      const e = interpolationEnd(raw, i);
      if (e > i) {
        if (lit) { parts.push({ text: lit }); lit = ''; }
        parts.push({ dynamic: true });
        i = e - 1;
        continue;
      }
    }
    lit += c;
  }
  if (lit || parts.length === 0) parts.push({ text: lit });
  return parts;
}
