/**
 * The packaged .vsix holds exactly what the extension runs (manifest, README, LICENSE, the extension and
 * webview bundles, the SSH worker's script, grammars, media) and stays within its size budget: the production build of
 * dist/extension.js ≤ 2.45 MB, the .vsix ≤ 2 MB. The host reads no source file (the facts thread does), so
 * extension.js carries neither the readers nor the parser runtime (2.33 MB once they left). The CLI bundles, present in dist/, stay out of it.
 * (2.5 MB until the run ledger, CPU profiles with pprof-format and the language-model tools came in: +85 KB.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../../support/paths';
import { packageVsix, zipEntries } from '../../support/vsix';

const MB = 1_000_000;

void test('the production .vsix ships only what the extension runs, within the size budget', async () => {
  // why: a staging copy of what vsce reads, so the production build does not replace the dev dist/.
  const stage = mkdtempSync(join(tmpdir(), 'qi-stage-'));
  try {
    for (const f of ['package.json', 'README.md', 'LICENSE', '.vscodeignore', 'media', 'bin']) cpSync(join(REPO_ROOT, f), join(stage, f), { recursive: true });
    const build = (await import(pathToFileURL(join(REPO_ROOT, 'scripts', 'build.mjs')).href)) as {
      buildShipped(dir: string, o: { production: boolean }): Promise<void>;
    };
    await build.buildShipped(join(stage, 'dist'), { production: true });
    // the CLI's bundles sit beside it in dist/ as after a full build, and must not ship
    mkdirSync(join(stage, 'dist', 'cli'));
    writeFileSync(join(stage, 'dist', 'cli.js'), '// cli\n');
    writeFileSync(join(stage, 'dist', 'cli', 'scan.js'), '// scan\n');

    const extensionBytes = statSync(join(stage, 'dist', 'extension.js')).size;
    assert.ok(extensionBytes <= 2.45 * MB, `dist/extension.js is ${(extensionBytes / MB).toFixed(2)} MB (budget 2.45 MB)`);

    const vsix = packageVsix(stage, stage);
    const vsixBytes = statSync(vsix).size;
    assert.ok(vsixBytes <= 2 * MB, `query-insight.vsix is ${(vsixBytes / MB).toFixed(2)} MB (budget 2 MB)`);

    const files = zipEntries(vsix).filter((f) => f.startsWith('extension/')).map((f) => f.slice('extension/'.length)).sort();
    const grammars = ['go', 'javascript', 'typescript', 'tsx', 'python', 'ruby', 'php', 'rust'].map((g) => `dist/grammars/tree-sitter-${g}.wasm`);
    const media = readdirSync(join(REPO_ROOT, 'media'), { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name).slice(REPO_ROOT.length + 1).replace(/\\/g, '/'));
    const expected = [
      'LICENSE.txt', 'package.json', 'readme.md', 'dist/extension.js', 'dist/webview.js', 'dist/sshWorker.js', 'dist/accessRangeWorker.js', 'dist/slowRangeWorker.js', 'dist/factsThread.js',
      'dist/grammars/web-tree-sitter.wasm', ...grammars, ...media,
    ].sort();
    assert.deepEqual(files, expected);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
});
