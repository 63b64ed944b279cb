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

/**
 * Adds `v` to the alternatives `out`, keeping at most `max`: past that, the latest takes the last slot.
 * why: the values of a statement built with optional parts come in program order, each later one holding
 * the parts before it (`q += " AND a = ?"` under one condition, then `b`, then a keyword search). Keeping
 * only the first ones dropped every value with the last filter, so it was never explained; the first ones
 * hold the fewest parts and the latest all of them, so every optional part is in one kept value.
 */
export function keepAlternative<T>(out: T[], v: T, max: number): void {
  if (out.length < max) out.push(v);
  else out[max - 1] = v;
}

/**
 * Combinations of one alternative from each piece, in order: the first `max - 1` of them and, when there are
 * more, the last (every piece's last alternative, which holds all its optional parts; see keepAlternative).
 * At most `max` whatever the number of pieces, so never exponential.
 */
export function boundedProduct<T>(pieces: readonly (readonly T[])[], empty: T, join: (a: T, b: T) => T, max: number): T[] {
  let out: T[] = [empty];
  for (const p of pieces) {
    const next: T[] = [];
    const all = out.length * p.length;
    const first = all > max ? max - 1 : all;
    for (let i = 0; i < out.length && next.length < first; i++) {
      for (let k = 0; k < p.length && next.length < first; k++) next.push(join(out[i], p[k]));
    }
    if (all > first) next.push(join(out[out.length - 1], p[p.length - 1]));
    out = next;
  }
  return out;
}
