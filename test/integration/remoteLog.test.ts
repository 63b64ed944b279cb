/**
 * Log files read from another box over a real OpenSSH server (a private sshd on a loopback port):
 * plain and gzip files streamed line by line, reads from an offset, stat for polling, and the
 * failures a person must be told about with the host's name: a missing file, and a connection
 * dropped part way through a large file (the lines read before it are reported). The sessions run
 * on the SSH worker thread, as the CLI and the extension run them; the main features are read again
 * with them on the calling thread, the runner where no worker script is built.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { sshdAvailable, startSshd, type SshdServer } from '../support/sshd';
import { describeLogSource, parseLogSource } from '../../src/core/logs/logSource';
import { readLines } from '../../src/node/lineReader';
import { RemoteLogReader, RemoteReadError, shellQuote, type RemoteLogSource } from '../../src/node/remoteLog';
import type { SshOptions } from '../../src/db/sshTunnel';

const skip = !sshdAvailable() ? 'sshd is not installed (Debian package openssh-server; scripts/setup-test-env.sh installs it)' : false;

let sshd: SshdServer;
let dir: string;
let reader: RemoteLogReader;
let onThread: RemoteLogReader;

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), "qi remote 'logs' "));
  sshd = await startSshd();
  const login = (s: RemoteLogSource): SshOptions => ({ host: sshd.host, port: s.port ?? sshd.port, username: s.user ?? sshd.user, privateKeyPath: sshd.clientKey.path });
  reader = new RemoteLogReader(login);
  onThread = new RemoteLogReader(login, { worker: false });
}, { timeout: 60_000 } as never);

after(async () => {
  await reader?.close();
  await onThread?.close();
  await sshd?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const src = (path: string): RemoteLogSource => parseLogSource(`ssh://${sshd.user}@${sshd.host}:${sshd.port}${path}`) as RemoteLogSource;

async function lines(s: RemoteLogSource, offset = 0, from = reader): Promise<string[]> {
  const out: string[] = [];
  await from.read(s, (b, st, e) => { out.push(b.toString('utf8', st, e)); }, { offset });
  return out;
}

void test('a plain file and a gzip file stream line by line; a path with spaces and quotes is quoted for the shell', { skip }, async () => {
  const text = Array.from({ length: 1000 }, (_, i) => `time:2024-01-01T00:00:${i % 60}\tmethod:GET\turi:/items/${i}\tstatus:200\treqtime:0.0${i % 10}`).join('\n') + '\n';
  writeFileSync(join(dir, 'a.ltsv'), text);
  writeFileSync(join(dir, 'b.ltsv.gz'), gzipSync(text));
  assert.ok(reader.onWorker, 'the sessions run on the SSH worker (out/src/node/ssh/sshWorker.js is built)');
  assert.ok(!onThread.onWorker);
  for (const from of [reader, onThread]) {
    const plain = await lines(src(join(dir, 'a.ltsv')), 0, from);
    const gz = await lines(src(join(dir, 'b.ltsv.gz')), 0, from);
    assert.equal(plain.length, 1000);
    assert.deepEqual(gz, plain);
    assert.deepEqual(plain, text.split('\n').slice(0, -1));
  }
});

void test('a large file streams in order; a reader that stops taking lines stops the box from reading on (bounded memory)', { skip, timeout: 120_000 }, async () => {
  const path = join(dir, 'numbered.log');
  const count = 2_000_000;
  writeFileSync(path, Array.from({ length: count }, (_, i) => `${i}\t${'y'.repeat(60)}`).join('\n') + '\n'); // ~140 MB
  const size = statSync(path).size;
  let expected = 0;
  let wrong = 0;
  let readBehind = 0;
  const r = await reader.read(src(path), (b, st) => {
    if (Number(b.toString('latin1', st, b.indexOf(9, st))) !== expected++) wrong++;
    if (expected === 1000) {
      // This thread stops for a while (no chunk taken, no acknowledgement sent): how far does `cat` on the box read meanwhile?
      const until = performance.now() + 3000;
      while (performance.now() < until) { /* busy */ }
      // no such process: it had read the whole file and exited
      const pos = catPosition(path);
      readBehind = pos < 0 ? size : pos;
    }
  });
  assert.equal(r.lines, count);
  assert.equal(wrong, 0);
  // in flight at most: the worker's 4 MB, ssh2's 2 MB window and buffer, socket and pipe buffers
  assert.ok(readBehind < 48 * 1024 * 1024, `cat had read ${(readBehind / 1048576).toFixed(1)} MB of ${(size / 1048576).toFixed(1)} MB while nothing was taken`);
});

/** How far the `cat` reading `path` has read it (from /proc), or -1 when no such process runs. */
function catPosition(path: string): number {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (!argv[0].endsWith('cat') || argv[argv.length - 2] !== path) continue;
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) !== path) continue;
        return Number(/^pos:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))![1]);
      }
    } catch { /* gone, or not ours */ }
  }
  return -1;
}

