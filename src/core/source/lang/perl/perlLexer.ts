/**
 * A single-pass lexer for Perl, enough to find string literals and the shape of the code
 * around them: words, variables, numbers, operators, strings (with their values) and opaque
 * terms (regexes, qw lists, readlines) whose contents must never be read as strings.
 *
 * Perl cannot be tokenised without guessing (is `/` a division or a regex?); like perl itself
 * the guess is made from the previous token: after a value an operator is expected, otherwise a term.
 */
import type { SqlPart } from '../../sqlText';
import { closerOf, findClose, interpolatedParts, singleQuotedValue } from './perlStrings';

export type TokKind = 'word' | 'var' | 'num' | 'op' | 'str' | 'opaque';

export interface Token {
  kind: TokKind;
  /** Offsets of the token in the source (for a heredoc: its `<<"EOS"` introducer). */
  start: number;
  end: number;
  /** Source text for words, variables, numbers and operators; the quote operator for strings (`'`, `"`, `q`, `qq`, `<<`). */
  text: string;
  /** Value of a string: literal runs and dynamic (interpolated) parts. */
  parts?: SqlPart[];
  /** Range of the literal as written (for a heredoc, its body); defaults to start/end. */
  litStart?: number;
  litEnd?: number;
  /** For strings: offset of the first character of the content, after the opening delimiter. */
  contentStart?: number;
  /** On `{` and `}`: true for a code block, false for a subscript / dereference / hash constructor after a value. */
  block?: boolean;
}

export interface LexError { offset: number; message: string }

export interface LexResult { tokens: Token[]; errors: LexError[] }

/** Words after which a term (not an operator) comes: `split /,/`, `return <<EOS`, `and /x/`. */
const TERM_WORDS = new Set([
  'and', 'or', 'not', 'xor', 'if', 'unless', 'while', 'until', 'elsif', 'foreach', 'for', 'return', 'split',
  'grep', 'map', 'join', 'push', 'unshift', 'print', 'printf', 'say', 'die', 'warn', 'x', 'lt', 'gt', 'le',
  'ge', 'eq', 'ne', 'cmp', 'my', 'our', 'local', 'keys', 'values', 'each', 'scalar', 'defined', 'ref', 'sort',
  'reverse', 'when', 'eval', 'do', 'exists', 'delete', 'wantarray', 'lc', 'uc', 'length', 'sprintf',
]);

const QUOTE_OPS = new Set(['q', 'qq', 'qw', 'qr', 'm', 's', 'tr', 'y']);

/** Delimiters accepted after whitespace (`qq {…}`, `m {…}x`); other characters there mean the word is a plain name. */
const SPACED_DELIMS = new Set(['{', '(', '[', '<', '/', '|', '!', '"', "'", '~']);

const OPS3 = new Set(['<=>', '**=', '||=', '&&=', '//=', '...', '<<=', '>>=']);
/** For each first character (by code), the second characters that may make a two-character operator. */
const OP2_SECOND: Record<number, string> = {};
/** Two-character prefixes of three-character operators. */
const OP3_THIRD = new Set(['<=', '||', '&&', '//', '<<', '>>']);

const OPS2 = new Set(['->', '=>', '==', '=~', '!~', '!=', '.=', '..', '&&', '||', '//', '**', '++', '--', '+=', '-=',
  '*=', '/=', '<=', '>=', '<<', '>>', '::', '|=', '&=', '^=', '%=', 'x=']);
for (const op of OPS2) OP2_SECOND[op.charCodeAt(0)] = (OP2_SECOND[op.charCodeAt(0)] ?? '') + op[1];

/** Special variables written `$` + one punctuation character (brackets, `;` and `,` left out on purpose: prototypes). */
const SPECIAL_VAR_CHARS = new Set(['&', '`', "'", '+', '!', '@', '/', '\\', '.', '0', '_', '"', '<', '>', '?', '^', '|', '-']);

function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}
function isIdentChar(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12;
}

interface PendingHeredoc { tok: Token; terminator: string; indented: boolean; interpolate: boolean }

