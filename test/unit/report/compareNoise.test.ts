/**
 * The statistics behind "beyond noise": the incomplete beta and Student's t checked against direct
 * numeric integration, the quantile ranks against binomial sums, Welch's test on hand-worked cases,
 * and the decisions (mean shift, tail shift) on the example and on identical spreads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { meanShift, sampleSd, studentTwoSided, tailShift, welch } from '../../../src/core/report/compareNoise';
import { incompleteBeta, lnGamma, quantileInterval, quantileRanks } from '../../../src/core/logs/quantileInterval';

const near = (a: number, b: number, tol: number, what = '') => assert.ok(Math.abs(a - b) <= tol, `${what} ${a} ≈ ${b} (±${tol})`);

/** Simpson's rule on [lo, hi] with `steps` (even) intervals. */
function simpson(f: (x: number) => number, lo: number, hi: number, steps = 20_000): number {
  const h = (hi - lo) / steps;
  let s = f(lo) + f(hi);
  for (let i = 1; i < steps; i++) s += (i % 2 ? 4 : 2) * f(lo + i * h);
  return (s * h) / 3;
}

void test('lnGamma matches known values', () => {
  near(lnGamma(0.5), Math.log(Math.sqrt(Math.PI)), 1e-12, 'Γ(1/2)');
  near(lnGamma(1), 0, 1e-12, 'Γ(1)');
  near(lnGamma(5), Math.log(24), 1e-12, 'Γ(5)');
  // Γ(n + 1/2) = (2n)! √π / (4^n n!), with the factorials summed as logs
  const lnFact = (n: number) => { let s = 0; for (let k = 2; k <= n; k++) s += Math.log(k); return s; };
  near(lnGamma(100.5), lnFact(200) + 0.5 * Math.log(Math.PI) - 100 * Math.log(4) - lnFact(100), 1e-9, 'Γ(100.5)');
});

void test('the incomplete beta equals the integral of the beta density', () => {
  for (const [x, a, b] of [[0.3, 2, 3], [0.9, 0.5, 7], [0.05, 4, 0.5], [0.5, 10, 10], [0.7, 1.5, 2.5]]) {
    const lnB = lnGamma(a) + lnGamma(b) - lnGamma(a + b);
    // where a < 1, t = u^(1/a) turns t^(a−1) dt into du / a, finite at 0
    const integral = a < 1
      ? simpson((u) => Math.exp((b - 1) * Math.log1p(-(u ** (1 / a))) - lnB) / a, 0, x ** a)
      : simpson((t) => Math.exp((a - 1) * Math.log(t) + (b - 1) * Math.log1p(-t) - lnB), 0, x);
    near(incompleteBeta(x, a, b), integral, 1e-6, `I_${x}(${a}, ${b})`);
  }
});

void test("Student's t two-sided p-values: integral of the density, and table values", () => {
  for (const [t, df] of [[2, 10], [1, 3], [3.5, 25.5], [0.2, 2]]) {
    const lnC = lnGamma((df + 1) / 2) - lnGamma(df / 2) - 0.5 * Math.log(df * Math.PI);
    const density = (x: number) => Math.exp(lnC - ((df + 1) / 2) * Math.log1p((x * x) / df));
    near(studentTwoSided(t, df), 2 * simpson(density, t, t + 2000, 400_000), 1e-6, `t=${t} df=${df}`);
  }
  // the 99 % two-sided critical values of a t table
  near(studentTwoSided(3.169, 10), 0.01, 1e-4, 'df 10');
  near(studentTwoSided(2.576, 1e7), 0.01, 1e-4, 'df ∞');
  assert.equal(studentTwoSided(0, 5), 1);
});

void test("Welch's test on a hand-worked case", () => {
  // before 10 values mean 20 sd 4, after 12 values mean 16 sd 2: se² = 1.6 + 0.3333 = 1.9333
  const r = welch({ n: 10, mean: 20, sd: 4 }, { n: 12, mean: 16, sd: 2 });
  near(r.t, -4 / Math.sqrt(1.6 + 4 / 12), 1e-12, 't');
  near(r.df, 1.9333333 ** 2 / (1.6 ** 2 / 9 + (4 / 12) ** 2 / 11), 1e-4, 'df');
  assert.ok(r.p > 0.005 && r.p < 0.02, `p ${r.p}`);
});

