/**
 * Access-log line parsers: nginx LTSV (alp's labels), JSON lines (alp's keys, nginx `escape=json`)
 * and the combined format with `$request_time` (and optionally `$upstream_response_time`) appended,
 * or any layout described by a regular expression with named groups.
 *
 * Each parser reads one line's bytes into a reused AccessRecord and returns '' on success or a short
 * reason for a malformed line. The byte parsers locate fields by scanning bytes; strings are built
 * only for the method (interned) and the path.
 */
import { AccessRecord, asciiBytes, bytesEqual, parseSeconds, parseSecondsList, parseUint, readMethod, readPath } from './accessBytes';
import { defaultDecoder, type ByteDecoder } from './lineSource';

export type AccessLogFormat = 'ltsv' | 'json' | 'combined';

export const ACCESS_LOG_FORMATS: readonly AccessLogFormat[] = ['ltsv', 'json', 'combined'];

/** Which label (LTSV) or key (JSON) holds each field. */
export interface FieldMapping {
  method: string;
  uri: string;
  status: string;
  /** Response body bytes. */
  size: string;
  /** `$request_time`. */
  reqtime: string;
  /** `$upstream_response_time`. */
  apptime: string;
  /** The whole request line (`GET /x HTTP/1.1`), used when method or uri is missing. */
  request: string;
  /** `$request_length`. */
  reqsize: string;
}

/** alp's LTSV labels (its README's nginx log_format). */
export const LTSV_FIELDS: FieldMapping = { method: 'method', uri: 'uri', status: 'status', size: 'size', reqtime: 'reqtime', apptime: 'apptime', request: 'req', reqsize: 'reqsize' };

/** alp's JSON keys. */
export const JSON_FIELDS: FieldMapping = { method: 'method', uri: 'uri', status: 'status', size: 'body_bytes', reqtime: 'request_time', apptime: 'response_time', request: 'request', reqsize: 'request_length' };

export interface AccessParserOptions {
  format: AccessLogFormat;
  /** Overrides of the label/key names (LTSV and JSON). */
  fields?: Partial<FieldMapping>;
  /**
   * A regular expression with named groups (`method`, `uri`, `request`, `status`, `size`, `reqtime`,
   * `apptime`, `reqsize`) that replaces the built-in parser of the format. Slower than the byte scanners.
   */
  pattern?: string;
  /** Keep the query string in the path (default: dropped). */
  keepQuery?: boolean;
  decode?: ByteDecoder;
}

/** Parses one line into `rec`; returns '' or the reason the line is malformed. */
export type AccessLineParser = (b: Uint8Array, s: number, e: number, rec: AccessRecord) => string;

const enum F { Method, Uri, Status, Size, Reqtime, Apptime, Request, Reqsize, Count }
const FIELD_ORDER: (keyof FieldMapping)[] = ['method', 'uri', 'status', 'size', 'reqtime', 'apptime', 'request', 'reqsize'];

/** Builds the parser for a format. Throws on an invalid pattern (a usage error, not a data error). */
export function createAccessParser(options: AccessParserOptions): AccessLineParser {
  const decode = options.decode ?? defaultDecoder;
  const keepQuery = options.keepQuery ?? false;
  if (options.pattern) return regexParser(options.pattern, keepQuery, decode);
  if (options.format === 'combined') return combinedParser(keepQuery, decode);
  const base = options.format === 'json' ? JSON_FIELDS : LTSV_FIELDS;
  const map = { ...base, ...options.fields };
  const labels = FIELD_ORDER.map((k) => asciiBytes(map[k]));
  const st = new Int32Array(F.Count);
  const en = new Int32Array(F.Count);
  const fill = (b: Uint8Array, rec: AccessRecord) => fillRecord(b, st, en, rec, keepQuery, decode);
  if (options.format === 'ltsv') return ltsvParser(labels, st, en, fill);
  return jsonParser(labels, map, st, en, fill, keepQuery);
}

