/**
 * The one SQL lexer of the engine. Every reader of SQL text (fingerprints, placeholder filling,
 * the query model, SQL recognition in source, N+1 advice, schema files) splits text into tokens
 * here, so they agree on what a quote, a comment, a placeholder or a user variable is.
 *
 * It reads code units (UTF-8 bytes from a log, or UTF-16 units of a string): everything with a
 * syntactic meaning is ASCII, and every unit >= 0x80 is part of an identifier. One pass, no
 * backtracking: each unit is looked at a bounded number of times, offsets are those of the input.
 *
 * MySQL / MariaDB lexical rules followed:
 * - strings '…' and "…" with doubled quotes and backslash escapes; X'…', B'…', N'…' literals;
 * - `identifiers` with doubled backquotes (no escapes inside);
 * - comments `-- ` (the dashes must be followed by a space, a control character or the end),
 *   `# …` and `/* … *\/`; `/*! … *\/` (executed by MySQL) is its own kind; DYNAMIC_MARK is a token;
 * - numbers (decimal, exponent, 0x…, 0b…, `.5`), identifiers that start with digits (`2fa_codes`);
 * - operators with `:=`, `<=>`, `->>`, `::` as one token; `@name` user and `@@name` system variables.
 * Driver placeholders of every language: `?`, `$1`, `:name` (not `::` casts, not `:=`), `%s`, `%d`,
 * `%f`, `%b`, `%(name)s` (not after an operand, where `%` is the modulo operator). A placeholder
 * right after IN (pymysql's `IN %s`, `IN :ids`) is flagged as a list: the driver sends `(v1, v2)`.
 */
import { DYNAMIC_MARK } from '../model';

/** UTF-8 bytes or UTF-16 code units. */
export type CodeUnits = Uint8Array | Uint16Array;

// Token kinds (numbers, for the allocation-free cursor).
export const T_EOF = 0;
/** Identifier or keyword (also digits-first identifiers). */
export const T_WORD = 1;
/** Backquoted identifier. */
export const T_QIDENT = 2;
/** '…', "…", X'…', B'…', N'…'. */
export const T_STRING = 3;
export const T_NUMBER = 4;
/** A driver placeholder; flag F_LIST when the driver expands it to a list. */
export const T_PLACEHOLDER = 5;
/** `@name`, `@'name'`, `` @`name` ``. */
export const T_USERVAR = 6;
/** `@@name`, `@@session.name`. */
export const T_SYSVAR = 7;
export const T_OP = 8;
/** `(`, `)`, `,`, `.`, `;` and any other single unit. */
export const T_PUNCT = 9;
export const T_COMMENT = 10;
/** `/*! … *\/`: MySQL executes its content. */
export const T_EXEC_COMMENT = 11;
/** DYNAMIC_MARK: a part of source SQL known only at run time. */
export const T_DYNAMIC = 12;

/** Flag: a placeholder (or dynamic part) right after IN, which the driver expands to `(v1, v2, …)`. */
export const F_LIST = 1;
/** Flag: a string, identifier or comment that runs to the end without its closing mark. */
export const F_UNTERMINATED = 2;

const WORD = 1;
const SPACE = 2;
const DIGIT = 4;
const OPCHAR = 8;
const CLS = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || c >= 128) CLS[c] |= WORD;
  if (c >= 48 && c <= 57) CLS[c] |= WORD | DIGIT;
  if (c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11) CLS[c] |= SPACE;
}
for (const ch of '=<>!|&^~+-*/%:') CLS[ch.charCodeAt(0)] |= OPCHAR;

/** Class of a code unit (units >= 256 are identifier characters). */
function cls(c: number): number { return c < 256 ? CLS[c] : WORD; }

/** True when `c` may appear in an unquoted identifier. */
export function isWordUnit(c: number): boolean { return c >= 256 || (CLS[c] & WORD) !== 0; }

const MARK = Array.from(DYNAMIC_MARK, (c) => c.charCodeAt(0));

/** Words after which a value comes: there `%s` is a placeholder, elsewhere `%` may be modulo. */
const VALUE_BEFORE = new Set([
  'select', 'where', 'and', 'or', 'not', 'xor', 'in', 'is', 'like', 'between', 'then', 'else', 'when', 'case', 'limit',
  'offset', 'values', 'value', 'set', 'on', 'by', 'having', 'div', 'mod', 'regexp', 'rlike', 'escape', 'interval',
  'return', 'distinct', 'all', 'any', 'some', 'exists', 'from', 'into', 'join', 'update', 'using', 'against', 'sounds',
]);

