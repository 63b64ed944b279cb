/**
 * A sum of doubles that does not depend on the order of its terms: the running total is kept
 * exactly, as a few non-overlapping partial sums (Shewchuk's method, as Python's math.fsum), and read
 * back rounded once. A log read in byte ranges on several threads adds its times in another order
 * than one reader does; with plain `+=` the totals would differ in their last bits between the two,
 * and so would every report that prints them. Two exact sums merge exactly.
 */
/** Terms below this (seconds) may take the fixed-point path: each limb stays under 2³⁷. */
const FIXED_MAX = 2048;
const SCALE = 2 ** 26;
const SCALE2 = 2 ** 36;
/** Fixed-point terms summed before they move to the partials: 2¹⁶ limbs under 2³⁷ stay under 2⁵³. */
const FIXED_RUN = 1 << 16;
/** The limbs of the term ExactSum.split split last. */
const LIMBS = new Float64Array(3);

export class ExactSum {
  /** Non-overlapping partials, smallest magnitude first: p[0, n). */
  private p: number[] = [0];
  private n = 0;
  /** Infinities and NaN are kept apart (a partial must stay finite). */
  private special = 0;
  /**
   * Terms not yet in the partials, as three integer limbs of a fixed-point number with 98 bits after
   * the point: the sum is hi·2⁻²⁶ + mid·2⁻⁶² + lo·2⁻⁹⁸. Each limb of a term is below 2³⁷, so
   * FIXED_RUN terms add up exactly in a double before they are moved to the partials.
   */
  private hi = 0;
  private mid = 0;
  private lo = 0;
  private pending = 0;

  /** Adds one term. */
  add(x: number): void {
    if (ExactSum.split(x)) this.addSplit(); else this.addPartial(x);
  }

  /**
   * Splits a term into the three limbs of the fixed-point path (left in LIMBS), for adding it to
   * one sum or more with addSplit; false when it must take the partials (add does both).
   */
  static split(x: number): boolean {
    // why: a time from a log (0 < x < 2048 s, at most 98 bits after the binary point, so µs and
    // their squares) is split into three exact integer limbs and summed with three plain additions,
    // instead of a pass over the partials per term. The limbs are exact: scaling by a power of two,
    // flooring and subtracting the floor lose nothing; a term with lower bits fails the last test.
    if (!(x > 0 && x < FIXED_MAX)) return false;
    const t = x * SCALE;
    const h = Math.floor(t);
    const u = (t - h) * SCALE2;
    const m = Math.floor(u);
    const l = (u - m) * SCALE2;
    if (l !== Math.floor(l)) return false;
    LIMBS[0] = h;
    LIMBS[1] = m;
    LIMBS[2] = l;
    return true;
  }

  /** Adds the term split last (split returned true). */
  addSplit(): void {
    this.hi += LIMBS[0];
    this.mid += LIMBS[1];
    this.lo += LIMBS[2];
    if (++this.pending === FIXED_RUN) this.flush();
  }

  /** Moves the fixed-point terms into the partials (each limb, scaled back, is an exact double). */
  private flush(): void {
    if (this.pending === 0) return;
    const h = this.hi, m = this.mid, l = this.lo;
    this.hi = this.mid = this.lo = 0;
    this.pending = 0;
    if (l !== 0) this.addPartial(l / (SCALE * SCALE2 * SCALE2));
    if (m !== 0) this.addPartial(m / (SCALE * SCALE2));
    if (h !== 0) this.addPartial(h / SCALE);
  }

  private addPartial(x: number): void {
    if (x - x !== 0) { this.special += x; return; }  // ±Infinity or NaN
    const p = this.p;
    const n = this.n;
    let i = 0;
    for (let j = 0; j < n; j++) {
      let y = p[j];
      if (Math.abs(x) < Math.abs(y)) { const t = x; x = y; y = t; }
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) p[i++] = lo;
      x = hi;
    }
    // why: the array only grows (a partial per 53 bits of range at most); setting its length on every add cost 2 % of a log read.
    p[i] = x;
    this.n = i + 1;
  }

  /** Adds every term of another sum. */
  addSum(other: ExactSum): void {
    other.flush();
    this.flush();
    for (let i = 0; i < other.n; i++) this.addPartial(other.p[i]);
    this.special += other.special;
  }

  /** The exact total, rounded to the nearest double (ties to even). */
  value(): number {
    this.flush();
    if (this.special !== 0 || this.special !== this.special) return this.special;
    const p = this.p;
    let n = this.n;
    if (n === 0) return 0;
    let hi = p[--n];
    let lo = 0;
    while (n > 0) {
      const x = hi;
      const y = p[--n];
      hi = x + y;
      const yr = hi - x;
      lo = y - yr;
      if (lo !== 0) break;
    }
    // why: the partials below the one that stopped the loop may push a half-way case across the tie.
    if (n > 0 && ((lo < 0 && p[n - 1] < 0) || (lo > 0 && p[n - 1] > 0))) {
      const y = lo * 2;
      const x = hi + y;
      if (y === x - hi) hi = x;
    }
    return hi;
  }

  /** The state, for handing to another thread (plain numbers). */
  toWire(): number[] { this.flush(); return [this.special, ...this.p.slice(0, this.n)]; }

  /** A sum rebuilt from toWire's numbers. */
  static fromWire(w: readonly number[]): ExactSum {
    const s = new ExactSum();
    s.special = w[0];
    s.p = w.length > 1 ? w.slice(1) : [0];
    s.n = w.length - 1;
    return s;
  }
}
