/**
 * Server faults and the EXPLAIN guard against a private MariaDB with the general log on: calls with
 * side effects (GET_LOCK, BENCHMARK, a stored function taking a lock) never reach the server unless
 * allowed, a lock makes a statement wait once and names the lock, a database the user may not use
 * says so, data with quotes and backslashes is sampled and explained, and a server shut down in the
 * middle of a run stops the run at once with exit status 3.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand } from '../support/runCommand';
import * as mysql from 'mysql2/promise';
import { FIXTURES } from '../support/paths';
import { startMariaDb, type MariaDbServer } from '../support/mariadb';
import { sentBy } from '../support/generalLog';
import { DbConnection, DbError, type ConnectionOptions } from '../../src/db/connection';
import { ExplainService } from '../../src/db/explainService';
import { explainCommand } from '../../src/cli/commands/explain';

let db: MariaDbServer;
const PASSWORD = 'qi-faults';
const APP = join(FIXTURES, 'server-faults', 'app');

function loadIsu(server: MariaDbServer, data: boolean): void {
  server.sql('CREATE DATABASE isu');
  server.sql(readFileSync(join(FIXTURES, 'schemas', 'isuconish.sql'), 'utf8'), 'isu');
  if (data) server.sql(readFileSync(join(FIXTURES, 'schemas', 'isuconish-data.sql'), 'utf8'), 'isu');
  server.sql(`CREATE USER 'qi'@'localhost' IDENTIFIED BY '${PASSWORD}';
    GRANT SELECT, EXECUTE ON isu.* TO 'qi'@'localhost';
    CREATE FUNCTION isu.post_score(u INT) RETURNS INT DETERMINISTIC RETURN u + GET_LOCK('qi_fn_lock', 0) * 0;`);
}

before(async () => {
  db = await startMariaDb({ args: ['--general-log=1'] });
  loadIsu(db, true);
  db.sql(`CREATE USER 'nopriv'@'localhost' IDENTIFIED BY '${PASSWORD}';
    CREATE TABLE isu.people (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, KEY idx_name (name));
    INSERT INTO isu.people VALUES (1, 'O''Brien'), (2, 'back\\\\slash'), (3, 'it''s \\\\'' tricky'), (4, 'D''Arcy');`);
}, { timeout: 180_000 } as never);

after(async () => { await db?.stop(); });

const opts = (o: Partial<ConnectionOptions> = {}): ConnectionOptions => ({ socket: db.socket, user: 'qi', password: PASSWORD, database: 'isu', ...o });

/** What the `qi` sessions sent, from the general log. */
const sentByQi = (server: MariaDbServer): string[] => sentBy(server, 'qi');

async function runExplain(args: string[], server: MariaDbServer = db): Promise<{ code: number; stdout: string; stderr: string; rows: Record<string, unknown>[] }> {
  const { code, out: stdout, err: stderr } = await runCommand(explainCommand, ['--socket', server.socket, '--user', 'qi', '--database', 'isu', '--format', 'json', ...args, APP],
    APP, { MYSQL_PWD: PASSWORD });
  const rows = stdout.trim() ? stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : [];
  return { code, stdout, stderr, rows };
}

void test('side effects: GET_LOCK, BENCHMARK and a stored function are not sent; the general log proves it', async () => {
  const run = await runExplain([]);
  assert.equal(run.code, 0, run.stderr);
  const byLine = (n: number) => run.rows.filter((r) => r.line === n).map((r) => `${String(r.code)} ${String(r.message)}`);
  // why: the statements are fine; the guard does not send them: information, never a warning on the code.
  assert.match(byLine(44).join('\n'), /^not-explained not explained: the guard does not send it: GET_LOCK\(\) acts outside the statement/);
  assert.match(byLine(49).join('\n'), /^not-explained not explained: the guard does not send it: BENCHMARK\(\)/);
  assert.match(byLine(54).join('\n'), /^not-explained not explained: the guard does not send it: calls the stored function isu\.post_score: the optimizer may run it/);
  assert.ok(run.rows.filter((r) => [44, 49, 54].includes(r.line as number)).every((r) => r.severity === 'info'), run.stdout);
  const sent = sentByQi(db);
  assert.ok(sent.some((s) => /^Query EXPLAIN SELECT \* FROM users WHERE id = /.test(s)), 'the ordinary statements were explained');
  assert.deepEqual(sent.filter((s) => /GET_LOCK|BENCHMARK|post_score|SLEEP/i.test(s)), []);
  assert.equal(db.sql("SELECT IS_USED_LOCK('qi_fn_lock') IS NULL").trim(), '1', 'the function\'s lock was never taken');

  // Direct attempts at the connection are refused before the wire too.
  const conn = new DbConnection(opts());
  try {
    for (const sql of ['EXPLAIN /*!ANALYZE */ SELECT * FROM users', "EXPLAIN SELECT * FROM users WHERE id = GET_LOCK('qi_direct', 0)",
      'EXPLAIN SELECT BENCHMARK(100000000, 1)', 'EXPLAIN SELECT * FROM users WHERE id = 1 --SLEEP(3)']) {
      await assert.rejects(conn.query('explain', sql), (e: DbError) => e.kind === 'refused', sql);
    }
  } finally { await conn.close(); }
  assert.deepEqual(sentByQi(db).filter((s) => /GET_LOCK|BENCHMARK|ANALYZE|SLEEP/i.test(s)), []);
});

