/**
 * One file costs only itself: source files are read on the reader thread (FactsWorker), and a file past
 * its time budget, or one that exhausts the thread's memory, is skipped with its reason; a fresh thread
 * reads the next file. `scan`, run as a process, names such a file on stderr and reports every other
 * statement. The slow file is the deeply nested Rust closures shape (linear since the walker's bounds, but
 * still seconds for a large file), each nesting level on its own line so that it is not taken for minified.
 * The budget is 1 s: the 100,000-level file takes about 3.5 s to read on an idle 2-core machine, and a faster
 * machine read one within the 3 s these tests used to give it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../support/paths';
import { FactsWorker, FileSkipped, START_MS } from '../../../src/node/factsWorker';
import { nextLookMs } from '../../../src/cli/commands/scan';

const HANDLER = 'package main\n\nfunc getUser(id int) {\n\tdb.Query("SELECT id, name FROM users WHERE id = ?", id)\n}\n';

/** `(||` nested `levels` deep around a query, one level per line. */
function nestedClosures(levels: number): string {
  return `fn main() {\n    let x = ${'(||\n'.repeat(levels)}db.query("SELECT 1")${' )()\n'.repeat(levels)};\n}\n`;
}

async function outcome(w: FactsWorker, file: string, text: string): Promise<string> {
  try {
    const facts = await w.update(file, text);
    return `read: ${facts?.sites.map((s) => s.sql).join(' | ')}`;
  } catch (err) {
    assert.ok(err instanceof FileSkipped, String(err));
    assert.equal(err.file, file);
    return `skipped: ${err.reason}`;
  }
}

void test('a file past the time budget is skipped with its reason; the next file is read by a fresh thread', { timeout: 180_000 }, async () => {
  const w = new FactsWorker({ budgetMs: 1000 });
  try {
    assert.equal(await outcome(w, 'main.go', HANDLER), 'read: SELECT id, name FROM users WHERE id = ?');
    assert.equal(await outcome(w, 'src/deep.rs', nestedClosures(100_000)), 'skipped: reading it took longer than 1 s (the time budget per file)');
    assert.equal(await outcome(w, 'other.go', HANDLER.replace('users', 'posts')), 'read: SELECT id, name FROM posts WHERE id = ?');
    assert.equal(w.restarts, 1);
  } finally {
    w.dispose();
  }
});

void test('a file of a grammar the thread has loaded is timed from its request, and skipped past the budget the same way', { timeout: 180_000 }, async () => {
  const w = new FactsWorker({ budgetMs: 1000 });
  try {
    assert.equal(await outcome(w, 'src/lib.rs', 'fn get() { db.query("SELECT id FROM tags"); }\n'), 'read: SELECT id FROM tags');
    assert.equal(await outcome(w, 'src/deep.rs', nestedClosures(100_000)), 'skipped: reading it took longer than 1 s (the time budget per file)');
    assert.equal(await outcome(w, 'src/next.rs', 'fn get() { db.query("SELECT id FROM posts"); }\n'), 'read: SELECT id FROM posts');
    assert.equal(w.restarts, 1);
  } finally {
    w.dispose();
  }
});

void test('a file that exhausts the thread\'s memory is skipped with its reason; the next file is read', { timeout: 180_000 }, async () => {
  const w = new FactsWorker({ budgetMs: 120_000, memoryMb: 16 });
  try {
    assert.equal(await outcome(w, 'src/deep.rs', nestedClosures(30_000)), 'skipped: reading it ran out of memory (the limit per file is 16 MiB)');
    assert.equal(await outcome(w, 'main.go', HANDLER), 'read: SELECT id, name FROM users WHERE id = ?');
  } finally {
    w.dispose();
  }
});

void test('scan: two files past the budget are each skipped once, in reading order, and every statement around them is reported', { timeout: 240_000 }, () => {
  // why: the scan runs whole on its thread; a file past its budget stops that thread and a fresh one scans again with
  // the files lost so far skipped, so a second slow file costs a second fresh thread, not the first one again.
  const dir = mkdtempSync(join(tmpdir(), 'qi-budget-'));
  try {
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'a.go'), HANDLER);
    writeFileSync(join(dir, 'src', 'deep.rs'), nestedClosures(100_000));
    writeFileSync(join(dir, 'src', 'm.go'), HANDLER.replace('users', 'tags'));
    writeFileSync(join(dir, 'src', 'more.rs'), nestedClosures(100_000));
    writeFileSync(join(dir, 'zz.go'), HANDLER.replace('users', 'posts'));
    const r = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/query-insight.js'), 'scan', dir, '--format', 'json', '--file-budget', '1'],
      { encoding: 'utf8', timeout: 230_000 });
    assert.equal(r.status, 0, r.stderr);
    const rows = r.stdout.trim().split('\n').filter((l) => !l.includes('"n-plus-one"')).map((l) => JSON.parse(l) as { file: string; sql: string });
    assert.deepEqual(rows.map((s) => `${s.file}: ${s.sql}`), [
      'a.go: SELECT id, name FROM users WHERE id = ?', 'src/m.go: SELECT id, name FROM tags WHERE id = ?', 'zz.go: SELECT id, name FROM posts WHERE id = ?',
    ]);
    assert.match(r.stderr, /; skipped 2 past the budget per file\n/);
    const named = r.stderr.split('\n').filter((l) => l.includes('skipped, reading it took longer than 1 s (the time budget per file)'));
    assert.deepEqual(named, ['  src/deep.rs: skipped, reading it took longer than 1 s (the time budget per file)',
      '  src/more.rs: skipped, reading it took longer than 1 s (the time budget per file)']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('scan\'s watcher looks again within one budget even when the file it saw was loading its grammar', () => {
  // why: a look that fell on a grammar's load used to sleep until that load's minute was up; the files read meanwhile
  // (two slow ones in the test above, on a machine where the look fell there) were never timed.
  assert.equal(nextLookMs(START_MS - 5, 3000), 3001);
  assert.equal(nextLookMs(1200, 3000), 1201);
  assert.equal(nextLookMs(0, 3000), 1);
});

void test('scan names a file past its budget on stderr and reports every other statement', { timeout: 180_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-budget-'));
  try {
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'main.go'), HANDLER);
    writeFileSync(join(dir, 'src', 'deep.rs'), nestedClosures(100_000));
    writeFileSync(join(dir, 'zz.go'), HANDLER.replace('users', 'posts'));
    const r = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/query-insight.js'), 'scan', dir, '--format', 'json', '--file-budget', '1'],
      { encoding: 'utf8', timeout: 170_000 });
    assert.equal(r.status, 0, r.stderr);
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { file: string; sql: string });
    assert.deepEqual(rows.map((s) => `${s.file}: ${s.sql}`), ['main.go: SELECT id, name FROM users WHERE id = ?', 'zz.go: SELECT id, name FROM posts WHERE id = ?']);
    assert.match(r.stderr, /; skipped 1 past the budget per file\n/);
    assert.match(r.stderr, /^ {2}src\/deep\.rs: skipped, reading it took longer than 1 s \(the time budget per file\)$/m);

    const bad = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/query-insight.js'), 'scan', dir, '--file-budget', 'soon'], { encoding: 'utf8' });
    assert.equal(bad.status, 2, bad.stderr);
    assert.match(bad.stderr, /--file-budget must be a number of seconds above 0 \(got "soon"\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
