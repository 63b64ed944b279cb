/**
 * Fingerprints of logged statements, remembered by their shape. A web app sends a few dozen kinds
 * of statement, each many times with other values: `… WHERE id = 17` and `… WHERE id = 4021` have
 * the same fingerprint. The cache reads a statement once, byte by byte, into its SKELETON: its bytes
 * with the content of each string literal and each plain number replaced by a mark. Statements with
 * the same skeleton have the same fingerprint (fingerprint.ts), so only the first of each is read by
 * the lexer; the others cost the skeleton's scan and one table look-up. Same answer, byte for byte,
 * as fingerprintInto + lastFingerprintOpen.
 *
 * Why equal skeletons mean equal fingerprints: the skeleton keeps every byte outside the marked
 * spans and marks each span by its kind (0x01 in the statement is written 0x01 0x00, so the marks are
 * unambiguous). A marked span is one the SQL lexer (sqlLexer.ts) reads as one literal token whatever
 * its content, and whose content changes neither the token's extent nor how the tokens around it are
 * read; a fingerprint writes every literal as `?`. The spans, by the lexer's own rules:
 * - a string '…' or "…" (backslash escapes, doubled quotes) where the lexer starts a token: outside
 *   any comment, quoted name or other string, and not right after `@` (`@'name'` is a user variable,
 *   kept as written). A string left open at the end has a mark of its own (the fingerprint's
 *   lastFingerprintOpen differs), by its quote (`x'…` is one literal, `x"…` a name and a literal);
 * - a run of digits, with `.digits`, that starts after a byte that is neither an identifier's nor
 *   `.` nor `@` (nor the sign of an exponent, `e-`), and is followed by neither: so not inside
 *   `users_2009`, `t.5col`, `@a.5`, `1e5`, `1e-5`, `2fa_codes`, whose digits are read as part of a
 *   name or of a number whose other bytes are kept;
 * - where such a run could start, `0x` or `0b` and the identifier's bytes after it, not followed by
 *   `.`: the lexer reads them as one number whatever they are (a hex blob of an image INSERT);
 * Comments (`/* … *\/`, `/*! … *\/`, `-- `, `#`) and `quoted names` are kept as written, their
 * bounds found as the lexer finds them, so that a quote inside them starts no span.
 *
 * Lists, so that `IN (1, 2)` and `IN (1, 2, 3)` share a shape (the fingerprint writes both `in(?+)`,
 * and likewise every `VALUES (…), (…)` as `values(?+)`): a `(` right after the word IN, VALUES or
 * VALUE (only spaces between; the word read as plain text after a space, not inside a comment or a
 * literal) opens a list that is marked whole when the fingerprint collapses it whatever it holds:
 * - after IN, one `(…)` of values only: numbers, closed strings, NULL, a number with a `-` sign;
 * - after VALUES, one or more rows `(…)` separated by `,`, each of such values or of words and calls
 *   without arguments (`NOW()`), except the words IN and VALUE(S) (which open lists of their own);
 *   not where `DUPLICATE` came before (after `ON DUPLICATE KEY UPDATE`, `VALUES(col)` is a function).
 * Anything else (a comment, a nested list, an expression) leaves the list to be read byte by byte
 * as before; rows after the last one marked are read byte by byte too, and the fingerprint drops
 * them as further rows all the same.
 *
 * Bounded: statements over MAX_SKELETON bytes are fingerprinted directly; the table holds at most
 * MAX_ENTRIES skeletons and starts over when full.
 */
import { fingerprintInto, lastFingerprintBytes, lastFingerprintOpen, type FingerprintPart } from './fingerprint';

/** Longest statement whose skeleton is kept (a bulk INSERT is fingerprinted directly). */
const MAX_SKELETON = 4096;
/** Skeletons kept before the table starts over (a few dozen is usual). */
const MAX_ENTRIES = 4096;

const MARK = 1;
const K_RAW = 0;        // a 0x01 byte of the statement
const K_NUMBER = 1;
const K_SQ = 2;         // '…'
const K_DQ = 3;         // "…"
const K_OPEN_SQ = 4;    // '… left open at the end
const K_OPEN_DQ = 5;    // "… left open at the end
const K_IN_LIST = 6;    // `(…)` of values after IN
const K_ROWS = 7;       // the rows `(…), (…)` after VALUES
const K_HEX = 8;        // 0x…, 0b…

