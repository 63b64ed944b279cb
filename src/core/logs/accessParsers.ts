/**
 * Access-log line parsers: nginx LTSV (alp's labels), JSON lines (alp's keys, nginx `escape=json`),
 * any nginx `log_format` (the combined layouts by name, see nginxLogFormat.ts), or a layout described
 * by a regular expression with named groups.
 *
 * Each parser reads one line's bytes into a reused AccessRecord and returns '' on success or a short
 * reason for a malformed line (a fixed phrase, so lines can be counted by reason). The byte parsers
 * locate fields by one forward scan; every field is capped and every number validated, so a line
 * costs time linear in its length. Strings are built only for the method (interned) and the path.
 */
import { AccessRecord, asciiBytes, BAD_LIST, bytesEqual, isSeconds, MAX_URI_BYTES, parseUint, readMethod, readPath, readSeconds, readSecondsList, SECONDS, secondsProblem } from './accessBytes';
import { defaultDecoder, type ByteDecoder } from './lineSource';
import { compileLogFormat, Field as F, isLogFormatString, matchLayout, NAMED_LOG_FORMATS, rejoinLayout } from './nginxLogFormat';
import { guardUserRegex, type GuardedRegex } from './regexGuard';

/** `ltsv`, `json`, a named nginx layout (`combined`, `combined-alp`) or an nginx log_format string. */
export type AccessLogFormat = 'ltsv' | 'json' | 'combined' | 'combined-alp' | (string & { readonly logFormat?: true });

export const ACCESS_LOG_FORMATS: readonly string[] = ['ltsv', 'json', ...Object.keys(NAMED_LOG_FORMATS)];

/** True for a format name or an nginx log_format string (checked further when compiled). */
export function isAccessLogFormat(value: string): boolean {
  return ACCESS_LOG_FORMATS.includes(value) || isLogFormatString(value);
}

/** How a layout names the two times, for the summary (`$upstream_response_time`, `apptime`, …). */
export function timeFieldNames(options: AccessParserOptions): { reqtime: string; apptime: string } {
  if (options.pattern) return { reqtime: '(?<reqtime>)', apptime: '(?<apptime>)' };
  if (options.format === 'ltsv' || options.format === 'json') {
    const map = { ...(options.format === 'json' ? JSON_FIELDS : LTSV_FIELDS), ...options.fields };
    return { reqtime: map.reqtime, apptime: map.apptime };
  }
  return { reqtime: '$request_time', apptime: '$upstream_response_time' };
}

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
  /** When the request was logged (`$time_local`, `$time_iso8601` or `$msec`): only the log's time span is read from it. */
  time: string;
}

/** alp's LTSV labels (its README's nginx log_format). */
export const LTSV_FIELDS: FieldMapping = { method: 'method', uri: 'uri', status: 'status', size: 'size', reqtime: 'reqtime', apptime: 'apptime', request: 'req', reqsize: 'reqsize', time: 'time' };

/** alp's JSON keys. */
export const JSON_FIELDS: FieldMapping = { method: 'method', uri: 'uri', status: 'status', size: 'body_bytes', reqtime: 'request_time', apptime: 'response_time', request: 'request', reqsize: 'request_length', time: 'time' };

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

/**
 * Parses one line into `rec`; returns '' or the reason the line is malformed. `rejoin` finds where a
 * request swallowed by a cut line may start (after `after`), -1 when nowhere: a line cut short and
 * glued to the next one is then read from there.
 */
export type AccessLineParser = ((b: Uint8Array, s: number, e: number, rec: AccessRecord) => string) & {
  rejoin?: (b: Uint8Array, s: number, e: number, after: number) => number;
};

/** The reason of a line that holds a second request's fields (a cut line glued to the next). */
export const JOINED = 'cut-and-joined line';

const FIELD_ORDER: (keyof FieldMapping)[] = ['method', 'uri', 'status', 'size', 'reqtime', 'apptime', 'request', 'reqsize', 'time'];

/** The field names a label (LTSV) or key (JSON) can be given for (`--field NAME=LABEL`). */
export const ACCESS_FIELD_NAMES: readonly string[] = FIELD_ORDER;

/** Builds the parser for a format. Throws on an invalid pattern (a usage error, not a data error). */
export function createAccessParser(options: AccessParserOptions): AccessLineParser {
  const decode = options.decode ?? defaultDecoder;
  const keepQuery = options.keepQuery ?? false;
  if (options.pattern) return regexParser(options.pattern, keepQuery, decode);
  if (options.format !== 'ltsv' && options.format !== 'json') return layoutParser(options.format, keepQuery, decode);
  const base = options.format === 'json' ? JSON_FIELDS : LTSV_FIELDS;
  const map = { ...base, ...options.fields };
  const labels = FIELD_ORDER.map((k) => asciiBytes(map[k]));
  const st = new Int32Array(F.Count);
  const en = new Int32Array(F.Count);
  const fill = (b: Uint8Array, rec: AccessRecord) => fillRecord(b, st, en, rec, keepQuery, decode);
  if (options.format === 'ltsv') return ltsvParser(labels, st, en, fill);
  return jsonParser(labels, map, st, en, fill, keepQuery);
}

