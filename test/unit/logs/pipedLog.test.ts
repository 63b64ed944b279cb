// Logs on a pipe: `ssh isu1 cat access.log | query-insight endpoints -`, a FIFO, bash's <(...).
// The head the sniffer takes must come back at the start of the read, gzip included, and a
// pipe read twice must say so instead of reporting an empty log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { endpointsCommand } from '../../../src/cli/commands/endpoints';
import { slowCommand } from '../../../src/cli/commands/slow';
import { diffCommand } from '../../../src/cli/commands/diff';
import { parseLogArgs } from '../../../src/cli/logArgs';
import { FIXTURES } from '../../support/paths';
import { runCommand } from '../../support/runCommand';

const dir = mkdtempSync(join(tmpdir(), 'qi-piped-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const CLI = join(__dirname, '../../../src/cli/cli.js');

/** An access log of `n` requests, long enough that its head (64 KiB) is a small part of it. */
function accessLog(n: number, seed: number): string {
  const paths = ['/api/user/1', '/api/user/22', '/api/isu/abc/graph', '/', '/api/trend', '/login'];
  let out = '';
  for (let i = 0; i < n; i++) {
    const p = paths[(i * 7 + seed) % paths.length];
    out += `time:27/Nov/2026:10:00:${String(i % 60).padStart(2, '0')} +0900\thost:10.0.0.${i % 9}\tmethod:${p === '/login' ? 'POST' : 'GET'}\turi:${p}\tstatus:${i % 50 ? 200 : 500}\tsize:${100 + i % 300}\treqtime:0.${String(10 + (i * 13 + seed) % 900).padStart(3, '0')}\tua:isucandar\n`;
  }
  return out;
}

const LOG = join(dir, 'access.ltsv');
writeFileSync(LOG, accessLog(6000, 3));
const GZ = join(dir, 'access.ltsv.gz');
writeFileSync(GZ, gzipSync(readFileSync(LOG)));

/** A FIFO that a child process fills with `file`, as `<(cat file)` would. */
function fifoOf(file: string, name: string): string {
  const path = join(dir, name);
  assert.equal(spawnSync('mkfifo', [path]).status, 0, 'mkfifo');
  const writer = spawn('sh', ['-c', 'cat "$1" > "$2"', 'sh', file, path], { stdio: 'ignore' });
  writer.unref();
  return path;
}

/** The CLI as a process, with `input` on its standard input. */
function cliWithStdin(args: string[], input: Buffer | string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [CLI, ...args], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    p.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, out, err }));
    // why: written in pieces, as ssh delivers it, so the read sees many chunks.
    const data = Buffer.from(input);
    let off = 0;
    const step = (): void => {
      if (off >= data.length) { p.stdin.end(); return; }
      const piece = data.subarray(off, off += 50_000);
      if (p.stdin.write(piece)) setImmediate(step); else p.stdin.once('drain', step);
    };
    step();
  });
}

const byFile = async (args: string[]) => {
  const r = await runCommand(endpointsCommand, [LOG, ...args], dir);
  assert.equal(r.code, 0, r.err);
  return r.out;
};

void test('endpoints -: a log on standard input gives the report of the same file, plain and gzip', async () => {
  const expected = await byFile(['--format', 'json', '--quiet']);
  const plain = await cliWithStdin(['endpoints', '-', '--format', 'json'], readFileSync(LOG));
  assert.equal(plain.code, 0, plain.err);
  assert.equal(plain.out, expected);
  assert.match(plain.err, /^# ltsv: 6000 lines, 6000 requests/m, 'the layout is sniffed from the pipe and every line is read');
  const gz = await cliWithStdin(['endpoints', '-', '--format', 'json', '--quiet'], readFileSync(GZ));
  assert.equal(gz.code, 0, gz.err);
  assert.equal(gz.out, expected);
});

void test('endpoints on FIFOs (as <(ssh box cat log) gives them): mixed with a file, --by-host counts each', async () => {
  const fifo = fifoOf(LOG, 'a.fifo');
  const fifoGz = fifoOf(GZ, 'b.fifo');
  const r = await runCommand(endpointsCommand, [fifo, fifoGz, LOG, '--format', 'json', '--by-host'], dir);
  assert.equal(r.code, 0, r.err);
  const single = (await byFile(['--format', 'json', '--quiet'])).trim().split('\n').map((l) => JSON.parse(l) as { uri: string; count: number });
  const triple = new Map(r.out.trim().split('\n').map((l) => JSON.parse(l) as { uri: string; count: number; hosts: Record<string, number> }).map((o) => [o.uri, o]));
  for (const e of single) {
    assert.equal(triple.get(e.uri)?.count, 3 * e.count, e.uri);
    assert.deepEqual(triple.get(e.uri)?.hosts, { local: 3 * e.count });
  }
  assert.match(r.err, /a\.fifo: 6000 lines\n.*b\.fifo: 6000 lines \(gzip\)/s);
});

void test('a pipe named twice is read once; the second read says why it has nothing', async () => {
  const fifo = fifoOf(LOG, 'twice.fifo');
  const r = await runCommand(endpointsCommand, [fifo, fifo, '--format', 'json', '--quiet'], dir);
  assert.equal(r.code, 1);
  assert.match(r.err, /twice\.fifo: .*already read \(a pipe can be read once\)/);
  const counts = r.out.trim().split('\n').map((l) => (JSON.parse(l) as { count: number }).count).reduce((a, b) => a + b, 0);
  assert.equal(counts, 6000, 'the first read is whole');
});

void test('- twice is a usage error, on one side or across the two of diff', async () => {
  assert.throws(() => parseLogArgs(['-', 'a.log', '-'], dir), /- \(standard input\) can be given once/);
  await assert.rejects(runCommand(diffCommand, ['-', 'x.log,-'], dir).then((r) => { throw new Error(r.err); }), /- \(standard input\) can be given once/);
  assert.deepEqual(parseLogArgs(['-'], dir), [{ kind: 'local', path: '-' }]);
});

void test('slow -: a slow log on standard input equals the file; an access log on it is refused as by file', async () => {
  const slowLog = join(FIXTURES, 'logs', 'slow', 'mysql80.log');
  const expected = await runCommand(slowCommand, [slowLog, '--format', 'json', '--quiet'], dir);
  assert.equal(expected.code, 0, expected.err);
  const piped = await cliWithStdin(['slow', '-', '--format', 'json', '--quiet'], gzipSync(readFileSync(slowLog)));
  assert.equal(piped.code, 0, piped.err);
  assert.equal(piped.out, expected.out);
  const wrong = await cliWithStdin(['endpoints', '-'], readFileSync(slowLog));
  assert.equal(wrong.code, 2);
  assert.match(wrong.err, /-: this looks like a MySQL slow log; use `query-insight slow`/);
});

void test('diff with one side on standard input', async () => {
  const after = join(dir, 'after.ltsv');
  writeFileSync(after, accessLog(3000, 5));
  const expected = await runCommand(diffCommand, [LOG, after, '--format', 'json', '--quiet'], dir);
  assert.equal(expected.code, 0, expected.err);
  const piped = await cliWithStdin(['diff', '-', after, '--format', 'json', '--quiet'], readFileSync(LOG));
  assert.equal(piped.code, 0, piped.err);
  assert.equal(piped.out, expected.out);
});
