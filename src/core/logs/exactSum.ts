/**
 * A sum of doubles that does not depend on the order of its terms: the running total is kept
 * exactly, as a few non-overlapping partial sums (Shewchuk's method, as Python's math.fsum), and read
 * back rounded once. A log read in byte ranges on several threads adds its times in another order
 * than one reader does; with plain `+=` the totals would differ in their last bits between the two,
 * and so would every report that prints them. Two exact sums merge exactly.
 */
export class ExactSum {
  /** Non-overlapping partials, smallest magnitude first: p[0, n). */
  private p: number[] = [0];
  private n = 0;
  /** Infinities and NaN are kept apart (a partial must stay finite). */
  private special = 0;

  /** Adds one term. */
  add(x: number): void {
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
    for (let i = 0; i < other.n; i++) this.add(other.p[i]);
    this.special += other.special;
  }

  /** The exact total, rounded to the nearest double (ties to even). */
  value(): number {
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
  toWire(): number[] { return [this.special, ...this.p.slice(0, this.n)]; }

  /** A sum rebuilt from toWire's numbers. */
  static fromWire(w: readonly number[]): ExactSum {
    const s = new ExactSum();
    s.special = w[0];
    s.p = w.length > 1 ? w.slice(1) : [0];
    s.n = w.length - 1;
    return s;
  }
}
