import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readLines } from '../../../src/node/lineReader';
import { analyzeAccessLogFile } from '../../../src/node/accessLogFile';
import { FIXTURES } from '../../support/paths';

const dir = mkdtempSync(join(tmpdir(), 'qi-lines-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

async function collect(path: string, opts: Parameters<typeof readLines>[2] = {}) {
  const lines: [number, string][] = [];
  const long: [number, number][] = [];
  const r = await readLines(path, (b, s, e, n) => lines.push([n, b.toString('utf8', s, e)]), { ...opts, onLongLine: (n, len) => long.push([n, len]) });
  return { lines, long, r };
}

void test('lines across chunk boundaries, CRLF, blank lines and an unterminated last line', async () => {
  const text = 'alpha\r\nbeta\n\ngamma-é\r\ndelta';
  const p = join(dir, 'a.log');
  writeFileSync(p, text);
  for (const chunkBytes of [1, 2, 3, 7, 1 << 16]) {
    const { lines, r } = await collect(p, { chunkBytes, maxLineBytes: 64 });
    assert.deepEqual(lines, [[1, 'alpha'], [2, 'beta'], [3, ''], [4, 'gamma-é'], [5, 'delta']], `chunk ${chunkBytes}`);
    assert.equal(r.unterminatedLastLine, true);
    assert.equal(r.gzip, false);
  }
});

void test('a huge line is skipped and reported, the lines around it survive, memory stays bounded', async () => {
  const p = join(dir, 'huge.log');
  const huge = 'x'.repeat(5_000_000);
  writeFileSync(p, `first\n${huge}\nlast\n${huge}`);
  const { lines, long, r } = await collect(p, { chunkBytes: 4096, maxLineBytes: 10_000 });
  assert.deepEqual(lines, [[1, 'first'], [3, 'last']]);
  assert.deepEqual(long, [[2, 5_000_000], [4, 5_000_000]]);
  assert.equal(r.longLines, 2);
});

void test('gzip (single and concatenated members) reads like the plain text', async () => {
  const p = join(dir, 'a.log.gz');
  writeFileSync(p, Buffer.concat([gzipSync('one\ntwo\n'), gzipSync('three\r\nfour')]));
  const { lines, r } = await collect(p, { chunkBytes: 3 });
  assert.deepEqual(lines.map((l) => l[1]), ['one', 'two', 'three', 'four']);
  assert.equal(r.gzip, true);
  assert.equal(r.unterminatedLastLine, true);
});

void test('an aborted read rejects', async () => {
  const p = join(dir, 'abort.log');
  writeFileSync(p, 'a\n'.repeat(200_000));
  const ac = new AbortController();
  let seen = 0;
  await assert.rejects(readLines(p, () => { if (++seen === 10) ac.abort(new Error('stop')); }, { chunkBytes: 1024, signal: ac.signal }), /stop/);
  // A read that never reaches the end of a slice (no yield at all) still sees the abort.
  const again = new AbortController();
  let n = 0;
  await assert.rejects(readLines(p, () => { if (++n === 10) again.abort(new Error('stop now')); }, { chunkBytes: 1024, signal: again.signal, sliceMs: Number.POSITIVE_INFINITY }), /stop now/);
  assert.ok(n < 200_000, `the read went on to line ${n}`);
});

void test('analyzeAccessLogFile: a gzip LTSV log, the same figures as the plain one, long lines counted as malformed', async () => {
  const plain = readFileSync(join(FIXTURES, 'logs', 'access', 'sample.ltsv'));
  const gz = join(dir, 'sample.ltsv.gz');
  writeFileSync(gz, gzipSync(Buffer.concat([plain, Buffer.from('\n' + 'y'.repeat(3000) + '\n')])));
  const a = await analyzeAccessLogFile(join(FIXTURES, 'logs', 'access', 'sample.ltsv'), { format: 'ltsv' });
  const b = await analyzeAccessLogFile(gz, { format: 'ltsv' }, { maxLineBytes: 1000 });
  assert.deepEqual(b.endpoints.map((e) => [e.uri, e.count, e.sum]), a.endpoints.map((e) => [e.uri, e.count, e.sum]));
  assert.equal(a.malformed, 2);
  assert.equal(b.malformed, 3);
  assert.equal(b.malformedExamples[2].reason, 'line too long');
  assert.equal(b.malformedExamples[2].text, '(3000 bytes)');
  assert.equal(b.read.gzip, true);
});