/** Sets the record from the located field ranges (-1 = absent); every value is checked. */
function fillRecord(b: Uint8Array, st: Int32Array, en: Int32Array, rec: AccessRecord, keepQuery: boolean, decode: ByteDecoder): string {
  let ms = st[F.Method], me = en[F.Method], us = st[F.Uri], ue = en[F.Uri];
  if ((ms < 0 || us < 0) && st[F.Request] >= 0) {
    if (en[F.Request] - st[F.Request] > MAX_URI_BYTES + 64) return 'uri too long';
    const r = splitRequest(b, st[F.Request], en[F.Request]);
    if (!r) return 'bad request line';
    if (ms < 0) { ms = r[0]; me = r[1]; }
    if (us < 0) { us = r[2]; ue = r[3]; }
  }
  if (ms < 0) return 'no method';
  if (us < 0 || us === ue) return 'no uri';
  if (ue - us > MAX_URI_BYTES) return 'uri too long';
  const method = readMethod(b, ms, me, decode);
  if (!method) return 'bad method';
  // why: status codes have three digits; anything longer is a damaged line, not an odd status.
  rec.status = st[F.Status] >= 0 && en[F.Status] - st[F.Status] <= 3 ? parseUint(b, st[F.Status], en[F.Status]) : -1;
  if (rec.status < 0) return 'bad status';
  let size = 0;
  if (st[F.Size] >= 0 && !isDash(b, st[F.Size], en[F.Size])) { size = parseUint(b, st[F.Size], en[F.Size]); if (size < 0) return 'bad body size'; }
  rec.size = size;
  rec.reqSize = NaN;
  if (st[F.Reqsize] >= 0 && !isDash(b, st[F.Reqsize], en[F.Reqsize])) { rec.reqSize = parseUint(b, st[F.Reqsize], en[F.Reqsize]); if (rec.reqSize < 0) return 'bad request length'; }
  rec.reqTime = NaN;
  if (st[F.Reqtime] >= 0 && !isDash(b, st[F.Reqtime], en[F.Reqtime])) {
    readSeconds(b, st[F.Reqtime], en[F.Reqtime]);
    const v = SECONDS[0];
    if (!isSeconds(v)) return `request time ${secondsProblem(v)}`;
    rec.reqTime = v;
  }
  // why: nginx writes one time per upstream tried; a list longer than this is damage, not retries.
  if (en[F.Apptime] - st[F.Apptime] > 1024) return 'upstream time too long';
  if (st[F.Apptime] >= 0) { readSecondsList(b, st[F.Apptime], en[F.Apptime]); rec.appTime = SECONDS[0]; } else rec.appTime = NaN;
  if (rec.appTime === BAD_LIST) return 'upstream time not a list of times';
  if (rec.appTime > 86_400) return 'upstream time over 1 day';
  if (Number.isNaN(rec.reqTime) && Number.isNaN(rec.appTime)) return 'no response time';
  rec.method = method;
  readPath(b, us, ue, keepQuery, decode, rec);
  rec.timeBytes = b;
  rec.timeStart = st[F.Time];
  rec.timeEnd = en[F.Time];
  return '';
}

/** Marks every field absent (-1) before a line is scanned. */
function clearFields(st: Int32Array, en: Int32Array): void {
  // why: a loop the JIT compiles in place; TypedArray#fill is a call into the runtime, twice a line
  // (about 40 ns a line, measured alone).
  for (let k = 0; k < st.length; k++) { st[k] = -1; en[k] = -1; }
}

