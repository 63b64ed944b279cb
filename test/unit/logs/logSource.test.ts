import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeLogSource, hostLabel, LogSourceError, parseLogSource } from '../../../src/core/logs/logSource';

void test('local paths stay local, scp decides by a colon before the first slash', () => {
  for (const p of ['/var/log/nginx/access.log', 'access.log', './a:b.log', '/x/a:b', 'logs/2024-01-01T10:00.log', '']) {
    assert.deepEqual(parseLogSource(p), { kind: 'local', path: p }, p);
  }
});

void test('scp form: host, user, absolute path; the port is left to ~/.ssh/config', () => {
  assert.deepEqual(parseLogSource('isu2:/var/log/nginx/access.log'), { kind: 'ssh', host: 'isu2', path: '/var/log/nginx/access.log' });
  assert.deepEqual(parseLogSource('isucon@192.168.0.12:/var/log/mysql/slow.log.gz'),
    { kind: 'ssh', host: '192.168.0.12', user: 'isucon', path: '/var/log/mysql/slow.log.gz' });
  assert.deepEqual(parseLogSource('root@[::1]:/tmp/a b.log'), { kind: 'ssh', host: '::1', user: 'root', path: '/tmp/a b.log' });
});

void test('URL form: user and port optional, the path decoded', () => {
  assert.deepEqual(parseLogSource('ssh://isu1/var/log/nginx/access.log'), { kind: 'ssh', host: 'isu1', path: '/var/log/nginx/access.log' });
  assert.deepEqual(parseLogSource('ssh://isucon@isu1:2222/var/log/a%20b.ltsv'), { kind: 'ssh', host: 'isu1', user: 'isucon', port: 2222, path: '/var/log/a b.ltsv' });
  assert.deepEqual(parseLogSource('ssh://[::1]:22/x.log'), { kind: 'ssh', host: '::1', port: 22, path: '/x.log' });
});

void test('incomplete remote sources are refused with a reason', () => {
  assert.throws(() => parseLogSource('isu2:var/log/access.log'), (e: Error) => e instanceof LogSourceError && /not absolute/.test(e.message));
  assert.throws(() => parseLogSource('isu2:'), /not absolute/);
  assert.throws(() => parseLogSource('ssh://isu2'), /names no file/);
  assert.throws(() => parseLogSource('ssh://isu2/'), /names no file/);
  assert.throws(() => parseLogSource('ssh://isu2:70000/a.log'), /port/);
  assert.throws(() => parseLogSource('ssh://isu2/%zz'), /%-escape/);
  assert.throws(() => parseLogSource('ssh://bad host/a.log'), /ssh:\/\//);
});

void test('described back as written, labelled by host', () => {
  for (const t of ['isu2:/var/log/a.log', 'u@isu2:/a', 'ssh://u@isu2:2222/a', 'ssh://[::1]:22/x.log', '/local/path']) {
    assert.equal(describeLogSource(parseLogSource(t)), t);
  }
  assert.equal(hostLabel(parseLogSource('u@isu3:/a')), 'isu3');
  assert.equal(hostLabel(parseLogSource('/a')), 'local');
  assert.equal(hostLabel(parseLogSource('ssh://u@isu3:2222/a')), 'isu3:2222');
});
