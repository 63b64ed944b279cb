/**
 * The advisor and the verifier against a real MariaDB with 100k+ generated rows: every fixture
 * statement's suggestion makes the plan examine at least 10× fewer rows, the trial index is gone
 * afterwards unless kept, cancelling drops it, and (through the general log) no DDL ever reaches
 * the server without confirmation.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { adviseStatement } from '../../src/core/analysis/advisor';
import type { Schema } from '../../src/core/model';
import { DbConnection } from '../../src/db/connection';
import { readSchema } from '../../src/db/schemaReader';
import { verifyIndex, VerifyCancelled } from '../../src/db/indexVerifier';
import { startMariaDb, type MariaDbServer } from '../support/mariadb';
import { FIXTURES } from '../support/paths';
import { runAdvise } from '../unit/analysis/advisorCliRun';

const SETUP = `
CREATE DATABASE app;
USE app;
CREATE TABLE users (id INT PRIMARY KEY, account_name VARCHAR(64) NOT NULL, del_flg TINYINT NOT NULL, UNIQUE KEY uq_account (account_name)) ENGINE=InnoDB;
CREATE TABLE comments (id INT PRIMARY KEY, post_id INT NOT NULL, user_id INT NOT NULL, comment VARCHAR(100) NOT NULL, created_at DATETIME NOT NULL) ENGINE=InnoDB;
CREATE TABLE posts (id INT PRIMARY KEY, user_id INT NOT NULL, body VARCHAR(100) NOT NULL, created_at DATETIME NOT NULL) ENGINE=InnoDB;
CREATE TABLE login_log (id BIGINT PRIMARY KEY, user_id INT NOT NULL, succeeded TINYINT NOT NULL, created_at DATETIME NOT NULL) ENGINE=InnoDB;
CREATE TABLE items (id BIGINT PRIMARY KEY, seller_id INT NOT NULL, status VARCHAR(16) NOT NULL, created_at DATETIME NOT NULL) ENGINE=InnoDB;
CREATE TABLE events (id BIGINT PRIMARY KEY, kind VARCHAR(16) NOT NULL, user_id INT NOT NULL, tenant_id INT NOT NULL, created_at DATETIME NOT NULL, KEY idx_tenant (tenant_id)) ENGINE=InnoDB;
INSERT INTO users SELECT seq, CONCAT('user', seq), seq % 20 = 0 FROM seq_1_to_10000;
INSERT INTO comments SELECT seq, 1 + (seq * 7919) % 50000, 1 + (seq * 31) % 10000, CONCAT('c', seq), '2024-01-01' + INTERVAL seq MINUTE FROM seq_1_to_200000;
INSERT INTO posts SELECT seq, 1 + (seq * 13) % 10000, CONCAT('p', seq), '2024-01-01' + INTERVAL seq MINUTE FROM seq_1_to_100000;
INSERT INTO login_log SELECT seq, 1 + (seq * 17) % 5000, seq % 7 <> 0, '2024-01-01' + INTERVAL seq MINUTE FROM seq_1_to_300000;
INSERT INTO items SELECT seq, 1 + (seq * 11) % 5000, ELT(1 + seq % 4, 'on_sale', 'trading', 'sold_out', 'stop'), '2024-01-01' + INTERVAL seq MINUTE FROM seq_1_to_100000;
INSERT INTO events SELECT seq, CONCAT('k', seq % 100), 1 + (seq * 7) % 20000, 1 + seq % 20, '2024-01-01' + INTERVAL seq MINUTE FROM seq_1_to_120000;
ANALYZE TABLE users, comments, posts, login_log, items, events PERSISTENT FOR ALL;
`;

/** Fixture statements (values filled in, as ExplainResult.filledSql has them) and the indexes the advisor must pick. */
const STATEMENTS: { sql: string; expect: string[] }[] = [
  { sql: 'SELECT * FROM comments WHERE post_id = 123 ORDER BY created_at DESC LIMIT 3', expect: ['comments(post_id,created_at)'] },
  { sql: 'SELECT * FROM login_log WHERE user_id = 77 AND succeeded = 0 ORDER BY id DESC LIMIT 1', expect: ['login_log(user_id,succeeded)'] },
  { sql: 'SELECT * FROM posts WHERE user_id IN (1, 2, 3) ORDER BY created_at DESC LIMIT 20', expect: ['posts(user_id)'] },
  { sql: "SELECT * FROM items WHERE seller_id = 5 AND (created_at < '2024-02-01' OR (created_at = '2024-02-01' AND id < 100)) ORDER BY created_at DESC, id DESC LIMIT 49", expect: ['items(seller_id,created_at)'] },
  { sql: "SELECT c.* FROM comments c JOIN users u ON u.id = c.user_id WHERE u.account_name = 'user42'", expect: ['comments(user_id)'] },
  { sql: 'SELECT user_id, MAX(created_at) FROM login_log GROUP BY user_id', expect: ['login_log(user_id,created_at)'] },
  { sql: "SELECT * FROM events WHERE kind = 'k3' OR user_id = 5 ORDER BY created_at DESC", expect: ['events(kind,created_at)', 'events(user_id,created_at)'] },
  { sql: "SELECT COUNT(*) FROM events WHERE tenant_id = 3 AND created_at BETWEEN '2024-01-02' AND '2024-01-03'", expect: ['events(tenant_id,created_at)'] },
];

