/** Connection errors name the host as it was connected to: the default is 127.0.0.1, as `--help` says. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyError } from '../../../src/db/connection';

void test('an unreachable server is named by the address connected to, 127.0.0.1 by default', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  assert.equal(classifyError(refused, { user: 'isucon', database: 'isucon' }).message, 'cannot reach the database at 127.0.0.1:3306 (ECONNREFUSED)');
  assert.equal(classifyError(refused, { user: 'isucon', database: 'isucon', host: 'db.internal', port: 3307 }).message, 'cannot reach the database at db.internal:3307 (ECONNREFUSED)');
  assert.equal(classifyError(refused, { user: 'isucon', database: 'isucon', socket: '/run/mysqld/mysqld.sock' }).message, 'cannot reach the database at socket /run/mysqld/mysqld.sock (ECONNREFUSED)');
});