/**
 * An allocation-free cursor over the tokens of `buf[start, end)`. Call `next()` until it returns
 * T_EOF; after each call `kind`, `start`, `end` and `flags` describe the token. Whitespace is not
 * a token; comments are (skip them when they do not matter).
 */
export class SqlCursor {
  buf: CodeUnits = new Uint8Array(0);
  pos = 0;
  limit = 0;
  kind = T_EOF;
  start = 0;
  end = 0;
  flags = 0;
  /** The last token that is not a comment: kind and offsets (its operand-ness is derived on demand). */
  private prevKind = T_EOF;
  private prevStart = 0;
  private prevEnd = 0;

  /** Starts reading `buf[start, end)`. */
  reset(buf: CodeUnits, start = 0, end = buf.length): this {
    this.buf = buf; this.pos = start; this.limit = end;
    this.kind = T_EOF; this.start = start; this.end = start; this.flags = 0;
    this.prevKind = T_EOF; this.prevStart = start; this.prevEnd = start;
    return this;
  }

  /** True when the current token's text equals `lower` (ASCII, case-insensitive). */
  is(lower: string): boolean {
    const n = this.end - this.start;
    if (n !== lower.length) return false;
    const b = this.buf;
    for (let k = 0; k < n; k++) {
      let c = b[this.start + k];
      if (c >= 65 && c <= 90) c += 32;
      if (c !== lower.charCodeAt(k)) return false;
    }
    return true;
  }

  /** Reads the next token; returns its kind (T_EOF at the end). */
  next(): number {
    const b = this.buf;
    const end = this.limit;
    let i = this.pos;
    while (i < end && b[i] < 256 && CLS[b[i]] & SPACE) i++;
    // why: the most common tokens (a plain word, not X'…' nor $1; `(`, `)`, `,`) are read here, in
    // a method small enough for the caller's loop to inline; the rest in nextToken().
    if (i < end) {
      const c = b[i];
      if (c < 128 && (CLS[c] & (WORD | DIGIT)) === WORD && c !== 36 && !(i + 1 < end && b[i + 1] === 39)) {
        let j = i + 1;
        while (j < end && cls(b[j]) & WORD) j++;
        return this.plain(T_WORD, i, j);
      }
      if (c === 40 || c === 41 || c === 44) return this.plain(T_PUNCT, i, i + 1);
    }
    return this.nextToken(i);
  }

  /** Ends next() on a token that is no placeholder nor comment: b[i, j). */
  private plain(kind: number, i: number, j: number): number {
    this.start = i; this.pos = j; this.end = j; this.flags = 0;
    this.prevKind = kind; this.prevStart = i; this.prevEnd = j;
    return this.kind = kind;
  }