void test('quantile ranks agree with direct binomial sums', () => {
  const pmfLog = (k: number, n: number, q: number) => lnGamma(n + 1) - lnGamma(k + 1) - lnGamma(n - k + 1) + k * Math.log(q) + (n - k) * Math.log1p(-q);
  for (const n of [1, 7, 57, 200, 366, 367, 1000, 5000]) {
    for (const q of [0.99, 0.95, 0.5]) {
      const cdf: number[] = [];
      let acc = 0;
      for (let k = 0; k <= n; k++) { acc += Math.exp(pmfLog(k, n, q)); cdf.push(acc); }
      let low = 0;
      for (let l = 1; l <= n; l++) if (cdf[l - 1] <= 0.025) low = l;
      let high = n + 1;
      for (let u = n; u >= 1; u--) if (1 - cdf[u - 1] <= 0.025) high = u;
      assert.deepEqual(quantileRanks(n, q), { low, high }, `n=${n} q=${q}`);
    }
  }
  // the p99 of fewer than 368 values has no upper end at 95 %: 0.99^367 > 0.025 ≥ 0.99^368
  assert.equal(quantileRanks(367, 0.99).high, 368);
  assert.equal(quantileRanks(368, 0.99).high, 368);
  assert.equal(quantileRanks(1_000_000, 0.99).high > 990_000, true);
});

void test('quantile intervals read the order statistics, 0 and null for open ends', () => {
  const values = Array.from({ length: 1000 }, (_, i) => (i + 1) / 1000);
  const iv = quantileInterval(values.length, 0.99, (i) => values[i])!;
  const r = quantileRanks(1000, 0.99);
  assert.deepEqual(iv, { low: values[r.low - 1], high: values[r.high - 1] });
  assert.ok(iv.low < 0.99 && iv.high! > 0.99);
  // 5 values: P(B ≤ 3) ≈ 0.001 bounds it below by the 4th; nothing bounds it above
  assert.deepEqual(quantileInterval(5, 0.99, (i) => i + 1), { low: 4, high: null });
  assert.deepEqual(quantileInterval(2, 0.99, (i) => i + 1), { low: 2, high: null });
  // the median of 3 values is bounded neither way at 95 % (each end has probability 1/8)
  assert.deepEqual(quantileInterval(3, 0.5, (i) => i + 1), { low: 0, high: null });
});

void test("the issue's example: GET / mean 2.318 s → 494 ms with 7 → 57 requests is faster, whatever the total did", () => {
  const before = { n: 7, mean: 2.318, sd: 0.41 };
  const after = { n: 57, mean: 0.494, sd: 0.2 };
  assert.equal(meanShift(before, after, 0.001), 'down');
  assert.equal(meanShift(after, before, 0.001), 'up');
  // the p99 intervals of 7 and 57 requests are open above: they cannot decide
  assert.equal(tailShift({ low: 1.9, high: null }, { low: 0.8, high: null }, 2.9, 0.95), 'noise');
});

void test('noise: the same spread, a small change, too few requests, identical milliseconds', () => {
  assert.equal(meanShift({ n: 50, mean: 0.1, sd: 0.05 }, { n: 60, mean: 0.105, sd: 0.05 }, 0.001), 'noise');
  // large counts make 3 % significant, but it is under the 5 % floor
  assert.equal(meanShift({ n: 1e5, mean: 0.1, sd: 0.01 }, { n: 1e5, mean: 0.103, sd: 0.01 }, 0.001), 'noise');
  assert.equal(meanShift({ n: 1e5, mean: 0.1, sd: 0.01 }, { n: 1e5, mean: 0.11, sd: 0.01 }, 0.001), 'up');
  assert.equal(meanShift({ n: 1, mean: 3, sd: 0 }, { n: 50, mean: 0.1, sd: 0.01 }, 0.001), 'unknown');
  // every request logged as 0.004 s before and 0.005 s after: the resolution's own error decides
  assert.equal(meanShift({ n: 100, mean: 0.004, sd: 0 }, { n: 100, mean: 0.005, sd: 0 }, 0.001), 'up');
  assert.equal(meanShift({ n: 3, mean: 0.004, sd: 0 }, { n: 3, mean: 0.005, sd: 0 }, 0.001), 'noise');
});

void test('tail shift: intervals that do not overlap move the tail', () => {
  assert.equal(tailShift({ low: 0.5, high: 0.6 }, { low: 0.1, high: 0.2 }, 0.55, 0.15), 'down');
  assert.equal(tailShift({ low: 0.1, high: 0.2 }, { low: 0.5, high: null }, 0.15, 0.7), 'up');
  assert.equal(tailShift({ low: 0.1, high: 0.3 }, { low: 0.2, high: 0.4 }, 0.2, 0.3), 'noise');
  assert.equal(tailShift(undefined, { low: 0.2, high: 0.4 }, 0.2, 0.3), 'unknown');
});

void test('sample sd: from the population sd, or the Bhatia–Davis bound when the run did not keep it', () => {
  near(sampleSd(4, 1, 2, 0, 5), 2 * Math.sqrt(4 / 3), 1e-12);
  // values in [0, 4] with mean 1: variance at most (4 − 1)(1 − 0) = 3
  near(sampleSd(4, 1, undefined, 0, 4), Math.sqrt(3) * Math.sqrt(4 / 3), 1e-12);
  near(sampleSd(4, 1, undefined, null, 4), Math.sqrt(3 * 4 / 3), 1e-12);
});
