/**
 * Access logs in a layout given as an nginx `log_format` string: the string is compiled once into a
 * list of literals and variables, and each line is read by one forward scan (every variable ends at
 * the next literal), so a line costs time linear in its length whatever it holds.
 *
 * Named layouts: `combined` is nginx's predefined layout with `$request_time $upstream_response_time`
 * appended (docs/nginx-log-formats.md); `combined-alp` is alp's variant, which writes the two times
 * the other way round (`$upstream_response_time $request_time`). Which one a log uses cannot be seen
 * in the data, so the user declares it (`--log-format`, `queryInsight.endpoints.logFormat`).
 */

/** The fields the analysis reads, as indexes into the field arrays of the parsers. */
export const enum Field { Method, Uri, Status, Size, Reqtime, Apptime, Request, Reqsize, Time, Count }

/** The `log_format` of the named layouts. */
export const NAMED_LOG_FORMATS: Readonly<Record<string, string>> = {
  combined: '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_time $upstream_response_time',
  'combined-alp': '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $upstream_response_time $request_time',
};

/** nginx variable → the field it fills (others are read past). */
const VARIABLES: Readonly<Record<string, Field>> = {
  request: Field.Request, request_method: Field.Method, request_uri: Field.Uri, uri: Field.Uri, document_uri: Field.Uri,
  status: Field.Status, body_bytes_sent: Field.Size, bytes_sent: Field.Size, request_time: Field.Reqtime,
  upstream_response_time: Field.Apptime, request_length: Field.Reqsize,
  time_local: Field.Time, time_iso8601: Field.Time, msec: Field.Time,
};

/** One compiled `log_format`: `literals[k]` precedes `vars[k]`; `literals[vars.length]` ends the line. */
export interface LogFormatLayout {
  source: string;
  literals: Uint8Array[];
  /** Field of each variable, -1 for a variable that is only skipped. */
  vars: number[];
  /** The variable names, for messages (`$request_time`). */
  names: string[];
  /** A line may end after this variable, or any later one (the first time field): what follows is optional. */
  firstStop: number;
}

/** True when `value` is an nginx log_format string rather than a format name. */
export function isLogFormatString(value: string): boolean {
  return value.includes('$');
}

/**
 * Compiles a `log_format` string (or a named layout). Throws with a reason when a line in that layout
 * could not be read: two variables with nothing between them, or none of the fields needed.
 */
export function compileLogFormat(format: string): LogFormatLayout {
  const source = NAMED_LOG_FORMATS[format] ?? format;
  const literals: Uint8Array[] = [];
  const vars: number[] = [];
  const names: string[] = [];
  let lit = '';
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c !== '$') { lit += c; i++; continue; }
    let j = i + 1;
    const braced = source[j] === '{';
    if (braced) j++;
    const start = j;
    while (j < source.length && /[A-Za-z0-9_]/.test(source[j])) j++;
    const name = source.slice(start, j);
    if (!name) throw new Error(`log_format: "$" without a variable name at offset ${i}`);
    if (braced) { if (source[j] !== '}') throw new Error(`log_format: unclosed \${${name}`); j++; }
    if (vars.length > 0 && lit === '') throw new Error(`log_format: $${names[names.length - 1]} and $${name} have nothing between them, so a line cannot be split`);
    literals.push(new TextEncoder().encode(lit));
    vars.push(VARIABLES[name] ?? -1);
    names.push(name);
    lit = '';
    i = j;
  }
  literals.push(new TextEncoder().encode(lit));
  const has = (f: Field) => vars.includes(f);
  if (!has(Field.Uri) && !has(Field.Request)) throw new Error('log_format: needs $request or $request_uri');
  if (!has(Field.Status)) throw new Error('log_format: needs $status');
  if (!has(Field.Reqtime) && !has(Field.Apptime)) throw new Error('log_format: needs $request_time or $upstream_response_time');
  const firstStop = vars.findIndex((f) => f === Field.Reqtime || f === Field.Apptime);
  return { source, literals, vars, names, firstStop };
}

/** Position of `lit` in b[from, e), -1 if absent. One forward scan (literals are a few bytes). */
function find(b: Uint8Array, from: number, e: number, lit: Uint8Array): number {
  const n = lit.length;
  const first = lit[0];
  const last = e - n;
  for (let i = from; i <= last; i++) {
    if (b[i] !== first) continue;
    let k = 1;
    while (k < n && b[i + k] === lit[k]) k++;
    if (k === n) return i;
  }
  return -1;
}

/**
 * Where the variable that starts at `from` ends: the next occurrence of the literal that follows it.
 * An upstream time list (`0.010, 0.004`, `0.010 : 0.004`) holds spaces: a space that belongs to the
 * list's separator does not end it.
 */
function varEnd(b: Uint8Array, from: number, e: number, lit: Uint8Array, list: boolean): number {
  let at = from;
  for (;;) {
    const p = find(b, at, e, lit);
    if (p < 0 || !list || lit[0] !== 32) return p;
    const sep = (p > from && (b[p - 1] === 44 || b[p - 1] === 58)) || b[p + 1] === 58;
    if (!sep) return p;
    at = p + 1;
  }
}

/**
 * Reads one line against a layout into field ranges (`st`/`en`, -1 = absent). Returns '' or why the
 * line does not fit. A line may stop early, after a time variable or a later one whose following
 * literal is missing (a log_format with an optional trailing time, like the predefined combined + times).
 */
export function matchLayout(layout: LogFormatLayout, b: Uint8Array, s: number, e: number, st: Int32Array, en: Int32Array): string {
  const { literals, vars } = layout;
  let pos = s;
  const lead = literals[0];
  for (let k = 0; k < lead.length; k++) if (b[pos + k] !== lead[k] || pos + k >= e) return 'does not match the log format at its start';
  pos += lead.length;
  const n = vars.length;
  for (let v = 0; v < n; v++) {
    const lit = literals[v + 1];
    const f = vars[v];
    let end: number;
    if (v === n - 1 && lit.length === 0) end = e;
    else {
      end = varEnd(b, pos, e, lit, f === Field.Apptime);
      if (end < 0) {
        // the line stops inside the layout: accepted when this variable runs to the end and nothing
        // but optional fields remain (checked by the caller, which needs a status and a time).
        if (v === n - 1 || v < layout.firstStop || literals[v + 1][0] !== 32) return `does not match the log format after $${layout.names[v]}`;
        end = e;
        if (f >= 0) { st[f] = pos; en[f] = end; }
        return '';
      }
    }
    if (f >= 0) { st[f] = pos; en[f] = end; }
    pos = end + lit.length;
  }
  return pos === e ? '' : 'text after the end of the log format';
}

/**
 * The next place in b(after, e) where a request that a cut line swallowed may start: the first
 * literal of the layout (` - ` in combined) after the line's own, backed up over the variable before
 * it. -1 when there is none.
 */
export function rejoinLayout(layout: LogFormatLayout, b: Uint8Array, s: number, e: number, after: number): number {
  const lead = layout.literals[0];
  if (lead.length > 0) { const occ = find(b, Math.max(after + 1, s + 1), e, lead); return occ; }
  const lit = layout.literals[1];
  if (!lit || lit.length === 0) return -1;
  let from = after + 1;
  for (;;) {
    const occ = find(b, from, e, lit);
    if (occ < 0) return -1;
    let p = occ;
    while (p > s && b[p - 1] !== 32 && b[p - 1] !== 34 && b[p - 1] !== 93) p--;
    if (p > after && p > s) return p;
    from = occ + 1;
  }
}
