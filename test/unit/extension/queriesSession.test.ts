import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { LogTail } from '../../../src/extension/logs/logTail';
import { SlowLogSession } from '../../../src/extension/queries/slowLogSession';
import { slowLogText, T0, type Ent } from './queriesSupport';

function lookups(n: number, from = 0): Ent[] {
  return Array.from({ length: n }, (_, i) => ({ t: T0 + (from + i) * 10, qt: 0.001, sql: `SELECT * FROM users WHERE id = ${from + i}`, sent: 1, exam: 1 }));
}
function scans(n: number): Ent[] {
  return Array.from({ length: n }, (_, i) => ({ t: T0 + 90_000 + i, qt: 0.5, sql: `SELECT * FROM posts WHERE body LIKE '%${i}%'`, sent: 3, exam: 10_000 }));
}
const count = (s: { stats: { fingerprint: string; count: number }[] }, prefix: string) => s.stats.find((x) => x.fingerprint.startsWith(prefix))?.count ?? 0;

function tempDir(): { dir: string; [Symbol.dispose](): void } {
  const dir = mkdtempSync(join(tmpdir(), 'qi-slow-session-'));
  return { dir, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

void test('load, then appended entries only, then a full re-read after truncation and after rotation', async () => {
  const { dir, [Symbol.dispose]: done } = tempDir();
  try {
    const path = join(dir, 'slow.log');
    writeFileSync(path, 'mariadbd, Version: 10.11.6-MariaDB-log (Debian). started with:\nTcp port: 0  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n' + slowLogText(lookups(10)));
    const s = new SlowLogSession(path);
    const first = await s.load();
    assert.equal(first.summary.entries, 10);
    assert.equal(first.summary.malformed, 0);
    assert.equal(count(first, 'select * from users'), 10);

    assert.equal((await s.refresh()).mode, 'unchanged');

    appendFileSync(path, slowLogText(lookups(5, 10)) + slowLogText(scans(2)));
    const grown = await s.refresh();
    assert.equal(grown.mode, 'appended');
    assert.equal(count(grown.snapshot, 'select * from users'), 15);
    assert.equal(count(grown.snapshot, 'select * from posts'), 2);
    assert.equal(grown.snapshot.summary.entries, 17);
    assert.equal(grown.snapshot.summary.malformed, 0);

    // a half-written entry: its last line has no newline yet; it counts once the rest arrives
    const next = slowLogText(lookups(1, 100));
    appendFileSync(path, next.slice(0, next.length - 10));
    const partial = await s.refresh();
    assert.equal(partial.mode, 'appended');
    assert.equal(count(partial.snapshot, 'select * from users'), 15, 'the open entry is not counted yet');
    appendFileSync(path, next.slice(next.length - 10));
    const whole = await s.refresh();
    assert.equal(count(whole.snapshot, 'select * from users'), 16);
    assert.equal(whole.snapshot.summary.malformed, 0, JSON.stringify(whole.snapshot.summary.problems));

    // truncated (the tuner empties the log before the next benchmark), then written again
    truncateSync(path, 0);
    appendFileSync(path, slowLogText(scans(4)));
    const truncated = await s.refresh();
    assert.equal(truncated.mode, 'full');
    assert.equal(count(truncated.snapshot, 'select * from users'), 0);
    assert.equal(count(truncated.snapshot, 'select * from posts'), 4);

    // rotated: the old file moved away, a new one under the same name (a bigger one, so only the inode tells)
    renameSync(path, `${path}.1`);
    writeFileSync(path, slowLogText(lookups(30)));
    const rotated = await s.refresh();
    assert.equal(rotated.mode, 'full');
    assert.equal(count(rotated.snapshot, 'select * from users'), 30);
    assert.equal(count(rotated.snapshot, 'select * from posts'), 0);
  } finally {
    done();
  }
});

void test('gzip logs are read whole; malformed entries are counted, not fatal', async () => {
  const { dir, [Symbol.dispose]: done } = tempDir();
  try {
    const path = join(dir, 'slow.log.gz');
    writeFileSync(path, gzipSync('garbage without a header;\n' + slowLogText(lookups(3)) + slowLogText(scans(1))));
    const s = new SlowLogSession(path);
    const snap = await s.load();
    assert.equal(snap.gzip, true);
    assert.equal(count(snap, 'select * from users'), 3);
    assert.equal(count(snap, 'select * from posts'), 1);
    assert.ok(snap.summary.malformed >= 1);
    assert.ok(snap.summary.problems.length >= 1);
    assert.equal((await s.refresh()).mode, 'full');
  } finally {
    done();
  }
});

void test('LogTail numbers appended lines after the full read and trims CRLF', () => {
  const { dir, [Symbol.dispose]: done } = tempDir();
  try {
    const path = join(dir, 'x.log');
    writeFileSync(path, 'a\nb\n');
    const tail = new LogTail(path);
    assert.equal(tail.state(), 'full');
    const before = tail.beginFull();
    tail.endFull(before, { gzip: false, lines: 2, bytes: 4 });
    assert.equal(tail.state(), 'unchanged');
    appendFileSync(path, 'c\r\nd');
    assert.equal(tail.state(), 'appended');
    const got: string[] = [];
    tail.readAppended((b, s, e, n) => got.push(`${n}:${b.toString('utf8', s, e)}`));
    assert.deepEqual(got, ['3:c']);
    appendFileSync(path, '\n');
    tail.readAppended((b, s, e, n) => got.push(`${n}:${b.toString('utf8', s, e)}`));
    assert.deepEqual(got, ['3:c', '4:d']);
  } finally {
    done();
  }
});

void test('a cut gzip slow log: the entries before the damage, and a message naming the file and the lines read', async () => {
  const { dir, [Symbol.dispose]: done } = tempDir();
  try {
    const path = join(dir, 'slow.log.gz');
    const text = slowLogText(lookups(4000));
    const gz = gzipSync(text);
    const cut = gz.subarray(0, Math.floor(gz.length * 0.5));
    writeFileSync(path, cut);
    const readable = gunzipSync(cut, { finishFlush: constants.Z_SYNC_FLUSH }).toString('utf8');
    const wholeLines = readable.split('\n').length - 1;
    const s = new SlowLogSession(path);
    const snap = await s.load();
    assert.equal(snap.damage, `${path}: gzip data ends early after ${wholeLines} lines (truncated?)`);
    const complete = (readable.match(/^SELECT .*;$/gm) ?? []).length;
    // the entry whose statement was cut may still be read (its text up to the cut)
    assert.ok(snap.summary.entries === complete || snap.summary.entries === complete + 1, `${snap.summary.entries} entries, ${complete} complete before the cut`);
    assert.ok(complete > 1000 && complete < 4000, `${complete}`);

    writeFileSync(path, gz);
    assert.equal((await s.load()).damage, undefined, 'a whole file is not damaged');
  } finally {
    done();
  }
});
