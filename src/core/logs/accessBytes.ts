/**
 * Byte-level helpers for the access-log hot path: numbers, methods and URIs are read straight
 * from the line's bytes, without building a string per field.
 */
import type { ByteDecoder } from './lineSource';

/** One parsed request. Parsers fill a reused instance; copy what you keep. */
export class AccessRecord {
  method = '';
  /** Path as logged, query string dropped unless asked to keep it. */
  path = '';
  status = 0;
  /** Response body bytes (0 when the log says `-`). */
  size = 0;
  /** Request bytes ($request_length), NaN when not logged. */
  reqSize = NaN;
  /** $request_time in seconds, NaN when absent. */
  reqTime = NaN;
  /** $upstream_response_time (sum over upstreams) in seconds, NaN when absent or `-`. */
  appTime = NaN;
}

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/**
 * Reads a non-negative decimal (`12`, `0.034`, `.5`) from bytes. Returns NaN for `-`, empty or
 * anything else; exponents and very long numbers go through parseFloat so the value is exact.
 */
export function parseSeconds(b: Uint8Array, s: number, e: number): number {
  if (s >= e) return NaN;
  let int = 0;
  let i = s;
  let digits = 0;
  for (; i < e; i++) {
    const c = b[i] - 48;
    if (c < 0 || c > 9) break;
    int = int * 10 + c;
    digits++;
  }
  if (i === e) return digits > 0 && digits < 16 ? int : slow(b, s, e);
  if (b[i] !== 46) return slow(b, s, e);
  i++;
  let frac = 0;
  let fd = 0;
  for (; i < e; i++) {
    const c = b[i] - 48;
    if (c < 0 || c > 9) return slow(b, s, e);
    frac = frac * 10 + c;
    fd++;
  }
  if (digits + fd === 0 || digits + fd > 15) return slow(b, s, e);
  // why: (int * 10^fd + frac) / 10^fd divides two exact integers, so it rounds like parseFloat.
  return fd === 0 ? int : (int * POW10[fd] + frac) / POW10[fd];
}

function slow(b: Uint8Array, s: number, e: number): number {
  let t = '';
  for (let i = s; i < e; i++) t += String.fromCharCode(b[i]);
  if (!/^\s*(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(t)) return NaN;
  return parseFloat(t);
}

/**
 * Reads nginx's `$upstream_response_time`: one number, `-`, or several separated by `, ` (next
 * upstream) and ` : ` (internal redirect). Returns the sum, NaN when no number is present.
 */
export function parseSecondsList(b: Uint8Array, s: number, e: number): number {
  let total = NaN;
  let i = s;
  while (i < e) {
    while (i < e && (b[i] === 32 || b[i] === 44 || b[i] === 58)) i++;
    let j = i;
    while (j < e && b[j] !== 32 && b[j] !== 44 && b[j] !== 58) j++;
    if (j > i) {
      const v = parseSeconds(b, i, j);
      if (!Number.isNaN(v)) total = Number.isNaN(total) ? v : total + v;
    }
    i = j;
  }
  return total;
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

/** Returns the method as a shared string (no allocation for the usual ones); '' when it is not a token. */
export function readMethod(b: Uint8Array, s: number, e: number, decode: ByteDecoder): string {
  const n = e - s;
  if (n <= 0 || n > 32) return '';
  for (const m of METHODS) {
    if (m.length !== n) continue;
    let ok = true;
    for (let i = 0; i < n; i++) if (b[s + i] !== m.charCodeAt(i)) { ok = false; break; }
    if (ok) return m;
  }
  for (let i = s; i < e; i++) {
    const c = b[i];
    if (c <= 32 || c >= 127 || c === 34) return '';
  }
  return decode(b, s, e, true).toUpperCase();
}

/** Decodes a URI's path (up to `?` unless keepQuery), checking whether it is pure ASCII for the decoder. */
export function readPath(b: Uint8Array, s: number, e: number, keepQuery: boolean, decode: ByteDecoder): string {
  let ascii = true;
  let end = e;
  for (let i = s; i < e; i++) {
    const c = b[i];
    if (c === 63 && !keepQuery) { end = i; break; }
    if (c >= 128) ascii = false;
  }
  return decode(b, s, end, ascii);
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