/** Tokenises Perl source. Never throws: unterminated constructs become errors and end the token at the end of the text. */
export function lexPerl(text: string): LexResult {
  const n = text.length;
  const tokens: Token[] = [];
  const errors: LexError[] = [];
  const braces: boolean[] = [];
  let pending: PendingHeredoc[] = [];
  let pos = 0;

  const last = (): Token | undefined => tokens[tokens.length - 1];
  const push = (t: Token): Token => { tokens.push(t); return t; };

  function termExpected(): boolean {
    const p = last();
    if (!p) return true;
    switch (p.kind) {
      case 'word': return TERM_WORDS.has(p.text);
      case 'op': return p.text === '}' ? p.block === true : p.text !== ')' && p.text !== ']';
      default: return false;
    }
  }

  function skipName(j: number): number {
    for (;;) {
      while (j < n && isIdentChar(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) === 58 && text.charCodeAt(j + 1) === 58) { j += 2; continue; }
      return j;
    }
  }

  /** Reads the delimited run opening at `at`; returns the index of its closing delimiter, or n-1 after an error. */
  function delimited(at: number): number {
    const open = text[at];
    const e = findClose(text, at + 1, open, closerOf(open));
    if (e < 0) { errors.push({ offset: at, message: `unterminated string or regex starting with ${open}` }); return n - 1; }
    return e;
  }

  function skipSpaceAndComments(j: number): number {
    for (;;) {
      while (j < n && isSpace(text.charCodeAt(j))) j++;
      if (text[j] === '#') { while (j < n && text[j] !== '\n') j++; continue; }
      return j;
    }
  }

  /** A quote-like operator (`q`, `qq`, `qw`, `m`, `qr`, `s`, `tr`, `y`) at `start`, the word ending at `wordEnd`; false when the word is a plain name. */
  function quoteLike(word: string, start: number, wordEnd: number): boolean {
    const p = last();
    if (p && ((p.kind === 'op' && p.text === '->') || (p.kind === 'word' && p.text === 'sub'))) return false;
    if (text[start - 1] === '-' || text[start - 1] === '$' || text[start - 1] === '@' || text[start - 1] === '%' || text[start - 1] === '&') return false;
    let j = wordEnd;
    while (j < n && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++;
    const d = text[j];
    if (d === undefined || isIdentChar(text.charCodeAt(j)) || isSpace(text.charCodeAt(j))) return false;
    if (j > wordEnd && !SPACED_DELIMS.has(d)) return false;
    if (d === '=' && (text[j + 1] === '>' || text[j + 1] === '=')) return false;
    if (d === ',' || d === ';' || d === ')' || d === ']' || d === '}' || d === '>') return false;
    const close1 = delimited(j);
    if (word === 's' || word === 'tr' || word === 'y') {
      let k = close1;
      if (closerOf(d) !== d) {
        const j2 = skipSpaceAndComments(close1 + 1);
        if (j2 >= n) { errors.push({ offset: start, message: `unterminated ${word}` }); k = n - 1; }
        else k = delimited(j2);
      } else if (close1 < n - 1) {
        k = findClose(text, close1 + 1, d, d);
        if (k < 0) { errors.push({ offset: start, message: `unterminated ${word}` }); k = n - 1; }
      }
      pos = k + 1;
    } else pos = close1 + 1;
    if (word !== 'q' && word !== 'qq' && word !== 'qw') while (pos < n && isIdentStart(text.charCodeAt(pos))) pos++; // modifiers
    if (word === 'q' || word === 'qq') {
      const raw = text.slice(j + 1, close1);
      const close = closerOf(d);
      const parts = word === 'q' || d === "'" ? [{ text: singleQuotedValue(raw, d, close) }] : interpolatedParts(raw);
      push({ kind: 'str', start, end: pos, text: word, parts, contentStart: j + 1 });
    } else push({ kind: 'opaque', start, end: pos, text: word });
    return true;
  }

  /** `<<"EOS"`, `<<'EOS'`, `<<EOS`, `<<~EOS`, `<<\EOS` at `pos`; false when `<<` is a shift. */
  function heredoc(): boolean {
    let j = pos + 2;
    const indented = text[j] === '~';
    if (indented) j++;
    let terminator: string;
    let interpolate = true;
    if (isIdentStart(text.charCodeAt(j))) {
      const e = skipName(j);
      terminator = text.slice(j, e);
      j = e;
    } else if (text[j] === '\\' && isIdentStart(text.charCodeAt(j + 1))) {
      const e = skipName(j + 1);
      terminator = text.slice(j + 1, e);
      interpolate = false;
      j = e;
    } else {
      while (text[j] === ' ' || text[j] === '\t') j++;
      const q = text[j];
      if (q !== '"' && q !== "'") return false;
      const e = text.indexOf(q, j + 1);
      if (e < 0 || text.slice(j + 1, e).includes('\n')) return false;
      terminator = text.slice(j + 1, e);
      interpolate = q === '"';
      j = e + 1;
    }
    const tok = push({ kind: 'str', start: pos, end: j, text: '<<', parts: [{ text: '' }] });
    pending.push({ tok, terminator, indented, interpolate });
    pos = j;
    return true;
  }

  /** Reads the bodies of the heredocs introduced on the line that ends at `pos` (just after its newline). */
  function readHeredocBodies(): void {
    for (const h of pending) {
      const bodyStart = pos;
      const lines: string[] = [];
      let found = false;
      while (pos < n) {
        let e = text.indexOf('\n', pos);
        if (e < 0) e = n;
        const line = text.slice(pos, e).replace(/\r$/, '');
        const lineStart = pos;
        pos = e < n ? e + 1 : n;
        if ((h.indented ? line.trimStart() : line) === h.terminator) {
          found = true;
          const indent = h.indented ? line.slice(0, line.length - line.trimStart().length) : '';
          const body = lines.map((l) => (indent && l.startsWith(indent) ? l.slice(indent.length) : h.indented ? l.trimStart() : l) + '\n').join('');
          h.tok.parts = h.interpolate ? interpolatedParts(body) : [{ text: body }];
          h.tok.litStart = bodyStart;
          h.tok.contentStart = bodyStart;
          h.tok.litEnd = lineStart;
          break;
        }
        lines.push(line);
      }
      if (!found) {
        errors.push({ offset: h.tok.start, message: 'heredoc terminator not found' });
        const body = lines.map((l) => l + '\n').join('');
        h.tok.parts = h.interpolate ? interpolatedParts(body) : [{ text: body }];
        h.tok.litStart = bodyStart;
        h.tok.contentStart = bodyStart;
        h.tok.litEnd = n;
      }
    }
    pending = [];
  }

  function variable(): void {
    const start = pos;
    const sigil = text[pos];
    let j = pos + 1;
    if (sigil === '$' && text[j] === '#') {
      const c = text.charCodeAt(j + 1);
      if (c === 123 || c === 36 || isIdentStart(c)) j++;
      else { pos = j + 1; push({ kind: 'var', start, end: pos, text: '$#' }); return; }
    }
    while (text[j] === '$') j++;
    const c = text.charCodeAt(j);
    if (isIdentStart(c) || (c === 58 && text.charCodeAt(j + 1) === 58)) j = skipName(j);
    else if (c === 123) { /* ${ … } / @{ … }: the brace follows as its own token */ }
    else if (sigil === '$' && j === start + 1 && c === 94 /* ^ */ && isIdentStart(text.charCodeAt(j + 1))) j += 2;
    else if (sigil === '$' && j === start + 1 && isDigit(c)) { while (isDigit(text.charCodeAt(j))) j++; }
    else if (sigil === '$' && j === start + 1 && SPECIAL_VAR_CHARS.has(text[j])) j++;
    else if (sigil === '@' && j === start + 1 && (text[j] === '-' || text[j] === '+')) j++;
    pos = j;
    push({ kind: 'var', start, end: pos, text: text.slice(start, pos) });
  }

  function number(): void {
    const start = pos;
    if (text[pos] === '0' && (text[pos + 1] === 'x' || text[pos + 1] === 'X' || text[pos + 1] === 'b' || text[pos + 1] === 'B')) {
      pos += 2;
      while (pos < n && (isIdentChar(text.charCodeAt(pos)))) pos++;
    } else {
      while (pos < n && (isDigit(text.charCodeAt(pos)) || text[pos] === '_')) pos++;
      if (text[pos] === '.' && isDigit(text.charCodeAt(pos + 1))) { pos++; while (pos < n && (isDigit(text.charCodeAt(pos)) || text[pos] === '_')) pos++; }
      if ((text[pos] === 'e' || text[pos] === 'E') && (isDigit(text.charCodeAt(pos + 1)) || ((text[pos + 1] === '-' || text[pos + 1] === '+') && isDigit(text.charCodeAt(pos + 2))))) {
        pos += 2;
        while (pos < n && isDigit(text.charCodeAt(pos))) pos++;
      }
    }
    push({ kind: 'num', start, end: pos, text: text.slice(start, pos) });
  }

  function quoted(q: string): void {
    const start = pos;
    const e = delimited(pos);
    const raw = text.slice(pos + 1, e);
    pos = e + 1;
    if (q === '`') { push({ kind: 'opaque', start, end: pos, text: q }); return; }
    const parts = q === "'" ? [{ text: singleQuotedValue(raw, q, q) }] : interpolatedParts(raw);
    push({ kind: 'str', start, end: pos, text: q, parts, contentStart: start + 1 });
  }

  function podAllowed(): boolean {
    const p = last();
    return !p || (p.kind === 'op' && (p.text === ';' || p.text === '}' || p.text === '{'));
  }

  function skipPod(): void {
    let i = pos;
    for (;;) {
      const e = text.indexOf('\n=cut', i);
      if (e < 0) { pos = n; return; }
      if (!isIdentChar(text.charCodeAt(e + 5))) {
        const nl = text.indexOf('\n', e + 1);
        pos = nl < 0 ? n : nl;
        return;
      }
      i = e + 1;
    }
  }

  function operator(): void {
    const start = pos;
    // why: slicing and hashing a candidate at every operator dominated the profile; the first two characters decide.
    const c1 = text.charCodeAt(pos + 1);
    let op = text[pos];
    if (OP2_SECOND[text.charCodeAt(pos)]?.includes(text[pos + 1] ?? ' ') && c1 > 32) {
      const two = text.slice(pos, pos + 2);
      if (OPS2.has(two)) op = two;
      if (OP3_THIRD.has(two) && OPS3.has(two + (text[pos + 2] ?? ''))) op = text.slice(pos, pos + 3);
      else if (two === '..' && text[pos + 2] === '.') op = '...';
      else if (two === '**' && text[pos + 2] === '=') op = '**=';
    }
    pos += op.length;
    const t: Token = { kind: 'op', start, end: pos, text: op };
    if (op === '{') {
      const p = last();
      t.block = !(p && (p.kind === 'var' || (p.kind === 'op' && (p.text === '->' || p.text === ']' || (p.text === '}' && p.block === false)))));
      braces.push(t.block);
    } else if (op === '}') t.block = braces.length ? braces.pop() : true;
    push(t);
  }

  while (pos < n) {
    const c = text.charCodeAt(pos);
    if (c === 10) {
      pos++;
      if (pending.length) readHeredocBodies();
      continue;
    }
    if (isSpace(c)) { pos++; continue; }
    if (c === 35 /* # */) {
      const e = text.indexOf('\n', pos);
      pos = e < 0 ? n : e;
      continue;
    }
    if (c === 61 /* = */ && (pos === 0 || text.charCodeAt(pos - 1) === 10) && isIdentStart(text.charCodeAt(pos + 1)) && podAllowed()) {
      skipPod();
      continue;
    }
    if (isDigit(c) || (c === 46 && isDigit(text.charCodeAt(pos + 1)) && termExpected())) { number(); continue; }
    if (isIdentStart(c)) {
      const start = pos;
      const e = skipName(pos);
      const word = text.slice(start, e);
      if (c === 95 && (word === '__END__' || word === '__DATA__')) break;
      if (e - start <= 2 && QUOTE_OPS.has(word) && quoteLike(word, start, e)) continue;
      pos = e;
      push({ kind: 'word', start, end: e, text: word });
      continue;
    }
    if (c === 36 /* $ */ || c === 64 /* @ */) { variable(); continue; }
    if (c === 37 /* % */ && termExpected()) {
      const d = text.charCodeAt(pos + 1);
      if (isIdentStart(d) || d === 123 || d === 36 || d === 58 || d === 43 || d === 45 || d === 94) { variable(); continue; }
    }
    if (c === 34 || c === 39 || c === 96) { quoted(text[pos]); continue; }
    if (c === 47 /* / */ && termExpected()) {
      const start = pos;
      pos = delimited(pos) + 1;
      while (pos < n && isIdentStart(text.charCodeAt(pos))) pos++;
      push({ kind: 'opaque', start, end: pos, text: '/' });
      continue;
    }
    if (c === 60 /* < */) {
      if (text.charCodeAt(pos + 1) === 60 && (termExpected() || (last()?.kind === 'word' && !isSpace(text.charCodeAt(pos + 2)))) && heredoc()) continue;
      if (termExpected()) {
        const m = /^<\$?[\w:]*>/.exec(text.slice(pos, pos + 80));
        if (m) { push({ kind: 'opaque', start: pos, end: pos + m[0].length, text: '<>' }); pos += m[0].length; continue; }
      }
    }
    operator();
  }
  if (pending.length) readHeredocBodies();
  return { tokens, errors };
}