/** Sets the record from the located field ranges (-1 = absent). */
function fillRecord(b: Uint8Array, st: Int32Array, en: Int32Array, rec: AccessRecord, keepQuery: boolean, decode: ByteDecoder): string {
  let ms = st[F.Method], me = en[F.Method], us = st[F.Uri], ue = en[F.Uri];
  if ((ms < 0 || us < 0) && st[F.Request] >= 0) {
    const r = splitRequest(b, st[F.Request], en[F.Request]);
    if (!r) return 'bad request line';
    if (ms < 0) { ms = r[0]; me = r[1]; }
    if (us < 0) { us = r[2]; ue = r[3]; }
  }
  if (ms < 0) return 'no method';
  if (us < 0 || us === ue) return 'no uri';
  const method = readMethod(b, ms, me, decode);
  if (!method) return 'bad method';
  rec.method = method;
  rec.path = readPath(b, us, ue, keepQuery, decode);
  rec.status = st[F.Status] >= 0 ? parseUint(b, st[F.Status], en[F.Status]) : -1;
  if (rec.status < 0) return 'bad status';
  const size = st[F.Size] >= 0 ? parseUint(b, st[F.Size], en[F.Size]) : 0;
  rec.size = size < 0 ? 0 : size;
  rec.reqSize = st[F.Reqsize] >= 0 ? parseUint(b, st[F.Reqsize], en[F.Reqsize]) : NaN;
  if (rec.reqSize < 0) rec.reqSize = NaN;
  rec.reqTime = st[F.Reqtime] >= 0 ? parseSeconds(b, st[F.Reqtime], en[F.Reqtime]) : NaN;
  rec.appTime = st[F.Apptime] >= 0 ? parseSecondsList(b, st[F.Apptime], en[F.Apptime]) : NaN;
  if (Number.isNaN(rec.reqTime) && Number.isNaN(rec.appTime)) return 'no response time';
  return '';
}

/** Splits `GET /path HTTP/1.1` into [methodStart, methodEnd, uriStart, uriEnd]. */
function splitRequest(b: Uint8Array, s: number, e: number): [number, number, number, number] | undefined {
  let sp1 = s;
  while (sp1 < e && b[sp1] !== 32) sp1++;
  if (sp1 === s || sp1 >= e) return undefined;
  let ue = e;
  while (ue > sp1 && b[ue - 1] !== 32) ue--;
  // why: `GET /x` (HTTP/0.9) has no protocol; otherwise the last token is the protocol.
  if (ue - 1 <= sp1) ue = e; else ue--;
  if (ue <= sp1 + 1) return undefined;
  return [s, sp1, sp1 + 1, ue];
}

function ltsvParser(labels: Uint8Array[], st: Int32Array, en: Int32Array, fill: (b: Uint8Array, rec: AccessRecord) => string): AccessLineParser {
  // Labels by their first byte, so most fields cost one table lookup before the scan to the tab.
  const byFirst: (number[] | undefined)[] = new Array(256).fill(undefined);
  labels.forEach((l, k) => { if (l.length) (byFirst[l[0]] ??= []).push(k); });
  return (b, s, e, rec) => {
    st.fill(-1);
    en.fill(-1);
    let pos = s;
    let found = 0;
    while (pos < e) {
      const cands = byFirst[b[pos]];
      let k = -1;
      if (cands !== undefined) {
        for (let c = 0; c < cands.length; c++) {
          const label = labels[cands[c]];
          const len = label.length;
          if (st[cands[c]] < 0 && b[pos + len] === 58 && pos + len < e && bytesEqual(b, pos, pos + len, label)) { k = cands[c]; st[k] = pos + len + 1; break; }
        }
      }
      // why: a JS loop beats Buffer#indexOf here: the fields are short and the call overhead dominates.
      let tab = pos;
      while (tab < e && b[tab] !== 9) tab++;
      if (k >= 0) { en[k] = tab; found++; }
      pos = tab + 1;
    }
    if (found === 0) return 'not LTSV (none of the expected labels)';
    return fill(b, rec);
  };
}

