/** SSH tunnel helpers without a server: destinations, host key fingerprints, the CLI's --ssh options. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describeTarget, hostKeyInfo, parseSshDestination, sshOptionsFromSettings } from '../../../src/db/sshTunnel';
import { sshFromArgs } from '../../../src/cli/sshArgs';
import { UsageError } from '../../../src/cli/output';

void test('parseSshDestination: user@host, user@host:port, user@[v6]:port; bad text is undefined', () => {
  const cases: [string, ReturnType<typeof parseSshDestination>][] = [
    ['isucon@192.168.0.11', { username: 'isucon', host: '192.168.0.11' }],
    ['isucon@box.example:2222', { username: 'isucon', host: 'box.example', port: 2222 }],
    ['root@[::1]:22', { username: 'root', host: '::1', port: 22 }],
    [' ubuntu@isu1 ', { username: 'ubuntu', host: 'isu1' }],
    ['isu1', undefined],
    ['@isu1', undefined],
    ['isucon@', undefined],
    ['isucon@isu1:0', undefined],
    ['isucon@isu1:65536', undefined],
    ['isucon@isu1:ssh', undefined],
    ['a@b@c', undefined],
  ];
  for (const [text, want] of cases) assert.deepEqual(parseSshDestination(text), want, text);
});

// Public keys and fingerprints as ssh-keygen wrote and printed them (`ssh-keygen -lf key.pub`).
const KEYS: [string, string, string][] = [
  ['ssh-ed25519', 'AAAAC3NzaC1lZDI1NTE5AAAAINhSnq4vawzsn6lrWiThPt5yGiIWZY11RpcAetUmNKcK', 'SHA256:cE3Hqo2s7LJQ8g0pDGICtL93TWIzAWZPBEX84mkyuHo'],
  ['ecdsa-sha2-nistp256', 'AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBEvEN8Dj9SLk7SpCvjluShOazF3Gy4vtgzsXHCG2jiuDIUp1tmT35EtQbsv4fD73epFRRYnYmgwr/goOETrc140=',
    'SHA256:4QOiZKouz/Sz2V/Iorm1ajdf3GGOBtZSLtZjIsuNSHA'],
];

void test('hostKeyInfo: the fingerprint and type ssh-keygen prints for the same key', () => {
  for (const [type, b64, fingerprint] of KEYS) {
    const info = hostKeyInfo(Buffer.from(b64, 'base64'), 'box:22');
    assert.equal(info.fingerprint, fingerprint);
    assert.equal(info.type, type);
    assert.equal(info.endpoint, 'box:22');
  }
  assert.equal(hostKeyInfo(Buffer.from([0, 0]), 'x').type, 'unknown');
  assert.equal(hostKeyInfo(Buffer.from([0xff, 0, 0, 0, 1]), 'x').type, 'unknown');
});

void test('describeTarget: host:port or unix:path', () => {
  assert.equal(describeTarget({ host: '127.0.0.1', port: 3306 }), '127.0.0.1:3306');
  assert.equal(describeTarget({ socketPath: '/run/mysqld/mysqld.sock' }), 'unix:/run/mysqld/mysqld.sock');
});

// why: a HOME without .ssh keeps the machine's own config, keys and known_hosts out of the tests.
function io(env: NodeJS.ProcessEnv = { HOME: '/nonexistent-qi-home' }): { io: Parameters<typeof sshFromArgs>[1]; err: () => string } {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (d) => { text += d; });
  return { io: { stdout: new PassThrough(), stderr, env, cwd: '/home/isucon' }, err: () => text };
}

void test('sshFromArgs: no --ssh, no tunnel; key paths resolve from the cwd; the agent comes from SSH_AUTH_SOCK', () => {
  assert.equal(sshFromArgs({}, io().io), undefined);
  const withKey = sshFromArgs({ ssh: 'isucon@isu1:2222', 'ssh-key': '.ssh/id_ed25519' }, io().io)!;
  assert.equal(withKey.host, 'isu1');
  assert.equal(withKey.port, 2222);
  assert.equal(withKey.username, 'isucon');
  assert.equal(withKey.privateKeyPath, '/home/isucon/.ssh/id_ed25519');
  assert.equal(withKey.agent, undefined);
  const both = sshFromArgs({ ssh: 'isucon@isu1', 'ssh-key': '/k' }, io({ HOME: '/nonexistent-qi-home', SSH_AUTH_SOCK: '/tmp/agent.sock', QI_SSH_PASSPHRASE: 'pw' }).io)!;
  assert.equal(both.agent, '/tmp/agent.sock');
  assert.equal(both.passphrase, 'pw');
  const agentOnly = sshFromArgs({ ssh: 'isucon@isu1' }, io({ HOME: '/nonexistent-qi-home', SSH_AUTH_SOCK: '/tmp/agent.sock' }).io)!;
  assert.equal(agentOnly.privateKeyPath, undefined);
});

void test('sshFromArgs: usage errors say what to give', () => {
  const bad: [Parameters<typeof sshFromArgs>[0], RegExp][] = [
    [{ 'ssh-key': '/k' }, /need --ssh \[USER@\]HOST/],
    [{ 'accept-new-host-key': true }, /need --ssh \[USER@\]HOST/],
    [{ ssh: 'isu1:/var/log', 'ssh-key': '/k' }, /--ssh must be HOST, USER@HOST or USER@HOST:PORT/],
    [{ ssh: 'isucon@isu1:99999', 'ssh-key': '/k' }, /--ssh must be HOST/],
    [{ ssh: 'isucon@isu1' }, /--ssh-key FILE or a running ssh-agent/],
    [{ ssh: 'isucon@isu1', 'ssh-key': '/k', 'ssh-host-key': 'MD5:aa:bb' }, /SHA256 fingerprint/],
  ];
  for (const [values, re] of bad) assert.throws(() => sshFromArgs(values, io().io), (e: unknown) => e instanceof UsageError && re.test(e.message), JSON.stringify(values));
});

void test('sshFromArgs: a pinned host key accepts only that fingerprint; an unlisted key is refused, with its fingerprint in the refusal the tunnel quotes', async () => {
  const key = hostKeyInfo(Buffer.from(KEYS[0][1], 'base64'), 'isu1:22');
  const pinned = sshFromArgs({ ssh: 'isucon@isu1', 'ssh-key': '/k', 'ssh-host-key': KEYS[0][2] }, io().io)!;
  assert.equal(await pinned.verifyHostKey!(key), true);
  assert.equal(await pinned.verifyHostKey!(hostKeyInfo(Buffer.from(KEYS[1][1], 'base64'), 'isu1:22')), false);
  // why: HOME without .ssh/known_hosts keeps the machine's own file out of the test.
  const t = io({ HOME: '/nonexistent-qi-home' });
  const open = sshFromArgs({ ssh: 'isucon@isu1', 'ssh-key': '/k' }, t.io)!;
  assert.equal(await open.verifyHostKey!(key), false);
  // why: the tunnel's error quotes the refusal, so the command prints it once (not here and again as its error).
  assert.match((open.verifyHostKey as { refusal?: string }).refusal ?? '', new RegExp(`^ssh: isu1 has host key ssh-ed25519 ${KEYS[0][2].replace(/[+/]/g, '\\$&')}, which /nonexistent-qi-home/.ssh/known_hosts does not list: refused.*--accept-new-host-key`));
  assert.doesNotMatch(t.err(), /host key/);
});

void test('sshOptionsFromSettings: no host, no tunnel; ~ expands; the agent only when asked for and running', () => {
  const base = { host: '', port: 22, user: 'isucon', privateKeyPath: '', useAgent: true };
  assert.equal(sshOptionsFromSettings(base, { SSH_AUTH_SOCK: '/a' }), undefined);
  assert.equal(sshOptionsFromSettings({ ...base, host: '  ' }, {}), undefined);
  assert.deepEqual(sshOptionsFromSettings({ ...base, host: 'isu1', privateKeyPath: '~/.ssh/id_ed25519' }, { HOME: '/home/me', SSH_AUTH_SOCK: '/a' }, 'pw'),
    { host: 'isu1', port: 22, username: 'isucon', privateKeyPath: '/home/me/.ssh/id_ed25519', agent: '/a', passphrase: 'pw' });
  assert.deepEqual(sshOptionsFromSettings({ ...base, host: 'isu1', port: 2222, useAgent: false, privateKeyPath: '/k' }, { SSH_AUTH_SOCK: '/a' }),
    { host: 'isu1', port: 2222, username: 'isucon', privateKeyPath: '/k' });
  assert.equal(sshOptionsFromSettings({ ...base, host: 'isu1', user: '' }, { USER: 'me' })!.username, 'me');
  assert.equal(sshOptionsFromSettings({ ...base, host: 'isu1' }, {})!.agent, undefined);
});
