/** The connection's target label as the status bar and messages show it, direct and through an SSH tunnel. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { targetLabel, viaSshLabel } from '../../../src/extension/connection/connectionProfile';
import { sshOptionsFromSettings } from '../../../src/db/sshTunnel';

const db = { host: '127.0.0.1', port: 3306, socket: '', user: 'isucon', database: 'isuconp' };

void test('a direct connection has no SSH part', () => {
  assert.equal(viaSshLabel(undefined), '');
  assert.equal(targetLabel(db) + viaSshLabel(undefined), 'isucon@127.0.0.1:3306/isuconp');
});

void test('through a tunnel: " via SSH user@host", the port only when it is not 22, IPv6 in brackets', () => {
  assert.equal(viaSshLabel({ username: 'isucon', host: 'box1' }), ' via SSH isucon@box1');
  assert.equal(viaSshLabel({ username: 'isucon', host: 'box1', port: 22 }), ' via SSH isucon@box1');
  assert.equal(viaSshLabel({ username: 'root', host: '10.0.0.5', port: 2222 }), ' via SSH root@10.0.0.5:2222');
  assert.equal(viaSshLabel({ username: 'u', host: 'fe80::1', port: 2200 }), ' via SSH u@[fe80::1]:2200');
});

void test('from the settings: an empty SSH user is the local user, an empty SSH host means no tunnel', () => {
  const ssh = { host: ' box1 ', port: 22, user: '', privateKeyPath: '~/.ssh/id_ed25519', useAgent: false };
  const env = { HOME: '/home/me', USER: 'me' };
  assert.equal(targetLabel(db) + viaSshLabel(sshOptionsFromSettings(ssh, env)), 'isucon@127.0.0.1:3306/isuconp via SSH me@box1');
  assert.equal(viaSshLabel(sshOptionsFromSettings({ ...ssh, host: '' }, env)), '');
});
