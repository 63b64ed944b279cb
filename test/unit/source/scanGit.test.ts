/**
 * In a git work tree, tracked files are scanned even where a .gitignore rule matches them (git's own
 * rule: ignore rules apply to untracked files only); a directory of source skipped as ignored is named
 * on stderr. A real git repository in a temporary directory.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { ignoredDirNote, ignoredSources, listSourceFiles } from '../../../src/node/scanDir';
import { gitTrackedFiles } from '../../../src/node/gitTracked';
import { scanCommand } from '../../../src/cli/commands/scan';

const GO = (q: string) => `package main\nfunc f() { db.Query("${q}", 1) }\n`;

function repo(): string {
  const root = mkdtempSync(join(tmpdir(), 'qi-git-'));
  const w = (p: string, text: string) => { mkdirSync(join(root, p, '..'), { recursive: true }); writeFileSync(join(root, p), text); };
  w('.gitignore', 'gen/\n*.gen.go\nscratch/\n[z-a]\n');
  w('main.go', GO('SELECT id FROM users WHERE id = ?'));
  w('gen/client.go', GO('SELECT id FROM items WHERE id = ?'));        // tracked though ignored (added with -f)
  w('gen/sub/deep.go', GO('SELECT id FROM tags WHERE id = ?'));      // tracked, in a subdirectory of an ignored one
  w('gen/untracked.go', GO('SELECT 1 FROM nothing WHERE a = ?'));    // ignored and untracked: skipped
  w('gen/other/x.go', GO('SELECT 2 FROM nothing WHERE a = ?'));      // ignored directory without tracked files
  w('models.gen.go', GO('SELECT id FROM posts WHERE id = ?'));       // tracked though ignored
  w('stale.gen.go', GO('SELECT 3 FROM nothing WHERE a = ?'));        // ignored and untracked
  w('scratch/a.py', 'cur.execute("SELECT 4 FROM nothing")\n');
  w('scratch/b.rb', 'db.query("SELECT 5 FROM nothing")\n');
  w('app/new.py', 'cur.execute("SELECT id FROM comments")\n');       // untracked, not ignored: scanned
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
  git('init', '-q');
  git('add', 'main.go', '.gitignore');
  git('add', '-f', 'gen/client.go', 'gen/sub/deep.go', 'models.gen.go');
  return root;
}

void test('git: tracked files under ignore rules are listed; untracked ignored ones are not', async () => {
  const root = repo();
  try {
    const tracked = gitTrackedFiles(root);
    assert.ok(tracked, 'git ls-files should answer in a work tree');
    assert.ok(tracked.files.has('gen/sub/deep.go') && tracked.dirs.has('gen/sub') && tracked.dirs.has('gen'));
    const listing = await listSourceFiles(root);
    assert.equal(listing.git, true);
    assert.deepEqual(listing.files.map((f) => f.rel), ['app/new.py', 'gen/client.go', 'gen/sub/deep.go', 'main.go', 'models.gen.go']);
    assert.deepEqual(listing.ignoredDirs, [{ dir: 'gen/other', sourceFiles: 1, more: false }, { dir: 'scratch', sourceFiles: 2, more: false }]);
    // without git (or outside a work tree) the ignore rules apply to every file, as before
    const plain = await listSourceFiles(root, { tracked: null });
    assert.deepEqual(plain.files.map((f) => f.rel), ['app/new.py', 'main.go']);
    assert.deepEqual(plain.ignoredDirs.map((d) => d.dir), ['gen', 'scratch']);
    // a subdirectory of the work tree sees its own tracked files, relative to itself
    const sub = await listSourceFiles(join(root, 'gen'));
    assert.deepEqual(sub.files.map((f) => f.rel), ['client.go', 'other/x.go', 'sub/deep.go', 'untracked.go']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

void test('git: outside a work tree there is no tracked list', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-nogit-'));
  try {
    // why: a temp dir may sit inside someone's repository; GIT_CEILING_DIRECTORIES is not ours to set,
    // so only assert when git itself says this is not a work tree.
    let inside = true;
    try { execFileSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: dir, stdio: 'ignore' }); } catch { inside = false; }
    if (!inside) assert.equal(gitTrackedFiles(dir), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('scan CLI: names each directory of source skipped as ignored on stderr, and reads tracked ones', async () => {
  const root = repo();
  try {
    const out = new PassThrough();
    const err = new PassThrough();
    const o: Buffer[] = [];
    const e: Buffer[] = [];
    out.on('data', (c: Buffer) => o.push(c));
    err.on('data', (c: Buffer) => e.push(c));
    const code = await scanCommand.run([root, '--format', 'json'], { stdout: out, stderr: err, env: {}, cwd: root });
    assert.equal(code, 0);
    const files = Buffer.concat(o).toString('utf8').trim().split('\n').map((l) => (JSON.parse(l) as { file: string }).file);
    assert.ok(files.includes('gen/client.go') && files.includes('models.gen.go') && files.includes('gen/sub/deep.go'), files.join());
    assert.ok(!files.includes('gen/untracked.go') && !files.includes('stale.gen.go'));
    const stderr = Buffer.concat(e).toString('utf8');
    assert.match(stderr, /skipped scratch\/ \(2 source files\): ignored by \.gitignore and none of it tracked by git/);
    assert.match(stderr, /skipped gen\/other\/ \(1 source file\)/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

void test('editor rule: ignoredSources leaves out what scan leaves out, and names the same directories', async () => {
  const root = repo();
  try {
    const ig = await ignoredSources(root);
    const all = ['main.go', 'app/new.py', 'gen/client.go', 'gen/sub/deep.go', 'gen/untracked.go', 'gen/other/x.go', 'models.gen.go',
      'stale.gen.go', 'scratch/a.py', 'scratch/b.rb'];
    // the same files the CLI lists, whichever way the editor found them (findFiles does not read .gitignore)
    const listed = (await listSourceFiles(root)).files.map((f) => f.rel);
    assert.deepEqual(all.filter((f) => !ig.ignores(f)).sort(), [...listed].sort());
    assert.deepEqual(ig.dirs.map((d) => ignoredDirNote(d, ig.git)), [
      'skipped gen/other/ (1 source file): ignored by .gitignore and none of it tracked by git',
      'skipped scratch/ (2 source files): ignored by .gitignore and none of it tracked by git',
    ]);
    // a name that only starts like an ignored directory is not under it
    assert.equal(ig.ignores('scratchpad.go'), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
