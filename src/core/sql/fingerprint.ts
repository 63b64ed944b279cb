/**
 * Query fingerprints: one normalization applied to statements from the slow log AND to SQL found
 * in source, so that a log entry maps to the site(s) that send it.
 *
 * Tokens come from the one SQL lexer (sqlLexer.ts). Rules (after pt-query-digest's documented fingerprinting, with the differences noted):
 * - comments are dropped (`/* … *\/`, `-- …`, `# …`); DYNAMIC_MARK is not a comment, see below;
 * - quoted strings ('…', "…", with doubled quotes and backslash escapes), numbers (integer,
 *   decimal, exponent, negative where the `-` is a sign, hex `0x…`, `X'…'`, `b'…'`) and NULL
 *   (except after IS / IS NOT) become `?`;
 * - placeholders of source SQL (`?`, `$1`, `:name`, `%s`, `%(name)s`) become `?`;
 * - `IN (?, ?, …)` of any length becomes `in(?+)`, and so does a list placeholder (pymysql's `IN %s`); every `VALUES (…), (…)` row list becomes
 *   `values(?+)`; `LIMIT ?, ?` and `LIMIT ? OFFSET ?` become `limit ?`; `ASC` is dropped;
 * - case is folded (outside literals), backquotes around identifiers are dropped, whitespace is
 *   collapsed and spacing around punctuation is canonical (`id=5` and `id = 5` are the same);
 * - a trailing `;` is dropped; `use db` becomes `use ?`.
 * Unlike pt-query-digest, digits inside identifiers are kept (`users_2009` ≠ `users_2010`), and a
 * string with doubled quotes is one literal (pt-query-digest splits those into several shapes).
 *
 * DYNAMIC_MARK (a part of source SQL known only at run time): in a value position (after an
 * operator, `(`, `,`, IN, VALUES, LIMIT …) it is a value and becomes `?`, so `IN (` + dynamic
 * placeholder list + `)` maps; anywhere else it becomes the token DYNAMIC_TOKEN, which the mapper
 * (src/core/logs/slowMapping.ts) treats as a wildcard.
 */
import { F_LIST, F_UNTERMINATED, SqlCursor, T_COMMENT, T_DYNAMIC, T_EOF, T_EXEC_COMMENT, T_NUMBER, T_OP, T_PLACEHOLDER, T_PUNCT, T_QIDENT, T_STRING, T_SYSVAR, T_USERVAR, T_WORD } from './sqlLexer';

/** Token that stands for a dynamic part outside a value position in a fingerprint. */
export const DYNAMIC_TOKEN = '{dynamic}';

const DYN_BYTES = Array.from(DYNAMIC_TOKEN, (c) => c.charCodeAt(0));

// Character classes of bytes.
const WORD = 1;      // identifier characters (letters, digits, _, $, non-ASCII)
const CLS = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || c >= 128) CLS[c] |= WORD;
  if (c >= 48 && c <= 57) CLS[c] |= WORD;
}

// Kinds of the last emitted token.
const K_NONE = 0;     // start of statement
const K_WORD = 1;     // identifier or keyword
const K_VALUE = 2;    // ? (a literal, placeholder or collapsed list)
const K_OPEN = 3;     // (
const K_CLOSE = 4;    // )
const K_COMMA = 5;    // ,
const K_OP = 6;       // operator
const K_DOT = 7;      // .
const K_OTHER = 8;    // ; and anything else

/** Reusable output state (one per process: fingerprinting is synchronous). */
let out = new Uint8Array(4096);
let outLen = 0;
let lastKind = K_NONE;
/** Start offset in `out` of the last word token, its length (for keyword checks). */
let lastWordStart = 0;
let lastWordLen = 0;
/** Open parentheses: their offsets in `out`, and the keyword before each (0 none, 1 in, 2 values). */
let parenPos = new Int32Array(64);
let parenKw = new Uint8Array(64);
let depth = 0;
/** Offset in `out` just after the last collapsed `values(?+)`, or -1. */
let valuesEnd = -1;
/** After `ON DUPLICATE KEY UPDATE`: `VALUES(col)` there is the function naming a column, not a row. */
let odku = false;
/** Set when any byte >= 0x80 was written (the key must then be decoded as UTF-8). */
let wide = false;
/** The statement's last token runs to its end unclosed (a string, quoted name or block comment). */
let endsOpen = false;

function lastWordIs(w: string): boolean {
  if (lastKind !== K_WORD || lastWordLen !== w.length) return false;
  for (let i = 0; i < lastWordLen; i++) if (out[lastWordStart + i] !== w.charCodeAt(i)) return false;
  return true;
}

