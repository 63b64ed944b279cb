import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EndpointAccumulator, nearestRank, SampleBudget } from '../../../src/core/logs/endpointStats';
import { analyzeAccessLog } from '../../../src/core/logs/accessAnalysis';

/** The textbook computation the accumulator must agree with. */
function reference(values: number[]) {
  const n = values.length;
  const sorted = [...values].sort((a, b) => a - b);
  const sum = values.reduce((a, b) => a + b, 0);
  const avg = sum / n;
  const variance = values.reduce((a, v) => a + (v - avg) ** 2, 0) / n;
  const pct = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * n) - 1)];
  return { count: n, min: sorted[0], max: sorted[n - 1], sum, avg, stddev: Math.sqrt(variance), p50: pct(50), p90: pct(90), p95: pct(95), p99: pct(99) };
}

/** A deterministic pseudo-random sequence (no Math.random: failures must reproduce). */
function lcg(seed: number) {
  let x = seed >>> 0;
  return () => { x = (Math.imul(x, 1664525) + 1013904223) >>> 0; return x / 2 ** 32; };
}

function check(values: number[], limit = 1 << 30) {
  const acc = new EndpointAccumulator(new SampleBudget(limit));
  for (const v of values) acc.add(v, 200, 0, NaN);
  return { got: acc.summary(), want: reference(values) };
}

void test('nearest rank', () => {
  assert.equal(nearestRank(50, 1), 0);
  assert.equal(nearestRank(50, 10), 4);
  assert.equal(nearestRank(99, 100), 98);
  assert.equal(nearestRank(99, 101), 99);
});

void test('millisecond values (the grid path) agree with the reference exactly', () => {
  const rnd = lcg(1);
  for (const n of [1, 2, 7, 100, 5000]) {
    const values = Array.from({ length: n }, () => Math.round(Math.exp(rnd() * 8) ) / 1000);
    const { got, want } = check(values);
    assert.ok(got.exact);
    for (const k of ['count', 'min', 'max', 'p50', 'p90', 'p95', 'p99'] as const) assert.equal(got[k], want[k], `${k} n=${n}`);
    assert.ok(Math.abs(got.sum - want.sum) < 1e-9 * n);
    assert.ok(Math.abs(got.stddev - want.stddev) < 1e-9);
  }
});

void test('microsecond values switch to exact samples and still agree; a value past the grid too', () => {
  const rnd = lcg(2);
  const values = Array.from({ length: 3000 }, (_, i) => (i === 1500 ? 1234.5678 : rnd() * 3));
  values.unshift(0.004, 0.005);
  const { got, want } = check(values);
  assert.ok(got.exact);
  for (const k of ['count', 'min', 'max', 'p50', 'p90', 'p95', 'p99'] as const) assert.equal(got[k], want[k], k);
  assert.ok(Math.abs(got.stddev - want.stddev) < 1e-9);
});

void test('past the memory budget, percentiles come from histograms within 1 %', () => {
  const rnd = lcg(3);
  const values = Array.from({ length: 20000 }, () => 0.0001 + rnd() * rnd() * 2);
  const { got, want } = check(values, 4096);
  assert.equal(got.exact, false);
  assert.equal(got.count, want.count);
  assert.equal(got.min, want.min);
  assert.equal(got.max, want.max);
  for (const k of ['p50', 'p90', 'p95', 'p99'] as const) assert.ok(Math.abs(got[k] - want[k]) <= 0.01 * want[k], `${k}: ${got[k]} vs ${want[k]}`);
  assert.ok(Math.abs(got.stddev - want.stddev) < 1e-6);
});

void test('an analysed log matches the reference per endpoint, with statuses and bytes', () => {
  const rnd = lcg(4);
  const lines: string[] = [];
  const want = new Map<string, { times: number[]; status: Record<string, number>; bytes: number }>();
  for (let i = 0; i < 4000; i++) {
    const id = Math.floor(rnd() * 50);
    const ep = rnd() < 0.5 ? `/a/${id}` : `/b/${id}/c`;
    const key = ep.startsWith('/a') ? 'GET /a/:id' : 'GET /b/:id/c';
    const t = Math.floor(rnd() * 2000) / 1000;
    const status = [200, 200, 302, 404, 499, 500][Math.floor(rnd() * 6)];
    const size = Math.floor(rnd() * 1000);
    lines.push(`method:GET\turi:${ep}?q=${i}\tstatus:${status}\tsize:${size}\treqtime:${t.toFixed(3)}`);
    const w = want.get(key) ?? { times: [], status: {}, bytes: 0 };
    w.times.push(t);
    w.status[status] = (w.status[status] ?? 0) + 1;
    w.bytes += size;
    want.set(key, w);
  }
  const r = analyzeAccessLog(new TextEncoder().encode(lines.join('\n')), { format: 'ltsv' });
  assert.equal(r.endpoints.length, 2);
  for (const e of r.endpoints) {
    const w = want.get(`${e.method} ${e.uri}`)!;
    const ref = reference(w.times);
    for (const k of ['count', 'min', 'max', 'p50', 'p90', 'p95', 'p99'] as const) assert.equal(e[k], ref[k], `${e.uri} ${k}`);
    assert.ok(Math.abs(e.sum - ref.sum) < 1e-6);
    assert.deepEqual(e.status, Object.fromEntries(Object.entries(w.status).map(([k, v]) => [k, v])));
    assert.equal(e.s5xx, w.status[500] ?? 0);
    assert.equal(e.s499, w.status[499] ?? 0);
    assert.equal(e.bytes.sum, w.bytes);
  }
});

void test('endpoints past maxEndpoints share one overflow row and are counted', () => {
  const lines = Array.from({ length: 30 }, (_, i) => `method:GET\turi:/p${i}\tstatus:200\treqtime:0.001`).join('\n');
  const r = analyzeAccessLog(new TextEncoder().encode(lines), { format: 'ltsv', maxEndpoints: 10 });
  assert.equal(r.endpoints.length, 11);
  assert.equal(r.overflowRequests, 20);
  assert.equal(r.endpoints.reduce((a, e) => a + e.count, 0), 30);
});
