/**
 * Byte-level helpers for the access-log hot path: numbers, methods and URIs are read straight
 * from the line's bytes, without building a string per field.
 */
import type { ByteDecoder } from './lineSource';

/** One parsed request. Parsers fill a reused instance; copy what you keep. */
export class AccessRecord {
  method = '';
  /** Where the path is: bytes b[pathStart, pathEnd), query string dropped unless asked to keep it; pathAscii when all bytes are < 128. */
  pathBytes: Uint8Array = EMPTY;
  pathStart = 0;
  pathEnd = 0;
  pathAscii = true;
  private pathDecode: ByteDecoder | undefined = undefined;
  private pathText: string | undefined = '';
  status = 0;
  /** Response body bytes (0 when the log says `-`). */
  size = 0;
  /** Request bytes ($request_length), NaN when not logged. */
  reqSize = NaN;
  /** The response time the request is counted with (set by the analyzer: appTime or reqTime). */
  seconds = NaN;
  /** $request_time in seconds, NaN when absent. */
  reqTime = NaN;
  /** $upstream_response_time (sum over upstreams) in seconds, NaN when absent or `-`. */
  appTime = NaN;
  /** Where the line's time ($time_local, $time_iso8601, $msec) is: bytes and range, timeStart -1 when not logged. */
  timeBytes: Uint8Array | undefined = undefined;
  timeStart = -1;
  timeEnd = -1;

  /** Path as logged, query string dropped unless asked to keep it (decoded on first use: grouping often needs only the bytes). */
  get path(): string {
    if (this.pathText === undefined) this.pathText = this.pathDecode!(this.pathBytes, this.pathStart, this.pathEnd, this.pathAscii);
    return this.pathText;
  }

  set path(text: string) {
    this.pathText = text;
    this.pathBytes = EMPTY;
    this.pathStart = this.pathEnd = 0;
    this.pathDecode = undefined;
  }

  /** Sets the path to bytes b[s, e), decoded by `decode` when read as a string. */
  setPathBytes(b: Uint8Array, s: number, e: number, ascii: boolean, decode: ByteDecoder): void {
    this.pathBytes = b;
    this.pathStart = s;
    this.pathEnd = e;
    this.pathAscii = ascii;
    this.pathDecode = decode;
    this.pathText = undefined;
  }
}

const EMPTY = new Uint8Array(0);

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/** The longest time field read as a number; nginx writes at most a dozen characters. */
export const MAX_NUMBER_BYTES = 40;

/** A request that took longer than this (one day, in seconds) is damage, not a measurement. */
export const MAX_SECONDS = 86_400;

/**
 * Where readSeconds and readSecondsList leave the value they read. A double returned by a function
 * the JIT does not inline is a new heap object per call: two per request, the main part of what the
 * reading loop allocated (and of the young generation it grew to); a typed array's element is not.
 */
export const SECONDS = new Float64Array(1);

/**
 * Reads a decimal (`12`, `0.034`, `.5`, `-1.5`, `1e-3`) from bytes. Returns NaN for `-`, empty or
 * anything else, including fields over MAX_NUMBER_BYTES; the value may be negative or Infinity
 * (`1e309`): callers validate it (see secondsProblem).
 */
export function parseSeconds(b: Uint8Array, s: number, e: number): number {
  readSeconds(b, s, e);
  return SECONDS[0];
}

/** parseSeconds, its value left in SECONDS[0] (the hot path's form). */
export function readSeconds(b: Uint8Array, s: number, e: number): void {
  // why: a double returned by a function the JIT does not inline is a new heap object: left in
  // SECONDS instead, the reading loop no longer allocates one per time read.
  if (s >= e) { SECONDS[0] = NaN; return; }
  let int = 0;
  let i = s;
  let digits = 0;
  for (; i < e; i++) {
    const c = b[i] - 48;
    if (c < 0 || c > 9) break;
    int = int * 10 + c;
    digits++;
  }
  if (i === e) {
    if (digits > 0 && digits < 16) SECONDS[0] = int; else slow(b, s, e);
    return;
  }
  if (b[i] !== 46) { slow(b, s, e); return; }
  i++;
  let frac = 0;
  let fd = 0;
  for (; i < e; i++) {
    const c = b[i] - 48;
    if (c < 0 || c > 9) { slow(b, s, e); return; }
    frac = frac * 10 + c;
    fd++;
  }
  if (digits + fd === 0 || digits + fd > 15) { slow(b, s, e); return; }
  // why: (int * 10^fd + frac) / 10^fd divides two exact integers, so it rounds like parseFloat.
  SECONDS[0] = fd === 0 ? int : (int * POW10[fd] + frac) / POW10[fd];
}

/** general's value, left in SECONDS[0]. */
function slow(b: Uint8Array, s: number, e: number): void {
  SECONDS[0] = general(b, s, e);
}

/**
 * The general number syntax `[-]digits[.digits][e[+-]digits]`, checked by one forward scan (a
 * backtracking regular expression took quadratic time on a long run of digits).
 */
function general(b: Uint8Array, s: number, e: number): number {
  if (e - s > MAX_NUMBER_BYTES) return NaN;
  let i = s;
  if (b[i] === 45) i++;
  let mant = 0;
  while (i < e && b[i] >= 48 && b[i] <= 57) { i++; mant++; }
  if (i < e && b[i] === 46) { i++; while (i < e && b[i] >= 48 && b[i] <= 57) { i++; mant++; } }
  if (mant === 0) return NaN;
  if (i < e && (b[i] === 101 || b[i] === 69)) {
    i++;
    if (i < e && (b[i] === 43 || b[i] === 45)) i++;
    let exp = 0;
    while (i < e && b[i] >= 48 && b[i] <= 57) { i++; exp++; }
    if (exp === 0) return NaN;
  }
  if (i !== e) return NaN;
  let t = '';
  for (let k = s; k < e; k++) t += String.fromCharCode(b[k]);
  return parseFloat(t);
}

