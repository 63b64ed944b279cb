/**
 * The SSH tunnel against a real OpenSSH server (a private sshd on a loopback port, root with a
 * temp key) in front of a private MariaDB: EXPLAIN through the tunnel to the TCP port and to the
 * unix socket as seen from the box, agent authentication, refusals with clear messages (wrong key,
 * refused host key, nothing listening behind the box, no SSH server), reconnect after the session
 * drops, and the bundled dist/cli.js with --ssh.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { FIXTURES, REPO_ROOT } from '../support/paths';
import { mariadbAvailable, startMariaDb, type MariaDbServer } from '../support/mariadb';
import { makeKey, sshdAvailable, startSshAgent, startSshd, type SshdServer } from '../support/sshd';
import { DbConnection, DbError, type ConnectionOptions } from '../../src/db/connection';
import { ExplainService } from '../../src/db/explainService';
import { SshTunnel, type HostKeyInfo, type SshOptions } from '../../src/db/sshTunnel';
import { explainCommand } from '../../src/cli/commands/explain';
import { freePort } from '../../src/node/freePort';

const skip = !sshdAvailable()
  ? 'sshd is not installed (Debian package openssh-server; scripts/setup-test-env.sh installs it)'
  : !mariadbAvailable() ? 'mariadbd is not installed (mariadb-server)' : false;

let db: MariaDbServer;
let sshd: SshdServer;
let scratch: string;
const PASSWORD = 'qi-tunnel-secret';

before(async () => {
  if (skip) return;
  scratch = mkdtempSync(join(tmpdir(), 'qi-ssh-test-'));
  [db, sshd] = await Promise.all([startMariaDb(), startSshd()]);
  db.sql('CREATE DATABASE isu');
  db.sql(readFileSync(join(FIXTURES, 'schemas', 'isuconish.sql'), 'utf8'), 'isu');
  db.sql(readFileSync(join(FIXTURES, 'schemas', 'isuconish-data.sql'), 'utf8'), 'isu');
  // why: through the tunnel the server sees sshd's connection from 127.0.0.1 (TCP) or localhost (socket).
  db.sql(`CREATE USER 'qi'@'localhost' IDENTIFIED BY '${PASSWORD}'; CREATE USER 'qi'@'127.0.0.1' IDENTIFIED BY '${PASSWORD}';
    GRANT SELECT ON isu.* TO 'qi'@'localhost'; GRANT SELECT ON isu.* TO 'qi'@'127.0.0.1';`);
}, { timeout: 180_000 } as never);

after(async () => {
  await Promise.all([db?.stop(), sshd?.stop()]);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});


const sshOpts = (o: Partial<SshOptions> = {}): SshOptions => ({
  host: sshd.host, port: sshd.port, username: sshd.user, privateKeyPath: sshd.clientKey.path, readyTimeoutMs: 10_000, ...o,
});
const tcpOpts = (ssh: SshOptions, o: Partial<ConnectionOptions> = {}): ConnectionOptions => ({
  host: '127.0.0.1', port: db.port, user: 'qi', password: PASSWORD, database: 'isu', ssh, ...o,
});

async function failure(p: Promise<unknown>): Promise<DbError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof DbError, `a DbError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a failure');
}

void test('key file: EXPLAIN through the tunnel to the TCP port as seen from the box; the host key reaches the verifier', { skip }, async () => {
  const seen: HostKeyInfo[] = [];
  const conn = new DbConnection(tcpOpts(sshOpts({ verifyHostKey: (k) => { seen.push(k); return true; } })));
  const svc = new ExplainService(conn);
  try {
    const r = await svc.explainSql('SELECT * FROM posts WHERE user_id = ? ORDER BY created_at DESC');
    assert.equal(r.error, undefined, r.error?.message);
    assert.ok(r.plan && r.plan.rows.length > 0);
    assert.equal(r.plan.rows[0].table, 'posts');
    assert.ok(r.findings.some((f) => f.code === 'filesort'), JSON.stringify(r.findings.map((f) => f.code)));
    assert.equal(conn.server?.flavor, 'mariadb');
    assert.equal(seen.length, 1);
    assert.equal(seen[0].fingerprint, sshd.hostKeyFingerprint);
    assert.equal(seen[0].type, 'ssh-ed25519');
    assert.equal(conn.tunnel?.hostKey?.fingerprint, sshd.hostKeyFingerprint);
    assert.equal(conn.tunnel?.sshConnects, 1);
    assert.ok((conn.tunnel?.forwards ?? 0) >= 1);
  } finally { await svc.close(); }
  // The forward is visible on the SSH server's side, aimed at the database port.
  assert.match(sshd.log(), new RegExp(`request_direct_tcpip: originator 127\\.0\\.0\\.1 port \\d+, target 127\\.0\\.0\\.1 port ${db.port}\\b`));
  assert.match(sshd.log(), /Accepted publickey for \S+ from 127\.0\.0\.1/);
});

void test('Nagle is off from the start of the login: the host key check, mid-login, finds TCP_NODELAY set on the SSH socket', { skip }, async () => {
  // why: with Nagle on until the login ended, the service request after the key exchange waited for
  // sshd's delayed ACK (about 40 ms of an 85 ms login on loopback). Checked by what was set, not by time.
  const original = Socket.prototype.setNoDelay;
  const set: { port: number | undefined; on: boolean | undefined }[] = [];
  Socket.prototype.setNoDelay = function (this: Socket, on?: boolean) {
    set.push({ port: this.remotePort, on });
    return original.call(this, on);
  };
  let atVerify: typeof set = [];
  const tunnel = new SshTunnel(sshOpts({ verifyHostKey: () => { atVerify = [...set]; return true; } }));
  try {
    await tunnel.connect();
  } finally {
    Socket.prototype.setNoDelay = original;
    await tunnel.close();
  }
  assert.ok(atVerify.some((c) => c.port === sshd.port && c.on !== false), `setNoDelay on the SSH socket before the host key check: ${JSON.stringify(atVerify)}`);
});

void test('unix socket on the box: forwarded with direct-streamlocal', { skip }, async () => {
  const conn = new DbConnection({ socket: db.socket, user: 'qi', password: PASSWORD, database: 'isu', ssh: sshOpts() });
  try {
    const info = await conn.connect();
    assert.equal(info.flavor, 'mariadb');
    const rows = await conn.query('explain', 'EXPLAIN SELECT * FROM users WHERE id = 1');
    assert.equal(rows.length, 1);
  } finally { await conn.close(); }
  assert.match(sshd.log(), new RegExp(`streamlocal.*${db.socket.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
});

void test('ssh-agent: the key held by a private agent logs in, no key file given', { skip }, async () => {
  const agent = await startSshAgent([sshd.clientKey.path]);
  const conn = new DbConnection(tcpOpts(sshOpts({ privateKeyPath: undefined, agent: agent.socket })));
  try {
    const rows = await conn.query('explain', 'EXPLAIN SELECT * FROM users WHERE account_name = \'a\'');
    assert.ok(rows.length >= 1);
    assert.equal(conn.tunnel?.sshConnects, 1);
  } finally {
    await conn.close();
    await agent.stop();
  }
});

void test('a key the server does not know: an SSH authentication failure, not a database one', { skip }, async () => {
  const stranger = makeKey(scratch, 'stranger_ed25519');
  const e = await failure(new DbConnection(tcpOpts(sshOpts({ privateKeyPath: stranger.path }))).connect());
  assert.equal(e.kind, 'auth');
  assert.equal(e.code, 'SSH_AUTH');
  assert.match(e.message, new RegExp(`SSH authentication as ${sshd.user} on 127\\.0\\.0\\.1:${sshd.port} failed`));
  assert.match(e.message, /stranger_ed25519/);
  // an agent holding only the stranger key fails the same way
  const agent = await startSshAgent([stranger.path]);
  try {
    const e2 = await failure(new DbConnection(tcpOpts(sshOpts({ privateKeyPath: undefined, agent: agent.socket }))).connect());
    assert.equal(e2.code, 'SSH_AUTH');
    assert.match(e2.message, /ssh-agent keys/);
  } finally { await agent.stop(); }
});

void test('key file problems: missing, encrypted without passphrase, wrong passphrase, right passphrase', { skip }, async () => {
  const missing = await failure(new DbConnection(tcpOpts(sshOpts({ privateKeyPath: join(scratch, 'nope') }))).connect());
  assert.equal(missing.code, 'SSH_KEY');
  assert.match(missing.message, /cannot read the SSH private key .*nope/);
  const locked = makeKey(scratch, 'locked_ed25519', 'open sesame');
  const none = await failure(new DbConnection(tcpOpts(sshOpts({ privateKeyPath: locked.path }))).connect());
  assert.equal(none.code, 'SSH_KEY');
  assert.match(none.message, /is encrypted and no passphrase was given/);
  const wrong = await failure(new DbConnection(tcpOpts(sshOpts({ privateKeyPath: locked.path, passphrase: 'nope' }))).connect());
  assert.match(wrong.message, /the passphrase does not open it/);
  // the right passphrase opens the key; the server does not know it, so login fails with SSH_AUTH
  const right = await failure(new DbConnection(tcpOpts(sshOpts({ privateKeyPath: locked.path, passphrase: 'open sesame' }))).connect());
  assert.equal(right.code, 'SSH_AUTH');
});

void test('a refused host key stops the login and names the fingerprint', { skip }, async () => {
  const e = await failure(new DbConnection(tcpOpts(sshOpts({ verifyHostKey: async (k) => k.fingerprint === 'SHA256:somethingElse' }))).connect());
  assert.equal(e.code, 'SSH_HOST_KEY');
  assert.ok(e.message.includes(sshd.hostKeyFingerprint), e.message);
  assert.match(e.message, /was not accepted/);
});

void test('nothing listening behind the box: the forward refusal is reported as such', { skip }, async () => {
  const closed = await freePort();
  const conn = new DbConnection(tcpOpts(sshOpts(), { port: closed }));
  const e = await failure(conn.connect());
  await conn.close();
  assert.equal(e.kind, 'unreachable');
  assert.equal(e.code, 'SSH_FORWARD');
  assert.match(e.message, new RegExp(`cannot reach the database at 127\\.0\\.0\\.1:${closed}`));
});

void test('no SSH server at the address: unreachable, naming the SSH endpoint', { skip }, async () => {
  const closed = await freePort();
  const e = await failure(new DbConnection(tcpOpts(sshOpts({ port: closed }))).connect());
  assert.equal(e.kind, 'unreachable');
  assert.equal(e.code, 'SSH_UNREACHABLE');
  assert.match(e.message, new RegExp(`cannot reach the SSH server 127\\.0\\.0\\.1:${closed} \\(ECONNREFUSED\\)`));
});

void test('the SSH session drops: the next use logs in again and works', { skip }, async () => {
  const conn = new DbConnection(tcpOpts(sshOpts()));
  try {
    await conn.query('explain', 'EXPLAIN SELECT * FROM users WHERE id = 1');
    assert.equal(conn.tunnel?.sshConnects, 1);
    assert.ok(sshd.dropSessions() >= 1, 'a session process to kill');
    const until = Date.now() + 10_000;
    while (conn.tunnel?.connected && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.equal(conn.tunnel?.connected, false, 'the client noticed the drop');
    // The statement in flight at the drop may fail (connection-lost); the one after it must work.
    let failures = 0;
    for (let i = 0; i < 2; i++) {
      try {
        const rows = await conn.query('explain', 'EXPLAIN SELECT * FROM users WHERE id = 1');
        assert.equal(rows.length, 1);
        break;
      } catch (err) {
        failures++;
        assert.ok(err instanceof DbError && err.kind === 'connection-lost', String(err));
      }
    }
    assert.ok(failures <= 1, `${failures} failures`);
    assert.equal(conn.tunnel?.sshConnects, 2);
    assert.equal(conn.connects, 2);
  } finally { await conn.close(); }
});

/**
 * Copies the bundles (dist/, which scripts/test.mjs builds: cli.js and what it loads, grammars) to a
 * temp dir without node_modules around it, as in the packaged extension: ssh2's optional native parts cannot
 * load there, so the pure-JavaScript fallback has to work.
 */
