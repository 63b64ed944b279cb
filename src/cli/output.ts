/** Output formats shared by every CLI command: one place decides how a table, JSON Lines, Markdown, CSV and TSV look. */
import { escapeControls } from '../core/format/controlChars';
import { formatCount } from '../core/format/numbers';

export type Format = 'table' | 'json' | 'md' | 'csv' | 'tsv';

export const FORMATS: readonly Format[] = ['table', 'json', 'md', 'csv', 'tsv'];

export interface Column<T> {
  header: string;
  value: (row: T) => string | number;
  /** Right-align in tables (numbers). */
  right?: boolean;
}

/** Parses `--format`, accepting only the formats a command supports. */
export function parseFormat(value: string | undefined, allowed: readonly Format[], fallback: Format = 'table'): Format {
  const f = (value ?? fallback) as Format;
  if (!allowed.includes(f)) throw new UsageError(`--format must be one of ${allowed.join(', ')} (got "${value}")`);
  return f;
}

/** An error in how the command was called: printed with the usage, exit code 2. */
export class UsageError extends Error {}

/** True for a plain decimal (`12`, `-0.5`, `+3.`): a spreadsheet reads it as a number, never a formula. */
function plainNumber(s: string): boolean {
  let i = s[0] === '-' || s[0] === '+' ? 1 : 0;
  let digits = 0;
  let dot = false;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
    else if (c === 46 && !dot) dot = true;
    else return false;
  }
  return digits > 0;
}

/**
 * Neutralises a cell a spreadsheet would run as a formula (it starts with `=`, `+`, `-`, `@`, a tab
 * or a carriage return, and is not a plain number) by a leading `'`, as OWASP advises for CSV export.
 */
export function spreadsheetSafe(s: string): string {
  const c = s[0];
  if ((c === '=' || c === '+' || c === '-' || c === '@' || c === '\t' || c === '\r') && !plainNumber(s)) return `'${s}`;
  return s;
}

/** One CSV cell (RFC 4180): formula-safe, quoted when it holds the separator, a quote, or a line break. */
export function csvCell(s: string, sep = ','): string {
  const v = spreadsheetSafe(s);
  return v.includes(sep) || v.includes('"') || v.includes('\n') || v.includes('\r') ? `"${v.replace(/"/g, '""')}"` : v;
}

/** One TSV cell: formula-safe, with tabs and line breaks turned into spaces (TSV has no quoting). */
export function tsvCell(s: string): string {
  return spreadsheetSafe(s).replace(/[\t\n\r]/g, ' ');
}

/**
 * One Markdown table cell: every character that could start markup (HTML tags, links and images,
 * emphasis, code spans, table pipes, strikethrough) is backslash-escaped, and line breaks
 * become spaces, so text from a log renders as the text it is.
 */
export function mdCell(s: string): string {
  return s.replace(/[\\`*_[\]<>|!~]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, ' ');
}

/**
 * Renders rows as an aligned text table, Markdown, CSV or TSV (JSON is the caller's, one object per line).
 * Every cell's control characters and bidi overrides are shown escaped (`\x1b`, `\u202e`: escapeControls).
 */
export function renderRows<T>(rows: readonly T[], columns: readonly Column<T>[], format: Exclude<Format, 'json'>): string {
  // why: tables are read by people (33,348); CSV and TSV are read by programs and keep the raw number.
  const forPeople = format === 'table' || format === 'md';
  const cells = rows.map((r) => columns.map((c) => { const v = c.value(r); return forPeople && typeof v === 'number' ? formatCount(v) : escapeControls(String(v)); }));
  const headers = columns.map((c) => escapeControls(c.header));
  if (format === 'csv' || format === 'tsv') {
    const sep = format === 'csv' ? ',' : '\t';
    const clean = (s: string) => (format === 'tsv' ? tsvCell(s) : csvCell(s, sep));
    return [headers, ...cells].map((line) => line.map(clean).join(sep)).join('\n') + '\n';
  }
  if (format === 'md') {
    const head = `| ${headers.map(mdCell).join(' | ')} |`;
    const rule = `| ${columns.map((c) => (c.right ? '---:' : '---')).join(' | ')} |`;
    return [head, rule, ...cells.map((line) => `| ${line.map(mdCell).join(' | ')} |`)].join('\n') + '\n';
  }
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((line) => line[i].length)));
  const pad = (s: string, i: number) => (columns[i].right ? s.padStart(widths[i]) : s.padEnd(widths[i]));
  const sepLine = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  const fmt = (line: string[]) => `| ${line.map(pad).join(' | ')} |`;
  return [sepLine, fmt(headers), sepLine, ...cells.map(fmt), sepLine].join('\n') + '\n';
}

/** JSON Lines: one object per line. */
export function renderJsonLines(objects: readonly unknown[]): string {
  // why: appending builds a rope that is flattened once when written; map + join took about twice as long
  // on tens of thousands of records (a scan's statements and N+1 findings).
  let out = '';
  for (const o of objects) out += `${JSON.stringify(o) ?? ''}\n`; // (join wrote nothing for undefined)
  return out;
}

/** Collapses whitespace so a multi-line statement fits one table cell. */
export function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * JSON Lines written as UTF-8 bytes while the objects are made, so a long output (a scan's statements and N+1
 * findings: 20 MB for 10,000 files) is never held as one string, nor the objects as a list: the same bytes as
 * renderJsonLines's text encoded. Text is gathered into pieces of about 64 KB, each encoded into one buffer
 * that grows by doubling, never shared with other Buffers (so the caller may transfer it to another thread).
 */
export class JsonLinesBytes {
  private buf: Buffer;
  private len = 0;
  private pending = '';
  /** Lines added. */
  count = 0;

  constructor(initial = 1 << 16) {
    this.buf = Buffer.allocUnsafeSlow(initial);
  }

  add(o: unknown): void {
    this.pending += `${JSON.stringify(o) ?? ''}\n`;
    this.count++;
    if (this.pending.length >= 1 << 16) this.flush();
  }

  /** The bytes so far, a view of the buffer (add nothing after taking them). */
  bytes(): Uint8Array {
    this.flush();
    return this.buf.subarray(0, this.len);
  }

  private flush(): void {
    const s = this.pending;
    if (!s) return;
    this.pending = '';
    // why: at most three bytes of UTF-8 per UTF-16 unit (a surrogate pair: four bytes for two units).
    const need = this.len + s.length * 3;
    if (need > this.buf.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(need, this.buf.length * 2));
      this.buf.copy(grown, 0, 0, this.len);
      this.buf = grown;
    }
    this.len += this.buf.write(s, this.len, 'utf8');
  }
}