let server: MariaDbServer;
let db: DbConnection;
let schema: Schema;

const indexNames = (table: string) => server.sql(`SELECT DISTINCT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'app' AND TABLE_NAME = '${table}' ORDER BY 1`).trim().split('\n').filter(Boolean);
const alterLines = () => readFileSync(server.generalLog, 'utf8').split('\n').filter((l) => /\bQuery\s+ALTER\s+TABLE/i.test(l));

before(async () => {
  server = await startMariaDb({ args: ['--general-log=1'] });
  server.sql(SETUP);
  db = new DbConnection({ socket: server.socket, user: server.user, database: 'app', queryTimeoutMs: 30_000 });
  schema = await readSchema(db, 1);
});
after(async () => {
  await db?.close();
  await server?.stop();
});

for (const st of STATEMENTS) {
  void test(`verified: ${st.sql}`, async (t) => {
    const advice = adviseStatement(st.sql, { schema });
    assert.deepEqual(advice.suggestions.map((s) => `${s.table}(${s.columns.join(',')})`), st.expect);
    const table = advice.suggestions[0].table;
    const indexesBefore = indexNames(table);
    const steps: string[] = [];
    const r = await verifyIndex(db, advice.suggestions, st.sql, { confirmed: true, onProgress: (s) => steps.push(s) });
    const msg = `${r.before.rowsExamined} ${r.before.access.join(' ')} → ${r.after.rowsExamined} ${r.after.access.join(' ')}`;
    t.diagnostic(`rows examined ${msg}`);
    assert.ok(r.before.rowsExamined >= 10 * r.after.rowsExamined, msg);
    assert.ok(r.after.access.some((a) => advice.suggestions.some((s) => a.includes(s.name))), `the plan uses the new index: ${msg}`);
    assert.equal(r.kept, false);
    assert.deepEqual(indexNames(table), indexesBefore, 'the trial index is dropped again');
    assert.equal(steps[0], 'EXPLAIN before');
    assert.ok(steps.includes('EXPLAIN after'));
  });
}

void test('filesort and temporary table go away where the index serves ORDER BY / GROUP BY', async () => {
  const a = adviseStatement('SELECT * FROM comments WHERE post_id = 123 ORDER BY created_at DESC LIMIT 3', { schema });
  const r = await verifyIndex(db, a.suggestions, 'SELECT * FROM comments WHERE post_id = 123 ORDER BY created_at DESC LIMIT 3', { confirmed: true });
  assert.equal(r.before.filesort, true);
  assert.equal(r.filesortRemoved, true);
  const g = 'SELECT user_id, MAX(created_at) FROM login_log GROUP BY user_id';
  const r2 = await verifyIndex(db, adviseStatement(g, { schema }).suggestions, g, { confirmed: true });
  assert.equal(r2.before.temporary || r2.before.filesort, true);
  assert.equal(r2.after.temporary || r2.after.filesort, false, r2.after.access.join(' '));
});

