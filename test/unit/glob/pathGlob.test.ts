/**
 * The one glob matcher of the editor's scan and its file watcher: VS Code's glob syntax, folders on
 * the way excluded as findFiles excludes them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globToRegExp, isExcluded } from '../../../src/core/glob/pathGlob';
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
  // character classes, as findFiles reads them (the old matcher took `[ab]` as literal text)
  ['app[12]/*.go', 'app1/main.go', true],
  ['app[12]/*.go', 'app3/main.go', false],
  ['app[12]/*.go', 'app[12]/main.go', false],
  ['gen/[a-c]*.py', 'gen/b_pb2.py', true],
  ['gen/[a-c]*.py', 'gen/d_pb2.py', false],
  ['gen/[!a-c]*.py', 'gen/d_pb2.py', true],
  ['gen/[^a-c]*.py', 'gen/a_pb2.py', false],
  ['a[/]b', 'a/b', false],
  ['[]]x', ']x', true],
  ['broken[ab', 'broken[ab', true],
  ['**/{gen,build}/**', 'src/gen/a.go', true],
  ['**/{gen,{bu,ta}ild}/**', 'src/taild/a.go', true],
  ['**/test_*.py', 'tests/deep/test_app.py', true],
  ['**/test_*.py', 'tests/deep/app_test.py', false],
  ['**/.git/**', '.git/hooks/x.py', true],
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

void test('a glob naming a folder excludes what is under it, as findFiles does', () => {
  assert.ok(isExcluded('webapp/node/node_modules/express/index.js', ['**/node_modules']));
  assert.ok(isExcluded('gen1/x/y.py', ['gen[0-9]']));
  assert.ok(!isExcluded('webapp/node_modules.js', ['**/node_modules']));
  assert.ok(!isExcluded('anything.go', []));
});

