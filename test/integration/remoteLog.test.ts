/**
 * Log files read from another box over a real OpenSSH server (a private sshd on a loopback port):
 * plain and gzip files streamed line by line, reads from an offset, stat for polling, and the
 * failures a person must be told about with the host's name: a missing file, and a connection
 * dropped part way through a large file (the lines read before it are reported).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { sshdAvailable, startSshd, type SshdServer } from '../support/sshd';
import { describeLogSource, parseLogSource } from '../../src/core/logs/logSource';
import { readLines } from '../../src/node/lineReader';
import { RemoteLogReader, RemoteReadError, shellQuote, type RemoteLogSource } from '../../src/node/remoteLog';

const skip = !sshdAvailable() ? 'sshd is not installed (Debian package openssh-server; scripts/setup-test-env.sh installs it)' : false;

let sshd: SshdServer;
let dir: string;
let reader: RemoteLogReader;

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), "qi remote 'logs' "));
  sshd = await startSshd();
  reader = new RemoteLogReader((s) => ({ host: sshd.host, port: s.port ?? sshd.port, username: s.user ?? sshd.user, privateKeyPath: sshd.clientKey.path }));
}, { timeout: 60_000 } as never);

after(async () => {
  await reader?.close();
  await sshd?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const src = (path: string): RemoteLogSource => parseLogSource(`ssh://${sshd.user}@${sshd.host}:${sshd.port}${path}`) as RemoteLogSource;

async function lines(s: RemoteLogSource, offset = 0): Promise<string[]> {
  const out: string[] = [];
  await reader.read(s, (b, st, e) => { out.push(b.toString('utf8', st, e)); }, { offset });
  return out;
}

void test('a plain file and a gzip file stream line by line; a path with spaces and quotes is quoted for the shell', { skip }, async () => {
  const text = Array.from({ length: 1000 }, (_, i) => `time:2024-01-01T00:00:${i % 60}\tmethod:GET\turi:/items/${i}\tstatus:200\treqtime:0.0${i % 10}`).join('\n') + '\n';
  writeFileSync(join(dir, 'a.ltsv'), text);
  writeFileSync(join(dir, 'b.ltsv.gz'), gzipSync(text));
  const plain = await lines(src(join(dir, 'a.ltsv')));
  const gz = await lines(src(join(dir, 'b.ltsv.gz')));
  assert.equal(plain.length, 1000);
  assert.deepEqual(gz, plain);
  assert.equal(plain[7], text.split('\n')[7]);
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