function wordBefore(pos: number, w: string): boolean {
  // true when `out` holds the word `w` ending at pos (ignoring one space), preceded by a non-word byte
  let e = pos;
  if (e > 0 && out[e - 1] === 32) e--;
  const s = e - w.length;
  if (s < 0) return false;
  for (let i = 0; i < w.length; i++) if (out[s + i] !== w.charCodeAt(i)) return false;
  return s === 0 || (CLS[out[s - 1]] & WORD) === 0;
}

/** Writes the separator a token of kind `k` needs after the previous token. */
function sep(k: number): void {
  const p = lastKind;
  if (p === K_NONE || p === K_OPEN || p === K_DOT) return;
  if (k === K_CLOSE || k === K_COMMA || k === K_DOT || k === K_OTHER) return;
  if (k === K_OPEN && (p === K_WORD || p === K_CLOSE)) return;
  out[outLen++] = 32;
}

function emitValue(): void {
  // LIMIT ?, ? and LIMIT ? OFFSET ? keep a single `?`.
  if (lastKind === K_COMMA && depth === 0 && endsWith('limit ?,')) { outLen--; lastKind = K_VALUE; return; }
  if (lastKind === K_WORD && lastWordIs('offset') && endsWith('limit ? offset')) { outLen -= 7; lastKind = K_VALUE; return; }
  sep(K_VALUE);
  out[outLen++] = 63; // ?
  lastKind = K_VALUE;
}

function endsWith(s: string): boolean {
  const n = s.length;
  if (outLen < n) return false;
  for (let i = 0; i < n; i++) if (out[outLen - n + i] !== s.charCodeAt(i)) return false;
  return true;
}

function isValuePosition(): boolean {
  const k = lastKind;
  if (k === K_OP || k === K_OPEN || k === K_COMMA) return true;
  if (k !== K_WORD) return false;
  return lastWordIs('in') || lastWordIs('values') || lastWordIs('value') || lastWordIs('limit') || lastWordIs('offset')
    || lastWordIs('like') || lastWordIs('and') || lastWordIs('or') || lastWordIs('not') || lastWordIs('between')
    || lastWordIs('then') || lastWordIs('else') || lastWordIs('when') || lastWordIs('is') || lastWordIs('regexp')
    || lastWordIs('div') || lastWordIs('mod');
}

/** Closes a parenthesis, collapsing IN and VALUES lists. */
function closeParen(): void {
  if (depth === 0) { sep(K_CLOSE); out[outLen++] = 41; lastKind = K_CLOSE; return; }
  depth--;
  const open = parenPos[depth];
  const kw = parenKw[depth];
  if (kw !== 0) {
    // contents between open+1 and outLen: only `?` separated by `,` / `, ` ?
    let onlyValues = outLen > open + 1;
    for (let i = open + 1; i < outLen && onlyValues; i++) {
      const c = out[i];
      if (c !== 63 && c !== 44 && c !== 32 && c !== 43) onlyValues = false;
    }
    if (kw === 2 || onlyValues) {
      if (kw === 2 && valuesEnd > 0 && isRowAfterValues(open)) {
        outLen = valuesEnd;           // a further row of the same VALUES list
      } else {
        outLen = open;
        out[outLen++] = 40; out[outLen++] = 63; out[outLen++] = 43; out[outLen++] = 41; // (?+)
        if (kw === 2) valuesEnd = outLen;
      }
      lastKind = K_CLOSE;
      return;
    }
  }
  sep(K_CLOSE);
  out[outLen++] = 41;
  lastKind = K_CLOSE;
}

/** True when the `(` at `open` follows `values(?+),` directly. */
function isRowAfterValues(open: number): boolean {
  let i = open;
  if (i > 0 && out[i - 1] === 32) i--;
  return i - 1 === valuesEnd && out[i - 1] === 44;
}

/**
 * Fingerprints the statement in `bytes[start, end)` (UTF-8). Returns the normalized text.
 */
export function fingerprintBytes(b: Uint8Array, start: number, end: number): string {
  return fingerprintRaw(b, start, end, undefined) < 0 ? 'use ?' : decodeOut();
}

/**
 * The allocation-free form for hot paths: fingerprints into a shared buffer and returns its length
 * (read the bytes with `lastFingerprintBytes()` before the next call; UTF-8). Same result as
 * `fingerprintBytes`. With `before`, the statement's first part was fingerprinted already
 * (fingerprintPart) and `b[start, end)` is the rest of it.
 */