/** Why a time read from a log cannot be a measurement ('' when it can): the malformed reason. */
export function secondsProblem(v: number): string {
  if (v !== v) return 'not a number';
  if (v === Infinity || v === -Infinity) return 'not finite';
  if (v < 0) return 'negative';
  if (v > MAX_SECONDS) return 'over 1 day';
  return '';
}

/** True for a value secondsProblem accepts (the hot path's check). */
export function isSeconds(v: number): boolean {
  return v >= 0 && v <= MAX_SECONDS;
}

/** Set by parseSecondsList when a list holds something other than numbers and `-`. */
export const BAD_LIST = -1;

/**
 * Reads nginx's `$upstream_response_time`: one number, `-`, or several separated by `, ` (next
 * upstream) and ` : ` (internal redirect). Returns the sum, NaN when only `-` is present, and
 * BAD_LIST (negative) when an item is not a valid time (a cut line glued to the next one puts an
 * address and a timestamp here).
 */
export function parseSecondsList(b: Uint8Array, s: number, e: number): number {
  readSecondsList(b, s, e);
  return SECONDS[0];
}

/** parseSecondsList, its value left in SECONDS[0] (the hot path's form). */
export function readSecondsList(b: Uint8Array, s: number, e: number): void {
  let total = NaN;
  let i = s;
  while (i < e) {
    while (i < e && (b[i] === 32 || b[i] === 44 || b[i] === 58)) i++;
    let j = i;
    while (j < e && b[j] !== 32 && b[j] !== 44 && b[j] !== 58) j++;
    if (j > i && !(j === i + 1 && b[i] === 45)) {
      readSeconds(b, i, j);
      const v = SECONDS[0];
      if (!isSeconds(v)) { SECONDS[0] = BAD_LIST; return; }
      total = Number.isNaN(total) ? v : total + v;
    }
    i = j;
  }
  SECONDS[0] = total;
}

/** Reads a non-negative integer; -1 when the bytes are not all digits (`-` included). */
export function parseUint(b: Uint8Array, s: number, e: number): number {
  if (s >= e || e - s > 15) return -1;
  let v = 0;
  for (let i = s; i < e; i++) {
    const c = b[i] - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'CONNECT', 'TRACE'];

/** The longest method accepted (WebDAV's `VERSION-CONTROL` and `BASELINE-CONTROL` are the longest in use). */
const MAX_METHOD = 24;

/**
 * Returns the method as a shared string (no allocation for the usual ones); '' when it is not a
 * method: letters, then letters, `-` or `_`, at most MAX_METHOD bytes. (HTTP allows any token, but
 * a digit or a punctuation mark in a logged method is a garbled or hostile request line.)
 */
export function readMethod(b: Uint8Array, s: number, e: number, decode: ByteDecoder): string {
  const n = e - s;
  if (n <= 0 || n > MAX_METHOD) return '';
  // why: GET and POST are nearly every request; one compare each instead of a walk over the list.
  if (n === 3 && b[s] === 71 && b[s + 1] === 69 && b[s + 2] === 84) return 'GET';
  if (n === 4 && b[s] === 80 && b[s + 1] === 79 && b[s + 2] === 83 && b[s + 3] === 84) return 'POST';
  for (const m of METHODS) {
    if (m.length !== n) continue;
    let ok = true;
    for (let i = 0; i < n; i++) if (b[s + i] !== m.charCodeAt(i)) { ok = false; break; }
    if (ok) return m;
  }
  for (let i = s; i < e; i++) {
    const c = b[i] | 0x20;
    const letter = c >= 97 && c <= 122;
    if (!letter && (i === s || (b[i] !== 45 && b[i] !== 95))) return '';
  }
  return decode(b, s, e, true).toUpperCase();
}

/** nginx refuses request lines over 8 KiB by default (large_client_header_buffers); longer is damage. */
export const MAX_URI_BYTES = 16 * 1024;

/** Sets `rec`'s path to a URI's bytes (up to `?` unless keepQuery), noting whether they are pure ASCII for the decoder. */
export function readPath(b: Uint8Array, s: number, e: number, keepQuery: boolean, decode: ByteDecoder, rec: AccessRecord): void {
  // (the caller has capped e - s at MAX_URI_BYTES)
  // why: the bytes or'ed together are under 128 when all are: one test per byte fewer.
  let high = 0;
  let end = e;
  if (keepQuery) for (let i = s; i < e; i++) high |= b[i];
  else {
    for (let i = s; i < e; i++) {
      const c = b[i];
      if (c === 63) { end = i; break; }
      high |= c;
    }
  }
  rec.setPathBytes(b, s, end, high < 128, decode);
}

/** True when bytes [s, e) equal `label` (ASCII). */
export function bytesEqual(b: Uint8Array, s: number, e: number, label: Uint8Array): boolean {
  if (e - s !== label.length) return false;
  for (let i = 0; i < label.length; i++) if (b[s + i] !== label[i]) return false;
  return true;
}

/** Encodes an ASCII label once, for comparisons in the hot loop. */
export function asciiBytes(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i) & 0xff;
  return out;
}
