/** ~/.ssh/config read as ssh reads it; logins resolved through it; known_hosts written on first use. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostPatternsMatch, parseJumpHop, parseSshConfig, resolveSshHost, sshConfigHosts } from '../../../src/node/ssh/sshConfig';
import { resolveSshLogin } from '../../../src/node/ssh/sshLogin';
import { checkKnownHosts, knownHostLine } from '../../../src/node/ssh/knownHosts';
import { knownHostsPaths, knownHostsVerifier } from '../../../src/node/ssh/knownHostsStore';
import { hostKeyInfo } from '../../../src/db/sshTunnel';

const ctx = { home: '/home/me', localUser: 'me' };

// A config in the shape contest players keep: one alias per box, a bastion, defaults at the end.
const CONFIG = `# contest boxes
Host isu1 isu2
  HostName 192.168.0.1%h
  User isucon
  IdentityFile ~/.ssh/isucon_ed25519

Host isu2
  HostName 10.0.0.2
  Port 2222

Host bastion
    HostName=bastion.example.net
    User ops
    Port = 10022

Host inner-*  !inner-skip
  ProxyJump bastion
  User deploy

Match exec "true"
  User matched

Host *
  User fallback
  IdentityFile "~/.ssh/id %r.key"
  UserKnownHostsFile ~/.ssh/known_hosts ~/.ssh/known_hosts.contest
`;

const lines = [parseSshConfig(CONFIG, '/home/me/.ssh/config')];

void test('Host patterns: *, ?, comma lists and negation', () => {
  assert.equal(hostPatternsMatch(['isu?'], 'isu1'), true);
  assert.equal(hostPatternsMatch(['isu?'], 'isu12'), false);
  assert.equal(hostPatternsMatch(['*.example.net,!bad.example.net'], 'ok.example.net'), true);
  assert.equal(hostPatternsMatch(['*.example.net', '!bad.example.net'], 'bad.example.net'), false);
  assert.equal(hostPatternsMatch(['!x'], 'y'), false);
  assert.equal(hostPatternsMatch(['a*b*c'], 'a' + 'b'.repeat(5000) + 'd'), false);
});

void test('an alias: the first value of each option wins, IdentityFile values add up, tokens and ~ expand', () => {
  const isu1 = resolveSshHost(lines, 'isu1', ctx);
  assert.equal(isu1.hostname, '192.168.0.1isu1');
  assert.equal(isu1.user, 'isucon');
  assert.equal(isu1.port, undefined);
  assert.deepEqual(isu1.identityFiles, ['/home/me/.ssh/isucon_ed25519', '/home/me/.ssh/id isucon.key']);
  assert.deepEqual(isu1.userKnownHostsFiles, ['/home/me/.ssh/known_hosts', '/home/me/.ssh/known_hosts.contest']);
  // The first block already set HostName for isu2; the second only adds Port.
  const isu2 = resolveSshHost(lines, 'isu2', ctx);
  assert.equal(isu2.hostname, '192.168.0.1isu2');
  assert.equal(isu2.port, 2222);
  const b = resolveSshHost(lines, 'bastion', ctx);
  assert.deepEqual([b.hostname, b.user, b.port], ['bastion.example.net', 'ops', 10022]);
  const unknown = resolveSshHost(lines, '10.1.1.1', ctx);
  assert.deepEqual([unknown.hostname, unknown.user, unknown.port], ['10.1.1.1', 'fallback', undefined]);
  assert.match(unknown.notes.join('\n'), /config:20: Match exec true is not evaluated/);
});

void test('ProxyJump and negated patterns', () => {
  assert.deepEqual(resolveSshHost(lines, 'inner-db', ctx).proxyJump, ['bastion']);
  assert.equal(resolveSshHost(lines, 'inner-skip', ctx).proxyJump, undefined);
  assert.deepEqual(parseJumpHop('ops@bastion:10022'), { user: 'ops', host: 'bastion', port: 10022 });
  assert.deepEqual(parseJumpHop('ssh://[fe80::1]:22'), { host: 'fe80::1', port: 22 });
  assert.equal(parseJumpHop('a@b:70000'), undefined);
});

void test('Include is followed where it stands; a user file then the system file, each from "all hosts"', () => {
  const main = parseSshConfig('Host box\n  Include boxes.conf\nHost other\n  User o\n', '/home/me/.ssh/config');
  const inc = parseSshConfig('HostName 10.9.9.9\nHost box\n  Port 2200\n', '/home/me/.ssh/boxes.conf');
  const sys = parseSshConfig('User sysdefault\n', '/etc/ssh/ssh_config');
  const r = resolveSshHost([main, sys], 'box', ctx, (pattern) => (pattern === 'boxes.conf' ? inc : undefined));
  assert.deepEqual([r.hostname, r.port, r.user], ['10.9.9.9', 2200, 'sysdefault']);
  const missing = resolveSshHost([parseSshConfig('Include nope.conf\n', '/home/me/.ssh/config')], 'x', ctx, () => undefined);
  assert.match(missing.notes[0], /Include nope\.conf could not be read/);
});

void test('resolveSshLogin: typed values win, keys from IdentityFile that exist, agent unless IdentityAgent none, jump hops', () => {
  const home = mkdtempSync(join(tmpdir(), 'qi-sshcfg-'));
  try {
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh', 'isucon_ed25519'), 'key');
    writeFileSync(join(home, '.ssh', 'config'), `Host isu1\n  HostName 10.0.0.1\n  User isucon\n  IdentityFile ~/.ssh/missing\n  IdentityFile ~/.ssh/isucon_ed25519\n  ProxyJump ops@bastion:2022\nHost noagent\n  IdentityAgent none\n`);
    const env = { HOME: home, USER: 'me', SSH_AUTH_SOCK: '/tmp/agent' };
    const seen: string[] = [];
    const r = resolveSshLogin({ host: 'isu1' }, env, (host, port, _k, target) => { seen.push(`${host}:${port}:${target}`); return () => true; }, [join(home, '.ssh', 'config')]);
    assert.deepEqual([r.options.host, r.options.port, r.options.username, r.options.privateKeyPath, r.options.agent],
      ['10.0.0.1', 22, 'isucon', join(home, '.ssh', 'isucon_ed25519'), '/tmp/agent']);
    assert.deepEqual([r.options.jump?.host, r.options.jump?.port, r.options.jump?.username], ['bastion', 2022, 'ops']);
    assert.deepEqual(seen, ['10.0.0.1:22:true', 'bastion:2022:false']);
    const typed = resolveSshLogin({ host: 'isu1', user: 'root', port: 2200, privateKeyPath: '/k' }, env, undefined, [join(home, '.ssh', 'config')]);
    assert.deepEqual([typed.options.username, typed.options.port, typed.options.privateKeyPath], ['root', 2200, '/k']);
    const na = resolveSshLogin({ host: 'noagent' }, env, undefined, [join(home, '.ssh', 'config')]);
    assert.deepEqual([na.options.host, na.options.username, na.options.agent, na.options.privateKeyPath], ['noagent', 'me', undefined, undefined]);
    assert.deepEqual(r.knownHosts.user, [join(home, '.ssh', 'known_hosts'), join(home, '.ssh', 'known_hosts2')]);
  } finally { rmSync(home, { recursive: true, force: true }); }
});

const ED = 'AAAAC3NzaC1lZDI1NTE5AAAAINhSnq4vawzsn6lrWiThPt5yGiIWZY11RpcAetUmNKcK';

void test('known_hosts lines as ssh writes them (plain and hashed) are found again', () => {
  const key = Buffer.from(ED, 'base64');
  for (const hash of [false, true]) {
    const line = knownHostLine('10.0.0.1', 2222, 'ssh-ed25519', key, hash);
    assert.equal(line.startsWith(hash ? '|1|' : '[10.0.0.1]:2222 '), true, line);
    assert.equal(checkKnownHosts([{ path: 'k', text: line + '\n' }], '10.0.0.1', 2222, 'ssh-ed25519', key).status, 'match');
    assert.equal(checkKnownHosts([{ path: 'k', text: line + '\n' }], '10.0.0.1', 22, 'ssh-ed25519', key).status, 'unknown');
  }
});

void test('first use: a confirmed key is added to the user file (0600), then matches; a declined one is not', async () => {
  const home = mkdtempSync(join(tmpdir(), 'qi-kh-'));
  try {
    const key = hostKeyInfo(Buffer.from(ED, 'base64'), 'isu1:22');
    const told: string[] = [];
    let answer = false;
    const verify = knownHostsVerifier('isu1', 22, { paths: knownHostsPaths(home), confirmNew: () => answer, tell: (m) => told.push(m) });
    assert.equal(await verify(key), false);
    assert.throws(() => statSync(join(home, '.ssh', 'known_hosts')));
    answer = true;
    assert.equal(await verify(key), true);
    const file = join(home, '.ssh', 'known_hosts');
    assert.equal(readFileSync(file, 'utf8'), `isu1 ssh-ed25519 ${ED}\n`);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.match(told.join('\n'), /added the host key ssh-ed25519 SHA256:\S+ of isu1 to .*known_hosts/);
    answer = false;
    assert.equal(await verify(key), true, 'now listed: no question asked');
    // A file without a final newline is not glued to.
    writeFileSync(file, `other ssh-ed25519 ${ED}`);
    answer = true;
    assert.equal(await verify(key), true);
    assert.deepEqual(readFileSync(file, 'utf8').split('\n'), [`other ssh-ed25519 ${ED}`, `isu1 ssh-ed25519 ${ED}`, '']);
  } finally { rmSync(home, { recursive: true, force: true }); }
});

void test('the hosts a config names outright, to offer as boxes: no patterns, each once, in order', () => {
  const config = parseSshConfig([
    'Host isu1 isu2', '  HostName 10.0.0.1', 'Host *.internal !bastion', '  User ops', 'Host isu3', 'Host isu1', 'Match host x', 'Host bastion?',
  ].join('\n'), '/home/u/.ssh/config');
  assert.deepEqual(sshConfigHosts([config, parseSshConfig('Host isu2 gateway\n', '/etc/ssh/ssh_config')]), ['isu1', 'isu2', 'isu3', 'gateway']);
});
