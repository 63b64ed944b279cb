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
 * The most parts (text pieces and dynamic holes) a value may hold to take the last slot past the few kept
 * (keepAlternative): a statement of a few dozen optional parts is real; a function of thousands of
 * conditional appends would otherwise copy a longer and longer value at each one (quadratic).
 */
export const MAX_LATEST_PARTS = 64;

/**
 * Adds `v` to the alternatives `out`, keeping at most `max`: past that, the latest takes the last slot
 * (when its `size` is at most MAX_LATEST_PARTS).
 * why: the values of a statement built with optional parts come in program order, each later one holding
 * the parts before it (`q += " AND a = ?"` under one condition, then `b`, then a keyword search). Keeping
 * only the first ones dropped every value with the last filter, so it was never explained; the first ones
 * hold the fewest parts and the latest all of them, so every optional part is in one kept value.
 */
export function keepAlternative<T>(out: T[], v: T, max: number, size: (t: T) => number): void {
  if (out.length < max) out.push(v);
  else if (size(v) <= MAX_LATEST_PARTS) out[max - 1] = v;
}

/**
 * Combinations of one alternative from each piece, in order: the first `max - 1` of them and, when there are
 * more, the last (every piece's last alternative, which holds all its optional parts; see keepAlternative),
 * or the next in order when the last would be over MAX_LATEST_PARTS. At most `max` whatever the number of
 * pieces, so never exponential.
 */
export function boundedProduct<T>(pieces: readonly (readonly T[])[], empty: T, join: (a: T, b: T) => T, max: number, size: (t: T) => number): T[] {
  let out: T[] = [empty];
  for (const p of pieces) {
    const next: T[] = [];
    const all = out.length * p.length;
    const a = out[out.length - 1], b = p[p.length - 1];
    const latest = all > max && size(a) + size(b) <= MAX_LATEST_PARTS;
    const first = latest ? max - 1 : Math.min(all, max);
    for (let i = 0; i < out.length && next.length < first; i++) {
      for (let k = 0; k < p.length && next.length < first; k++) next.push(join(out[i], p[k]));
    }
    if (latest) next.push(join(a, b));
    out = next;
  }
  return out;
}
