/**
 * The one way numbers are written for people, in the editor, the report webview and the CLI's text
 * and Markdown tables (never in JSON, CSV or TSV, which keep raw numbers): `Intl.NumberFormat` with
 * grouped thousands in the `en-US` style, so 33348 reads `33,348` everywhere.
 */

// why: creating an Intl.NumberFormat maps ICU's locale data (about 7 MB of RSS and 20 ms in a CLI
// run); the formatters are made on first use, and integers (counts, ranks: most numbers shown) are
// grouped below without them, exactly as Intl writes them.
let count: Intl.NumberFormat | undefined;
let compact: Intl.NumberFormat | undefined;

/** A safe integer grouped by thousands in the en-US style (`-1,234,567`), as Intl.NumberFormat writes it. */
function groupedInteger(n: number): string {
  const digits = String(n < 0 ? -n : n);
  let i = digits.length % 3 || 3;
  let s = digits.slice(0, i);
  for (; i < digits.length; i += 3) s += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${s}` : s;
}

// why: `+ 0` turns -0 into 0, which Intl would write "-0".
/** A count or amount: grouped thousands, at most one decimal (`33,348`, `1,234.5`, `0.3`); `–` when not finite. */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return '–';
  if (Number.isSafeInteger(n)) return groupedInteger(n + 0);
  return (count ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 })).format(n + 0);
}

/** Rounded to a whole number, grouped (`1,235`); `–` when not finite. */
export function formatWhole(n: number): string {
  return Number.isFinite(n) ? formatCount(Math.round(n)) : '–';
}

/** Short form for a rough size: `950`, `12K`, `1.2M`, `3.4B`; `–` when not finite. */
export function formatCompact(n: number): string {
  return Number.isFinite(n) ? (compact ??= new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 })).format(n + 0) : '–';
}

const SIZE_UNITS = ['KB', 'MB', 'GB', 'TB'];

/** A file size in the unit that keeps it readable: `512 B`, `30.1 KB`, `1.2 MB`, `3.4 GB` (1 KB = 1,024 bytes); `–` when not a size. */
export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '–';
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  let v = bytes / 1024;
  let u = 0;
  // why: 1023.96 KB would round to "1024.0 KB"; the next unit reads better from there.
  while (v >= 1023.95 && u < SIZE_UNITS.length - 1) { v /= 1024; u++; }
  return `${formatCount(Number(v.toFixed(1)))} ${SIZE_UNITS[u]}`;
}
