/**
 * The time written on an access-log line, as milliseconds since the epoch: nginx's `$time_local`
 * (`21/Nov/2023:10:00:00 +0900`), `$time_iso8601` (`2023-11-21T10:00:00+09:00`) or `$msec`
 * (`1700528400.123`). Read only for a log's first and last request (its time span), so it may be slow.
 */

const MONTHS: Readonly<Record<string, number>> = { Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 };

const TIME_LOCAL = /^(\d{1,2})\/([A-Z][a-z]{2})\/(\d{4}):(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))? ([+-])(\d{2}):?(\d{2})$/;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})$/;
const MSEC = /^\d{9,11}(?:\.\d{1,6})?$/;

/** Milliseconds since the epoch, or undefined when `text` is none of nginx's time formats. */
export function parseLogTime(text: string): number | undefined {
  const t = text.trim().replace(/^\[(.*)\]$/, '$1');
  let ms: number;
  const m = TIME_LOCAL.exec(t);
  if (m) {
    const month = MONTHS[m[2]];
    if (month === undefined) return undefined;
    const frac = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
    const offset = (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10])) * 60_000;
    ms = Date.UTC(Number(m[3]), month, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6])) + frac - offset;
  } else if (ISO_8601.test(t)) {
    ms = Date.parse(t.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  } else if (MSEC.test(t)) {
    ms = Number(t) * 1000;
  } else {
    return undefined;
  }
  return Number.isFinite(ms) ? ms : undefined;
}

/** The longest time text kept (with room for fractions and a zone). */
const MAX_TIME_BYTES = 48;

/**
 * The first and last time seen on the lines read, kept as their text: the first is decoded once, the
 * last is copied into a small buffer per line (the reader's chunk is reused) and decoded at the end.
 */
export class TimeSpanTracker {
  private first: string | undefined;
  private readonly last = new Uint8Array(MAX_TIME_BYTES);
  private lastLength = -1;

  see(b: Uint8Array, s: number, e: number): void {
    const n = e - s;
    if (n <= 0 || n > MAX_TIME_BYTES) return;
    if (this.first === undefined) this.first = latin1(b, s, e);
    const last = this.last;
    for (let i = 0; i < n; i++) last[i] = b[s + i];
    this.lastLength = n;
  }

  /** What a reader of the next range of the same log saw (ranges absorbed in the log's order). */
  absorb(texts: { first: string; last: string } | undefined): void {
    if (!texts) return;
    this.first ??= texts.first;
    const n = Math.min(texts.last.length, MAX_TIME_BYTES);
    for (let i = 0; i < n; i++) this.last[i] = texts.last.charCodeAt(i) & 0xff;
    this.lastLength = n;
  }

  /** The texts of the first and last time seen (undefined when no line had one). */
  texts(): { first: string; last: string } | undefined {
    if (this.first === undefined || this.lastLength < 0) return undefined;
    return { first: this.first, last: latin1(this.last, 0, this.lastLength) };
  }
}

function latin1(b: Uint8Array, s: number, e: number): string {
  let out = '';
  for (let i = s; i < e; i++) out += String.fromCharCode(b[i]);
  return out;
}

/** The span of a log from its first and last time texts, as ISO strings; undefined when either is unreadable. */
export function spanOf(texts: { first: string; last: string } | undefined): { from: string; to: string } | undefined {
  if (!texts) return undefined;
  const from = parseLogTime(texts.first);
  const to = parseLogTime(texts.last);
  if (from === undefined || to === undefined) return undefined;
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}
