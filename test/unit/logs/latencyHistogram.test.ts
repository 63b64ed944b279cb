import { test } from 'node:test';
import assert from 'node:assert/strict';
import { histogramLayout, LatencyHistogram, MIN_SECONDS } from '../../../src/core/logs/latencyHistogram';
import { EndpointAccumulator, SampleBudget } from '../../../src/core/logs/endpointStats';
import { collect, T0, type Ent } from '../extension/queriesSupport';

/** The exact nearest-rank value of `sorted` at a 1-based rank. */
const exactAt = (sorted: readonly number[], rank: number): number => sorted[rank - 1];

void test('a value read back is within half a bucket of the true one, from 1 µs to hours', () => {
  for (const growth of [1.01, 1.02]) {
    const h = new LatencyHistogram(histogramLayout(growth, 1e5));
    const values: number[] = [];
    for (let i = 0; i < 4000; i++) values.push(MIN_SECONDS * Math.pow(10, (i * 7919 % 4000) / 400)); // 1 µs … 10^4 s, shuffled
    for (const v of values) h.add(v);
    const sorted = [...values].sort((a, b) => a - b);
    const ranks = [1, 2, 100, 1000, 2000, 3800, 3960, 3999, 4000];
    const got = h.valuesAt(ranks, sorted[0], sorted.at(-1)!);
    ranks.forEach((r, k) => {
      const want = exactAt(sorted, r);
      assert.ok(Math.abs(got[k] / want - 1) <= Math.sqrt(growth) - 1 + 1e-12, `growth ${growth}, rank ${r}: ${got[k]} vs ${want}`);
    });
  }
});

void test('clamped to the exact min and max; bucket 0 and the last bucket hold what lies beyond the layout', () => {
  const h = new LatencyHistogram(histogramLayout(1.02, 10));
  h.add(0); h.add(Number.NaN); h.add(5e-7);
  h.add(0.25, 3);
  h.add(3600);
  // three values at or below 1 µs: bucket 0 reads as 1 µs, clamped to the min the caller kept
  assert.deepEqual(h.valuesAt([1, 3], 0, 3600), [MIN_SECONDS, MIN_SECONDS]);
  assert.deepEqual(h.valuesAt([1], 2e-6, 3600), [2e-6]);
  // `times` counts one value several times
  const [q] = h.valuesAt([6], 0, 3600);
  assert.ok(Math.abs(q / 0.25 - 1) < 0.01, String(q));
  // an hour lands in the last bucket and reads as its middle (the layout's end, ~10 s), at most the max; a rank past the count reads the max
  const [last] = h.valuesAt([7], 0, 3600);
  assert.ok(Math.abs(last / 10 - 1) < 0.02, String(last));
  assert.deepEqual(h.valuesAt([7], 0, 5), [5]);
  assert.deepEqual(h.valuesAt([8], 0, 3600), [3600]);
  assert.equal(h.bytes, 4 * histogramLayout(1.02, 10).buckets);
});

void test('the access log\'s and the slow log\'s readers both answer from it past their exact values, each within its half bucket', () => {
  // 2,000 times of an endpoint and of a fingerprint: the endpoint's buckets are 2 % wide, the fingerprint's 1 %
  const times = Array.from({ length: 2000 }, (_, i) => 0.0005 + ((i * 7919) % 2000) * 0.00137);
  const sorted = [...times].sort((a, b) => a - b);
  const exactP95 = exactAt(sorted, Math.ceil(0.95 * times.length));

  const budget = new SampleBudget(0);
  budget.take(1);
  const endpoint = new EndpointAccumulator(budget);
  for (const t of times) endpoint.add(t, 200, 100, Number.NaN);
  const e = endpoint.summary();
  assert.equal(e.exact, false);

  const ents: Ent[] = times.map((qt, i) => ({ t: T0 + i, qt: Number(qt.toFixed(6)), sql: `SELECT * FROM \`users\` WHERE \`id\` = ${i}` }));
  const [q] = collect(ents, { exactSamples: 10 });

  assert.ok(Math.abs(e.p95 / exactP95 - 1) <= Math.sqrt(1.02) - 1, `endpoint p95 ${e.p95} vs ${exactP95}`);
  assert.ok(Math.abs(q.queryTime.p95 / exactP95 - 1) <= Math.sqrt(1.01) - 1 + 1e-6, `query p95 ${q.queryTime.p95} vs ${exactP95}`);
});