export function fingerprintInto(b: Uint8Array, start: number, end: number, before?: FingerprintPart): number {
  if (fingerprintRaw(b, start, end, before) < 0) {
    outLen = 0;
    for (const c of 'use ?') out[outLen++] = c.charCodeAt(0);
  }
  return outLen;
}

/**
 * The fingerprint of a statement's first part, to be continued: what a reader keeps of a statement
 * too long to hold whole (a bulk INSERT of a gigabyte), so that its fingerprint is the one of the
 * whole statement. Made by fingerprintPart at a `,` (see lastCommaEnd), where nothing that follows
 * changes how the part reads.
 */
export interface FingerprintPart {
  readonly bytes: Uint8Array;
  readonly lastKind: number;
  readonly lastWordStart: number;
  readonly lastWordLen: number;
  readonly parenPos: Int32Array;
  readonly parenKw: Uint8Array;
  readonly valuesEnd: number;
  readonly odku: boolean;
  readonly wide: boolean;
  /** Statement bytes read into it. */
  readonly inputBytes: number;
}

/** Open lists of only values longer than this are kept as their first value (they collapse to `(?+)` when they close). */
const OPEN_LIST_KEEP = 64;

/**
 * Fingerprints `b[start, end)`, the part of a statement after `before` (if any), and returns the
 * state to continue from. `end` must be the end of a `,` token (lastCommaEnd). An open `IN (` or
 * `VALUES (` list holding only values so far keeps only its first one, so a list of any length
 * costs the same few bytes (it becomes `(?+)` as before; should a later item not be a value, the
 * shown list is shorter than the statement's, which no fingerprint of such a list is stable under anyway).
 */
export function fingerprintPart(b: Uint8Array, start: number, end: number, before?: FingerprintPart): FingerprintPart {
  fingerprintRaw(b, start, end, before);
  if (depth > 0 && parenKw[depth - 1] !== 0 && lastKind === K_COMMA) {
    const open = parenPos[depth - 1];
    let onlyValues = outLen - open > OPEN_LIST_KEEP;
    for (let i = open + 1; i < outLen && onlyValues; i++) {
      const c = out[i];
      if (c !== 63 && c !== 44 && c !== 32 && c !== 43) onlyValues = false;
    }
    if (onlyValues) { outLen = open + 1; out[outLen++] = 63; out[outLen++] = 44; }
  }
  return {
    bytes: out.slice(0, outLen), lastKind, lastWordStart, lastWordLen, parenPos: parenPos.slice(0, depth), parenKw: parenKw.slice(0, depth),
    valuesEnd, odku, wide, inputBytes: (before?.inputBytes ?? 0) + end - start,
  };
}

/**
 * The end of the last `,` token of `b[start, end)` (a comma outside literals, quoted names and
 * comments), or -1: where a statement can be split for fingerprintPart.
 */
export function lastCommaEnd(b: Uint8Array, start: number, end: number): number {
  const c = scanCursor.reset(b, start, end);
  let at = -1;
  for (let k = c.next(); k !== T_EOF; k = c.next()) if (k === T_PUNCT && b[c.start] === 44) at = c.end;
  return at;
}

const scanCursor = new SqlCursor();

/** The shared buffer `fingerprintInto` wrote to (valid up to the returned length, until the next call). */
export function lastFingerprintBytes(): Uint8Array { return out; }

/**
 * Whether the statement last fingerprinted ends inside a string, a quoted name or a block comment
 * (its last token runs to the end unclosed). The slow-log reader asks this of a statement before a
 * header-looking line: the same answer as its incremental scan (slowQuoteScan.ts), from the reading
 * the fingerprint needs anyway.
 */
export function lastFingerprintOpen(): boolean { return endsOpen; }

/** Decodes fingerprint bytes (as returned by fingerprintInto) into the fingerprint string. */
export function decodeFingerprint(bytes: Uint8Array, length: number): string {
  for (let i = 0; i < length; i++) if (bytes[i] >= 128) return utf8.decode(bytes.subarray(0, length));
  let s = '';
  for (let i = 0; i < length; i += 4096) {
    s += String.fromCharCode.apply(null, bytes.subarray(i, Math.min(length, i + 4096)) as unknown as number[]);
  }
  return s;
}

const cur = new SqlCursor();
/** For the content of an executable comment (they do not nest). */
const inner = new SqlCursor();

