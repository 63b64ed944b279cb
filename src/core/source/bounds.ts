/**
 * The bounds that keep reading a source file linear in its size, whatever its shape: a file of a thousand
 * nested closures, a chain of a thousand calls, or a thousand conditional appends to one variable costs
 * about a thousand times one of them. Where a bound is hit, the file's facts say so (a FileError with its line).
 */

/** Callee and receiver text kept whole up to this length; past it, its first CALLEE_HEAD characters and its end. */
export const MAX_CALLEE = 256;
export const CALLEE_HEAD = 64;

/** Functions, loops and classes open at once; one nested deeper is read as part of the one around it. */
export const MAX_NESTING = 200;

/** The message a file gets where MAX_NESTING is hit. */
export const NESTING_NOTE = `nesting deeper than ${MAX_NESTING} functions, loops and classes: what is nested deeper is read as part of the level above`;

/** Head and end of a long text, whitespace kept as it is (see MAX_CALLEE). */
export function headAndEnd(t: string): string {
  return t.length > MAX_CALLEE ? `${t.slice(0, CALLEE_HEAD)}…${t.slice(t.length - (MAX_CALLEE - CALLEE_HEAD))}` : t;
}
