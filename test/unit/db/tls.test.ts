/** --ssl-mode / --ssl-ca as the mysql client reads them, mysql2's ssl option, and the TLS failure messages. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mysql2Ssl, parseSslMode, resolveTls } from '../../../src/db/tls';
import { classifyError } from '../../../src/db/connection';

void test('modes: any case, a CA alone means VERIFY_CA, a CA with a mode that checks nothing is an error', () => {
  assert.equal(parseSslMode('verify-ca'), 'VERIFY_CA');
  assert.equal(parseSslMode('Preferred'), 'PREFERRED');
  assert.equal(parseSslMode('sometimes'), undefined);
  assert.deepEqual(resolveTls(undefined, undefined), { mode: 'DISABLED' });
  assert.deepEqual(resolveTls('', 'ca.pem'), { mode: 'VERIFY_CA' });
  assert.deepEqual(resolveTls('verify_identity', 'ca.pem'), { mode: 'VERIFY_IDENTITY' });
  assert.match((resolveTls('REQUIRED', 'ca.pem') as { error: string }).error, /--ssl-ca is used only to check the server's certificate/);
  assert.match((resolveTls('x', undefined, 'sslCa', 'sslMode') as { error: string }).error, /^sslMode must be one of/);
});

void test('mysql2 ssl option: none when disabled, unchecked for PREFERRED and REQUIRED, the CA checked for VERIFY_*', () => {
  assert.equal(mysql2Ssl(undefined), undefined);
  assert.equal(mysql2Ssl({ mode: 'DISABLED' }), undefined);
  assert.deepEqual(mysql2Ssl({ mode: 'REQUIRED' }), { rejectUnauthorized: false });
  assert.deepEqual(mysql2Ssl({ mode: 'PREFERRED' }), { rejectUnauthorized: false });
  assert.deepEqual(mysql2Ssl({ mode: 'VERIFY_CA', ca: 'PEM' }), { ca: 'PEM', rejectUnauthorized: true, verifyIdentity: false });
  assert.deepEqual(mysql2Ssl({ mode: 'VERIFY_IDENTITY' }), { rejectUnauthorized: true, verifyIdentity: false });
});

void test('TLS failures read as such, naming the host as connected to', () => {
  const opts = { host: 'db.internal', port: 3307, user: 'isucon', database: 'isu', tls: { mode: 'VERIFY_CA' as const, caFile: 'ca.pem' } };
  const secure = classifyError({ code: 'ER_SECURE_TRANSPORT_REQUIRED', errno: 3159, sqlMessage: 'Connections using insecure transport are prohibited while --require_secure_transport=ON.' }, opts);
  assert.equal(secure.kind, 'tls');
  assert.match(secure.message, /^the server at db\.internal:3307 accepts only TLS connections/);
  assert.equal(classifyError({ errno: 3159, message: 'x' }, opts).kind, 'tls');
  assert.match(classifyError({ code: 'HANDSHAKE_SSL_ERROR', message: 'self-signed certificate in certificate chain' }, opts).message, /not signed by the CA in ca\.pem/);
  assert.match(classifyError({ code: 'HANDSHAKE_NO_SSL_SUPPORT', message: 'Server does not support secure connection' }, opts).message, /db\.internal:3307 does not offer TLS, and ssl-mode VERIFY_CA needs it/);
});