/** Bytes of unquoted identifiers (the lexer's WORD class: letters, digits, `_`, `$`, non-ASCII). */
const WORD = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 36 || c >= 128) WORD[c] = 1;
}
/** Bytes that may start something other than plain text: quotes, comments, digits, the 0x01 to escape. */
const SPECIAL = new Uint8Array(256);
for (const ch of '\'"`/-#0123456789\u0001(') SPECIAL[ch.charCodeAt(0)] = 1;

/** Spaces as the lexer reads them (some of its: form feeds and vertical tabs are left to the byte-by-byte reading). */
function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13;
}

/**
 * The end of the string opening at b[i] (after its closing quote), or -1 when it runs to `end`
 * unclosed: the lexer's rule (doubled quotes, backslash escapes).
 */
function quotedEnd(b: Uint8Array, i: number, end: number, q: number): number {
  for (let j = i + 1; j < end; j++) {
    const c = b[j];
    if (c === 92) { j++; continue; }
    if (c === q) {
      if (j + 1 < end && b[j + 1] === q) { j++; continue; }
      return j + 1;
    }
  }
  return -1;
}

/**
 * The list a `(` at b[i] opens, by the word before it: K_IN_LIST after IN, K_ROWS after VALUES or
 * VALUE, 0 otherwise or when unsure. The word, a space before it and the spaces after it must lie in
 * b[from, i), bytes the skeleton read as plain text (so not inside a comment, a literal or a name).
 */
function listWord(b: Uint8Array, from: number, i: number): number {
  let k = i - 1;
  while (k >= from && isSpace(b[k])) k--;
  let w = k;
  while (w >= from && (b[w] | 32) >= 97 && (b[w] | 32) <= 122) w--;
  if (w < from || !isSpace(b[w])) return 0;
  const n = k - w;
  if (n === 2) return (b[w + 1] | 32) === 105 && (b[w + 2] | 32) === 110 ? K_IN_LIST : 0;
  return isValueWord(b, w + 1, n) ? K_ROWS : 0;
}

const VALUE = [118, 97, 108, 117, 101];
const DUPLICATE = [100, 117, 112, 108, 105, 99, 97, 116, 101];

/**
 * Whether b[start, end) holds `duplicate` in any case (anywhere: a name or a comment too). Looked
 * for before a VALUES list (where the words before it are usually few), not in the rows after it:
 * only an ON DUPLICATE KEY UPDATE before a `VALUES(` makes it a function rather than rows.
 */
function hasDuplicate(b: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i + 9 <= end; i++) {
    if ((b[i] | 32) !== 100) continue;
    let j = 1;
    while (j < 9 && (b[i + j] | 32) === DUPLICATE[j]) j++;
    if (j === 9) return true;
  }
  return false;
}

/**
 * The end of one value of a list at b[j] (past its last byte), or -1: a number (digits, `.digits`,
 * not followed by a name's byte or `.`), with `-` before it; 0x… or 0b… (no sign); a closed string; NULL; in a row
 * (`rows`) also a word (a letter or `_` first) other than IN and VALUE(S), with or without `()` right after it.
 */
function valueEnd(b: Uint8Array, j: number, end: number, rows: boolean): number {
  if (j >= end) return -1;
  let c = b[j];
  if (c === 48 && j + 1 < end && ((b[j + 1] | 32) === 120 || (b[j + 1] | 32) === 98)) {
    j += 2;
    while (j < end && WORD[b[j]] === 1) j++;
    return j < end && b[j] === 46 ? -1 : j;
  }
  if (c === 45 && j + 1 < end && b[j + 1] >= 48 && b[j + 1] <= 57) c = b[++j];
  if (c >= 48 && c <= 57) {
    j++;
    while (j < end && b[j] >= 48 && b[j] <= 57) j++;
    if (j + 1 < end && b[j] === 46 && b[j + 1] >= 48 && b[j + 1] <= 57) {
      j += 2;
      while (j < end && b[j] >= 48 && b[j] <= 57) j++;
    }
    return j < end && (WORD[b[j]] === 1 || b[j] === 46) ? -1 : j;
  }
  if (c === 39 || c === 34) return quotedEnd(b, j, end, c);
  if (!((c | 32) >= 97 && (c | 32) <= 122) && c !== 95) return -1;
  let k = j + 1;
  while (k < end && WORD[b[k]] === 1) k++;
  const n = k - j;
  if (n === 4 && (c | 32) === 110 && (b[j + 1] | 32) === 117 && (b[j + 2] | 32) === 108 && (b[j + 3] | 32) === 108) return k;
  // why: IN and VALUE(S) open lists of their own (VALUES() would move where the fingerprint's rows end)
  if (!rows || (n === 2 && (c | 32) === 105 && (b[j + 1] | 32) === 110) || isValueWord(b, j, n)) return -1;
  return k + 1 < end && b[k] === 40 && b[k + 1] === 41 ? k + 2 : k;
}