void test('head, then the read of the same file, is one command on the box, and the read gets every line', { skip }, async () => {
  const text = Array.from({ length: 5000 }, (_, i) => `time:2024-01-01T00:00:00\tmethod:GET\turi:/h/${i}\tstatus:200\treqtime:0.001`).join('\n') + '\n';
  writeFileSync(join(dir, 'h.ltsv'), text);
  writeFileSync(join(dir, 'h.ltsv.gz'), gzipSync(text));
  const execs = (): number => (sshd.log().match(/req exec/g) ?? []).length;
  for (const from of [reader, onThread]) {
    for (const name of ['h.ltsv', 'h.ltsv.gz']) {
      const s = src(join(dir, name));
      const before = execs();
      const head = await from.head(s, 1000);
      // 1000 bytes of the file: of the gzip data, its decoded start
      if (name.endsWith('.gz')) assert.ok(head.length >= 1000 && text.startsWith(head), name);
      else assert.equal(head, text.slice(0, 1000));
      assert.deepEqual(await lines(s, 0, from), text.split('\n').slice(0, -1));
      assert.equal(execs() - before, 1, `${name}: one command for head and read`);
    }
  }
  // a read from an offset does not take the kept cat; close() stops it
  const s = src(join(dir, 'h.ltsv'));
  await reader.head(s, 10);
  const before = execs();
  assert.equal((await lines(s, text.indexOf('\n') + 1)).length, 4999);
  assert.equal(execs() - before, 1);
});

void test('a read from an offset gets only what was appended; stat gives size and inode', { skip }, async () => {
  const path = join(dir, 'grow.log');
  writeFileSync(path, 'one\ntwo\n');
  const s = src(path);
  const st = await reader.stat(s);
  assert.equal(st.size, 8);
  assert.ok(st.inode > 0);
  writeFileSync(path, 'one\ntwo\nthree\nfour\n');
  assert.deepEqual(await lines(s, st.size), ['three', 'four']);
});

void test('a missing file names the host and the reason', { skip }, async () => {
  await assert.rejects(lines(src(join(dir, 'nope.log'))), (e: Error) => {
    assert.ok(e instanceof RemoteReadError);
    assert.match(e.message, new RegExp(`^${sshd.host}:${sshd.port}: cannot read .*nope\\.log: .*No such file`));
    return true;
  });
});

void test('a connection dropped mid-read reports the host and the lines read before it', { skip, timeout: 60_000 }, async () => {
  const path = join(dir, 'big.log');
  const line = `${'x'.repeat(99)}\n`;
  writeFileSync(path, line.repeat(2_000_000)); // 200 MB: far more than streams before the drop
  let seen = 0;
  let dropped = false;
  const p = reader.read(src(path), () => {
    seen++;
    if (seen === 1000 && !dropped) { dropped = true; sshd.dropSessions(); }
  });
  await assert.rejects(p, (e: Error) => {
    assert.ok(e instanceof RemoteReadError, String(e));
    assert.match(e.message, new RegExp(`^${sshd.host}:${sshd.port}: .*(lost|stopped).* after \\d+ lines`));
    assert.ok(e.partial && e.partial.lines >= 1000 && e.partial.lines < 2_000_000, `partial ${e.partial?.lines}`);
    assert.equal(e.partial!.lines, seen);
    return true;
  });
  // The next read logs in again.
  assert.deepEqual(await lines(src(join(dir, 'a.ltsv'))).then((l) => l.length), 1000);

  // the same on the calling thread's session
  let seenHere = 0;
  const here = onThread.read(src(path), () => { if (++seenHere === 1000) sshd.dropSessions(); });
  await assert.rejects(here, (e: Error) => {
    assert.ok(e instanceof RemoteReadError, String(e));
    assert.match(e.message, new RegExp(`^${sshd.host}:${sshd.port}: .*(lost|stopped).* after \\d+ lines`));
    assert.equal(e.partial!.lines, seenHere);
    return true;
  });
});

void test('a damaged .gz on the box: the lines before the damage and the local reader\'s message, with the source\'s name', { skip, timeout: 60_000 }, async () => {
  const text = Array.from({ length: 30_000 }, (_, i) => `time:2024-01-01T00:00:00\tmethod:GET\turi:/items/${i}\tstatus:200\treqtime:0.0${i % 10}`).join('\n') + '\n';
  const gz = gzipSync(text);
  const cutPath = join(dir, 'cut.ltsv.gz');
  writeFileSync(cutPath, gz.subarray(0, Math.floor(gz.length * 0.6)));
  const local = await readLines(cutPath, () => undefined);
  const s = src(cutPath);
  const got: string[] = [];
  const r = await reader.read(s, (b, st, e) => { got.push(b.toString('utf8', st, e)); });
  assert.equal(r.damaged?.message, local.damaged!.message.replace(cutPath, describeLogSource(s)));
  assert.match(r.damaged!.message, /: gzip data ends early after \d+ lines \(truncated\?\)$/);
  assert.equal(r.lines, local.lines);
  assert.deepEqual(got.slice(0, 100), text.split('\n').slice(0, 100));

  // corrupt in the middle: named as damaged, not as a lost connection; the session stays usable
  const bad = Buffer.from(gz);
  for (let i = Math.floor(bad.length * 0.3); i < Math.floor(bad.length * 0.3) + 64; i++) bad[i] ^= 0x5a;
  writeFileSync(join(dir, 'bad.ltsv.gz'), bad);
  const r2 = await reader.read(src(join(dir, 'bad.ltsv.gz')), () => undefined);
  assert.match(r2.damaged?.message ?? '', /bad\.ltsv\.gz: gzip data is damaged after \d+ lines \(.+\)$/);
  assert.equal((await lines(src(join(dir, 'a.ltsv')))).length, 1000);
});

void test('shellQuote survives quotes and spaces', () => {
  assert.equal(shellQuote("a b'c"), `'a b'\\''c'`);
});
