/**
 * FileRanges hands back the right line and character for every offset and one object per (start, end) asked again,
 * in a text of any length: here 200,000 characters, offsets and lengths well past 2^15, several ends from one start.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FileRanges } from '../../../src/core/source/intern';
import type { Range } from '../../../src/core/model';

void test('ranges of a long text: their positions, and one object for each (start, end) however many share a start', () => {
  const text = `${'x'.repeat(99)}\n`.repeat(2000);
  const at = (offset: number) => ({ line: Math.floor(offset / 100), character: offset % 100 });
  const asked: [number, number][] = [
    [0, 5], [40_003, 40_010], [40_003, 150_050], [40_003, 40_010], [0, 199_999], [150_000, 150_000],
    [0, 5], [32_768, 32_773], [0, 32_773], [40_003, 150_050], [32_768, 32_773], [199_999, 200_000],
  ];
  const ranges = new FileRanges(text);
  const seen = new Map<string, Range>();
  for (const [start, end] of asked) {
    const r = ranges.range(start, end);
    assert.deepEqual(r, { start: at(start), end: at(end) });
    const before = seen.get(`${start}-${end}`);
    if (before) assert.equal(r, before, `(${start}, ${end}) asked again`);
    else seen.set(`${start}-${end}`, r);
  }
  assert.equal(seen.size, 8);
});
