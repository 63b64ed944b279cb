import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listSourceFiles, scanProject } from '../../../src/node/scanDir';
import { FactsCache } from '../../../src/core/workspace';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../../src/node/grammars';

void test('scanProject skips vendored trees, gitignored, huge and binary files and counts why', async () => {
  const root = mkdtempSync(join(tmpdir(), 'qi-scan-'));
  try {
    const w = (p: string, text: string | Buffer) => { mkdirSync(join(root, p, '..'), { recursive: true }); writeFileSync(join(root, p), text); };
    w('.gitignore', 'ignored/\n*.gen.go\n');
    w('main.go', 'package main\nfunc f() { db.Query("SELECT id FROM users WHERE id = ?", 1) }\n');
    w('node_modules/x/index.js', 'db.query("SELECT 1")');
    w('vendor/lib/a.go', 'package lib\nvar q = "SELECT 1"\n');
    w('ignored/a.py', 'q = "SELECT 1"\n');
    w('x.gen.go', 'package main\nvar q = "SELECT 1"\n');
    w('big.rb', `q = "SELECT 1"\n${'#'.repeat(1024 * 1024)}\n`);
    w('bin.php', Buffer.from([0x3c, 0x3f, 0x00, 0x01]));
    w('broken.py', 'def f(:\n    cur.execute("SELECT name FROM users")\n');
    w('README.md', 'SELECT * FROM nothing');
    const listing = await listSourceFiles(root);
    // huge files are listed and skipped when read (their size is asked of the open file)
    assert.deepEqual(listing.files.map((f) => f.rel), ['big.rb', 'bin.php', 'broken.py', 'main.go']);
    const scan = await scanProject(root, new FactsCache(new ParserSet(fsGrammarSource())));
    assert.deepEqual(Object.fromEntries(scan.skipped), { 'vendored or generated directory': 2, gitignored: 2, 'huge (> 1 MiB)': 1, binary: 1 });
    assert.equal(scan.files, 2);
    assert.equal(scan.bytes, statSync(join(root, 'main.go')).size + statSync(join(root, 'broken.py')).size);
    const sites = scan.facts.flatMap((f) => f.sites);
    assert.deepEqual(sites.map((s) => [s.file, s.sql]), [['broken.py', 'SELECT name FROM users'], ['main.go', 'SELECT id FROM users WHERE id = ?']]);
    const errors = scan.facts.flatMap((f) => f.errors);
    assert.equal(errors.length, 1);
    assert.equal(errors[0].file, 'broken.py');
    assert.equal(errors[0].line, 1);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

void test('FactsCache returns the cached facts for unchanged content and re-extracts on change', async () => {
  const cache = new FactsCache(new ParserSet(fsGrammarSource()));
  const a = await cache.update('a.js', 'db.query("SELECT 1")');
  const b = await cache.update('a.js', 'db.query("SELECT 1")');
  assert.ok(a && b);
  assert.equal(a, b);
  const c = await cache.update('a.js', 'db.query("SELECT 2")');
  assert.notEqual(c, a);
  assert.equal(c?.sites[0].sql, 'SELECT 2');
  assert.equal(await cache.update('notes.txt', 'SELECT 1'), undefined);
  cache.remove('a.js');
  assert.equal(cache.get('a.js'), undefined);
});
