/** Exclude globs applied to files that change after the scan. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globToRegExp, isExcluded } from '../../../src/extension/glob';
import { SETTINGS } from '../../../src/extension/settings';

const cases: [string, string, boolean][] = [
  ['**/node_modules/**', 'node_modules/x/index.js', true],
  ['**/node_modules/**', 'webapp/node/node_modules/express/index.js', true],
  ['**/node_modules/**', 'webapp/node/src/node_modules.ts', false],
  ['**/vendor/**', 'webapp/php/vendor/autoload.php', true],
  ['**/vendor/**', 'webapp/php/vendors.php', false],
  ['*.go', 'main.go', true],
  ['*.go', 'webapp/main.go', false],
  ['**/*.go', 'webapp/go/main.go', true],
  ['**/*.go', 'main.go', true],
  ['webapp/?o/*.go', 'webapp/go/main.go', true],
  ['**/*.{js,ts}', 'src/a.ts', true],
  ['**/*.{js,ts}', 'src/a.rs', false],
  ['a+b(c)/*.py', 'a+b(c)/x.py', true],
  ['x,y/*.py', 'x,y/z.py', true],
];

for (const [glob, path, expected] of cases) {
  void test(`${glob} ${expected ? 'matches' : 'does not match'} ${path}`, () => {
    assert.equal(globToRegExp(glob).test(path), expected);
  });
}

void test('the default exclude list skips vendored and generated trees, not app code', () => {
  const globs = SETTINGS['scan.exclude'].default;
  assert.ok(isExcluded('webapp/node/node_modules/mysql2/index.js', globs));
  assert.ok(isExcluded('webapp/rust/target/debug/build/x.rs', globs));
  assert.ok(!isExcluded('webapp/go/main.go', globs));
  assert.ok(!isExcluded('webapp/ruby/app.rb', globs));
});
