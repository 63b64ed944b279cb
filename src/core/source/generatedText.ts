/**
 * Recognises, before parsing, source that nobody wrote by hand: minified bundles (jQuery, Bootstrap,
 * lodash, moment as contest repositories ship them), generated files, and files at vendored locations.
 * They hold no statement of the app's own, and a parser given one can take the whole scan's time and
 * memory: such a file is skipped and named with its reason. Decided by what the file holds (line
 * length, density, a generator's mark), with known vendored paths as a second rule.
 */

/** A line longer than this is not written by hand. */
const MAX_LINE = 1000;
/** Above this mean line length (bytes per line, over a file of some size) the text is packed, not written. */
const MAX_MEAN_LINE = 200;
/** Files smaller than this are never judged by density (a one-line helper is fine). */
const MIN_JUDGED_BYTES = 4096;
/** Generators' marks, looked for in the first lines only (Go's convention, `@generated`, Closure/webpack/bundlers). */
const GENERATED_MARK = /^(?:\/\/|#|\/\*+|\*|--)\s*(?:Code generated .* DO NOT EDIT\.|@generated\b|This file is (?:auto-?)?generated\b|Auto-?generated\b)/im;
/** Paths that hold third-party copies: `*.min.js` anywhere, bundles, and the usual vendored folders. */
const VENDORED_PATH = /(?:^|\/)(?:[^/]*\.min\.[cm]?js|[^/]*[.-]bundle\.[cm]?js|[^/]*\.packed\.js)$|(?:^|\/)(?:vendor|vendors|third[_-]?party|bower_components|node_modules)\//i;

/**
 * Why `text` (at `rel`, '/'-separated) is skipped unread, or undefined to read it. Looks at the
 * path (unless `includeVendored`), then at the first 2 KB for a generator's mark and at line lengths
 * (one pass, no allocation): content decides even with `includeVendored`, as a minified file is no one's source.
 */
export function skipReason(rel: string, text: string, opts: { includeVendored?: boolean } = {}): string | undefined {
  if (!opts.includeVendored && VENDORED_PATH.test(rel)) return 'vendored (a third-party copy, by its path)';
  const head = text.slice(0, 2048);
  const mark = GENERATED_MARK.exec(head);
  if (mark) return `generated (marked "${mark[0].replace(/^[/#*\-\s]+/, '').slice(0, 40)}")`;
  let longest = 0;
  let lines = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); ; i = text.indexOf('\n', i + 1)) {
    const end = i < 0 ? text.length : i;
    if (end - start > longest) longest = end - start;
    if (i < 0) break;
    lines++;
    start = i + 1;
  }
  const dense = text.length >= MIN_JUDGED_BYTES && text.length / lines > MAX_MEAN_LINE;
  if (longest <= MAX_LINE && !dense) return undefined;
  // A long line may be a hand-written statement in one string literal (a SELECT of many columns on one line): the
  // lines are measured again without their string literals, and only code that is still too long is minified.
  const code = codeOutsideStrings(text);
  if (code.longest > MAX_LINE) return `minified (a line of ${longest} characters)`;
  if (text.length >= MIN_JUDGED_BYTES && code.chars / lines > MAX_MEAN_LINE) return `minified (${Math.round(text.length / lines)} characters per line)`;
  return undefined;
}

/**
 * The longest line and the total, counting only characters outside closed string literals (`"…"` and `'…'` within
 * their line, a backquoted one across lines). A quote that is never closed is code, and so is the rest of its line
 * (or, for a backquote, of the text): each character is looked at a bounded number of times.
 */
function codeOutsideStrings(text: string): { longest: number; chars: number } {
  let longest = 0, chars = 0, line = 0;
  let plainLine = -1; // no string is looked for before this index (the rest of a line holding an unclosed quote)
  let backquotes = true; // false once a backquote was found unclosed: no later one closes either
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      if (line > longest) longest = line;
      line = 0;
      continue;
    }
    if (i >= plainLine && (c === 34 || c === 39 || (c === 96 && backquotes))) {
      const close = closing(text, i, c);
      if (close > 0) {
        // The string's own line breaks still end lines (a backquoted text of many lines).
        for (let j = i + 1; j < close; j++) if (text.charCodeAt(j) === 10) { if (line > longest) longest = line; line = 0; }
        i = close;
        continue;
      }
      if (c === 96) backquotes = false;
      else { const nl = text.indexOf('\n', i); plainLine = nl < 0 ? text.length : nl; }
    }
    line++;
    chars++;
  }
  return { longest: Math.max(longest, line), chars };
}

/** The index of the quote closing the one at `open`, or -1 (for `"` and `'`, within the line). */
function closing(text: string, open: number, quote: number): number {
  for (let j = open + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 92) { j++; continue; }
    if (c === quote) return j;
    if (c === 10 && quote !== 96) return -1;
  }
  return -1;
}
