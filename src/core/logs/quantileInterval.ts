/**
 * Distribution-free confidence intervals of percentiles, for judging whether a tail latency moved
 * between two runs (src/core/report/compareNoise.ts). The q-quantile of n values lies between two
 * order statistics whose ranks come from the binomial distribution of the number of values at or
 * under it. The incomplete beta and ln Γ here also serve Student's t (src/core/report/compareNoise.ts).
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

/**
 * The 1-based ranks of the order statistics that bound the `q`-quantile of `n` values with
 * `confidence` (distribution-free). With F ~ Binomial(n, 1 − q) the number of values above the
 * quantile, the lower rank l is the largest with P(F ≥ n − l + 1) ≤ (1 − c)/2 and the upper rank u
 * the smallest with P(F ≤ n − u) ≤ (1 − c)/2. `low` is 0 and `high` n + 1 when that end is
 * unbounded (too few values). F's distribution is summed from 0 up to where both ranks are known:
 * about n(1 − q) plus a few standard deviations of terms, so a p99 costs little however large n is.
 */
export function quantileRanks(n: number, q: number, confidence = QUANTILE_CONFIDENCE): { low: number; high: number } {
  if (n <= 0) return { low: 0, high: 1 };
  const tail = (1 - confidence) / 2;
  const logRatio = Math.log1p(-q) - Math.log(q);
  let logP = n * Math.log(q);          // log P(F = 0)
  let cum = 0;                         // P(F ≤ i)
  let highIndex = -1;                  // the largest i with P(F ≤ i) ≤ tail
  for (let i = 0; i <= n; i++) {
    if (i > 0) logP += Math.log((n - i + 1) / i) + logRatio;
    cum += Math.exp(logP);
    if (cum <= tail) highIndex = i;
    // P(F ≥ i + 1) = 1 − P(F ≤ i): the first i where it is ≤ tail gives j = i + 1
    if (1 - cum <= tail) return { low: n - i, high: highIndex < 0 ? n + 1 : n - highIndex };
  }
  return { low: 0, high: highIndex < 0 ? n + 1 : n - highIndex };
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