async function isolatedCli(): Promise<string> {
  const dist = join(REPO_ROOT, 'dist');
  const dest = join(scratch, 'dist');
  const until = Date.now() + 60_000;
  // why: the checkout is shared; a concurrent `node scripts/build.mjs` empties dist/ for a moment.
  for (;;) {
    try {
      if (!existsSync(join(dist, 'cli.js')) || !existsSync(join(dist, 'grammars'))) throw new Error('dist/ is incomplete');
      cpSync(dist, dest, { recursive: true });
      return join(dest, 'cli.js');
    } catch (err) {
      if (Date.now() > until) throw new Error(`dist/cli.js is not built (run node scripts/build.mjs): ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

function runCli(cli: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], cwd: scratch });
    let stdout = '', stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr += d; });
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

void test('the bundled CLI (dist/cli.js): explain --ssh with a key, with the agent, and a refused key', { skip, timeout: 120_000 }, async () => {
  const cli = await isolatedCli();
  assert.ok(!existsSync(join(scratch, 'node_modules')));
  const app = join(FIXTURES, 'explain', 'app');
  const base = ['explain', app, '--host', '127.0.0.1', '--port', String(db.port), '--user', 'qi', '--database', 'isu', '--format', 'json',
    '--ssh', `${sshd.user}@127.0.0.1:${sshd.port}`];
  // why: a HOME of our own: its .ssh/known_hosts is what the CLI checks the host key against.
  const home = join(scratch, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  const env = { PATH: process.env.PATH, MYSQL_PWD: PASSWORD, HOME: home };

  const withKey = await runCli(cli, [...base, '--ssh-key', sshd.clientKey.path, '--ssh-host-key', sshd.hostKeyFingerprint], env);
  assert.equal(withKey.code, 0, withKey.stderr);
  const rows = withKey.stdout.trim().split('\n').map((l) => JSON.parse(l) as { code: string; file: string });
  assert.ok(rows.length > 0 && rows.every((r) => r.code && r.file), withKey.stdout);
  assert.ok(rows.some((r) => r.code === 'full-table-scan'), withKey.stdout);
  assert.match(withKey.stderr, /explained \d+ of \d+ statements on mariadb/);

  const agent = await startSshAgent([sshd.clientKey.path]);
  const knownHosts = join(home, '.ssh', 'known_hosts');
  try {
    // A key known_hosts does not list is refused (as ssh's StrictHostKeyChecking), its fingerprint printed.
    const unknown = await runCli(cli, base, { ...env, SSH_AUTH_SOCK: agent.socket });
    assert.equal(unknown.code, 1, unknown.stderr);
    assert.ok(unknown.stderr.includes(`ssh: [127.0.0.1]:${sshd.port} has host key ssh-ed25519 ${sshd.hostKeyFingerprint}, which ${knownHosts} does not list: refused`), unknown.stderr);
    // Once: the refusal with its advice is the command's error, not a line of its own before a second one.
    assert.equal(unknown.stderr.split(sshd.hostKeyFingerprint).length - 1, 1, unknown.stderr);
    assert.equal(existsSync(knownHosts), false);
    // --accept-new-host-key trusts it and adds it to known_hosts, where ssh finds it too.
    const viaAgent = await runCli(cli, [...base, '--accept-new-host-key'], { ...env, SSH_AUTH_SOCK: agent.socket });
    assert.equal(viaAgent.code, 0, viaAgent.stderr);
    assert.equal(viaAgent.stdout, withKey.stdout);
    assert.ok(viaAgent.stderr.includes(`ssh: added the host key ssh-ed25519 ${sshd.hostKeyFingerprint} of [127.0.0.1]:${sshd.port} to ${knownHosts}`), viaAgent.stderr);
    const found = spawnSync('ssh-keygen', ['-F', `[127.0.0.1]:${sshd.port}`, '-f', knownHosts], { encoding: 'utf8' });
    assert.equal(found.status, 0, `ssh-keygen -F finds the entry: ${found.stdout}${found.stderr}`);
    const again = await runCli(cli, base, { ...env, SSH_AUTH_SOCK: agent.socket });
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stderr, /host key/);
  } finally { await agent.stop(); }

  const pinned = await runCli(cli, [...base, '--ssh-key', sshd.clientKey.path, '--ssh-host-key', `SHA256:${'A'.repeat(43)}`], env);
  assert.equal(pinned.code, 1);
  assert.match(pinned.stderr, /host key of 127\.0\.0\.1:\d+ was not accepted/);

  // known_hosts as ssh-keyscan writes it: the key is accepted without a word
  const scan = spawnSync('ssh-keyscan', ['-p', String(sshd.port), '-t', 'ed25519', '-H', '127.0.0.1'], { encoding: 'utf8' });
  assert.match(scan.stdout, /^\|1\|/m, scan.stderr);
  writeFileSync(join(home, '.ssh', 'known_hosts'), scan.stdout);
  const known = await runCli(cli, [...base, '--ssh-key', sshd.clientKey.path], env);
  assert.equal(known.code, 0, known.stderr);
  assert.doesNotMatch(known.stderr, /host key/);
  // another ed25519 key listed for the same host: refused, naming the file and line
  writeFileSync(join(home, '.ssh', 'known_hosts'), `[127.0.0.1]:${sshd.port} ${sshd.clientKey.publicKey}\n`);
  const changed = await runCli(cli, [...base, '--ssh-key', sshd.clientKey.path], env);
  assert.equal(changed.code, 1);
  assert.ok(changed.stderr.includes(`differs from the one in ${join(home, '.ssh', 'known_hosts')}:1`), changed.stderr);
  assert.ok(changed.stderr.includes(`host key of 127.0.0.1:${sshd.port} was not accepted (ssh-ed25519 ${sshd.hostKeyFingerprint})`), changed.stderr);
  rmSync(join(home, '.ssh', 'known_hosts'));

  const stranger = makeKey(scratch, 'cli_stranger_ed25519');
  const refused = await runCli(cli, [...base, '--ssh-key', stranger.path, '--accept-new-host-key'], env);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /SSH authentication as \S+ on 127\.0\.0\.1:\d+ failed/);
  assert.equal(refused.stdout, '');

  const noAuth = await runCli(cli, base, env);
  assert.equal(noAuth.code, 2);
  assert.match(noAuth.stderr, /--ssh needs --ssh-key FILE or a running ssh-agent/);
});

void test('~/.ssh/config: a Host alias gives HostName, Port, User and IdentityFile; ProxyJump goes through a jump host', { skip, timeout: 120_000 }, async () => {
  const home = mkdtempSync(join(scratch, 'home-config-'));
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  writeFileSync(join(home, '.ssh', 'config'), [
    '# the contest boxes',
    'Host isu-box',
    '  HostName 127.0.0.1',
    `  Port ${sshd.port}`,
    `  User ${sshd.user}`,
    `  IdentityFile ${sshd.clientKey.path}`,
    'Host isu-inner',
    // why: a name only the jump host resolves would do as well; loopback keeps the test on this machine.
    '  HostName localhost',
    `  Port ${sshd.port}`,
    `  User ${sshd.user}`,
    `  IdentityFile ${sshd.clientKey.path}`,
    '  ProxyJump isu-box',
    '',
  ].join('\n'));
  const scan = spawnSync('ssh-keyscan', ['-p', String(sshd.port), '-t', 'ed25519', '127.0.0.1', 'localhost'], { encoding: 'utf8' });
  writeFileSync(join(home, '.ssh', 'known_hosts'), scan.stdout);
  const run = async (dest: string): Promise<{ code: number; out: string; err: string }> => {
    const out = new PassThrough(); const err = new PassThrough();
    let o = '', e = '';
    out.on('data', (d) => { o += d; }); err.on('data', (d) => { e += d; });
    const code = await explainCommand.run(['--host', '127.0.0.1', '--port', String(db.port), '--user', 'qi', '--database', 'isu', '--format', 'json',
      '--ssh', dest, join(FIXTURES, 'explain', 'app')], { stdout: out, stderr: err, env: { HOME: home, MYSQL_PWD: PASSWORD }, cwd: home });
    return { code, out: o, err: e };
  };
  const direct = await run('isu-box');
  assert.equal(direct.code, 0, direct.err);
  assert.match(direct.err, /explained \d+ of \d+ statements on mariadb/);
  const logBefore = sshd.log().length;
  const jumped = await run('isu-inner');
  assert.equal(jumped.code, 0, jumped.err);
  assert.equal(jumped.out, direct.out);
  // The jump host carried the connection to the inner box's SSH port, as ssh -J does.
  assert.match(sshd.log().slice(logBefore), new RegExp(`request_direct_tcpip: originator 127\\.0\\.0\\.1 port \\d+, target localhost port ${sshd.port}\\b`));
  rmSync(home, { recursive: true, force: true });
});
