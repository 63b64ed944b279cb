/**
 * A file symlink is followed only when its target lies inside the scanned tree, and no message quotes a
 * file's text: `ln -s /etc/shadow x/shadow.js` once printed part of a password hash in a parse error.
 * `scan` runs as a process on a tree with a link to a secret file outside it, a link to a file inside it,
 * and a file with a syntax error; the secret appears nowhere in its output.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../support/paths';
import { linksOutside, listSourceFiles } from '../../../src/node/scanDir';

const SECRET = 'root:$6$QiSecretMarker7f3a9$abcdefghijklmnop:19000:0:99999:7:::';
const HANDLER = 'package main\n\nfunc getUser(id int) {\n\tdb.Query("SELECT id, name FROM users WHERE id = ?", id)\n}\n';

function tree(): { top: string; root: string } {
  const top = mkdtempSync(join(tmpdir(), 'qi-links-'));
  const root = join(top, 'app');
  mkdirSync(join(root, 'x'), { recursive: true });
  mkdirSync(join(root, 'y'), { recursive: true });
  writeFileSync(join(top, 'shadow'), `${SECRET}\n`);
  writeFileSync(join(root, 'main.go'), HANDLER);
  symlinkSync(join(top, 'shadow'), join(root, 'x', 'shadow.js'));
  symlinkSync('../main.go', join(root, 'y', 'alias.go'));
  // a file with a syntax error whose text is a secret of its own: the error names the line, not the text
  writeFileSync(join(root, 'broken.js'), `const a = 1;\nconst b = ) ${SECRET.replace('root', 'admin')} (;\n`);
  return { top, root };
}

void test('listing: a link out of the tree is skipped and counted; a link inside it is read', async () => {
  const { top, root } = tree();
  try {
    assert.equal(linksOutside(root, join(root, 'x', 'shadow.js')), true);
    assert.equal(linksOutside(root, join(root, 'y', 'alias.go')), false);
    assert.equal(linksOutside(root, join(root, 'main.go')), false);
    const listing = await listSourceFiles(root, { tracked: null });
    assert.deepEqual(listing.files.map((f) => f.rel), ['broken.js', 'main.go', 'y/alias.go']);
    assert.equal(listing.skipped.get('linked from outside the tree'), 1);
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});

void test('scan never follows a link out of the tree nor quotes a file\'s text, in any format', { timeout: 120_000 }, () => {
  const { top, root } = tree();
  try {
    for (const format of ['table', 'json', 'md', 'csv', 'tsv']) {
      const r = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/query-insight.js'), 'scan', root, '--format', format], { encoding: 'utf8', timeout: 110_000 });
      assert.equal(r.status, 0, r.stderr);
      const all = r.stdout + r.stderr;
      assert.ok(!all.includes('QiSecretMarker'), `${format}: the secret is not printed:\n${all}`);
      assert.match(r.stdout, /y\/alias\.go/, `${format}: the link inside the tree is read`);
      assert.match(r.stderr, /1 linked from outside the tree/);
      assert.match(r.stderr, /^ {2}broken\.js:2: syntax error at column \d+ \(sites found around it are still reported\)$/m);
    }
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});