/** Whether b[j, j + n) is VALUE or VALUES, in any case. */
function isValueWord(b: Uint8Array, j: number, n: number): boolean {
  if (n !== 5 && !(n === 6 && (b[j + 5] | 32) === 115)) return false;
  for (let i = 0; i < 5; i++) if ((b[j + i] | 32) !== VALUE[i]) return false;
  return true;
}

/** The end of the list `(…)` at b[i] (past its `)`), or -1 when it is not one of values only (valueEnd). */
function listEnd(b: Uint8Array, i: number, end: number, rows: boolean): number {
  let j = i + 1;
  for (;;) {
    while (j < end && isSpace(b[j])) j++;
    j = valueEnd(b, j, end, rows);
    if (j < 0) return -1;
    while (j < end && isSpace(b[j])) j++;
    if (j >= end) return -1;
    if (b[j] === 41) return j + 1;
    if (b[j] !== 44) return -1;
    j++;
  }
}

/** The end of the rows `(…), (…)` at b[i] (past the last one's `)`), or -1 when the first is not one. */
function rowsEnd(b: Uint8Array, i: number, end: number): number {
  let j = listEnd(b, i, end, true);
  while (j > 0) {
    let k = j;
    while (k < end && isSpace(b[k])) k++;
    if (k >= end || b[k] !== 44) break;
    k++;
    while (k < end && isSpace(b[k])) k++;
    const next = k < end && b[k] === 40 ? listEnd(b, k, end, true) : -1;
    if (next < 0) break;
    j = next;
  }
  return j;
}

/** FNV-1a style hash of the first `words` 32-bit words. */
function hashOf(w: Int32Array, words: number): number {
  let h = 0x811c9dc5 ^ words;
  for (let i = 0; i < words; i++) h = Math.imul(h ^ w[i], 0x01000193);
  return (h ^ (h >>> 15)) >>> 0;
}

/** Shape ids handed out so far, by every cache: an id names one skeleton of one cache, never another. */
let shapes = 0;

/** `a` with room for at least `n` elements (the first `used` kept). */
function grown<T extends Int32Array | Uint8Array>(a: T, used: number, n: number): T {
  if (n <= a.length) return a;
  const next = new (a.constructor as new (len: number) => T)(Math.max(n, a.length * 2));
  next.set(a.subarray(0, used));
  return next;
}

/**
 * The cache. Its skeletons and fingerprints live in a few arrays that grow by doubling (no object
 * per shape: objects that outlive the young generation made V8 grow it, a few MB of resident memory).
 */
export class FingerprintCache {
  /**
   * The last result: fingerprint bytes bytes[start, start + length) (not to be written to), whether
   * the statement ends inside a literal, quoted name or comment, and its shape: an id of the cache's
   * skeleton, the same for every statement of that shape (then `bytes` is the cache's own and stays
   * as it is), or -1 (then `bytes` is the fingerprint's shared buffer, rewritten by the next fingerprint).
   */
  bytes: Uint8Array = new Uint8Array(0);
  start = 0;
  length = 0;
  open = false;
  shape = -1;
  /** Statements read by the lexer (cache misses, long statements, statements in parts). */
  misses = 0;
  private readonly sk = new Uint8Array(MAX_SKELETON * 2 + 8);
  /** The same bytes as words: hashed and compared four bytes at a time. */
  private readonly words = new Int32Array(this.sk.buffer);
  private table = new Int32Array(256);
  /** Skeletons' words, one after the other, and fingerprints' bytes. */
  private skWords = new Int32Array(1024);
  private skUsed = 0;
  private fpBytes = new Uint8Array(4096);
  private fpUsed = 0;
  /** Per skeleton (index k): hash, first word, length in bytes, fingerprint's offset and length, open, shape id. */
  private hashes = new Int32Array(64);
  private skAt = new Int32Array(64);
  private skLen = new Int32Array(64);
  private fpAt = new Int32Array(64);
  private fpLen = new Int32Array(64);
  private opens = new Uint8Array(64);
  private ids = new Int32Array(64);
  private count = 0;

