import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startMariaDb } from '../support/mariadb';

void test('the private MariaDB starts, answers and stops', async () => {
  const db = await startMariaDb();
  try {
    assert.match(db.sql('SELECT VERSION()'), /MariaDB/);
    db.sql('CREATE DATABASE t1; CREATE TABLE t1.x (id INT PRIMARY KEY); INSERT INTO t1.x VALUES (1),(2);');
    assert.equal(db.sql('SELECT COUNT(*) FROM x', 't1').trim(), '2');
  } finally {
    await db.stop();
  }
});
