import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExactSum } from '../../../src/core/logs/exactSum';

function sumOf(xs: readonly number[]): number {
  const s = new ExactSum();
  for (const x of xs) s.add(x);
  return s.value();
}

void test('the exact total, rounded once', () => {
  assert.equal(sumOf(Array(10).fill(0.1)), 1);  // += gives 0.9999999999999999
  assert.equal(sumOf([1e100, 1, -1e100]), 1);
  assert.equal(sumOf([0.001, 0.002, 0.003]), 0.006);
  assert.equal(sumOf([]), 0);
  assert.equal(sumOf([1, Infinity, 2]), Infinity);
  assert.ok(Number.isNaN(sumOf([Infinity, -Infinity])));
  // a half-way case: 1 + 2^-53 + 2^-105 rounds up, which a sum of the two top partials alone would miss
  assert.equal(sumOf([1, 2 ** -53, 2 ** -105]), 1 + 2 ** -52);
});

void test('any order of the terms, and any split into merged sums, gives the same total', () => {
  let seed = 7;
  const rnd = (): number => { seed = (seed * 1103515245 + 12345) >>> 0; return seed / 2 ** 32; };
  const xs = Array.from({ length: 2000 }, () => Math.round(rnd() * 5000) / 1000 * (rnd() < 0.5 ? 1 : 1e-6));
  const want = sumOf(xs);
  for (let k = 0; k < 5; k++) {
    const shuffled = [...xs].sort(() => rnd() - 0.5);
    const cut = Math.floor(rnd() * xs.length);
    const a = new ExactSum();
    const b = new ExactSum();
    shuffled.forEach((x, i) => (i < cut ? a : b).add(x));
    const merged = ExactSum.fromWire(b.toWire());
    merged.addSum(a);
    assert.equal(merged.value(), want);
    assert.equal(sumOf(shuffled), want);
  }
});

void test('times summed on the fixed-point path give the total the partials give (negated terms take the partials)', () => {
  let seed = 11;
  const rnd = (): number => { seed = (seed * 1103515245 + 12345) >>> 0; return seed / 2 ** 32; };
  const kinds: (() => number)[] = [
    () => Math.round(rnd() * 30_000) / 1000, // whole ms
    () => Math.round(rnd() * 3e6) / 1e6, // µs
    () => { const v = Math.round(rnd() * 5000) / 1000; return v * v; }, // squares
    () => rnd() * 5000, // full mantissas, some over the fixed-point range
    () => rnd() * 1e-9, // bits below 2^-98
  ];
  for (const make of [...kinds, () => kinds[Math.floor(rnd() * kinds.length)]()]) {
    // why: more terms than one fixed-point run (2^16), so the limbs move to the partials mid-way.
    const xs = Array.from({ length: 150_000 }, make);
    const fast = sumOf(xs);
    assert.equal(fast, -sumOf(xs.map((x) => -x)));
    const a = new ExactSum();
    const b = new ExactSum();
    xs.forEach((x, i) => (i % 3 ? a : b).add(x));
    a.addSum(ExactSum.fromWire(b.toWire()));
    assert.equal(a.value(), fast);
  }
});

void test('a term split once and added to two sums gives each what add gives it; terms outside the fixed-point range are refused by split', () => {
  const a = new ExactSum(), b = new ExactSum(), c = new ExactSum();
  const terms = [0.001, 0.25, 1e-6, 2047.999, 0.1 + 0.2, 3, 1e-30, 5000, -0.5, 0, Number.MIN_VALUE];
  for (const x of terms) {
    c.add(x);
    if (ExactSum.split(x)) { a.addSplit(); b.addSplit(); } else { a.add(x); b.add(x); }
  }
  assert.equal(a.value(), c.value());
  assert.equal(b.value(), c.value());
  assert.deepEqual([5000, -0.5, 0, 1e-30].map((x) => ExactSum.split(x)), [false, false, false, false]);
  assert.equal(ExactSum.split(0.25), true);
});
