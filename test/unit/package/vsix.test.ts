/** The packaged .vsix holds exactly what ships: manifest, README, LICENSE, bundles, grammars, media, the CLI shim. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '../../support/paths';
import { packageVsix, zipEntries } from '../../support/vsix';

void test('the .vsix file list is the allow-list of what ships', () => {
  const vsix = packageVsix();
  try {
    const files = zipEntries(vsix).filter((f) => f.startsWith('extension/')).map((f) => f.slice('extension/'.length)).sort();
    const grammars = readdirSync(join(REPO_ROOT, 'dist', 'grammars')).filter((f) => f.endsWith('.wasm')).map((f) => `dist/grammars/${f}`);
    const media = readdirSync(join(REPO_ROOT, 'media'), { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name).slice(REPO_ROOT.length + 1).replace(/\\/g, '/'));
    const webview = readdirSync(join(REPO_ROOT, 'dist')).includes('webview.js') ? ['dist/webview.js'] : [];
    const cliBundles = readdirSync(join(REPO_ROOT, 'dist', 'cli')).filter((f) => f.endsWith('.js')).map((f) => `dist/cli/${f}`);
    const expected = [
      'LICENSE.txt', 'package.json', 'readme.md', 'bin/query-insight.js', 'dist/cli.js', 'dist/extension.js',
      ...webview, ...cliBundles, ...grammars, ...media,
    ].sort();
    assert.deepEqual(files, expected);
    // the grammars the engine needs are among them (go, ruby, python, php, js, ts, tsx, rust + the runtime)
    for (const g of ['go', 'ruby', 'python', 'php', 'javascript', 'typescript', 'tsx', 'rust']) {
      assert.ok(files.includes(`dist/grammars/tree-sitter-${g}.wasm`), `grammar ${g} ships`);
    }
    assert.ok(files.includes('dist/grammars/web-tree-sitter.wasm'));
    // the CLI's command bundles (loaded by dist/cli.js on first use)
    for (const c of ['endpoints', 'slow', 'scan', 'explain']) assert.ok(files.includes(`dist/cli/${c}.js`), `CLI command ${c} ships`);
    // and nothing of the sources, tests, maps or dependencies
    assert.deepEqual(files.filter((f) => /^(src|test|out|node_modules|scripts)\/|\.map$|\.ts$/.test(f)), []);
  } finally {
    rmSync(dirname(vsix), { recursive: true, force: true });
  }
});
