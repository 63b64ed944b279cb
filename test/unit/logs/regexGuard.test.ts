import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guardCompiled, guardUserRegex, nonLinearReason, patternShape, untimedLength } from '../../../src/core/logs/regexGuard';
import { Grouper } from '../../../src/core/logs/grouping';
import { createAccessParser } from '../../../src/core/logs/accessParsers';

void test('patterns whose time is not bounded by the input are refused with the reason', () => {
  for (const p of ['^(a+)+$', '^((a|a)c)+$', '^/(?:(x|x)/)+$', '^/(\\w|\\d)*$', '(?:[^/]+/)*x', '^(x*){2,}$', '(a)\\1', '(?<n>a)\\k<n>', '^/((ab)*c)+$']) {
    assert.notEqual(nonLinearReason(p), '', p);
  }
  for (const p of ['^/api/user/[0-9]+$', '^/(api|v1)/items/\\d+$', '^/img/[^/]+\\.(png|jpg)$', '(?P<x>a)', '^/a(?:/b)?$', '[(+)]+', '\\(a+\\)+', '^/x/(\\d{1,3})$']) {
    assert.equal(nonLinearReason(p.replace('(?P<', '(?<')), '', p);
  }
  assert.throws(() => new Grouper({ matchingGroups: ['^/(a+)+$'] }), /matching group "\^\/\(a\+\)\+\$" is refused: a repeated group repeats itself/);
  assert.throws(() => createAccessParser({ format: 'ltsv', pattern: '^(?<uri>(\\S+\\s?)*) (?<reqtime>\\d+)$' }), /log pattern: .* is refused/);
});

void test('a pattern that turns out slow is retired after its slow matches add up; long inputs are not matched', () => {
  // why: guardCompiled skips the static check on purpose here, to meet a slow pattern at run time.
  const g = guardCompiled(/^(a+)+$/, '^(a+)+$', 1000);
  for (let i = 0; i < 20 && !g.retired; i++) assert.equal(g.exec(`${'a'.repeat(28)}!`), null);
  assert.equal(g.retired, true);
  assert.equal(g.exec('aaa'), undefined);
  assert.equal(g.test('aaa'), undefined);
  const capped = guardUserRegex('^a', '', 10);
  assert.equal(capped.exec('a'.repeat(11)), null);
  assert.ok(capped.exec('a'.repeat(10)));
});

void test('matches on inputs too short to be slow skip the clock, and the bound grows with the choices a pattern has', () => {
  const len = (p: string, flags = '') => untimedLength(patternShape(p), p.length, flags, 4096);
  // No open quantifier, anchored: linear in the input, so every input under the cap.
  assert.equal(len('^/api/isu/[0-9a-f-]{36}$'), 4096);
  assert.equal(len('^/a/?b?c?$'), 4096);
  // One open quantifier: quadratic at worst; unanchored or multi-line: one more factor; two: cubic.
  const one = len('^/posts/[0-9]+$');
  assert.ok(one > 200 && one < 400, String(one));
  assert.ok(len('/posts/[0-9]+$') < one / 4);
  assert.equal(len('^/posts/[0-9]+$', 'm'), len('/posts/[0-9]+$'));
  assert.ok(len('^/a.*b.*c$') < 50);
  assert.ok(len('^/(x|y)/[0-9]+$') < one);
  assert.ok(len('^/x|^/y/[0-9]+$') < one / 4, 'a top-level | drops the anchor');
  assert.deepEqual(patternShape('^/u/\\d{1,3}/(?:ab)+$'), { reason: '', openQuantifiers: 1, fixedChoices: 3, anchored: true });
  // A guarded test answers like the expression, timed or not.
  const g = guardUserRegex('^/posts/[0-9]+$', '', 4096);
  for (const t of ['/posts/1', '/posts/x', `/posts/${'1'.repeat(500)}`, `/posts/${'1'.repeat(500)}x`]) assert.equal(g.test(t), /^\/posts\/[0-9]+$/.test(t), t.slice(0, 20));
  assert.equal(g.test(`/posts/${'1'.repeat(5000)}`), false);
  assert.equal(g.retired, false);
});
