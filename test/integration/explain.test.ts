/**
 * ExplainService, the guarded connection and the explain CLI against a private MariaDB loaded
 * with the isuconish schema and 100k+ generated rows. One server for the whole file.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import * as mysql from 'mysql2/promise';
import { FIXTURES } from '../support/paths';
import { startMariaDb, type MariaDbServer } from '../support/mariadb';
import { DbConnection, DbError, type ConnectionOptions } from '../../src/db/connection';
import { ExplainService } from '../../src/db/explainService';
import { explainCommand } from '../../src/cli/commands/explain';

let db: MariaDbServer;
const PASSWORD = 'qi-secret';

before(async () => {
  db = await startMariaDb({ args: ['--general-log=1'] });
  db.sql('CREATE DATABASE isu');
  db.sql(readFileSync(join(FIXTURES, 'schemas', 'isuconish.sql'), 'utf8'), 'isu');
  db.sql(readFileSync(join(FIXTURES, 'schemas', 'isuconish-data.sql'), 'utf8'), 'isu');
  // why: a dedicated user (with an app's usual privileges: EXPLAIN UPDATE needs UPDATE) makes its statements easy to pick out of the general log.
  db.sql(`CREATE USER 'qi'@'localhost' IDENTIFIED BY '${PASSWORD}'; CREATE USER 'qi'@'127.0.0.1' IDENTIFIED BY '${PASSWORD}';
    GRANT SELECT, INSERT, UPDATE, DELETE ON isu.* TO 'qi'@'localhost'; GRANT SELECT, INSERT, UPDATE, DELETE ON isu.* TO 'qi'@'127.0.0.1';`);
}, { timeout: 180_000 } as never);

after(async () => { await db?.stop(); });

const opts = (o: Partial<ConnectionOptions> = {}): ConnectionOptions => ({ socket: db.socket, user: 'qi', password: PASSWORD, database: 'isu', ...o });

// Deliberately bad statements get the right codes, good ones get none (real optimizer, 100k+ rows).
const cases: [string, string[]][] = [
  ['SELECT * FROM posts WHERE user_id = ? ORDER BY created_at DESC', ['filesort', 'full-table-scan']],
  ['SELECT c.* FROM comments c JOIN posts p ON p.user_id = c.user_id WHERE c.post_id = ?', ['join-without-index']],
  ['SELECT user_id, COUNT(*) FROM comments GROUP BY user_id', ['filesort', 'full-table-scan', 'temporary-table']],
  ['SELECT * FROM posts p WHERE 3 < (SELECT COUNT(*) FROM comments c WHERE c.user_id = p.user_id)', ['dependent-subquery', 'full-table-scan', 'full-table-scan']],
  ['SELECT * FROM users WHERE LOWER(account_name) = ?', ['function-on-column']],
  ["SELECT * FROM users WHERE account_name LIKE CONCAT('%', ?)", ['leading-wildcard']],
  ['SELECT * FROM items WHERE seller_id = ? OR buyer_id = ?', ['or-across-columns']],
  ['SELECT COUNT(*) FROM posts', ['full-index-scan']],
  ['UPDATE posts SET mime = ? WHERE user_id = ?', ['full-table-scan', 'locking-scan']],
  ['DELETE FROM comments WHERE user_id = ?', ['full-table-scan', 'locking-scan']],
  ['SELECT * FROM categories WHERE category_name = ?', ['full-table-scan']],
  ['SELECT * FROM users WHERE id = ?', []],
  ['SELECT * FROM users WHERE account_name = ?', []],
  ['SELECT p.*, u.account_name FROM posts p JOIN users u ON u.id = p.user_id WHERE u.del_flg = 0 ORDER BY p.created_at DESC LIMIT ?', []],
  ['SELECT * FROM items WHERE category_id = ? ORDER BY created_at DESC LIMIT 48', []],
  ['SELECT * FROM comments WHERE post_id IN (?) ORDER BY created_at DESC', []],
  ['SELECT * FROM categories WHERE parent_id = ?', []],
  ['UPDATE users SET del_flg = 1 WHERE id = ?', []],
  ['REPLACE INTO tags (id, name) SELECT id, name FROM tags WHERE id = ?', []],
  ['INSERT INTO comments (post_id, user_id, comment, created_at) SELECT id, user_id, mime, created_at FROM posts WHERE user_id = ?', ['full-table-scan']],
];

void test('findings on the real server: bad statements get their codes, good ones none', async () => {
  const svc = new ExplainService(new DbConnection(opts()));
  try {
    for (const [sql, want] of cases) {
      const r = await svc.explainSql(sql);
      assert.equal(r.error, undefined, `${sql}: ${r.error?.message}`);
      assert.ok(r.plan, sql);
      assert.deepEqual(r.findings.map((f) => f.code).sort(), [...want].sort(), `${sql}\n${r.filledSql}\n${JSON.stringify(r.plan!.rows)}`);
    }
  } finally { await svc.close(); }
});

void test('tiny table: the finding says whether the schema could serve it', async () => {
  const svc = new ExplainService(new DbConnection(opts()));
  try {
    const r = await svc.explainSql('SELECT * FROM categories WHERE category_name = ?');
    assert.match(r.findings[0].message, /will scan at scale/);
    assert.equal(r.findings[0].severity, 'info');
  } finally { await svc.close(); }
});

void test('substitutions use sampled values; INSERT … VALUES and run-time table names are skipped with a reason', async () => {
  const svc = new ExplainService(new DbConnection(opts()));
  try {
    const r = await svc.explainSql('SELECT * FROM users WHERE account_name = ? AND id IN (?)');
    assert.equal(r.substitutions[0].source, 'sample');
    assert.match(r.substitutions[0].value, /^'user\d+'$/);
    assert.equal(r.substitutions[1].value.split(',').length, 3);
    assert.match((await svc.explainSql('INSERT INTO tags (id, name) VALUES (?, ?)')).skipped ?? '', /no plan/);
    assert.match((await svc.explainSql('REPLACE INTO tags (id, name) VALUES (?, ?)')).skipped ?? '', /no plan/);
    const upd = await svc.explainSql('UPDATE posts SET mime = ? WHERE user_id = ? ORDER BY id LIMIT 3');
    assert.match(upd.explainedSql ?? '', /^SELECT \* FROM posts WHERE user_id = \d+ ORDER BY id LIMIT 3$/);
    assert.match((await svc.explainSql('SELECT * FROM /*?dynamic*/ WHERE id = ?')).skipped ?? '', /table name/);
  } finally { await svc.close(); }
});