function jsonParser(labels: Uint8Array[], map: FieldMapping, st: Int32Array, en: Int32Array, fill: (b: Uint8Array, rec: AccessRecord) => string, keepQuery: boolean): AccessLineParser {
  const n = labels.length;
  return (b, s, e, rec) => {
    st.fill(-1);
    en.fill(-1);
    let i = s;
    while (i < e && (b[i] === 32 || b[i] === 9)) i++;
    if (b[i] !== 123) return 'not a JSON object';
    i++;
    let escaped = false;
    for (;;) {
      while (i < e && (b[i] === 32 || b[i] === 9 || b[i] === 44)) i++;
      if (i >= e) return 'truncated JSON';
      if (b[i] === 125) break;
      if (b[i] !== 34) return 'bad JSON key';
      const ks = i + 1;
      i = endOfString(b, ks, e);
      if (i < 0) return 'truncated JSON';
      const ke = i;
      i++;
      while (i < e && (b[i] === 32 || b[i] === 58)) i++;
      let vs: number, ve: number;
      let esc = false;
      if (b[i] === 34) {
        vs = i + 1;
        const close = endOfString(b, vs, e);
        if (close < 0) return 'truncated JSON';
        for (let k = vs; k < close; k++) if (b[k] === 92) { esc = true; break; }
        ve = close;
        i = close + 1;
      } else if (b[i] === 123 || b[i] === 91) {
        const close = endOfNested(b, i, e);
        if (close < 0) return 'truncated JSON';
        vs = -1; ve = -1;
        i = close;
      } else {
        vs = i;
        while (i < e && b[i] !== 44 && b[i] !== 125 && b[i] !== 32) i++;
        ve = i;
        if (i >= e) return 'truncated JSON';
      }
      if (vs >= 0) {
        const len = ke - ks;
        for (let k = 0; k < n; k++) {
          if (labels[k].length === len && st[k] < 0 && bytesEqual(b, ks, ke, labels[k])) {
            st[k] = vs; en[k] = ve;
            if (esc) escaped = true;
            break;
          }
        }
      }
    }
    // why: escapes (`\"`, `\u00e9`, `\/`) are rare in these fields; let JSON.parse decode them.
    if (escaped) return fillFromObject(b, s, e, map, rec, keepQuery);
    return fill(b, rec);
  };
}

/** Index of the closing quote of a JSON string starting at `s` (after the opening quote), -1 if none. */
function endOfString(b: Uint8Array, s: number, e: number): number {
  for (let i = s; i < e; i++) {
    const c = b[i];
    if (c === 92) i++;
    else if (c === 34) return i;
  }
  return -1;
}

/** Index just after the bracket that closes the one at `s`, -1 if none. */
function endOfNested(b: Uint8Array, s: number, e: number): number {
  let depth = 0;
  for (let i = s; i < e; i++) {
    const c = b[i];
    if (c === 34) { i = endOfString(b, i + 1, e); if (i < 0) return -1; } else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) { depth--; if (depth === 0) return i + 1; }
  }
  return -1;
}

const utf8 = new TextDecoder('utf-8');
const encoder = new TextEncoder();

/** Slow path for JSON lines with escapes: parse the object and re-run the byte filler on its values. */
function fillFromObject(b: Uint8Array, s: number, e: number, map: FieldMapping, rec: AccessRecord, keepQuery: boolean): string {
  let obj: Record<string, unknown>;
  try { obj = JSON.parse(utf8.decode(b.subarray(s, e))) as Record<string, unknown>; } catch { return 'bad JSON'; }
  const parts = FIELD_ORDER.map((k) => { const v = obj[map[k]]; return v === undefined || v === null || typeof v === 'object' ? undefined : String(v); });
  const text = parts.map((p) => p ?? '').join('\u0000');
  const bytes = encoder.encode(text);
  const st = new Int32Array(F.Count).fill(-1);
  const en = new Int32Array(F.Count).fill(-1);
  let pos = 0;
  for (let k = 0; k < parts.length; k++) {
    let end = bytes.indexOf(0, pos);
    if (end < 0) end = bytes.length;
    if (parts[k] !== undefined) { st[k] = pos; en[k] = end; }
    pos = end + 1;
  }
  return fillRecord(bytes, st, en, rec, keepQuery, defaultDecoder);
}

