/** known_hosts lookups: plain and hashed names, ports, patterns, negation, @revoked, @cert-authority. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkKnownHosts, knownHostName } from '../../../src/node/ssh/knownHosts';

// Keys written by ssh-keygen; the hashed lines are what `ssh-keygen -H` made of "isu1 <ed25519>" and
// "[isu1]:2222 <ecdsa>" (and `ssh-keygen -F` finds them under those names).
const ED = 'AAAAC3NzaC1lZDI1NTE5AAAAINhSnq4vawzsn6lrWiThPt5yGiIWZY11RpcAetUmNKcK';
const EC = 'AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBEvEN8Dj9SLk7SpCvjluShOazF3Gy4vtgzsXHCG2jiuDIUp1tmT35EtQbsv4fD73epFRRYnYmgwr/goOETrc140=';
const HASHED = [
  `|1|5VjPFItYoi8fqZEZlqDKpVgNhBg=|XS8vgnzO88cWloq2/kVbzA1Ieag= ssh-ed25519 ${ED}`,
  `|1|7Y7b6HphfzL1evnQ/c2F83g5zXs=|FF+ZShaYfKOCqEE1JzcTqDDeU5Q= ecdsa-sha2-nistp256 ${EC}`,
].join('\n');
const ed = Buffer.from(ED, 'base64');
const ec = Buffer.from(EC, 'base64');
const file = (text: string) => [{ path: '/home/me/.ssh/known_hosts', text }];

void test('knownHostName: bare host on port 22, [host]:port otherwise', () => {
  assert.equal(knownHostName('isu1', 22), 'isu1');
  assert.equal(knownHostName('10.0.0.1', 2222), '[10.0.0.1]:2222');
});

void test('hashed entries match their host and port only', () => {
  assert.deepEqual(checkKnownHosts(file(HASHED), 'isu1', 22, 'ssh-ed25519', ed), { status: 'match', path: '/home/me/.ssh/known_hosts', line: 1 });
  assert.deepEqual(checkKnownHosts(file(HASHED), 'isu1', 2222, 'ecdsa-sha2-nistp256', ec), { status: 'match', path: '/home/me/.ssh/known_hosts', line: 2 });
  assert.deepEqual(checkKnownHosts(file(HASHED), 'isu2', 22, 'ssh-ed25519', ed), { status: 'unknown' });
  assert.deepEqual(checkKnownHosts(file(HASHED), 'isu1', 2200, 'ssh-ed25519', ed), { status: 'unknown' });
});

void test('plain names, comma lists, wildcards and negation', () => {
  const text = `# comment\n\nisu1,isu1.example ssh-ed25519 ${ED} me@laptop\n*.contest,!bad.contest ssh-ed25519 ${ED}\n`;
  assert.equal(checkKnownHosts(file(text), 'isu1.example', 22, 'ssh-ed25519', ed).status, 'match');
  assert.deepEqual(checkKnownHosts(file(text), 'ISU1', 22, 'ssh-ed25519', ed), { status: 'match', path: '/home/me/.ssh/known_hosts', line: 3 });
  assert.equal(checkKnownHosts(file(text), 'a.contest', 22, 'ssh-ed25519', ed).status, 'match');
  assert.equal(checkKnownHosts(file(text), 'bad.contest', 22, 'ssh-ed25519', ed).status, 'unknown');
  assert.equal(checkKnownHosts(file(text), 'isu1x', 22, 'ssh-ed25519', ed).status, 'unknown');
});

void test('same type, other key: mismatch; another type listed only: unknown', () => {
  const other = Buffer.from(ED, 'base64');
  other[other.length - 1] ^= 1;
  assert.deepEqual(checkKnownHosts(file(`isu1 ssh-ed25519 ${ED}`), 'isu1', 22, 'ssh-ed25519', other), { status: 'mismatch', path: '/home/me/.ssh/known_hosts', line: 1, listedKey: ED });
  assert.deepEqual(checkKnownHosts(file(`isu1 ecdsa-sha2-nistp256 ${EC}`), 'isu1', 22, 'ssh-ed25519', ed), { status: 'unknown' });
  // a matching entry anywhere wins over a stale one of the same type
  assert.equal(checkKnownHosts([...file(`isu1 ssh-ed25519 ${other.toString('base64')}`), { path: '/etc/ssh/ssh_known_hosts', text: `isu1 ssh-ed25519 ${ED}` }],
    'isu1', 22, 'ssh-ed25519', ed).status, 'match');
});

void test('@revoked wins; @cert-authority lines are not host keys', () => {
  const text = `isu1 ssh-ed25519 ${ED}\n@revoked * ssh-ed25519 ${ED}`;
  assert.deepEqual(checkKnownHosts(file(text), 'isu1', 22, 'ssh-ed25519', ed), { status: 'revoked', path: '/home/me/.ssh/known_hosts', line: 2 });
  assert.equal(checkKnownHosts(file(`@cert-authority isu1 ssh-ed25519 ${ED}`), 'isu1', 22, 'ssh-ed25519', ed).status, 'unknown');
  assert.equal(checkKnownHosts(file('isu1 ssh-ed25519'), 'isu1', 22, 'ssh-ed25519', ed).status, 'unknown');
});
