/**
 * A round's window in the logs. Contest benchmarkers start with `POST /initialize` (or
 * `/api/initialize`), so the window starts at the last such request in the access log; the time
 * of that line and of the log's last line bound the slow log. Only lines that hold the bytes
 * `initialize` are parsed here (a native byte search first), so the pass costs little more than
 * the read; and only those lines and the last one have their time read.
 */
import { createAccessParser, type AccessParserOptions } from '../logs/accessParsers';
import { AccessRecord } from '../logs/accessBytes';

const NEEDLE = new TextEncoder().encode('initialize');

/** True for a byte range that holds `initialize` (a cheap test before a parse). */
function holdsNeedle(b: Uint8Array, s: number, e: number): boolean {
  const len = NEEDLE.length;
  const first = NEEDLE[0];
  for (let i = s; i <= e - len; i++) {
    if (b[i] !== first) continue;
    let k = 1;
    while (k < len && b[i + k] === NEEDLE[k]) k++;
    if (k === len) return true;
  }
  return false;
}

/** A test of one access-log line: is it the benchmarker's `POST …/initialize`, and how long did it take (seconds, NaN when not logged)? */
export type InitializeTest = (b: Uint8Array, s: number, e: number) => { seconds: number } | undefined;

/** Builds the test for a log layout (the access parser of that layout reads the line). */
export function initializeTest(options: AccessParserOptions): InitializeTest {
  const parse = createAccessParser(options);
  const rec = new AccessRecord();
  return (b, s, e) => {
    if (!holdsNeedle(b, s, e)) return undefined;
    if (parse(b, s, e, rec)) return undefined;
    if (rec.method !== 'POST') return undefined;
    const path = rec.path.split('?')[0];
    if (path !== '/initialize' && !path.endsWith('/initialize')) return undefined;
    return { seconds: rec.reqTime === rec.reqTime ? rec.reqTime : rec.appTime };
  };
}

const MONTHS: Record<string, number> = { Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 };
/** nginx's $time_local: `10/Oct/2024:13:55:36 +0900`. */
const LOCAL_TIME = /(\d{2})\/([A-Z][a-z]{2})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})/;
/** $time_iso8601 and its kin: `2024-10-10T13:55:36+09:00`, fractions and `Z` too. */
const ISO_TIME = /(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)(Z|[+-]\d{2}:?\d{2})/;

/** The time a log line carries (epoch ms), from nginx's $time_local or an ISO 8601 stamp; NaN when it has none. Reads at most the first 1,024 bytes. */
export function lineTime(b: Uint8Array, s: number, e: number): number {
  let text = '';
  const end = Math.min(e, s + 1024);
  for (let i = s; i < end; i++) text += String.fromCharCode(b[i]);
  const m = LOCAL_TIME.exec(text);
  if (m) {
    const month = MONTHS[m[2]];
    if (month === undefined) return NaN;
    const offset = (m[7] === '-' ? -1 : 1) * (Number(m[8]) * 60 + Number(m[9]));
    return Date.UTC(Number(m[3]), month, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6])) - offset * 60_000;
  }
  const i = ISO_TIME.exec(text);
  if (i) {
    const t = Date.parse(`${i[1]}-${i[2]}-${i[3]}T${i[4]}:${i[5]}:${i[6]}${i[7].length === 5 ? `${i[7].slice(0, 3)}:${i[7].slice(3)}` : i[7]}`);
    return Number.isFinite(t) ? t : NaN;
  }
  return NaN;
}

/** What the window pass found in one access log. */
export interface WindowScan {
  lines: number;
  /** The last `POST /initialize`: its line (1-based, in this read), its time (epoch ms, NaN unknown) and duration (s). */
  initialize?: { line: number; time: number; seconds: number };
  /** Time of the first and last line that has one (epoch ms). */
  firstTime: number;
  lastTime: number;
}

/** Scans lines for the window: hand `line` to a reader, then read `result`. */
export class WindowScanner {
  private readonly test: InitializeTest;
  private readonly last = new Uint8Array(1024);
  private lastLen = 0;
  private tries = 0;
  private scan: WindowScan = { lines: 0, firstTime: NaN, lastTime: NaN };
  readonly line: (b: Uint8Array, s: number, e: number, lineNo: number) => void;

  constructor(options: AccessParserOptions) {
    this.test = initializeTest(options);
    this.line = (b, s, e, n) => {
      this.scan.lines = n;
      if (s === e) return;
      // why: a layout without a time field would be searched on every line; ten lines settle it.
      if (this.scan.firstTime !== this.scan.firstTime && this.tries++ < 10) this.scan.firstTime = lineTime(b, s, e);
      const hit = this.test(b, s, e);
      if (hit) this.scan.initialize = { line: n, time: lineTime(b, s, e), seconds: hit.seconds };
      const len = Math.min(e - s, this.last.length);
      this.last.set(b.subarray(s, s + len), 0);
      this.lastLen = len;
    };
  }

  /** Lines longer than the reader's limit still count. */
  tooLong(lineNo: number): void {
    this.scan.lines = lineNo;
  }

  result(): WindowScan {
    return { ...this.scan, lastTime: this.lastLen ? lineTime(this.last, 0, this.lastLen) : NaN };
  }
}

/** The slow log's span from the window: from the start of the `/initialize` request (its log time less its duration, less the log's one-second resolution) to a second after the access log's last line. */
export function slowSpan(init: WindowScan['initialize'] | undefined, lastTime: number): { from: number; to: number } {
  const from = init && init.time === init.time ? init.time - (init.seconds === init.seconds ? init.seconds * 1000 : 0) - 1000 : -Infinity;
  const to = lastTime === lastTime ? lastTime + 1000 : Infinity;
  return { from, to };
}