  /**
   * Fingerprints b[start, end) (with `before`, the rest of a statement whose start was fingerprinted
   * already): sets `bytes`, `start`, `length`, `open` and `shape`, and returns the length.
   */
  of(b: Uint8Array, start: number, end: number, before?: FingerprintPart): number {
    const n = before || end - start > MAX_SKELETON ? -1 : this.skeleton(b, start, end);
    if (n < 0) return this.direct(b, start, end, before);
    const sk = this.sk;
    sk[n] = 0; sk[n + 1] = 0; sk[n + 2] = 0;
    const w = this.words;
    const words = (n + 3) >> 2;
    const h = hashOf(w, words) | 0;
    const t = this.table;
    const mask = t.length - 1;
    let slot = h & mask;
    for (;;) {
      const v = t[slot];
      if (v === 0) break;
      const k = v - 1;
      if (this.hashes[k] === h && this.skLen[k] === n) {
        const all = this.skWords;
        const at = this.skAt[k];
        let i = 0;
        while (i < words && all[at + i] === w[i]) i++;
        if (i === words) {
          this.bytes = this.fpBytes;
          this.start = this.fpAt[k];
          this.length = this.fpLen[k];
          this.open = this.opens[k] === 1;
          this.shape = this.ids[k];
          return this.length;
        }
      }
      slot = (slot + 1) & mask;
    }
    const len = this.direct(b, start, end, undefined);
    if (this.count >= MAX_ENTRIES) { this.clear(); return len; }
    const k = this.count++;
    if (k >= this.hashes.length) this.more();
    this.hashes[k] = h;
    this.skAt[k] = this.skUsed;
    this.skLen[k] = n;
    this.skWords = grown(this.skWords, this.skUsed, this.skUsed + words);
    this.skWords.set(w.subarray(0, words), this.skUsed);
    this.skUsed += words;
    this.fpAt[k] = this.fpUsed;
    this.fpLen[k] = len;
    // why: the arrays are replaced when they grow, never written over: a fingerprint handed out stays valid
    this.fpBytes = grown(this.fpBytes, this.fpUsed, this.fpUsed + len);
    this.fpBytes.set(lastFingerprintBytes().subarray(0, len), this.fpUsed);
    this.fpUsed += len;
    this.opens[k] = this.open ? 1 : 0;
    this.ids[k] = shapes++;
    t[slot] = k + 1;
    if (this.count * 2 > t.length) this.rehash();
    this.bytes = this.fpBytes;
    this.start = this.fpAt[k];
    this.shape = this.ids[k];
    return len;
  }

  private direct(b: Uint8Array, start: number, end: number, before: FingerprintPart | undefined): number {
    this.misses++;
    this.length = fingerprintInto(b, start, end, before);
    this.bytes = lastFingerprintBytes();
    this.start = 0;
    this.open = lastFingerprintOpen();
    this.shape = -1;
    return this.length;
  }

  /** Starts over (the table is full): new arrays, so that fingerprints handed out stay valid. */
  private clear(): void {
    this.count = 0;
    this.table = new Int32Array(256);
    this.skWords = new Int32Array(1024);
    this.skUsed = 0;
    this.fpBytes = new Uint8Array(4096);
    this.fpUsed = 0;
  }

  /** Room for more skeletons. */
  private more(): void {
    const n = this.hashes.length * 2;
    const used = this.count - 1;
    this.hashes = grown(this.hashes, used, n);
    this.skAt = grown(this.skAt, used, n);
    this.skLen = grown(this.skLen, used, n);
    this.fpAt = grown(this.fpAt, used, n);
    this.fpLen = grown(this.fpLen, used, n);
    this.opens = grown(this.opens, used, n);
    this.ids = grown(this.ids, used, n);
  }

  private rehash(): void {
    const t = new Int32Array(this.table.length * 2);
    const mask = t.length - 1;
    for (let k = 0; k < this.count; k++) {
      let slot = this.hashes[k] & mask;
      while (t[slot] !== 0) slot = (slot + 1) & mask;
      t[slot] = k + 1;
    }
    this.table = t;
  }

