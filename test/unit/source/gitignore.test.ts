import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isIgnored, parseGitignore } from '../../../src/core/source/gitignore';

const rules = parseGitignore([
  '# comment',
  '',
  '*.log',
  '!keep.log',
  'build/',
  '/only-root.go',
  'docs/*.md',
  '**/generated/**',
  'a/**/z.rb',
  'tmp[0-9].py',
  '\\#hash.php',
  'trailing.js   ',
].join('\n'));

const cases: [string, boolean, boolean][] = [
  ['app.log', false, true],
  ['sub/dir/app.log', false, true],
  ['keep.log', false, false],
  ['sub/keep.log', false, false],
  ['build', true, true],
  ['src/build', true, true],
  ['build', false, false], // dir-only rule does not hit a file
  ['only-root.go', false, true],
  ['sub/only-root.go', false, false],
  ['docs/readme.md', false, true],
  ['docs/sub/readme.md', false, false],
  ['x/generated/y.go', false, true],
  ['generated/y.go', false, true],
  ['a/z.rb', false, true],
  ['a/b/c/z.rb', false, true],
  ['b/a/z.rb', false, false],
  ['tmp1.py', false, true],
  ['tmpx.py', false, false],
  ['#hash.php', false, true],
  ['trailing.js', false, true],
  ['main.go', false, false],
];

void test('gitignore rules: globs, negation, dir-only, anchoring, **', () => {
  for (const [path, isDir, want] of cases) assert.equal(isIgnored(path, isDir, rules), want, `${path}${isDir ? '/' : ''}`);
});

void test('rules of a nested .gitignore apply below its directory only', () => {
  const nested = parseGitignore('*.rb\n/local.go\n', 'app');
  assert.equal(isIgnored('app/x.rb', false, nested), true);
  assert.equal(isIgnored('app/deep/x.rb', false, nested), true);
  assert.equal(isIgnored('x.rb', false, nested), false);
  assert.equal(isIgnored('app/local.go', false, nested), true);
  assert.equal(isIgnored('app/deep/local.go', false, nested), false);
});

void test('a later negation re-includes, a later rule excludes again', () => {
  const r = parseGitignore('*.go\n!main.go\nmain.go\n');
  assert.equal(isIgnored('main.go', false, r), true);
  const r2 = parseGitignore('*.go\n!main.go\n');
  assert.equal(isIgnored('main.go', false, r2), false);
});
