/**
 * TLS against a private MariaDB started with require_secure_transport=ON and a CA made here with
 * openssl: a plain login is refused with a message that says TLS is required (MariaDB refuses it as
 * "access denied", the same error as a wrong password); --ssl-mode REQUIRED and VERIFY_CA with the
 * right CA connect over TLS; a wrong CA and a certificate without the host's name are refused with a
 * message that says so. PREFERRED falls back to a plain connection on a server without TLS, where
 * REQUIRED says the server offers none.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../support/runCommand';
import { startMariaDb, type MariaDbServer } from '../support/mariadb';
import { DbConnection, type DbError } from '../../src/db/connection';
import { explainCommand } from '../../src/cli/commands/explain';
import { loadTls } from '../../src/node/tlsCa';

const PASSWORD = 'qi-tls';
let dir: string;
let secure: MariaDbServer;
let plain: MariaDbServer;

function openssl(args: string[]): void {
  const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${r.stderr}`);
}

/** A CA, a server certificate it signs for `names` (subjectAltName), and a second CA that signed nothing here. */
function makeCertificates(): void {
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Query Insight test CA']);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server-key.pem', '-out', 'server.csr', '-subj', '/CN=db.contest.internal']);
  writeFileSync(join(dir, 'san.cnf'), 'subjectAltName=DNS:db.contest.internal,DNS:localhost\n');
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'san.cnf']);
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'other-key.pem', '-out', 'other-ca.pem', '-days', '2', '-subj', '/CN=Some other CA']);
}

const USERS = `CREATE DATABASE isu; CREATE TABLE isu.users (id INT PRIMARY KEY, account_name VARCHAR(64) NOT NULL);
  CREATE USER 'qi'@'localhost' IDENTIFIED BY '${PASSWORD}'; GRANT SELECT ON isu.* TO 'qi'@'localhost';
  CREATE USER 'qi'@'127.0.0.1' IDENTIFIED BY '${PASSWORD}'; GRANT SELECT ON isu.* TO 'qi'@'127.0.0.1';`;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'qi-tls-'));
  makeCertificates();
  mkdirSync(join(dir, 'app'));
  writeFileSync(join(dir, 'app', 'main.go'), `package main

func getUser(db *sqlx.DB, id int) (User, error) {
	var u User
	err := db.Get(&u, "SELECT * FROM users WHERE id = ?", id)
	return u, err
}
`);
  secure = await startMariaDb({ args: ['--require-secure-transport=ON', `--ssl-ca=${join(dir, 'ca.pem')}`, `--ssl-cert=${join(dir, 'server.pem')}`, `--ssl-key=${join(dir, 'server-key.pem')}`] });
  // why: root over the socket; a unix socket counts as secure transport.
  secure.sql(USERS);
  plain = await startMariaDb();
  plain.sql(USERS);
}, { timeout: 180_000 } as never);