void test('kept: the index stays, and the index it extends is dropped', async () => {
  const sql = "SELECT COUNT(*) FROM events WHERE tenant_id = 3 AND created_at BETWEEN '2024-01-02' AND '2024-01-03'";
  const [s] = adviseStatement(sql, { schema }).suggestions;
  assert.equal(s.replaces, 'idx_tenant');
  const r = await verifyIndex(db, s, sql, { confirmed: true, keep: true });
  assert.equal(r.kept, true);
  assert.deepEqual(indexNames('events'), ['idx_events_tenant_id_created_at', 'PRIMARY']);
  const fresh = await readSchema(db, 2);
  assert.deepEqual(adviseStatement(sql, { schema: fresh }).suggestions, [], 'nothing left to suggest');
  server.sql('ALTER TABLE events DROP INDEX idx_events_tenant_id_created_at, ADD INDEX idx_tenant (tenant_id)', 'app');
});

void test('cancelling between steps drops the trial index', async () => {
  const sql = 'SELECT * FROM posts WHERE user_id IN (1, 2, 3) ORDER BY created_at DESC LIMIT 20';
  const ac = new AbortController();
  const steps: string[] = [];
  await assert.rejects(verifyIndex(db, adviseStatement(sql, { schema }).suggestions, sql, {
    confirmed: true, signal: ac.signal, onProgress: (s) => { steps.push(s); if (s.startsWith('creating')) ac.abort(); },
  }), VerifyCancelled);
  assert.deepEqual(indexNames('posts'), ['PRIMARY']);
  assert.ok(steps.some((s) => /dropping .* \(cancelled\)/.test(s)), steps.join(' | '));
});

void test('no DDL reaches the server without confirmation (general log)', async () => {
  const sql = 'SELECT * FROM comments WHERE post_id = 9 ORDER BY created_at DESC LIMIT 3';
  const [s] = adviseStatement(sql, { schema }).suggestions;
  const alters = alterLines().length;
  await assert.rejects(verifyIndex(db, s, sql, { confirmed: false }), /confirmation/);
  await assert.rejects(db.query('ddl', s.ddl), /confirmed/);
  await assert.rejects(db.query('explain', s.ddl));
  await db.query('explain', `EXPLAIN ${sql}`);
  // why: the general log is written by the server as statements arrive; the EXPLAIN above is a marker that it got this far.
  const log = readFileSync(server.generalLog, 'utf8');
  assert.ok(log.includes(`EXPLAIN ${sql}`));
  assert.equal(alterLines().length, alters, 'no ALTER TABLE was logged');
  assert.deepEqual(indexNames('comments'), ['PRIMARY']);
  // And the confirmed ones were all logged: every ALTER in the log came from a verification.
  assert.ok(alterLines().every((l) => /ADD INDEX `idx_|DROP INDEX `idx_|DROP INDEX `?idx_tenant|ADD INDEX idx_tenant/.test(l)), alterLines().join('\n'));
});

void test('advise DIR with a connection: the server\'s indexes count, redundant ones are listed', async () => {
  server.sql('CREATE DATABASE isupic');
  server.sql(readFileSync(join(FIXTURES, 'sample-app', 'webapp', 'sql', 'schema.sql'), 'utf8'), 'isupic');
  server.sql('ALTER TABLE comments ADD INDEX idx_post (post_id), ADD INDEX idx_post_created (post_id, created_at)', 'isupic');
  const r = await runAdvise([join(FIXTURES, 'sample-app'), '--socket', server.socket, '--user', 'root', '--database', 'isupic', '--format', 'json']);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; table: string; columns?: string[]; index?: string });
  assert.deepEqual(lines.filter((l) => l.kind === 'index').map((l) => `${l.table}(${l.columns!.join(',')})`).sort(), ['comments(user_id)', 'posts(user_id,created_at)']);
  assert.deepEqual(lines.filter((l) => l.kind === 'redundant').map((l) => `${l.table}.${l.index}`), ['comments.idx_post']);
  assert.match(r.err, /schema of isupic \(mariadb/);
});
