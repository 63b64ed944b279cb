// The hand-written forms of string operations N+1 detection runs once per statement must give exactly
// what the regular expressions they replace give, on the awkward inputs too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareText, PairSet, stripSigil } from '../../../src/core/analysis/nPlusOneSyntax';

const pieces = ['SELECT', ' ', '  ', '\t', '\n', '\u00a0', '\u2028', 'é', '→', 'id = ?', '{', '}', '$', '@', '%', '&', '*', 'x', ''];

/** Every string of `n` pieces drawn with a fixed stride (deterministic, a few thousand cases). */
function samples(n: number): string[] {
  const out: string[] = [];
  for (let seed = 0; seed < 4000; seed++) {
    let s = '';
    for (let k = 0, x = seed; k < n; k++, x = Math.floor(x / pieces.length) + seed * 7 + k) s += pieces[x % pieces.length];
    out.push(s);
  }
  return out;
}

void test('stripSigil drops leading sigils and one pair of braces, as the regular expressions did', () => {
  const cases = ['rows', '$rows', '@$rows', '%h', '&$code', '*glob', '${rows}', '@{$rows}', '{x}', '{}', '{', '$', '', '${a\nb}', '{a}b}', '$$x', ...samples(2), ...samples(4)];
  for (const s of cases) assert.equal(stripSigil(s), s.replace(/^[$@%&*]+/, '').replace(/^\{(.*)\}$/, '$1'), JSON.stringify(s));
});

void test('compareText orders as localeCompare does', () => {
  const xs = ['b/a.go', 'a/b.go', 'A/b.go', 'a/b.go', 'a-b.go', 'a_b.go', 'é.go', 'z.go'];
  for (const a of xs) for (const b of xs) assert.equal(Math.sign(compareText(a, b)), Math.sign(a.localeCompare(b)), `${a} ${b}`);
});

void test('PairSet reports each (statement position, loop position) pair once, across files and huge positions', () => {
  const set = new PairSet();
  const p = (line: number, character: number) => ({ line, character });
  assert.equal(set.add('a.go', p(3, 4), 'a.go', p(1, 0)), true);
  assert.equal(set.add('a.go', p(3, 4), 'a.go', p(1, 0)), false);
  assert.equal(set.add('a.go', p(3, 4), 'b.go', p(1, 0)), true);
  assert.equal(set.add('a.go', p(3, 4), 'a.go', p(1, 1)), true);
  assert.equal(set.add('b.go', p(3, 4), 'a.go', p(1, 0)), true);
  assert.equal(set.add('a.go', p(3, 5), 'a.go', p(1, 0)), true);
  assert.equal(set.add('a.go', p(3, 4), 'b.go', p(1, 0)), false);
  // Too large to pack: kept by key, still once.
  assert.equal(set.add('a.go', p(3, 2 ** 27), 'a.go', p(1, 0)), true);
  assert.equal(set.add('a.go', p(3, 2 ** 27), 'a.go', p(1, 0)), false);
  assert.equal(set.add('a.go', p(3, 4), 'a.go', p(2 ** 30, 0)), true);
  assert.equal(set.add('a.go', p(3, 4), 'a.go', p(2 ** 30, 0)), false);
});
