/**
 * readLineStream (what the remote reader streams through): damaged gzip data gives the same message
 * as a damaged file read by readLines, with the stream's name, after the lines before the damage;
 * a failing source is not mistaken for damaged data.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { LineReadError, readLines, readLineStream } from '../../../src/node/lineReader';

const dir = mkdtempSync(join(tmpdir(), 'qi-line-stream-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

const TEXT = Array.from({ length: 20_000 }, (_, i) => `time:2024-05-01T12:00:00Z\tmethod:GET\turi:/items/${i}\tstatus:200\treqtime:0.0${i % 10}\n`).join('');

/** The bytes in chunks of `size`, as an SSH channel delivers them; `fail` throws after that many bytes. */
async function* chunks(bytes: Buffer, size: number, fail?: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) {
    if (fail !== undefined && at >= fail) throw new Error('connection reset');
    yield bytes.subarray(at, Math.min(bytes.length, at + size));
  }
}

/** Whole lines a gzip prefix decodes to: what any reader can give before the damage. */
function wholeLines(gz: Buffer): number {
  const text = gunzipSync(gz, { finishFlush: constants.Z_SYNC_FLUSH }).toString('utf8');
  return text.split('\n').length - 1;
}

void test('a cut gzip stream: the lines before the cut, then the local reader\'s message with the stream\'s name', async () => {
  const gz = gzipSync(TEXT);
  const cut = gz.subarray(0, Math.floor(gz.length * 0.55));
  const want = wholeLines(cut);
  assert.ok(want > 1000 && want < 20_000, `${want}`);
  for (const size of [997, 4096, 1 << 16]) {
    const got: string[] = [];
    const r = await readLineStream(chunks(cut, size), (b, s, e) => { got.push(b.toString('utf8', s, e)); }, { name: 'box:/var/log/nginx/access.log.gz' });
    assert.equal(r.damaged?.message, `box:/var/log/nginx/access.log.gz: gzip data ends early after ${want} lines (truncated?)`, `chunks of ${size}`);
    assert.equal(r.damaged?.truncated, true);
    assert.equal(r.gzip, true);
    assert.deepEqual(got.slice(0, want), TEXT.split('\n').slice(0, want));
  }
  // the same file read locally says the same after its path
  const path = join(dir, 'access.log.gz');
  writeFileSync(path, cut);
  const local = await readLines(path, () => undefined);
  const remote = await readLineStream(chunks(cut, 4096), () => undefined, { name: path });
  assert.equal(remote.damaged?.message, local.damaged?.message);
  assert.equal(remote.lines, local.lines);
});

void test('corrupt gzip data in the middle: "damaged after N lines" with zlib\'s reason', async () => {
  const gz = Buffer.from(gzipSync(TEXT));
  const at = Math.floor(gz.length * 0.4);
  for (let i = at; i < at + 64; i++) gz[i] ^= 0x5a;
  const r = await readLineStream(chunks(gz, 4096), () => undefined, { name: 'box:/x.gz' });
  assert.ok(r.damaged, 'damage reported');
  assert.equal(r.damaged.truncated, false);
  assert.match(r.damaged.message, /^box:\/x\.gz: gzip data is damaged after \d+ lines \(.+\)$/);
  // (where deflate notices depends on the bytes: a bad block at once, altered literals only at the checksum)
  assert.equal(Number(/after (\d+) lines/.exec(r.damaged.message)![1]), r.lines - (r.unterminatedLastLine ? 1 : 0));
});

void test('a source that fails mid-way is a LineReadError with the lines read, not damaged data', async () => {
  const gz = gzipSync(TEXT);
  let seen = 0;
  await assert.rejects(readLineStream(chunks(gz, 4096, Math.floor(gz.length / 2)), () => { seen++; }), (e: unknown) => {
    assert.ok(e instanceof LineReadError);
    assert.match(e.message, /connection reset/);
    assert.equal(e.partial.lines, seen);
    return true;
  });
  assert.ok(seen > 0);
  // and a plain stream failing the same way
  await assert.rejects(readLineStream(chunks(Buffer.from(TEXT), 4096, 100_000), () => undefined), LineReadError);
});

void test('a whole gzip stream is not damaged; without a name the message still says what happened', async () => {
  const gz = gzipSync(TEXT);
  const whole = await readLineStream(chunks(gz, 1000), () => undefined);
  assert.equal(whole.damaged, undefined);
  assert.equal(whole.lines, 20_000);
  const cut = await readLineStream(chunks(gz.subarray(0, 100), 7), () => undefined);
  assert.match(cut.damaged!.message, /^the stream: gzip data ends early after \d+ lines \(truncated\?\)$/);
});

/** A source that hands out every chunk in one reused buffer, overwritten once the next is asked for (as the SSH ring is). */
async function* reusedChunks(bytes: Buffer, sizes: () => number): AsyncGenerator<Buffer> {
  const ring = Buffer.alloc(bytes.length + 1);
  for (let at = 0; at < bytes.length;) {
    const n = Math.min(bytes.length - at, sizes());
    ring.fill(0x23);
    bytes.copy(ring, 0, at, at + n);
    yield ring.subarray(0, n);
    at += n;
  }
}

void test('lines from any cut of the stream equal the file\'s: CRLF, blank and too-long lines, no final newline', async () => {
  let seed = 7;
  const rand = (n: number): number => { seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff; return (seed >>> 8) % n; };
  const parts: string[] = [];
  for (let i = 0; i < 3000; i++) {
    const kind = rand(20);
    if (kind === 0) parts.push('\n');
    else if (kind === 1) parts.push(`${'x'.repeat(300 + rand(400))}\n`);
    else if (kind === 2) parts.push(`crlf ${i}\r\n`);
    else if (kind === 3) parts.push('\r\n');
    else parts.push(`line ${i} ${'ab'.repeat(rand(60))}\n`);
  }
  parts.push('last line without a newline');
  const text = Buffer.from(parts.join(''));
  const file = join(dir, 'cuts.log');
  writeFileSync(file, text);
  const maxLineBytes = 512;
  const collect = () => {
    const lines: string[] = [];
    const long: string[] = [];
    return { lines, long, onLine: (b: Buffer, s: number, e: number, n: number) => { lines.push(`${n}:${b.toString('latin1', s, e)}`); }, onLongLine: (n: number, len: number) => { long.push(`${n}:${len}`); } };
  };
  const expected = collect();
  const fromFile = await readLines(file, expected.onLine, { maxLineBytes, onLongLine: expected.onLongLine, chunkBytes: 4096 });
  assert.ok(expected.long.length > 10, 'the text has lines past the limit');
  for (const sizes of [() => 1, () => 2, () => 513, () => 4096, () => 1 + rand(1500), () => [1, 700, 3, 1024][rand(4)]]) {
    const got = collect();
    const r = await readLineStream(reusedChunks(text, sizes), got.onLine, { maxLineBytes, onLongLine: got.onLongLine, chunkBytes: 4096 });
    assert.deepEqual(got.lines, expected.lines);
    assert.deepEqual(got.long, expected.long);
    assert.deepEqual({ ...r }, { ...fromFile });
  }
});
