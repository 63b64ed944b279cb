/**
 * Logging in to several boxes at once (RemoteLogReader.connect), against two real OpenSSH servers
 * on loopback ports: every box's session is up before any of its logs is asked for, each box is
 * logged in to once however many reads follow, and a box that refuses the login is tried once: its
 * read reports the refusal with the host's name, and the other box is read as usual. Both runners:
 * the SSH worker thread and the calling thread.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeKey, sshdAvailable, startSshd, type SshdServer } from '../support/sshd';
import { parseLogSource } from '../../src/core/logs/logSource';
import { RemoteLogReader, RemoteReadError, type RemoteLogSource } from '../../src/node/remoteLog';
import type { SshOptions } from '../../src/db/sshTunnel';

const skip = !sshdAvailable() ? 'sshd is not installed (Debian package openssh-server; scripts/setup-test-env.sh installs it)' : false;

let boxes: SshdServer[] = [];
let dir: string;

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'qi-connect-'));
  boxes = [await startSshd(), await startSshd()];
  writeFileSync(join(dir, 'access.ltsv'), Array.from({ length: 500 }, (_, i) => `method:GET\turi:/items/${i}\tstatus:200\treqtime:0.010`).join('\n') + '\n');
}, { timeout: 60_000 } as never);

after(async () => {
  for (const b of boxes) await b.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const src = (box: SshdServer, file: string): RemoteLogSource => parseLogSource(`ssh://${box.user}@${box.host}:${box.port}${join(dir, file)}`) as RemoteLogSource;
const boxOf = (s: RemoteLogSource): SshdServer => boxes.find((b) => b.port === s.port)!;
const logins = (box: SshdServer, since: number): number => (box.log().slice(since).match(/Accepted publickey for /g) ?? []).length;
const connections = (box: SshdServer, since: number): number => (box.log().slice(since).match(/Connection from 127\.0\.0\.1 port \d+/g) ?? []).length;

async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function count(reader: RemoteLogReader, s: RemoteLogSource): Promise<number> {
  let n = 0;
  await reader.read(s, () => { n++; });
  return n;
}

for (const worker of [true, false]) {
  const runner = worker ? 'on the SSH worker' : 'on the calling thread';

  void test(`${runner}: connect() logs in to every box before any read, once per box however many reads follow`, { skip, timeout: 60_000 }, async () => {
    const reader = new RemoteLogReader((s) => ({ host: s.host, port: s.port!, username: s.user!, privateKeyPath: boxOf(s).clientKey.path }), { worker });
    const marks = boxes.map((b) => b.log().length);
    try {
      assert.equal(reader.onWorker, worker);
      await reader.connect([src(boxes[0], 'access.ltsv'), src(boxes[1], 'access.ltsv'), src(boxes[1], 'access.ltsv')]);
      // no command has gone to either box, and both have a session
      await until('a login to each box', () => boxes.every((b, i) => logins(b, marks[i]) === 1));
      assert.ok(boxes.every((b, i) => !/req exec/.test(b.log().slice(marks[i]))), 'no command before a read');
      for (const b of boxes) assert.equal(await count(reader, src(b, 'access.ltsv')), 500);
      assert.equal(await count(reader, src(boxes[1], 'access.ltsv')), 500);
      assert.deepEqual(boxes.map((b, i) => logins(b, marks[i])), [1, 1], 'one login per box');
    } finally {
      await reader.close();
    }
  });

  void test(`${runner}: a box that refuses the login is tried once; its read names the host, the other box is read`, { skip, timeout: 60_000 }, async () => {
    const stranger = makeKey(dir, `stranger-${worker}`);
    const login = (s: RemoteLogSource): SshOptions => ({
      host: s.host, port: s.port!, username: s.user!, privateKeyPath: s.port === boxes[1].port ? stranger.path : boxes[0].clientKey.path,
    });
    const reader = new RemoteLogReader(login, { worker });
    const marks = boxes.map((b) => b.log().length);
    try {
      await reader.connect([src(boxes[0], 'access.ltsv'), src(boxes[1], 'access.ltsv')]);
      assert.equal(await count(reader, src(boxes[0], 'access.ltsv')), 500);
      await assert.rejects(count(reader, src(boxes[1], 'access.ltsv')), (err: unknown) => {
        assert.ok(err instanceof RemoteReadError, String(err));
        assert.match(err.message, new RegExp(`^${boxes[1].host.replace(/\./g, '\\.')}(:${boxes[1].port})?: cannot read ${join(dir, 'access.ltsv')}: .*(refused|denied|authenticat)`, 'i'));
        return true;
      });
      assert.equal(connections(boxes[1], marks[1]), 1, `one connection to the refusing box: ${boxes[1].log().slice(marks[1])}`);
      assert.equal(logins(boxes[0], marks[0]), 1);
    } finally {
      await reader.close();
    }
  });
}