/**
 * `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer"
 * "$http_user_agent" $request_time [$upstream_response_time]`. nginx escapes `"` inside variables
 * as `\x22`, so quotes delimit fields reliably.
 */
function combinedParser(keepQuery: boolean, decode: ByteDecoder): AccessLineParser {
  const st = new Int32Array(F.Count);
  const en = new Int32Array(F.Count);
  return (b, s, e, rec) => {
    st.fill(-1);
    en.fill(-1);
    let i = b.indexOf(93, s); // ']'
    if (i < 0 || i >= e) return 'no [time]';
    i = b.indexOf(34, i); // '"'
    if (i < 0 || i >= e) return 'no "request"';
    const rs = i + 1;
    const re = b.indexOf(34, rs);
    if (re < 0 || re >= e) return 'unterminated "request"';
    st[F.Request] = rs; en[F.Request] = re;
    i = re + 1;
    const tok = (k: F): boolean => {
      while (i < e && b[i] === 32) i++;
      const ts = i;
      while (i < e && b[i] !== 32) i++;
      if (i === ts) return false;
      st[k] = ts; en[k] = i;
      return true;
    };
    const quoted = (): boolean => {
      while (i < e && b[i] === 32) i++;
      if (b[i] !== 34) return false;
      const close = b.indexOf(34, i + 1);
      if (close < 0 || close >= e) return false;
      i = close + 1;
      return true;
    };
    if (!tok(F.Status) || !tok(F.Size)) return 'no status and size';
    if (!quoted() || !quoted()) return 'no "referer" "user agent"';
    if (!tok(F.Reqtime)) return 'no request time (append $request_time to the log_format)';
    while (i < e && b[i] === 32) i++;
    if (i < e) { st[F.Apptime] = i; en[F.Apptime] = e; }
    return fillRecord(b, st, en, rec, keepQuery, decode);
  };
}

const GROUP_FIELD: Record<string, F> = {
  method: F.Method, uri: F.Uri, request: F.Request, status: F.Status, size: F.Size, body_bytes: F.Size,
  reqtime: F.Reqtime, request_time: F.Reqtime, apptime: F.Apptime, upstream_response_time: F.Apptime, response_time: F.Apptime,
  reqsize: F.Reqsize, request_length: F.Reqsize,
};

/** A parser from a regular expression with named groups; needs `uri` or `request`, and a time. */
function regexParser(pattern: string, keepQuery: boolean, decode: ByteDecoder): AccessLineParser {
  let re: RegExp;
  try { re = new RegExp(pattern, 'd'); } catch (err) { throw new Error(`invalid log pattern: ${(err as Error).message}`); }
  const names = Object.keys(GROUP_FIELD).filter((g) => pattern.includes(`(?<${g}>`));
  if (!names.some((g) => g === 'uri' || g === 'request')) throw new Error('the log pattern needs a named group (?<uri>…) or (?<request>…)');
  if (!names.some((g) => GROUP_FIELD[g] === F.Reqtime || GROUP_FIELD[g] === F.Apptime)) throw new Error('the log pattern needs a named group (?<reqtime>…) or (?<apptime>…)');
  const st = new Int32Array(F.Count);
  const en = new Int32Array(F.Count);
  return (b, s, e, rec) => {
    let ascii = true;
    for (let i = s; i < e; i++) if (b[i] >= 128) { ascii = false; break; }
    const text = decode(b, s, e, ascii);
    const m = re.exec(text);
    if (!m || !m.indices?.groups) return 'does not match the log pattern';
    const bytes = ascii ? b : encoder.encode(text);
    const base = ascii ? s : 0;
    st.fill(-1);
    en.fill(-1);
    for (const g of names) {
      const r = m.indices.groups[g];
      if (!r) continue;
      const k = GROUP_FIELD[g];
      st[k] = base + (ascii ? r[0] : encoder.encode(text.slice(0, r[0])).length);
      en[k] = base + (ascii ? r[1] : encoder.encode(text.slice(0, r[1])).length);
    }
    return fillRecord(bytes, st, en, rec, keepQuery, decode);
  };
}

export { AccessRecord };
