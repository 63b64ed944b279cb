/**
 * The one latency histogram of the log readers: where the exact times of an endpoint
 * (endpointStats.ts) or a fingerprint (slowStats.ts) no longer fit in memory, their counts go into
 * buckets whose edges grow by a constant factor, so the error of a percentile is relative, the
 * same for a 2 ms lookup as for a 20 s report. Bucket 0 holds everything up to `MIN_SECONDS`;
 * bucket i ≥ 1 holds (MIN·g^(i−1), MIN·g^i]. A value is read back as its bucket's geometric middle,
 * clamped to the exact min and max the caller kept: within ±(√g − 1) of the true value.
 */

/** Smallest time a bucket resolves (1 µs); anything smaller lands in bucket 0. */
export const MIN_SECONDS = 1e-6;

/** The bucket layout; one per use, so that every histogram of a kind can be added up. */
export interface HistogramLayout {
  /** Ratio of a bucket's upper edge to its lower edge (1.01: buckets 1 % wide). */
  readonly growth: number;
  readonly buckets: number;
}

/** A layout whose last bucket ends at `maxSeconds` or later (larger values are counted in it). */
export function histogramLayout(growth: number, maxSeconds: number): HistogramLayout {
  return { growth, buckets: Math.ceil(Math.log(maxSeconds / MIN_SECONDS) / Math.log(growth)) + 1 };
}

export class LatencyHistogram {
  private readonly counts: Uint32Array;
  private readonly logGrowth: number;

  constructor(private readonly layout: HistogramLayout) {
    this.counts = new Uint32Array(layout.buckets);
    this.logGrowth = Math.log(layout.growth);
  }

  /** Memory held by the counts, for callers that keep a budget. */
  get bytes(): number { return this.counts.byteLength; }

  /** The counts per bucket (not a copy), for handing to another thread. */
  get countsView(): Uint32Array { return this.counts; }

  /** Adds another histogram's counts per bucket (the same layout). */
  addCounts(counts: Uint32Array): void {
    for (let i = 0; i < counts.length; i++) this.counts[i] += counts[i];
  }

  /** Counts `times` values of `seconds` (NaN and values ≤ 1 µs go to bucket 0). */
  add(seconds: number, times = 1): void {
    this.counts[this.bucketOf(seconds)] += times;
  }

  /**
   * The values at 1-based `ranks` (nearest rank: the smallest value with at least `rank` values at
   * or below it), each its bucket's middle clamped to [min, max]; `max` past the last value counted.
   */
  valuesAt(ranks: readonly number[], min: number, max: number): number[] {
    return ranks.map((rank) => {
      const h = this.counts;
      let seen = 0;
      for (let i = 0; i < h.length; i++) {
        seen += h[i];
        if (seen >= rank) return Math.min(max, Math.max(min, this.middleOf(i)));
      }
      return max;
    });
  }

  private bucketOf(seconds: number): number {
    if (!(seconds > MIN_SECONDS)) return 0;
    const i = Math.floor(Math.log(seconds / MIN_SECONDS) / this.logGrowth) + 1;
    return i >= this.layout.buckets ? this.layout.buckets - 1 : i;
  }

  private middleOf(i: number): number {
    return i === 0 ? MIN_SECONDS : MIN_SECONDS * Math.pow(this.layout.growth, i - 0.5);
  }
}