  /** next() from `i`, after whitespace, for any token. */
  private nextToken(i: number): number {
    const b = this.buf;
    const end = this.limit;
    this.start = i;
    this.flags = 0;
    if (i >= end) { this.pos = end; this.end = end; return this.kind = T_EOF; }
    const c = b[i];
    const c1 = i + 1 < end ? b[i + 1] : -1;
    let kind: number;
    let j: number;
    // a plain word (not X'…', not $1)
    if (c < 128 && (CLS[c] & (WORD | DIGIT)) === WORD && c1 !== 39 && c !== 36) {
      j = i + 1;
      while (j < end && cls(b[j]) & WORD) j++;
      kind = T_WORD;
    } else if (c === 39 || c === 34) { j = this.quoted(i, c, true); kind = T_STRING; }
    else if (c === 96) { j = this.quoted(i, 96, false); kind = T_QIDENT; }
    else if (c === 47 && c1 === 42) {                                   // /* … */
      if (matchesAt(b, i, end, MARK)) { j = i + MARK.length; kind = T_DYNAMIC; }
      else {
        // why: `/*!…*/` (MySQL) and `/*M!…*/` (MariaDB) hold SQL the server runs.
        kind = i + 2 < end && (b[i + 2] === 33 || (b[i + 2] === 77 && i + 3 < end && b[i + 3] === 33)) ? T_EXEC_COMMENT : T_COMMENT;
        j = i + 2;
        while (j + 1 < end && !(b[j] === 42 && b[j + 1] === 47)) j++;
        if (j + 1 < end) j += 2; else { j = end; this.flags = F_UNTERMINATED; }
      }
    } else if (c === 35 || (c === 45 && c1 === 45 && (i + 2 >= end || cls(b[i + 2]) & SPACE || b[i + 2] < 32))) { // # …, -- …
      j = i + 1;
      while (j < end && b[j] !== 10) j++;
      kind = T_COMMENT;
    } else if (c === 63) { j = i + 1; kind = T_PLACEHOLDER; }             // ?
    else if (cls(c) & DIGIT || (c === 46 && c1 >= 48 && c1 <= 57 && !this.afterOperand())) {
      j = skipNumber(b, i, end);
      kind = T_NUMBER;
      if (c !== 46 && j < end && cls(b[j]) & WORD) {                       // 2fa_codes
        while (j < end && cls(b[j]) & WORD) j++;
        kind = T_WORD;
      }
    } else if (cls(c) & WORD) {
      if ((c === 120 || c === 88 || c === 98 || c === 66 || c === 110 || c === 78) && c1 === 39) { // X'…', B'…', N'…'
        j = this.quoted(i + 1, 39, true); kind = T_STRING;
      } else {
        j = i + 1;
        while (j < end && cls(b[j]) & WORD) j++;
        kind = T_WORD;
        if (c === 36 && j > i + 1) {                                       // $1
          let k = i + 1;
          while (k < j && b[k] >= 48 && b[k] <= 57) k++;
          if (k === j) kind = T_PLACEHOLDER;
        }
      }
    } else if (c === 64) {                                                 // @var, @@sys.var
      if (c1 === 64) {
        j = i + 2;
        while (j < end && (cls(b[j]) & WORD || (b[j] === 46 && j + 1 < end && cls(b[j + 1]) & WORD))) j++;
        kind = T_SYSVAR;
      } else if (c1 === 39 || c1 === 34 || c1 === 96) { j = this.quoted(i + 1, c1, c1 !== 96); kind = T_USERVAR; }
      else if (c1 >= 0 && cls(c1) & WORD) {
        j = i + 1;
        while (j < end && (cls(b[j]) & WORD || b[j] === 46)) j++;
        kind = T_USERVAR;
      } else { j = i + 1; kind = T_PUNCT; }
    } else if (c === 58 && c1 >= 0 && cls(c1) & WORD && !(cls(c1) & DIGIT) && c1 !== 36
      && !(i > 0 && (b[i - 1] === 58 || cls(b[i - 1]) & WORD))) {        // :name
      j = i + 1;
      while (j < end && cls(b[j]) & WORD) j++;
      kind = T_PLACEHOLDER;
    } else if (c === 37 && !this.afterOperand() && (j = percentPlaceholder(b, i, end)) > 0) {
      kind = T_PLACEHOLDER;                                              // %s, %(name)s
    } else if (cls(c) & OPCHAR) { j = operatorEnd(b, i, end); kind = T_OP; }
    else { j = i + 1; kind = T_PUNCT; }
    this.pos = j;
    this.end = j;
    if ((kind === T_PLACEHOLDER || kind === T_DYNAMIC) && this.afterIn()) this.flags |= F_LIST;
    if (kind !== T_COMMENT && kind !== T_EXEC_COMMENT) { this.prevKind = kind; this.prevStart = i; this.prevEnd = j; }
    return this.kind = kind;
  }

  /** True when, after whitespace, a number starts at the read position (a sign may belong to it). */
  numberFollows(): boolean {
    const b = this.buf;
    const end = this.limit;
    let j = this.pos;
    while (j < end && b[j] < 256 && CLS[b[j]] & SPACE) j++;
    if (j >= end) return false;
    const c = b[j];
    return (c >= 48 && c <= 57) || (c === 46 && j + 1 < end && b[j + 1] >= 48 && b[j + 1] <= 57);
  }

  /** True when nothing but whitespace remains after the current token. */
  onlySpaceFollows(): boolean {
    const b = this.buf;
    let j = this.pos;
    while (j < this.limit && b[j] < 256 && CLS[b[j]] & SPACE) j++;
    return j >= this.limit;
  }