void test('schema: tables, column types, index order, uniqueness, cardinality, sub-parts, generation', async () => {
  const svc = new ExplainService(new DbConnection(opts()));
  try {
    const s = await svc.schema();
    assert.equal(s.flavor, 'mariadb');
    assert.ok(s.tables.comments.rows > 100_000);
    const items = s.tables.items;
    assert.deepEqual(items.indexes.find((i) => i.name === 'idx_category_created')?.columns, ['category_id', 'created_at']);
    assert.deepEqual(items.indexes.find((i) => i.name === 'idx_name_prefix')?.subParts, [10]);
    assert.equal(s.tables.users.indexes.find((i) => i.name === 'account_name')?.unique, true);
    assert.ok((items.indexes[0].cardinality?.[0] ?? 0) > 1000);
    assert.match(items.columns.find((c) => c.name === 'status')!.type, /^enum\('on_sale'/);
    const first = await svc.explainSql('SELECT * FROM users WHERE id = ?');
    assert.equal((await svc.explainSql('SELECT * FROM users WHERE id = ?')).cached, true);
    const s2 = await svc.refreshSchema();
    assert.equal(s2.generation, s.generation + 1);
    const again = await svc.explainSql('SELECT * FROM users WHERE id = ?');
    assert.equal(again.cached, false);
    assert.equal(again.generation, first.generation + 1);
  } finally { await svc.close(); }
});

void test('faults: server down, wrong password, unknown database → clear errors', async () => {
  const down = new ExplainService(new DbConnection({ host: '127.0.0.1', port: 1, user: 'qi', password: 'x', database: 'isu', connectTimeoutMs: 2000 }));
  const r1 = await down.explainSql('SELECT 1');
  assert.equal(r1.error?.kind, 'unreachable');
  assert.match(r1.error!.message, /cannot reach the database at 127\.0\.0\.1:1/);
  const wrong = new ExplainService(new DbConnection(opts({ password: 'nope' })));
  const r2 = await wrong.explainSql('SELECT 1');
  assert.equal(r2.error?.kind, 'auth');
  assert.match(r2.error!.message, /access denied for user qi/);
  const nodb = new DbConnection({ socket: db.socket, user: 'root', database: 'nosuchdb' });
  await assert.rejects(nodb.connect(), (e: DbError) => e.kind === 'unknown-database' && /"nosuchdb" does not exist/.test(e.message));
  const tcp = new DbConnection(opts({ socket: undefined, host: '127.0.0.1', port: db.port }));
  assert.equal((await tcp.connect()).flavor, 'mariadb');
  await tcp.close();
});

void test('faults: unknown table, unparsable SQL → error on the site, next call fine', async () => {
  const svc = new ExplainService(new DbConnection(opts()));
  try {
    const a = await svc.explainSql('SELECT * FROM old_table WHERE id = ?');
    assert.equal(a.error?.kind, 'unknown-table');
    assert.match(a.error!.message, /old_table/);
    const b = await svc.explainSql('SELECT * FROM posts WHERE AND ORDER');
    assert.equal(b.error?.kind, 'syntax');
    const c = await svc.explainSql('SELECT * FROM users WHERE id = ?');
    assert.equal(c.error, undefined);
    assert.ok(c.plan);
  } finally { await svc.close(); }
});

void test('faults: a slow EXPLAIN times out, then the service recovers', async () => {
  const admin = await mysql.createConnection({ socketPath: db.socket, user: 'root', database: 'isu' });
  const svc = new ExplainService(new DbConnection(opts({ queryTimeoutMs: 1000 })));
  try {
    await svc.schema();
    // why: a table locked for writing by another session blocks even EXPLAIN (metadata lock wait).
    await admin.query('LOCK TABLES tags WRITE');
    const r = await svc.explainSql('SELECT * FROM tags');
    assert.equal(r.error?.kind, 'timeout', JSON.stringify(r.error));
    await admin.query('UNLOCK TABLES');
    const ok = await svc.explainSql('SELECT * FROM tags');
    assert.equal(ok.error, undefined, JSON.stringify(ok.error));
    assert.ok(ok.plan);
  } finally { await admin.end(); await svc.close(); }
});

void test('faults: connection killed mid-way → clear error at most once, then reconnects', async () => {
  const admin = await mysql.createConnection({ socketPath: db.socket, user: 'root' });
  const conn = new DbConnection(opts());
  const svc = new ExplainService(conn);
  try {
    await svc.explainSql('SELECT * FROM users WHERE id = ?');
    const tid = conn.threadId;
    assert.ok(tid);
    await admin.query(`KILL ${tid}`);
    const r = await svc.explainSql('SELECT * FROM posts WHERE id = ?');
    if (r.error) assert.equal(r.error.kind, 'connection-lost', JSON.stringify(r.error));
    const r2 = await svc.explainSql('SELECT * FROM posts WHERE id = ?');
    assert.equal(r2.error, undefined, JSON.stringify(r2.error));
    assert.equal(conn.connects, 2);
    assert.notEqual(conn.threadId, tid);
  } finally { await admin.end(); await svc.close(); }
});

void test('the guard refuses writes even when asked directly', async () => {
  const conn = new DbConnection(opts());
  try {
    await assert.rejects(conn.query('explain', 'DELETE FROM posts'), (e: DbError) => e.kind === 'refused');
    await assert.rejects(conn.query('schema', 'SELECT * FROM posts'), (e: DbError) => e.kind === 'refused');
    await assert.rejects(conn.query('ddl', 'ALTER TABLE posts ADD INDEX i (user_id)'), (e: DbError) => e.kind === 'refused');
  } finally { await conn.close(); }
});

void test('explain CLI: findings as JSON Lines, --fail-on, and only EXPLAIN / schema / sample / SET in the general log', async () => {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (d) => { stdout += d; });
  err.on('data', (d) => { stderr += d; });
  const app = join(FIXTURES, 'explain', 'app');
  const code = await explainCommand.run(['--socket', db.socket, '--user', 'qi', '--database', 'isu', '--format', 'json', '--fail-on', 'error', app],
    { stdout: out, stderr: err, env: { MYSQL_PWD: PASSWORD }, cwd: app });
  assert.equal(code, 1, stderr);
  const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const got = lines.map((l) => `${l.file}:${l.line} ${l.code}`).sort();
  assert.deepEqual(got, ['main.go:26 explain-error', 'main.go:7 filesort', 'main.go:7 full-table-scan', 'main.go:22 join-without-index'].sort());
  const scan = lines.find((l) => l.code === 'full-table-scan')!;
  assert.equal(scan.table, 'posts');
  assert.equal(scan.severity, 'error');
  assert.equal((scan.plan as { type: string }[])[0].type, 'ALL');
  assert.match(stderr, /explained 3 of 5 statements/);

  const log = readFileSync(db.generalLog, 'utf8').split('\n');
  const ours = new Set<string>();
  const sent: string[] = [];
  for (const line of log) {
    const m = /^(?:\S+\s+\S+)?\s+(\d+)\s+(Connect|Query|Init DB|Quit|Prepare|Execute)\t?(.*)$/.exec(line);
    if (!m) continue;
    if (m[2] === 'Connect' && /^qi@/.test(m[3])) ours.add(m[1]);
    else if (ours.has(m[1]) && m[2] !== 'Quit' && m[2] !== 'Connect') sent.push(`${m[2]} ${m[3]}`);
  }
  assert.ok(sent.length > 10, `too few statements found in the general log: ${sent.length}`);
  const allowed = /^Query (?:EXPLAIN (?:FORMAT=JSON )?(?:SELECT|UPDATE|DELETE|INSERT|REPLACE|WITH)\b|SET SESSION |SELECT VERSION\(\)|SELECT .+ FROM information_schema\.|SELECT DISTINCT `[^`]+` FROM `isu`\.`[^`]+` WHERE `[^`]+` IS NOT NULL LIMIT \d+$|SELECT COUNT\(\*\) AS d, SUM\(k\) AS n, SUM\(k = 1\) AS f1 FROM \(SELECT COUNT\(\*\) AS k FROM \(SELECT (`[^`]+`) FROM `isu`\.`[^`]+` LIMIT 20000\) AS s GROUP BY \1\) AS g$)/;
  const bad = sent.filter((s) => !allowed.test(s));
  assert.deepEqual(bad, []);
  for (const kind of [/^Query EXPLAIN SELECT/, /^Query EXPLAIN FORMAT=JSON/, /^Query SELECT DISTINCT/, /^Query SET SESSION TRANSACTION READ ONLY/, /information_schema/]) {
    assert.ok(sent.some((s) => kind.test(s)), `no ${kind} in the general log`);
  }
});

void test('explain CLI: the two variants of one line (a branch appends LIMIT 3) are labelled, not printed as two identical rows', async () => {
  const app = join(FIXTURES, 'explain', 'variants');
  const run = async (format: string) => {
    const out = new PassThrough();
    const err = new PassThrough();
    let stdout = '';
    let stderr = '';
    out.on('data', (d) => { stdout += d; });
    err.on('data', (d) => { stderr += d; });
    const code = await explainCommand.run(['--socket', db.socket, '--user', 'qi', '--database', 'isu', '--format', format, app], { stdout: out, stderr: err, env: { MYSQL_PWD: PASSWORD }, cwd: app });
    return { code, stdout, stderr };
  };
  const json = await run('json');
  assert.equal(json.code, 0, json.stderr);
  const scans = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as { line: number; code: string; variant?: string })
    .filter((r) => r.code === 'full-table-scan');
  assert.deepEqual(scans.map((r) => `${r.line} ${r.variant}`).sort(), ['7 variant 1 of 2: without LIMIT 3', '7 variant 2 of 2: LIMIT 3']);
  const table = await run('table');
  const rows = table.stdout.split('\n').filter((l) => /main\.go:7 .*full-table-scan/.test(l));
  assert.equal(rows.length, 2, table.stdout);
  assert.notEqual(rows[0], rows[1], 'the two rows differ');
  assert.match(table.stdout, /\| variant +\|/);
  assert.ok(rows.some((r) => /variant 2 of 2: LIMIT 3/.test(r)) && rows.some((r) => /variant 1 of 2: without LIMIT 3/.test(r)), rows.join('\n'));
});
