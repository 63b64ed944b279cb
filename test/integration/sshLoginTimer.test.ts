/**
 * The SSH login's time budget against a real OpenSSH server: the time a host-key verifier takes (a
 * person reading the fingerprint in the editor's modal) does not count against it, while a server
 * that never completes the handshake still fails with a timeout.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { sshdAvailable, startSshd, type SshdServer } from '../support/sshd';
import { SshTunnel, SshTunnelError, type HostKeyInfo } from '../../src/db/sshTunnel';

const skip = sshdAvailable() ? false : 'sshd is not installed (Debian package openssh-server)';
let sshd: SshdServer;

before(async () => { if (!skip) sshd = await startSshd(); }, { timeout: 60_000 } as never);
after(async () => { await sshd?.stop(); });

void test('a verifier slower than the login budget: the login still succeeds once it says yes', { skip }, async () => {
  const seen: HostKeyInfo[] = [];
  const tunnel = new SshTunnel({
    host: sshd.host, port: sshd.port, username: sshd.user, privateKeyPath: sshd.clientKey.path, readyTimeoutMs: 800,
    // why: stands for a person reading the modal; 3x the budget, so ssh2's own ready timer would have fired.
    verifyHostKey: (k) => new Promise<boolean>((r) => { seen.push(k); setTimeout(() => r(true), 2400); }),
    target: { host: '127.0.0.1', port: 9 },
  });
  try {
    const local = await tunnel.open();
    assert.equal(local.host, '127.0.0.1');
    assert.ok(tunnel.connected);
    assert.equal(seen.length, 1);
    assert.equal(seen[0].fingerprint, sshd.hostKeyFingerprint);
  } finally { await tunnel.close(); }
});

void test('a verifier that says no: refused as a host-key error naming the fingerprint', { skip }, async () => {
  const tunnel = new SshTunnel({
    host: sshd.host, port: sshd.port, username: sshd.user, privateKeyPath: sshd.clientKey.path, readyTimeoutMs: 800,
    verifyHostKey: () => new Promise<boolean>((r) => setTimeout(() => r(false), 1600)),
    target: { host: '127.0.0.1', port: 9 },
  });
  try {
    await assert.rejects(tunnel.open(), (e: unknown) => e instanceof SshTunnelError && e.kind === 'host-key'
      && e.message.includes(sshd.hostKeyFingerprint));
  } finally { await tunnel.close(); }
});

void test('a server that accepts TCP but never speaks SSH: a timeout after the budget', { skip }, async () => {
  const sockets: Socket[] = [];
  const silent: Server = createServer((s) => { sockets.push(s); });
  const port = await new Promise<number>((r) => silent.listen(0, '127.0.0.1', () => r((silent.address() as { port: number }).port)));
  const tunnel = new SshTunnel({
    host: '127.0.0.1', port, username: 'nobody', privateKeyPath: sshd.clientKey.path, readyTimeoutMs: 700,
    verifyHostKey: () => true, target: { host: '127.0.0.1', port: 9 },
  });
  try {
    await assert.rejects(tunnel.open(), (e: unknown) => e instanceof SshTunnelError && e.kind === 'timeout'
      && /did not complete the login within 700 ms/.test(e.message));
  } finally {
    await tunnel.close();
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => silent.close(() => r()));
  }
});