  /** Writes the skeleton of b[start, end) into `sk`; returns its length. */
  private skeleton(b: Uint8Array, start: number, end: number): number {
    const sk = this.sk;
    let o = 0;
    let i = start;
    /** Where the bytes the skeleton read as plain text (up to i) start. */
    let plain = start;
    while (i < end) {
      const c = b[i];
      if (SPECIAL[c] === 0) { sk[o++] = c; i++; continue; }
      if (c === 40) {
        const kind = listWord(b, plain, i);
        let j = -1;
        if (kind === K_IN_LIST) j = listEnd(b, i, end, false);
        else if (kind === K_ROWS && !hasDuplicate(b, start, i)) j = rowsEnd(b, i, end);
        if (j < 0) { sk[o++] = 40; i++; continue; }
        sk[o++] = MARK; sk[o++] = kind;
        i = plain = j;
        continue;
      }
      if (c >= 48 && c <= 57) {
        let j = i + 1;
        const p0 = i > start ? b[i - 1] : 32;
        if (c === 48 && j < end && ((b[j] | 32) === 120 || (b[j] | 32) === 98) && WORD[p0] === 0 && p0 !== 46 && p0 !== 64 && p0 !== 45 && p0 !== 43) {
          j++;
          while (j < end && WORD[b[j]] === 1) j++;
          if (j >= end || b[j] !== 46) {
            sk[o++] = MARK; sk[o++] = K_HEX;
            i = plain = j;
            continue;
          }
          j = i + 1;
        }
        while (j < end && b[j] >= 48 && b[j] <= 57) j++;
        if (j + 1 < end && b[j] === 46 && b[j + 1] >= 48 && b[j + 1] <= 57) {
          j += 2;
          while (j < end && b[j] >= 48 && b[j] <= 57) j++;
        }
        const p = i > start ? b[i - 1] : 32;
        const q = j < end ? b[j] : 32;
        // why: after `e-` / `e+` the digits may be a number's exponent, which has no fraction: `1e-5.5` is `1e-5` `.` `5`
        const exponent = (p === 45 || p === 43) && i - 2 >= start && (b[i - 2] | 32) === 101;
        if (WORD[p] === 0 && p !== 46 && p !== 64 && !exponent && WORD[q] === 0 && q !== 46) {
          sk[o++] = MARK; sk[o++] = K_NUMBER;
        } else {
          // why: part of a name or of a number with an exponent: kept as written, up to the next
          // byte that is no identifier's (a later digit run there starts after an identifier byte)
          while (j < end && WORD[b[j]] === 1) j++;
          for (let k = i; k < j; k++) sk[o++] = b[k];
        }
        i = plain = j;
        continue;
      }
      if (c === 39 || c === 34) {
        const j = quotedEnd(b, i, end, c);
        if (i > start && b[i - 1] === 64) {
          // `@'name'`: a user variable, named as written
          const stop = j < 0 ? end : j;
          for (let k = i; k < stop; k++) o = put(sk, o, b[k]);
          i = plain = stop;
          continue;
        }
        sk[o++] = MARK;
        sk[o++] = c === 39 ? (j < 0 ? K_OPEN_SQ : K_SQ) : (j < 0 ? K_OPEN_DQ : K_DQ);
        i = plain = j < 0 ? end : j;
        continue;
      }
      if (c === 96) {
        // a quoted name, copied as it is scanned (doubled backquotes, no escapes: the lexer's rule)
        sk[o++] = 96;
        let j = i + 1;
        while (j < end) {
          const d = b[j++];
          o = put(sk, o, d);
          if (d === 96) {
            if (j < end && b[j] === 96) { sk[o++] = 96; j++; continue; }
            break;
          }
        }
        i = plain = j;
        continue;
      }
      let stop = i + 1;
      if (c === 47) {
        if (i + 1 < end && b[i + 1] === 42) {
          let j = i + 2;
          while (j + 1 < end && !(b[j] === 42 && b[j + 1] === 47)) j++;
          stop = j + 1 < end ? j + 2 : end;
        }
      } else if (c === 35 || (c === 45 && i + 1 < end && b[i + 1] === 45 && (i + 2 >= end || b[i + 2] <= 32))) {
        let j = i + 1;
        while (j < end && b[j] !== 10) j++;
        stop = j;
      }
      for (let k = i; k < stop; k++) o = put(sk, o, b[k]);
      i = plain = stop;
    }
    return o;
  }
}

/** Writes one statement byte into a skeleton (0x01 escaped). */
function put(sk: Uint8Array, o: number, c: number): number {
  sk[o++] = c;
  if (c === MARK) sk[o++] = K_RAW;
  return o;
}