after(async () => {
  await secure?.stop();
  await plain?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function explain(server: MariaDbServer, extra: string[], password = PASSWORD): Promise<{ code: number; out: string; err: string }> {
  return runCommand(explainCommand, ['--host', '127.0.0.1', '--port', String(server.port), '--user', 'qi', '--database', 'isu', '--format', 'json', ...extra, join(dir, 'app')],
    dir, { MYSQL_PWD: password, HOME: dir });
}

/** The TLS version of a session opened with these options, '' for a plain one. */
async function tlsVersion(server: MariaDbServer, mode: string, ca?: string, host = '127.0.0.1'): Promise<string> {
  const tls = await loadTls({ mode, ca, cwd: dir, modeName: '--ssl-mode', caName: '--ssl-ca' });
  const conn = new DbConnection({ host, port: server.port, user: 'qi', password: PASSWORD, database: 'isu', ...(tls ? { tls } : {}) });
  try {
    const rows = await conn.query<Record<string, unknown>>('schema', "SHOW SESSION STATUS LIKE 'Ssl_version'");
    return String(rows[0]?.Value ?? rows[0]?.VALUE ?? '');
  } finally { await conn.close(); }
}

void test('require_secure_transport: a plain login is refused with a message about TLS, not "check the password"', async () => {
  const run = await explain(secure, []);
  assert.equal(run.code, 1, run.out);
  assert.match(run.err, /the server at 127\.0\.0\.1:\d+ accepts only TLS connections \(require_secure_transport=ON\): connect with ssl-mode REQUIRED, or VERIFY_CA/);
  assert.doesNotMatch(run.err, /check the password/);
  const conn = new DbConnection({ host: '127.0.0.1', port: secure.port, user: 'qi', password: PASSWORD, database: 'isu' });
  await assert.rejects(conn.connect(), (e: DbError) => e.kind === 'tls' && /require_secure_transport/.test(e.message));
  await conn.close();
  // A wrong password is still a wrong password.
  const wrong = await explain(secure, ['--ssl-mode', 'DISABLED'], 'not-the-password');
  assert.match(wrong.err, /access denied for user qi: check the password/);
  assert.doesNotMatch(wrong.err, /require_secure_transport/);
});

void test('--ssl-mode REQUIRED and VERIFY_CA with the right CA connect over TLS and explain', async () => {
  for (const extra of [['--ssl-mode', 'REQUIRED'], ['--ssl-mode', 'VERIFY_CA', '--ssl-ca', 'ca.pem'], ['--ssl-ca', join(dir, 'ca.pem')], ['--ssl-mode', 'verify_identity', '--ssl-ca', '~/ca.pem', '--host', 'localhost']]) {
    const run = await explain(secure, extra);
    assert.equal(run.code, 0, `${extra.join(' ')}: ${run.err}`);
    assert.match(run.err, /explained 1 of 1 statements/, `${extra.join(' ')}: ${run.err}`);
  }
  assert.match(await tlsVersion(secure, 'REQUIRED'), /^TLSv1\.[23]$/);
  assert.match(await tlsVersion(secure, 'VERIFY_CA', 'ca.pem'), /^TLSv1\.[23]$/);
  assert.match(await tlsVersion(secure, 'PREFERRED'), /^TLSv1\.[23]$/);
});

void test('VERIFY_CA with a wrong CA, and VERIFY_IDENTITY with a host the certificate does not name, are refused with a clear message', async () => {
  const wrong = await explain(secure, ['--ssl-mode', 'VERIFY_CA', '--ssl-ca', 'other-ca.pem']);
  assert.equal(wrong.code, 1);
  assert.match(wrong.err, /TLS to 127\.0\.0\.1:\d+: the server's certificate was not accepted \(.+\): it is not signed by the CA in other-ca\.pem; give the CA that signed it as ssl-ca/);
  const noCa = await explain(secure, ['--ssl-mode', 'VERIFY_CA']);
  assert.match(noCa.err, /no CA that signed it is known; give it as ssl-ca/);
  // The certificate names db.contest.internal and localhost, not 127.0.0.1: VERIFY_CA does not mind, VERIFY_IDENTITY does.
  const byIp = await explain(secure, ['--ssl-mode', 'VERIFY_IDENTITY', '--ssl-ca', 'ca.pem']);
  assert.equal(byIp.code, 1, byIp.err);
  assert.match(byIp.err, /it does not name 127\.0\.0\.1, the host connected to \(VERIFY_IDENTITY checks the name, VERIFY_CA does not\)/);
});

void test('a server without TLS: PREFERRED falls back to a plain connection, REQUIRED says the server offers none', async () => {
  assert.equal(await tlsVersion(plain, 'PREFERRED'), '');
  const run = await explain(plain, ['--ssl-mode', 'PREFERRED']);
  assert.equal(run.code, 0, run.err);
  const required = await explain(plain, ['--ssl-mode', 'REQUIRED']);
  assert.equal(required.code, 1);
  assert.match(required.err, /the server at 127\.0\.0\.1:\d+ does not offer TLS, and ssl-mode REQUIRED needs it/);
});

void test('bad --ssl-mode / --ssl-ca values are usage errors that say what is wrong', async () => {
  await assert.rejects(explain(plain, ['--ssl-mode', 'SOMETIMES']), /--ssl-mode must be one of DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY \(got "SOMETIMES"\)/);
  await assert.rejects(explain(plain, ['--ssl-mode', 'REQUIRED', '--ssl-ca', 'ca.pem']), /--ssl-ca is used only to check the server's certificate: give --ssl-mode VERIFY_CA or VERIFY_IDENTITY/);
  await assert.rejects(explain(plain, ['--ssl-ca', 'missing.pem']), /--ssl-ca missing\.pem: cannot read it \(ENOENT\)/);
  await assert.rejects(explain(plain, ['--ssl-ca', 'san.cnf']), /--ssl-ca san\.cnf: not a PEM certificate/);
});
