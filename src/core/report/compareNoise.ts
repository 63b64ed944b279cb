/**
 * Whether a change between two runs is beyond noise, judged from the runs' own spread.
 *
 * - **Means** (per request, per call, rows examined per call): Welch's t-test, which compares two
 *   means with unequal variances and counts. Each side gives its count, mean and sample standard
 *   deviation; the two-sided p-value comes from Student's t distribution with the
 *   Welch–Satterthwaite degrees of freedom. A run that does not keep its standard deviation (runs
 *   saved before it was kept, performance_schema windows) is judged with the largest spread its
 *   figures allow (`sampleSd`), which can only hide a change, never invent one.
 * - **Tail percentiles** (p99, p95): each run keeps a distribution-free 95 % confidence interval of
 *   its percentile, two order statistics chosen from the binomial distribution (src/core/logs/quantileInterval.ts).
 *   The tail moved when the two intervals do not overlap. Under 368 requests the p99's interval
 *   has no upper end, so a small endpoint's p99 can only be shown to have risen or fallen by a
 *   larger run on the other side.
 *
 * A change must also reach `MIN_RELATIVE_CHANGE` of the before figure: two rounds of the same code
 * drift by a few per cent (warm caches, the machine's other load), a between-run noise that no
 * within-run spread shows.
 */
import { incompleteBeta, type QuantileInterval } from '../logs/quantileInterval';

/** Significance level of a mean's test (two-sided). */
export const ALPHA = 0.01;
/** Smallest change, relative to the before figure, that is coloured. */
export const MIN_RELATIVE_CHANGE = 0.05;

/** One side of a comparison of means. */
export interface Spread {
  n: number;
  mean: number;
  /** Sample standard deviation (n − 1 in the denominator). */
  sd: number;
}

/** Which way a figure moved: beyond noise `up` / `down`; `noise` when not; `unknown` when it cannot be judged (fewer than 2 on a side). */
export type Shift = 'up' | 'down' | 'noise' | 'unknown';

/** Two-sided p-value of Student's t statistic `t` with `df` degrees of freedom. */
export function studentTwoSided(t: number, df: number): number {
  if (!Number.isFinite(t)) return 0;
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

/** Welch's test of two means: t (after − before over its standard error), degrees of freedom and the two-sided p-value. */
export function welch(before: Spread, after: Spread): { t: number; df: number; p: number } {
  const vb = (before.sd * before.sd) / before.n;
  const va = (after.sd * after.sd) / after.n;
  const se2 = vb + va;
  const diff = after.mean - before.mean;
  if (se2 === 0) return diff === 0 ? { t: 0, df: Infinity, p: 1 } : { t: diff > 0 ? Infinity : -Infinity, df: Infinity, p: 0 };
  const t = diff / Math.sqrt(se2);
  const df = (se2 * se2) / ((vb * vb) / (before.n - 1) + (va * va) / (after.n - 1));
  return { t, df, p: studentTwoSided(t, df) };
}

/**
 * The shift of a mean between two runs. `resolution` is the unit the log writes values in (nginx:
 * 1 ms; the slow log: 1 µs): each value is rounded to it, an error of variance resolution²/12 that
 * a standard deviation of 0 (every request logged as the same millisecond) must not hide.
 */
export function meanShift(before: Spread, after: Spread, resolution: number): Shift {
  if (before.n < 2 || after.n < 2) return 'unknown';
  const floor = resolution / Math.sqrt(12);
  const b = { ...before, sd: Math.max(before.sd, floor) };
  const a = { ...after, sd: Math.max(after.sd, floor) };
  if (Math.abs(a.mean - b.mean) < MIN_RELATIVE_CHANGE * Math.abs(b.mean)) return 'noise';
  const { p } = welch(b, a);
  if (p >= ALPHA) return 'noise';
  return a.mean > b.mean ? 'up' : 'down';
}

/**
 * The sample standard deviation of `n` values: from the population one when the run kept it, else
 * the largest one values in [min, max] with this mean can have, (max − mean)(mean − min) (the
 * Bhatia–Davis bound), so a run without its spread is judged cautiously rather than not at all.
 */
export function sampleSd(n: number, mean: number, populationSd: number | undefined, min: number | null, max: number): number {
  const pop = populationSd ?? Math.sqrt(Math.max(0, (max - mean) * (mean - (min ?? 0))));
  return n > 1 ? pop * Math.sqrt(n / (n - 1)) : pop;
}

/** The shift of a tail percentile: beyond noise when the two runs' intervals do not overlap (and the change is large enough). */
export function tailShift(before: QuantileInterval | undefined, after: QuantileInterval | undefined, valueBefore: number | null, valueAfter: number | null): Shift {
  if (!before || !after || valueBefore === null || valueAfter === null) return 'unknown';
  if (Math.abs(valueAfter - valueBefore) < MIN_RELATIVE_CHANGE * Math.abs(valueBefore)) return 'noise';
  if (before.high !== null && after.low > before.high) return 'up';
  if (after.high !== null && before.low > after.high) return 'down';
  return 'noise';
}

/** Two-sided critical value of Student's t for `df` degrees of freedom at level `alpha` (bisection on the p-value). */
export function studentCritical(df: number, alpha: number): number {
  if (!Number.isFinite(df)) df = 1e6;
  let lo = 0;
  let hi = 1e3;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (studentTwoSided(mid, df) > alpha) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The noise band of a mean's change: both counts, the change (after − before) and its (1 − ALPHA) interval, as Welch's test sees it. */
export interface NoiseBand {
  nBefore: number;
  nAfter: number;
  diff: number;
  low: number;
  high: number;
  /** The interval's level, e.g. 0.99. */
  level: number;
}

/**
 * Why a mean's change is or is not beyond noise: the change with its Welch interval at the test's
 * level (the change is significant when the interval leaves out 0). Undefined under 2 values on a side.
 */
export function noiseBand(before: Spread, after: Spread, resolution: number): NoiseBand | undefined {
  if (before.n < 2 || after.n < 2) return undefined;
  const floor = resolution / Math.sqrt(12);
  const b = { ...before, sd: Math.max(before.sd, floor) };
  const a = { ...after, sd: Math.max(after.sd, floor) };
  const { df } = welch(b, a);
  const se = Math.sqrt((b.sd * b.sd) / b.n + (a.sd * a.sd) / a.n);
  const half = studentCritical(df, ALPHA) * se;
  const diff = a.mean - b.mean;
  return { nBefore: before.n, nAfter: after.n, diff, low: diff - half, high: diff + half, level: 1 - ALPHA };
}
