/**
 * The one way numbers are written for people, in the editor, the report webview and the CLI's text
 * and Markdown tables (never in JSON, CSV or TSV, which keep raw numbers): `Intl.NumberFormat` with
 * grouped thousands in the `en-US` style, so 33348 reads `33,348` everywhere.
 */

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
const WHOLE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const COMPACT = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

// why: `+ 0` turns -0 into 0, which Intl would write "-0".
/** A count or amount: grouped thousands, at most one decimal (`33,348`, `1,234.5`, `0.3`); `–` when not finite. */
export function formatCount(n: number): string {
  return Number.isFinite(n) ? COUNT.format(n + 0) : '–';
}

/** Rounded to a whole number, grouped (`1,235`); `–` when not finite. */
export function formatWhole(n: number): string {
  return Number.isFinite(n) ? WHOLE.format(Math.round(n) + 0) : '–';
}

/** Short form for a rough size: `950`, `12K`, `1.2M`, `3.4B`; `–` when not finite. */
export function formatCompact(n: number): string {
  return Number.isFinite(n) ? COMPACT.format(n + 0) : '–';
}
