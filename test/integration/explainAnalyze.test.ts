/**
 * `explain --analyze` reports the rows really sent: a page whose LIMIT ? the code binds to a constant 100
 * sends 100 rows (it reported 0), and a BETWEEN ? AND ? filled low end first sends rows (an empty range sent 0).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { FIXTURES } from '../support/paths';
import { startMariaDb, type MariaDbServer } from '../support/mariadb';
import { explainCommand } from '../../src/cli/commands/explain';

const APP = join(FIXTURES, 'analyze', 'app');
let db: MariaDbServer;

before(async () => {
  db = await startMariaDb();
  db.sql(`CREATE DATABASE shop; USE shop;
CREATE TABLE items (id BIGINT PRIMARY KEY, name VARCHAR(64) NOT NULL, created_at DATETIME NOT NULL) ENGINE=InnoDB;
INSERT INTO items SELECT seq, CONCAT('item ', seq), '2024-01-01' + INTERVAL seq HOUR FROM seq_1_to_5000;
ANALYZE TABLE items;`);
}, { timeout: 120_000 } as never);

after(async () => { await db?.stop(); });

void test('explain --analyze: the rows really sent', async () => {
  const stdout = new PassThrough(), stderr = new PassThrough();
  let out = '', err = '';
  stdout.on('data', (d) => { out += d; });
  stderr.on('data', (d) => { err += d; });
  const code = await explainCommand.run([APP, '--socket', db.socket, '--user', db.user, '--database', 'shop', '--analyze', '--format', 'json'], { stdout, stderr, env: {}, cwd: APP });
  assert.ok(code === 0 || code === 1, err);
  const rows = out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { sql?: string; line?: number; measured?: { rowsSent: number; rowsRead: number } });
  const page = rows.find((r) => /LIMIT/.test(r.sql ?? '') && r.measured);
  assert.ok(page, out);
  assert.equal(page.measured!.rowsSent, 100, JSON.stringify(page));
  const range = rows.find((r) => /BETWEEN/.test(r.sql ?? '') && r.measured);
  assert.ok(range, out);
  assert.ok(range.measured!.rowsSent > 0, `the range is never empty: ${JSON.stringify(range)}`);
});