/** Returns -1 for `use db`, else the output length. With `before`, continues from that part's state. */
function fingerprintRaw(b: Uint8Array, start: number, end: number, before: FingerprintPart | undefined): number {
  // why: the output is at most twice the input (a space per token) plus a few bytes, so one check
  // here replaces a bounds check per written byte.
  const cap = (before ? before.bytes.length : 0) + 2 * (end - start) + 64;
  if (out.length < cap) out = new Uint8Array(Math.max(cap, out.length * 2));
  if (before) {
    out.set(before.bytes, 0);
    outLen = before.bytes.length; lastKind = before.lastKind; lastWordStart = before.lastWordStart; lastWordLen = before.lastWordLen;
    depth = before.parenPos.length;
    if (parenPos.length < depth) { parenPos = new Int32Array(depth * 2); parenKw = new Uint8Array(depth * 2); }
    parenPos.set(before.parenPos, 0); parenKw.set(before.parenKw, 0);
    valuesEnd = before.valuesEnd; wide = before.wide; odku = before.odku;
  } else {
    outLen = 0; lastKind = K_NONE; depth = 0; valuesEnd = -1; wide = false; odku = false;
  }
  endsOpen = false;
  cur.reset(b, start, end);
  tokens(b, cur);
  if (!before && outLen > 4 && out[0] === 117 && out[1] === 115 && out[2] === 101 && out[3] === 32 && out.subarray(4, outLen).indexOf(32) < 0) {
    return -1;   // `use db`
  }
  return outLen;
}

/**
 * The start of the SQL inside an executable comment `/*!…*\/` (MySQL) or `/*M!…*\/` (MariaDB) at
 * b[s, e): after the `!` and the optional version number, which only says from which server
 * version on the server runs the content (it always does for the servers that log it).
 */
function execCommentBody(b: Uint8Array, s: number, e: number): number {
  let i = s + 2;
  if (b[i] === 77) i++; // M
  i++; // !
  let digits = 0;
  while (i < e && b[i] >= 48 && b[i] <= 57 && digits < 6) { i++; digits++; }
  return i;
}

/** Fingerprints every token of `c` into `out`. */
function tokens(b: Uint8Array, cu: SqlCursor): void {
  /** End offset of the last operator token: an operator right after it continues the same run (`=!`). */
  let opEnd = -1;
  for (let k = cu.next(); k !== T_EOF; k = cu.next()) {
    const s = cu.start;
    const e = cu.end;
    if (cu.flags & F_UNTERMINATED && cu !== inner) endsOpen = true;
    switch (k) {
      case T_COMMENT: continue;
      case T_EXEC_COMMENT: {
        // why: MySQL runs what an executable comment holds (`/*!40101 SET NAMES utf8 *\/`), so it is SQL.
        if (cu === inner) continue;
        const body = execCommentBody(b, s, e);
        const stop = e - s >= 4 && b[e - 1] === 47 && b[e - 2] === 42 ? e - 2 : e;
        if (body < stop) { inner.reset(b, body, stop); tokens(b, inner); }
        opEnd = -1;
        continue;
      }
      case T_STRING: case T_NUMBER: emitValue(); break;
      case T_PLACEHOLDER:
        // pymysql's `IN %s` (and `IN ?`, `IN :ids`): the driver sends a parenthesised list
        if (cu.flags & F_LIST) emitList(); else emitValue();
        break;
      case T_QIDENT: emitWord(b, s + 1, cu.flags & F_UNTERMINATED ? e : e - 1, true); break;
      case T_USERVAR: case T_SYSVAR: emitWord(b, s, e, true); break;
      case T_WORD: emitWord(b, s, e, false); break;
      case T_DYNAMIC:
        if (lastWordIs('in')) emitList(); // a whole dynamic `(…)` list after IN
        else if (isValuePosition()) emitValue();
        else emitDynamic();
        break;
      case T_OP: {
        const c = b[s];
        if (e === s + 1 && (c === 45 || c === 43)) {
          // a sign before a number is part of the literal when no operand precedes it
          const lk = lastKind;
          if (lk !== K_VALUE && lk !== K_CLOSE && !(lk === K_WORD && !isValuePosition()) && cu.numberFollows()) {
            if (cu.next() === T_NUMBER) { emitValue(); break; }
            emitOp(b, s, e, opEnd === s);            // `-2fa_codes`: a digits-first identifier
            emitWord(b, cu.start, cu.end, false);
            break;
          }
        }
        if (e === s + 1 && c === 58) { sep(K_OTHER); out[outLen++] = 58; lastKind = K_OTHER; break; } // label `:`
        emitOp(b, s, e, opEnd === s);
        opEnd = e;
        continue;
      }
      default: { // T_PUNCT
        const c = b[s];
        if (c === 40) openParen();
        else if (c === 41) closeParen();
        else if (c === 44) { sep(K_COMMA); out[outLen++] = 44; lastKind = K_COMMA; }
        else if (c === 46) { sep(K_DOT); out[outLen++] = 46; lastKind = K_DOT; }
        else if (c === 59 && cu.onlySpaceFollows()) break; // trailing semicolon
        else if (c === 64) emitWord(b, s, e, true);
        else { sep(K_OTHER); out[outLen++] = c; lastKind = K_OTHER; }
      }
    }
    opEnd = -1;
  }
}

