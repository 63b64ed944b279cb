import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guardCompiled, guardUserRegex, nonLinearReason } from '../../../src/core/logs/regexGuard';
import { Grouper } from '../../../src/core/logs/grouping';
import { createAccessParser } from '../../../src/core/logs/accessParsers';

void test('patterns whose time is not bounded by the input are refused with the reason', () => {
  for (const p of ['^(a+)+$', '^/(\\w|\\d)*$', '(?:[^/]+/)*x', '^(x*){2,}$', '(a)\\1', '(?<n>a)\\k<n>', '^/((ab)*c)+$']) {
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
  const capped = guardUserRegex('^a', '', 10);
  assert.equal(capped.exec('a'.repeat(11)), null);
  assert.ok(capped.exec('a'.repeat(10)));
});
