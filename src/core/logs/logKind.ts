/**
 * Tells the kinds of file apart from their first lines: a MySQL / MariaDB slow query log, an access
 * log in one of the layouts the endpoint reader knows, a saved run, or an empty file. The one sniffer
 * behind the CLI's refusal of the wrong kind of log (`endpoints`, `slow`), the kind and layout `diff`
 * and the run loaders assume, and the editor's pickers and imports. Reads bytes by plain scans (no
 * regular expression over the head), so a head of any shape costs time linear in its length.
 */
import { looksLikeRun } from '../report/runs';

export type LogKind = 'slow' | 'access' | 'run' | 'empty' | 'unknown';

export interface LogSniff {
  kind: LogKind;
  /** For an access log: the layout of its first line. */
  format?: 'ltsv' | 'json' | 'combined';
}

/** How much of a file the sniffers look at. */
export const SNIFF_BYTES = 64 * 1024;

/** One line at a time of the first SNIFF_BYTES bytes, up to `max` non-blank lines. */
function headLines(head: Uint8Array, max: number): [number, number][] {
  const out: [number, number][] = [];
  let pos = 0;
  const n = Math.min(head.length, SNIFF_BYTES);
  while (pos < n && out.length < max) {
    let nl = pos;
    while (nl < n && head[nl] !== 10) nl++;
    let end = nl;
    if (end > pos && head[end - 1] === 13) end--;
    let s = pos;
    while (s < end && (head[s] === 32 || head[s] === 9)) s++;
    if (s < end) out.push([s, end]);
    pos = nl + 1;
  }
  return out;
}

function startsWith(b: Uint8Array, s: number, e: number, text: string): boolean {
  if (e - s < text.length) return false;
  for (let i = 0; i < text.length; i++) if (b[s + i] !== text.charCodeAt(i)) return false;
  return true;
}

function includes(b: Uint8Array, s: number, e: number, text: string): boolean {
  const first = text.charCodeAt(0);
  for (let i = s; i <= e - text.length; i++) if (b[i] === first && startsWith(b, i, e, text)) return true;
  return false;
}

const SLOW_HEADERS = ['# Time: ', '# User@Host: ', '# User: ', '# Query_time: ', '# Thread_id: ', '# Rows_affected: ', '# administrator command: '];

/** True for a line only a slow log writes: its entry headers, `SET timestamp=`, or the server's start-up banner. */
function slowLine(b: Uint8Array, s: number, e: number): boolean {
  for (const h of SLOW_HEADERS) if (startsWith(b, s, e, h)) return true;
  if (startsWith(b, s, e, 'SET timestamp=')) return true;
  if (startsWith(b, s, e, 'Tcp port: ') && includes(b, s, e, 'Unix socket: ')) return true;
  if (startsWith(b, s, e, 'Time ') && includes(b, s, e, ' Id Command')) return true;
  return includes(b, s, e, ', Version: ') && includes(b, s, e, 'started with:');
}

/** True for `label:value<TAB>label:` at the start of a line (LTSV). */
function ltsvLine(b: Uint8Array, s: number, e: number): boolean {
  let labels = 0;
  let pos = s;
  while (pos < e && labels < 2) {
    let i = pos;
    while (i < e && ((b[i] >= 48 && b[i] <= 57) || ((b[i] | 0x20) >= 97 && (b[i] | 0x20) <= 122) || b[i] === 95 || b[i] === 45)) i++;
    if (i === pos || b[i] !== 58) return false;
    labels++;
    while (i < e && b[i] !== 9) i++;
    pos = i + 1;
  }
  return labels >= 2;
}

/** The access layout of one line ('' when it is none of them). */
function accessLine(b: Uint8Array, s: number, e: number): LogSniff['format'] | '' {
  if (b[s] === 123) return 'json';
  if (ltsvLine(b, s, e)) return 'ltsv';
  return includes(b, s, e, '] "') ? 'combined' : '';
}

/** True when a saved run starts at `s` (`{"format":"query-insight-run"…`, pretty-printed or not). */
function runStart(b: Uint8Array, s: number): boolean {
  if (b[s] !== 123) return false;
  let text = '';
  for (let i = s; i < Math.min(b.length, s + 256); i++) text += String.fromCharCode(b[i]);
  return looksLikeRun(text);
}

/**
 * Sniffs the head of a file (its first bytes, decompressed). Nothing but blanks is `empty`; a saved
 * run is recognised by its marker; a slow log by the lines only a slow log writes among its first
 * 200 non-blank lines; an access log by the layout of its first non-blank line.
 */
export function sniffLog(head: Uint8Array): LogSniff {
  const lines = headLines(head, 200);
  if (lines.length === 0) return { kind: 'empty' };
  const [fs, fe] = lines[0];
  if (runStart(head, fs)) return { kind: 'run' };
  const first = accessLine(head, fs, fe);
  if (first) return { kind: 'access', format: first };
  for (const [s, e] of lines) if (slowLine(head, s, e)) return { kind: 'slow' };
  return { kind: 'unknown' };
}

/** The access layout to assume for a head: its first line's, or `combined` (the reader then says what did not fit). */
export function guessAccessFormat(head: Uint8Array): 'ltsv' | 'json' | 'combined' {
  return sniffLog(head).format ?? 'combined';
}

/** The one-line reason an `endpoints` / `slow` run refuses a log of the other kind, or '' when it does not. */
export function wrongKindMessage(sniff: LogSniff, wanted: 'access' | 'slow'): string {
  if (wanted === 'access' && sniff.kind === 'slow') return 'this looks like a MySQL slow log; use `query-insight slow`';
  if (wanted === 'slow' && sniff.kind === 'access') return `this looks like an nginx access log (${sniff.format}); use \`query-insight endpoints\``;
  return '';
}