  /** True when the previous token is the word IN. */
  private afterIn(): boolean {
    if (this.prevKind !== T_WORD || this.prevEnd - this.prevStart !== 2) return false;
    const b = this.buf;
    return (b[this.prevStart] | 32) === 105 && (b[this.prevStart + 1] | 32) === 110;
  }

  /** True when the previous token is an operand (a value, an identifier, `)`): a `%` there is modulo. */
  private afterOperand(): boolean {
    const k = this.prevKind;
    if (k === T_EOF || k === T_OP || k === T_DYNAMIC) return false;
    if (k === T_PUNCT) return this.buf[this.prevStart] === 41;
    if (k !== T_WORD || this.prevEnd - this.prevStart > 12) return true;
    let s = '';
    for (let p = this.prevStart; p < this.prevEnd; p++) {
      const c = this.buf[p];
      s += String.fromCharCode(c >= 65 && c <= 90 ? c + 32 : c);
    }
    return !VALUE_BEFORE.has(s);
  }

  /** End of the quoted run opening at `i` (after its closing quote), or the limit (flagged). */
  private quoted(i: number, q: number, escapes: boolean): number {
    const b = this.buf;
    const end = this.limit;
    let j = i + 1;
    // short literals: a plain loop beats the call into indexOf
    const near = Math.min(end, j + 48);
    for (; j < near; j++) {
      const c = b[j];
      if (c === 92 && escapes) { j++; continue; }
      if (c === q) {
        if (j + 1 < end && b[j + 1] === q) { j++; continue; }
        return j + 1;
      }
    }
    if (j >= end) { this.flags = F_UNTERMINATED; return end; }
    for (;;) {
      // why: indexOf is a native scan; long literals (hex blobs, JSON) dominate otherwise.
      const k = b.indexOf(q, j);
      if (k < 0 || k >= end) { this.flags = F_UNTERMINATED; return end; }
      let bs = 0;                                   // backslashes right before the quote
      if (escapes) while (k - bs - 1 >= j && b[k - bs - 1] === 92) bs++;
      if (bs & 1) { j = k + 1; continue; }          // escaped quote
      if (k + 1 < end && b[k + 1] === q) { j = k + 2; continue; } // doubled quote
      return k + 1;
    }
  }
}

function matchesAt(b: CodeUnits, i: number, end: number, pat: number[]): boolean {
  if (i + pat.length > end) return false;
  for (let k = 0; k < pat.length; k++) if (b[i + k] !== pat[k]) return false;
  return true;
}

function skipNumber(b: CodeUnits, i: number, end: number): number {
  let j = i;
  if (b[j] === 48 && j + 1 < end && (b[j + 1] === 120 || b[j + 1] === 88 || b[j + 1] === 98 || b[j + 1] === 66)) {
    j += 2;
    while (j < end && cls(b[j]) & WORD) j++;       // 0x1F, 0b101
    return j;
  }
  while (j < end && b[j] >= 48 && b[j] <= 57) j++;
  if (j < end && b[j] === 46) { j++; while (j < end && b[j] >= 48 && b[j] <= 57) j++; }
  if (j < end && (b[j] === 101 || b[j] === 69)) {
    let k = j + 1;
    if (k < end && (b[k] === 43 || b[k] === 45)) k++;
    if (k < end && b[k] >= 48 && b[k] <= 57) { j = k; while (j < end && b[j] >= 48 && b[j] <= 57) j++; }
  }
  return j;
}

/** End of `%s` / `%d` / `%f` / `%b` / `%(name)s` at `i`, or -1. */
function percentPlaceholder(b: CodeUnits, i: number, end: number): number {
  const n = i + 1 < end ? b[i + 1] : -1;
  let j: number;
  if (n === 40) {                                            // %(name)s
    j = i + 2;
    if (j >= end || !(cls(b[j]) & WORD)) return -1;
    while (j < end && cls(b[j]) & WORD) j++;
    if (j + 1 >= end || b[j] !== 41) return -1;
    j++;
  } else j = i + 1;
  const t = j < end ? b[j] : -1;
  if (t !== 115 && t !== 100 && t !== 102 && t !== 98) return -1;
  if (j + 1 < end && cls(b[j + 1]) & WORD) return -1;       // `%sum` is not a placeholder
  return j + 1;
}

