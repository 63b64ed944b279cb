/** Watch mode's reader: appended lines only, truncation and rotation read from the start. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { AccessLogSession, guessAccessLogFormat } from '../../../src/extension/endpoints/accessLogSession';

const line = (uri: string, t = 0.01) => `method:GET\turi:${uri}\tstatus:200\tsize:1\treqtime:${t}\n`;
const count = (s: AccessLogSession, uri: string) => s.current?.endpoints.find((e) => e.uri === uri)?.count ?? 0;

void test('refresh reads only what was appended; a line split across writes is read once complete', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-session-'));
  try {
    const path = join(dir, 'access.log');
    writeFileSync(path, line('/a') + line('/a'));
    const s = new AccessLogSession(path, { format: 'ltsv' });
    await s.load();
    assert.equal(count(s, '/a'), 2);
    assert.equal((await s.refresh()).mode, 'unchanged');
    const next = line('/b');
    appendFileSync(path, line('/a') + next.slice(0, 10));
    assert.equal((await s.refresh()).mode, 'appended');
    assert.equal(count(s, '/a'), 3);
    assert.equal(s.current?.malformed, 0);
    appendFileSync(path, next.slice(10));
    await s.refresh();
    assert.equal(count(s, '/b'), 1);
    assert.equal(s.current?.lines, 4);
    assert.equal(s.current?.malformed, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('truncation (size drop) and rotation (another inode) read the file again from the start', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-session-'));
  try {
    const path = join(dir, 'access.log');
    writeFileSync(path, line('/a') + line('/a') + line('/a'));
    const s = new AccessLogSession(path, { format: 'ltsv' });
    await s.load();
    writeFileSync(path, line('/c'));
    assert.equal((await s.refresh()).mode, 'full');
    assert.equal(count(s, '/a'), 0);
    assert.equal(count(s, '/c'), 1);
    renameSync(path, `${path}.1`);
    writeFileSync(path, line('/d') + line('/d') + line('/d'));
    assert.equal((await s.refresh()).mode, 'full');
    assert.deepEqual(s.current?.endpoints.map((e) => [e.uri, e.count]), [['/d', 3]]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('format guess (plain and gzip) and cancellation of a load', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-session-'));
  try {
    const ltsv = join(dir, 'a.log');
    writeFileSync(ltsv, line('/x'));
    assert.equal(guessAccessLogFormat(ltsv), 'ltsv');
    const json = join(dir, 'b.log.gz');
    writeFileSync(json, gzipSync('{"method":"GET","uri":"/x"}\n'));
    assert.equal(guessAccessLogFormat(json), 'json');
    const combined = join(dir, 'c.log');
    writeFileSync(combined, '127.0.0.1 - - [10/Oct/2024:13:55:36 +0000] "GET / HTTP/1.1" 200 2326 "-" "curl" 0.010\n');
    assert.equal(guessAccessLogFormat(combined), 'combined');
    const big = join(dir, 'big.log');
    writeFileSync(big, line('/x').repeat(400_000));
    const ac = new AbortController();
    const s = new AccessLogSession(big, { format: 'ltsv' });
    const p = s.load({ signal: ac.signal, onProgress: () => ac.abort(new Error('cancelled by test')) });
    await assert.rejects(p, /cancelled by test/);
    assert.equal(s.current, undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