/** True for an empty field or nginx's `-` (no value). */
function isDash(b: Uint8Array, s: number, e: number): boolean {
  return s === e || (e === s + 1 && b[s] === 45);
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

/**
 * The labels as a trie over their bytes, one flat table: next[node · 256 + byte] is the node that
 * byte leads to (0: none; node 0 is the root), field[node] the field whose label ends there plus
 * one (0: none). A label holding `:` or a tab can never be a line's label, and is left out.
 */
function labelTrie(labels: Uint8Array[]): { next: Int32Array; field: Int32Array } {
  const rows: Int32Array[] = [new Int32Array(256)];
  const ends: number[] = [0];
  labels.forEach((label, k) => {
    if (label.length === 0 || label.includes(58) || label.includes(9)) return;
    let node = 0;
    for (const c of label) {
      let to = rows[node][c];
      if (to === 0) { to = rows.length; rows[node][c] = to; rows.push(new Int32Array(256)); ends.push(0); }
      node = to;
    }
    // why: two fields given the same label: the first in FIELD_ORDER takes it, as a scan in that order would.
    if (ends[node] === 0) ends[node] = k + 1;
  });
  const next = new Int32Array(rows.length * 256);
  rows.forEach((row, node) => next.set(row, node * 256));
  return { next, field: Int32Array.from(ends) };
}

/** Fields of a line whose labels are remembered from the line before (see ltsvParser). */
const LTSV_SLOTS = 64;

function ltsvParser(labels: Uint8Array[], st: Int32Array, en: Int32Array, fill: (b: Uint8Array, rec: AccessRecord) => string): AccessLineParser {
  // why: a field's label is walked down the trie of the wanted labels, one table read per byte,
  // and the walk stops at the first byte no wanted label has there; comparing the candidates that
  // share a first byte one after the other cost a third of the parse.
  const { next, field } = labelTrie(labels);
  // why: the lines of one log share their layout, so the wanted field the j-th field held on the
  // line before (slot[j] − 1; 0: none) is checked first, its label compared byte by byte, bytes
  // that do not wait on each other; the trie walk, one table read waiting on the one before per
  // byte, then runs only where the layout changed (or for labels nobody wants: it stops at once).
  const slot = new Int8Array(LTSV_SLOTS);
  const wanted = labels.map((l, k) => (labelTrieField(next, field, l) === k ? l : undefined));
  const parse: AccessLineParser = (b, s, e, rec) => {
    clearFields(st, en);
    let pos = s;
    let found = 0;
    let j = 0;
    while (pos < e) {
      let k = -1;
      let i = pos;
      const guess = j < LTSV_SLOTS ? slot[j] - 1 : -1;
      if (guess >= 0 && startsLabel(b, pos, e, wanted[guess]!)) {
        k = guess;
        i = pos + wanted[guess]!.length;
      } else {
        let node = 0;
        while (i < e) {
          const to = next[(node << 8) | b[i]];
          if (to === 0) break;
          node = to;
          i++;
        }
        if (i < e && b[i] === 58 && field[node] !== 0) k = field[node] - 1;
        if (j < LTSV_SLOTS) slot[j] = k + 1;
      }
      if (k >= 0) {
        // why: a label seen twice means the line is two requests, the first cut short.
        if (st[k] >= 0) return JOINED;
        st[k] = i + 1;
      }
      // why: a loop here beats Buffer#indexOf (a call per short field). It tests four bytes a round
      // while four are left, so the line's end is tested once per round instead of once per byte
      // (the parse at 0.91–0.97× the CPU of the byte-at-a-time loop, in-process pairs over 200,000 lines).
      let tab = i;
      while (tab + 4 <= e && b[tab] !== 9 && b[tab + 1] !== 9 && b[tab + 2] !== 9 && b[tab + 3] !== 9) tab += 4;
      while (tab < e && b[tab] !== 9) tab++;
      if (k >= 0) { en[k] = tab; found++; }
      pos = tab + 1;
      j++;
    }
    if (found === 0) return 'not LTSV (none of the expected labels)';
    return fill(b, rec);
  };
  // The next line starts with the same label as this one (`time:`), glued after the cut.
  parse.rejoin = (b, s, e, after) => {
    let c = s;
    while (c < e && c - s < 64 && b[c] !== 58 && b[c] !== 9) c++;
    if (b[c] !== 58 || c === s) return -1;
    return findBytes(b, Math.max(after + 1, s + 1), e, b.subarray(s, c + 1));
  };
  return parse;
}

/** The field (index) the trie gives a whole label, -1 when none (a label it left out, or one an earlier field took). */
function labelTrieField(next: Int32Array, field: Int32Array, label: Uint8Array): number {
  let node = 0;
  for (const c of label) {
    node = next[(node << 8) | c];
    if (node === 0) return -1;
  }
  return field[node] - 1;
}

/** True when b[pos, e) starts with `label` followed by `:` (the field's label is exactly `label`). */
function startsLabel(b: Uint8Array, pos: number, e: number, label: Uint8Array): boolean {
  const n = label.length;
  if (pos + n >= e || b[pos + n] !== 58) return false;
  for (let q = 0; q < n; q++) if (b[pos + q] !== label[q]) return false;
  return true;
}

/** Position of `needle` in b[from, e), -1 if absent (a forward scan; needles are short). */
function findBytes(b: Uint8Array, from: number, e: number, needle: Uint8Array): number {
  const n = needle.length;
  for (let i = from; i <= e - n; i++) {
    if (b[i] !== needle[0]) continue;
    let k = 1;
    while (k < n && b[i + k] === needle[k]) k++;
    if (k === n) return i;
  }
  return -1;
}

function jsonParser(labels: Uint8Array[], map: FieldMapping, st: Int32Array, en: Int32Array, fill: (b: Uint8Array, rec: AccessRecord) => string, keepQuery: boolean): AccessLineParser {
  const n = labels.length;
  const parse: AccessLineParser = (b, s, e, rec) => {
    clearFields(st, en);
    let i = s;
    while (i < e && (b[i] === 32 || b[i] === 9)) i++;
    if (b[i] !== 123) return 'not a JSON object';
    i++;
    let escaped = false;
    for (;;) {
      while (i < e && (b[i] === 32 || b[i] === 9 || b[i] === 44)) i++;
      if (i >= e) return 'truncated JSON';
      if (b[i] === 125) break;
      if (b[i] === 123) return JOINED;
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
    i++;
    while (i < e && (b[i] === 32 || b[i] === 9)) i++;
    if (i < e) return b[i] === 123 ? JOINED : 'text after the JSON object';
    if (escaped) {
      // why: caps first, so a huge escaped value is refused before JSON.parse copies it (6 bytes per `\uXXXX`).
      for (let k = 0; k < n; k++) if (en[k] - st[k] > 6 * MAX_URI_BYTES) return k === F.Uri || k === F.Request ? 'uri too long' : 'field too long';
      // why: escapes (`\"`, `\u00e9`, `\/`) are rare in these fields; let JSON.parse decode them.
      return fillFromObject(b, s, e, map, rec, keepQuery);
    }
    return fill(b, rec);
  };
  // The next line starts like this one (`{"time":`), glued after the cut.
  parse.rejoin = (b, s, e, after) => {
    let c = s;
    while (c < e && c - s < 64 && b[c] !== 58) c++;
    if (b[c] !== 58 || b[s] !== 123) return -1;
    return findBytes(b, Math.max(after + 1, s + 1), e, b.subarray(s, c + 1));
  };
  return parse;
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
 * A parser for an nginx `log_format` (a named layout or the string itself). nginx escapes `"` inside
 * variables as `\x22`, so the literals between variables delimit them reliably.
 */
function layoutParser(format: string, keepQuery: boolean, decode: ByteDecoder): AccessLineParser {
  const layout = compileLogFormat(format);
  const st = new Int32Array(F.Count);
  const en = new Int32Array(F.Count);
  const parse: AccessLineParser = (b, s, e, rec) => {
    clearFields(st, en);
    const err = matchLayout(layout, b, s, e, st, en);
    if (err) return err;
    return fillRecord(b, st, en, rec, keepQuery, decode);
  };
  parse.rejoin = (b, s, e, after) => rejoinLayout(layout, b, s, e, after);
  return parse;
}

const GROUP_FIELD: Record<string, F> = {
  method: F.Method, uri: F.Uri, request: F.Request, status: F.Status, size: F.Size, body_bytes: F.Size,
  reqtime: F.Reqtime, request_time: F.Reqtime, apptime: F.Apptime, upstream_response_time: F.Apptime, response_time: F.Apptime,
  reqsize: F.Reqsize, request_length: F.Reqsize, time: F.Time, time_local: F.Time, time_iso8601: F.Time, msec: F.Time,
};

/** Lines longer than this are not given to a user's regular expression (its time is not bounded by the scan). */
const MAX_PATTERN_LINE = 64 * 1024;

/** A parser from a regular expression with named groups; needs `uri` or `request`, and a time. */
function regexParser(pattern: string, keepQuery: boolean, decode: ByteDecoder): AccessLineParser {
  let re: GuardedRegex;
  try { re = guardUserRegex(pattern, 'd', MAX_PATTERN_LINE); } catch (err) { throw new Error(`log pattern: ${(err as Error).message}`); }
  const names = Object.keys(GROUP_FIELD).filter((g) => pattern.includes(`(?<${g}>`));
  if (!names.some((g) => g === 'uri' || g === 'request')) throw new Error('the log pattern needs a named group (?<uri>…) or (?<request>…)');
  if (!names.some((g) => GROUP_FIELD[g] === F.Reqtime || GROUP_FIELD[g] === F.Apptime)) throw new Error('the log pattern needs a named group (?<reqtime>…) or (?<apptime>…)');
  const st = new Int32Array(F.Count);
  const en = new Int32Array(F.Count);
  return (b, s, e, rec) => {
    if (e - s > MAX_PATTERN_LINE) return 'line too long for the log pattern';
    let ascii = true;
    for (let i = s; i < e; i++) if (b[i] >= 128) { ascii = false; break; }
    const text = decode(b, s, e, ascii);
    const m = re.exec(text);
    if (m === undefined) return 'log pattern too slow (no longer used)';
    if (!m || !m.indices?.groups) return 'does not match the log pattern';
    const bytes = ascii ? b : encoder.encode(text);
    const base = ascii ? s : 0;
    clearFields(st, en);
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