/** End of the operator at `i`: `<=>`, `->>` and the two-unit operators are one token. */
function operatorEnd(b: CodeUnits, i: number, end: number): number {
  if (i + 1 >= end) return i + 1;
  const c = b[i];
  const d = b[i + 1];
  switch (c) {
    case 60: // <
      if (d === 61) return i + 2 < end && b[i + 2] === 62 ? i + 3 : i + 2; // <=, <=>
      return d === 62 || d === 60 ? i + 2 : i + 1;                          // <>, <<
    case 62: return d === 61 || d === 62 ? i + 2 : i + 1;                   // >=, >>
    case 33: return d === 61 ? i + 2 : i + 1;                               // !=
    case 58: return d === 61 || d === 58 ? i + 2 : i + 1;                   // :=, ::
    case 124: return d === 124 ? i + 2 : i + 1;                             // ||
    case 38: return d === 38 ? i + 2 : i + 1;                               // &&
    case 45:
      if (d === 62) return i + 2 < end && b[i + 2] === 62 ? i + 3 : i + 2;  // ->, ->>
      return i + 1;
    default: return i + 1;
  }
}

/** Token kinds by name, for the array form. */
export type SqlTokenKind = 'word' | 'qident' | 'string' | 'number' | 'placeholder' | 'uservar' | 'sysvar' | 'op' | 'punct'
  | 'comment' | 'exec-comment' | 'dynamic';

const KIND_NAMES: SqlTokenKind[] = ['word', 'word', 'qident', 'string', 'number', 'placeholder', 'uservar', 'sysvar', 'op', 'punct',
  'comment', 'exec-comment', 'dynamic'];

/** Name of a numeric token kind. */
export function kindName(kind: number): SqlTokenKind { return KIND_NAMES[kind]; }

export interface SqlToken {
  kind: SqlTokenKind;
  text: string;
  /** Offsets into the string (UTF-16 units). */
  start: number;
  end: number;
  /** A placeholder the driver expands to a list (`IN %s`). */
  list?: boolean;
  /** A string, identifier or comment without its closing mark. */
  unterminated?: boolean;
}

/** Recent conversions: callers often read one text many times, sometimes alternating with a part of it. */
const slots: { text: string | undefined; units: Uint16Array }[] = Array.from({ length: 4 }, () => ({ text: undefined, units: new Uint16Array(256) }));

/**
 * The UTF-16 code units of `text`, in a buffer at least that long (read it up to `text.length`).
 * why: four reused buffers, not one allocation per call: a scan asks this of every string literal,
 * and typed-array backing stores are costly to allocate and free.
 */
export function unitsOf(text: string): Uint16Array {
  for (let k = 0; k < slots.length; k++) {
    if (slots[k].text === text) {
      if (k > 0) { const hit = slots[k]; slots.splice(k, 1); slots.unshift(hit); }
      return slots[0].units;
    }
  }
  const slot = slots.pop()!;
  if (slot.units.length < text.length) slot.units = new Uint16Array(Math.max(text.length, slot.units.length * 2));
  const u = slot.units;
  for (let k = 0; k < text.length; k++) u[k] = text.charCodeAt(k);
  slot.text = text;
  slots.unshift(slot);
  return u;
}

const shared = new SqlCursor();

/** A cursor over `text[start, end)` (shared: finish with it before the next call). */
export function cursorOf(text: string, start = 0, end = text.length): SqlCursor {
  return shared.reset(unitsOf(text), start, Math.min(end, text.length));
}

/**
 * Splits `sql` into tokens with their offsets. Comments are left out unless `comments` is set
 * (`/*! … *\/` and DYNAMIC_MARK are always kept).
 */
export function lexSql(sql: string, opts: { comments?: boolean } = {}): SqlToken[] {
  const out: SqlToken[] = [];
  const cur = new SqlCursor().reset(unitsOf(sql), 0, sql.length);
  for (let k = cur.next(); k !== T_EOF; k = cur.next()) {
    if (k === T_COMMENT && !opts.comments) continue;
    const t: SqlToken = { kind: KIND_NAMES[k], text: sql.slice(cur.start, cur.end), start: cur.start, end: cur.end };
    if (cur.flags & F_LIST) t.list = true;
    if (cur.flags & F_UNTERMINATED) t.unterminated = true;
    out.push(t);
  }
  return out;
}

/** Escapes `s` for use inside a regular expression (identifiers from SQL may hold any character). */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