/** Writes an operator; one that directly continues the previous operator joins it (`=!`, as written). */
function emitOp(b: Uint8Array, s: number, e: number, joined: boolean): void {
  if (!(joined && lastKind === K_OP)) sep(K_OP);
  const o = out;
  let w = outLen;
  for (let k = s; k < e; k++) o[w++] = b[k];
  outLen = w;
  lastKind = K_OP;
}

/** Writes a collapsed list `(?+)`. */
function emitList(): void {
  sep(K_OPEN);
  out[outLen++] = 40; out[outLen++] = 63; out[outLen++] = 43; out[outLen++] = 41;
  lastKind = K_CLOSE;
}

function openParen(): void {
  const kw = lastWordIs('in') ? 1 : odku ? 0 : (lastWordIs('values') || lastWordIs('value') || (lastKind === K_COMMA && valuesEnd > 0 && outLen === valuesEnd + 1)) ? 2 : 0;
  sep(K_OPEN);
  if (depth === parenPos.length) {
    const p = new Int32Array(depth * 2); p.set(parenPos); parenPos = p;
    const q = new Uint8Array(depth * 2); q.set(parenKw); parenKw = q;
  }
  parenPos[depth] = outLen;
  parenKw[depth] = kw;
  depth++;
  out[outLen++] = 40;
  lastKind = K_OPEN;
}

function decodeOut(): string {
  // why: String.fromCharCode.apply over small ASCII runs beats TextDecoder for short keys.
  return wide ? utf8.decode(out.subarray(0, outLen)) : decodeFingerprint(out, outLen);
}

const utf8 = new TextDecoder('utf-8');

function emitDynamic(): void {
  sep(K_WORD);
  for (const c of DYN_BYTES) out[outLen++] = c;
  lastWordStart = outLen - DYN_BYTES.length;
  lastWordLen = DYN_BYTES.length;
  lastKind = K_WORD;
}

function emitWord(b: Uint8Array, s: number, e: number, quoted: boolean): void {
  const n = e - s;
  if (!quoted) {
    // keywords handled specially: ASC dropped, NULL is a value except after IS / IS NOT
    if (n === 3 && (b[s] | 32) === 97 && (b[s + 1] | 32) === 115 && (b[s + 2] | 32) === 99) return;
    if (n === 4 && (b[s] | 32) === 110 && (b[s + 1] | 32) === 117 && (b[s + 2] | 32) === 108 && (b[s + 3] | 32) === 108) {
      if (!(lastWordIs('is') || (lastWordIs('not') && wordBefore(lastWordStart, 'is')))) { emitValue(); return; }
    }
  }
  sep(K_WORD);
  const start = outLen;
  // why: locals, not the module's `out` / `outLen`, in the loop: those live in the module's context
  // and were loaded and stored for every byte.
  const o = out;
  let w = start;
  let high = 0;
  for (let k = s; k < e; k++) {
    let c = b[k];
    if (c >= 65 && c <= 90) c += 32;
    high |= c;
    o[w++] = c;
  }
  outLen = w;
  if (high >= 128) wide = true;
  lastWordStart = start;
  lastWordLen = n;
  lastKind = K_WORD;
  if (!quoted && n === 6 && !odku && endsWith('duplicate key update')) odku = true;
}

const encoder = new TextEncoder();

/**
 * Fingerprints a statement given as text (source SQL with placeholders and DYNAMIC_MARK, or a
 * logged statement). The same function as the slow-log reader uses, so keys are comparable.
 */
export function fingerprint(sql: string): string {
  const bytes = encoder.encode(sql);
  return fingerprintBytes(bytes, 0, bytes.length);
}

/** True when a fingerprint carries a wildcard for a dynamic part. */
export function hasDynamicPart(fp: string): boolean {
  return fp.includes(DYNAMIC_TOKEN);
}
