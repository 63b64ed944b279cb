/** Connection candidates from an app's env and compose files, the settings they lead to, labels and secret keys. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectionHints } from '../../../src/core/sql/connectionHints';
import {
  applyCandidate, candidatesFromHints, describeCandidate, isConfigured, secretKey, targetLabel, type ConnectionSettings,
} from '../../../src/extension/connection/connectionProfile';

const defaults: ConnectionSettings = { host: '127.0.0.1', port: 3306, socket: '', user: '', database: '', sslMode: 'DISABLED', sslCa: '' };

const ENV_SH = `export ISUCON_DB_HOST=192.168.0.12
export ISUCON_DB_PORT=3307
export ISUCON_DB_USER=isucon
export ISUCON_DB_PASSWORD=isucon
export ISUCON_DB_NAME=isuports
export ISUCON_DB_PORT=9999
`;
const COMPOSE = `services:
  mysql:
    image: mysql:8
    environment:
      MYSQL_ROOT_PASSWORD: root
      MYSQL_DATABASE: isucari
      MYSQL_USER: isucari
  app:
    environment:
      - LANG=C
`;

void test('one candidate per file, first value of a field wins, files naming no user or database are dropped', () => {
  const hints = [...connectionHints(ENV_SH, 'env.sh'), ...connectionHints(COMPOSE, 'docker-compose.yml'), ...connectionHints('MYSQL_HOST=db\n', 'other.env')];
  const c = candidatesFromHints(hints);
  assert.equal(c.length, 2);
  assert.deepEqual({ ...c[0], keys: undefined }, { file: 'env.sh', host: '192.168.0.12', port: 3307, user: 'isucon', password: 'isucon', database: 'isuports', keys: undefined });
  assert.deepEqual(c[0].keys, ['ISUCON_DB_HOST', 'ISUCON_DB_PORT', 'ISUCON_DB_USER', 'ISUCON_DB_PASSWORD', 'ISUCON_DB_NAME']);
  assert.equal(c[1].file, 'docker-compose.yml');
  assert.equal(c[1].database, 'isucari');
  assert.equal(c[1].user, 'isucari');
  assert.equal(c[1].password, 'root');
});

void test('applying a candidate: its values over the current ones; a host clears the socket; the password never goes to settings', () => {
  const [env] = candidatesFromHints(connectionHints(ENV_SH, 'env.sh'));
  const s = applyCandidate({ ...defaults, socket: '/run/mysqld.sock' }, env);
  assert.deepEqual(s, { host: '192.168.0.12', port: 3307, socket: '', user: 'isucon', database: 'isuports', sslMode: 'DISABLED', sslCa: '' });
  assert.ok(!('password' in s));
  const d = describeCandidate(defaults, env);
  assert.equal(d.label, 'isucon@192.168.0.12:3307/isuports');
  assert.match(d.detail, /^from env\.sh \(ISUCON_DB_HOST, .*\) · password stored in secret storage$/);
  assert.doesNotMatch(d.detail + d.label, /isucon@.*isucon.*isucon/, 'the password value is not shown');
  const sock = candidatesFromHints(connectionHints('DB_SOCKET=/tmp/m.sock\nDB_USER=app\nDB_NAME=x\n', '.env'))[0];
  assert.deepEqual(applyCandidate(defaults, sock), { host: '127.0.0.1', port: 3306, socket: '/tmp/m.sock', user: 'app', database: 'x', sslMode: 'DISABLED', sslCa: '' });
});

void test('configured, labels and secret keys', () => {
  assert.equal(isConfigured(defaults), false);
  assert.equal(isConfigured({ ...defaults, user: 'isucon' }), false, 'no database');
  assert.equal(isConfigured({ ...defaults, user: 'isucon', database: 'isupic' }), true);
  assert.equal(isConfigured({ ...defaults, socket: '/s', database: 'isupic' }), true);
  assert.equal(targetLabel({ ...defaults, socket: '/s', user: 'root', database: 'd' }), 'root@unix:/s/d');
  assert.equal(secretKey({ ...defaults, user: 'isucon' }), 'queryInsight.connection.password:isucon@127.0.0.1:3306');
  assert.notEqual(secretKey({ ...defaults, user: 'isucon' }), secretKey({ ...defaults, user: 'isucon', port: 3307 }));
});