void test('a stored function is explained once allowed (--allow-function), and asked for by name', async () => {
  const asked: string[][] = [];
  const svc = new ExplainService(new DbConnection(opts({ allowFunctions: (names) => { asked.push(names); return false; } })));
  try {
    const r = await svc.explainSql('SELECT * FROM posts WHERE id = post_score(?)');
    assert.equal(r.error?.kind, 'refused');
    assert.deepEqual(asked, [['isu.post_score']]);
  } finally { await svc.close(); }
  const run = await runExplain(['--allow-function', 'post_score']);
  assert.equal(run.rows.filter((r) => r.line === 54 && (r.code === 'explain-error' || r.code === 'not-explained')).length, 0, run.stdout);
  assert.ok(sentByQi(db).some((s) => /^Query EXPLAIN SELECT \* FROM posts WHERE id = post_score\(/.test(s)));
});

void test('a lock: the statement waits once (sampling and EXPLAIN together), and the message names the lock', async () => {
  const admin = await mysql.createConnection({ socketPath: db.socket, user: 'root', database: 'isu' });
  const timeout = 3000;
  const svc = new ExplainService(new DbConnection(opts({ queryTimeoutMs: timeout })));
  try {
    await svc.schema();
    await admin.query('LOCK TABLES people WRITE');
    const started = Date.now();
    const r = await svc.explainSql('SELECT * FROM people WHERE name = ?');
    const waited = Date.now() - started;
    assert.equal(r.error?.kind, 'timeout', JSON.stringify(r));
    assert.match(r.error!.message, /waited 3000 ms for a lock and gave up: the server showed "Waiting for table metadata lock" \(SHOW PROCESSLIST state\)/);
    // why: sampling and EXPLAIN each waiting the whole limit would take 2 × 3000 ms.
    assert.ok(waited < timeout * 1.5, `waited ${waited} ms`);
    await admin.query('UNLOCK TABLES');
    const ok = await svc.explainSql('SELECT * FROM people WHERE name = ?');
    assert.equal(ok.error, undefined, JSON.stringify(ok.error));
  } finally { await admin.end(); await svc.close(); }
});

void test('a database the user may not use: the message says what it is, not "check the password"', async () => {
  for (const o of [{ user: 'nopriv', database: 'nosuchdb' }, { user: 'nopriv', database: 'isu' }, { database: 'nosuchdb' }]) {
    const conn = new DbConnection(opts(o));
    await assert.rejects(conn.connect(), (e: DbError) => {
      assert.equal(e.kind, 'unknown-database', e.message);
      assert.doesNotMatch(e.message, /check the password/);
      assert.match(e.message, new RegExp(`may not use database "${o.database}".*does not exist, or the user has no privileges on it`));
      return true;
    });
    await conn.close();
  }
});

void test('data with apostrophes and backslashes is sampled, quoted and explained', async () => {
  const svc = new ExplainService(new DbConnection(opts()));
  try {
    const r = await svc.explainSql('SELECT * FROM people WHERE name = ? OR name IN (?)');
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.ok(r.plan);
    assert.ok(r.substitutions.some((s) => s.source === 'sample' && /'/.test(s.value.slice(1, -1))), JSON.stringify(r.substitutions));
    const conn = new DbConnection(opts());
    try {
      assert.ok((await conn.query('explain', `EXPLAIN ${r.filledSql!}`)).length > 0);
    } finally { await conn.close(); }
  } finally { await svc.close(); }
});

void test('server shut down mid-run: the run stops at once, the rest is "not explained", exit status 3', { timeout: 120_000 }, async () => {
  const other = await startMariaDb();
  let admin: mysql.Connection | undefined;
  try {
    loadIsu(other, false);
    other.sql("INSERT INTO users (account_name, passhash, created_at) VALUES ('a', 'x', NOW()), ('b', 'y', NOW())", 'isu');
    admin = await mysql.createConnection({ socketPath: other.socket, user: 'root', database: 'isu' });
    admin.on('error', () => undefined);
    // why: the third statement of the app reads comments; the lock holds the run there until the server stops.
    await admin.query('LOCK TABLES comments WRITE');
    const started = Date.now();
    const running = runExplain(['--timeout', '60000'], other);
    let stoppedAt = 0;
    for (;;) {
      const [rows] = await admin.query("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE USER = 'qi' AND STATE LIKE 'Waiting for table metadata lock'");
      if (Number((rows as { n: number }[])[0].n) > 0) break;
      assert.ok(Date.now() - started < 30_000, 'the run never reached the locked table');
      await new Promise((r) => setTimeout(r, 50));
    }
    stoppedAt = Date.now();
    await other.stop();
    const run = await running;
    const tookAfterStop = Date.now() - stoppedAt;
    assert.equal(run.code, 3, run.stderr);
    // why: the old behaviour waited out the whole --timeout (60 s) after the server went away.
    assert.ok(tookAfterStop < 30_000, `the run went on for ${tookAfterStop} ms after the server stopped`);
    const notExplained = run.rows.filter((r) => /^not explained: the server went away/.test(String(r.message)));
    assert.deepEqual(notExplained.map((r) => r.line), [26, 32, 38, 44, 49, 54]);
    assert.match(run.stderr, /stopped: the server went away .*; 7 statements not explained/);
  } finally {
    await admin?.end().catch(() => undefined);
    await other.stop();
  }
});
