/** The one number formatter: grouped thousands, one decimal at most, compact sizes, no "-0" or "NaN". */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatCompact, formatCount, formatSize, formatWhole } from '../../../src/core/format/numbers';
import { formatDelta } from '../../../src/core/report/compare';
import { renderRows } from '../../../src/cli/output';

void test('counts: grouped thousands, at most one decimal', () => {
  assert.equal(formatCount(33348), '33,348');
  assert.equal(formatCount(1234567.89), '1,234,567.9');
  assert.equal(formatCount(0.25), '0.3');
  assert.equal(formatCount(7), '7');
  assert.equal(formatCount(-0), '0');
  assert.equal(formatCount(-1500), '-1,500');
  assert.equal(formatCount(Number.NaN), '–');
  assert.equal(formatCount(Infinity), '–');
});

void test('integers, grouped without Intl, read exactly as Intl.NumberFormat writes them', () => {
  const intl = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
  const values = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 9999, 10000, 99999, 100000, 999999, 1000000, 12345678, 123456789,
    1234567890, Number.MAX_SAFE_INTEGER];
  for (const v of values) {
    for (const n of [v, -v]) {
      assert.equal(formatCount(n), intl.format(n + 0), String(n));
      assert.equal(formatWhole(n), intl.format(n + 0), String(n));
    }
  }
  // past the safe integers Intl still writes them
  assert.equal(formatCount(1e21), intl.format(1e21));
});

void test('whole numbers and compact sizes', () => {
  assert.equal(formatWhole(1234.5), '1,235');
  assert.equal(formatWhole(-0.2), '0');
  assert.equal(formatCompact(950), '950');
  assert.equal(formatCompact(12_345), '12.3K');
  assert.equal(formatCompact(5_000_000), '5M');
  assert.equal(formatCompact(3_400_000_000), '3.4B');
});

void test('the same number reads the same in the compare figures and the CLI tables; CSV and TSV keep raw numbers', () => {
  assert.equal(formatDelta(33348, 'n'), '+33,348');
  const rows = [{ n: 33348 }];
  const cols = [{ header: 'COUNT', value: (r: { n: number }) => r.n, right: true }];
  assert.match(renderRows(rows, cols, 'table'), /\| 33,348 \|/);
  assert.match(renderRows(rows, cols, 'md'), /\| 33,348 \|/);
  assert.equal(renderRows(rows, cols, 'csv'), 'COUNT\n33348\n');
  assert.equal(renderRows(rows, cols, 'tsv'), 'COUNT\n33348\n');
});

void test('file sizes in a readable unit: a 30 KB log is not "0.0 MB"', () => {
  assert.deepEqual([0, 512, 1024, 30_822, 1_048_576, 1_289_748, 5_368_709_120, 1_048_575].map(formatSize),
    ['0 B', '512 B', '1 KB', '30.1 KB', '1 MB', '1.2 MB', '5 GB', '1 MB']);
  assert.equal(formatSize(Number.NaN), '–');
});
