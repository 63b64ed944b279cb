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
  if (longest > MAX_LINE) return `minified (a line of ${longest} characters)`;
  if (text.length >= MIN_JUDGED_BYTES && text.length / lines > MAX_MEAN_LINE) return `minified (${Math.round(text.length / lines)} characters per line)`;
  return undefined;
}
