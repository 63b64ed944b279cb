/**
 * Distribution-free confidence intervals of percentiles, for judging whether a tail latency moved
 * between two runs (src/core/report/compareNoise.ts). The q-quantile of n values lies between two
 * order statistics whose ranks come from the binomial distribution of the number of values at or
 * under it; the binomial sums are computed through the regularised incomplete beta function, so the
 * cost is a few dozen evaluations however many values a run has.
 */

/** Confidence of a percentile's interval (kept on the run). */
export const QUANTILE_CONFIDENCE = 0.95;

/** ln Γ(x) for x > 0: Stirling's series after shifting x above 10 (absolute error < 1e-12). */
export function lnGamma(x: number): number {
  let shift = 0;
  while (x < 10) { shift += Math.log(x); x += 1; }
  const x2 = x * x;
  const series = 1 / (12 * x) - 1 / (360 * x * x2) + 1 / (1260 * x * x2 * x2) - 1 / (1680 * x * x2 * x2 * x2);
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + series - shift;
}

/** Continued fraction of the incomplete beta function (modified Lentz), valid for x < (a+1)/(a+b+2). */
function betaFraction(x: number, a: number, b: number): number {
  const TINY = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let f = d;
  for (let m = 1; m <= 10_000; m++) {
    const even = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 + even * d; if (Math.abs(d) < TINY) d = TINY; d = 1 / d;
    c = 1 + even / c; if (Math.abs(c) < TINY) c = TINY;
    f *= d * c;
    const odd = (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + odd * d; if (Math.abs(d) < TINY) d = TINY; d = 1 / d;
    c = 1 + odd / c; if (Math.abs(c) < TINY) c = TINY;
    const step = d * c;
    f *= step;
    if (Math.abs(step - 1) < 1e-14) break;
  }
  return f;
}

/** The regularised incomplete beta function I_x(a, b), for a, b > 0 and 0 ≤ x ≤ 1. */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const lnFront = a * Math.log(x) + b * Math.log1p(-x) - (lnGamma(a) + lnGamma(b) - lnGamma(a + b));
  // why: the fraction converges fast only on the near side of the mean; the far side is 1 − I_{1−x}(b, a).
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(lnFront) * betaFraction(x, a, b)) / a;
  return 1 - (Math.exp(lnFront) * betaFraction(1 - x, b, a)) / b;
}

/** P(B ≤ k) for B ~ Binomial(n, q), as I_{1−q}(n − k, k + 1). */
function binomialCdf(k: number, n: number, q: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  return incompleteBeta(1 - q, n - k, k + 1);
}

/**
 * The 1-based ranks of the order statistics that bound the `q`-quantile of `n` values with
 * `confidence` (distribution-free): the lower rank l is the largest with P(B ≤ l − 1) ≤ (1 − c)/2,
 * the upper rank u the smallest with P(B ≥ u) ≤ (1 − c)/2, B ~ Binomial(n, q) the number of values
 * at or under the quantile. `low` is 0 and `high` n + 1 when that end is unbounded (too few values).
 */
export function quantileRanks(n: number, q: number, confidence = QUANTILE_CONFIDENCE): { low: number; high: number } {
  const tail = (1 - confidence) / 2;
  if (n <= 0) return { low: 0, high: 1 };
  // P(B ≤ k) grows with k: binary search for the last k with P(B ≤ k) ≤ tail; then l = k + 1
  let lo = -1;
  let hi = n - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (binomialCdf(mid, n, q) <= tail) lo = mid; else hi = mid - 1;
  }
  const low = lo + 1;
  // P(B ≥ u) = 1 − P(B ≤ u − 1): the first u with P(B ≤ u − 1) ≥ 1 − tail
  let a = 1;
  let b = n + 1;
  while (a < b) {
    const mid = Math.floor((a + b) / 2);
    if (binomialCdf(mid - 1, n, q) >= 1 - tail) b = mid; else a = mid + 1;
  }
  return { low, high: a };
}

/** A percentile's confidence interval: `high` null when it has no upper end. */
export interface QuantileInterval { low: number; high: number | null }

/**
 * The interval of the `q`-quantile from a run's sorted values, read through `valueAt(index)`
 * (0-based); the lower end is 0 when unbounded (times are never negative).
 */
export function quantileInterval(n: number, q: number, valueAt: (index: number) => number): QuantileInterval | undefined {
  if (n <= 0) return undefined;
  const { low, high } = quantileRanks(n, q);
  return { low: low >= 1 ? valueAt(low - 1) : 0, high: high <= n ? valueAt(high - 1) : null };
}

