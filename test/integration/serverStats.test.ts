/**
 * server-stats against a private MariaDB started with performance_schema = ON: a known workload of
 * three statement shapes between two snapshots gives exact counts, the full scans, the index nobody
 * read, and nothing of what ran before the window; the general log shows that only SELECTs on
 * performance_schema / information_schema (plus the session set-up) were sent, and that a DROP
 * INDEX goes out only on the confirmed path. A second server without performance_schema gets the
 * message saying how to turn it on.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runCommand } from '../support/runCommand';
import * as mysql from 'mysql2/promise';
import { FIXTURES } from '../support/paths';
import { startMariaDb, type MariaDbServer } from '../support/mariadb';
import { serverStatsCommand } from '../../src/cli/commands/serverStats';
import { DbConnection } from '../../src/db/connection';
import { dropUnusedIndex } from '../../src/db/indexDrop';
import { parseRun } from '../../src/core/report/runs';

let db: MariaDbServer;
let off: MariaDbServer;
let work: string;
const PASSWORD = 'qi-secret';
const APP_PASSWORD = 'app-secret';

function setUsers(server: MariaDbServer): void {
  server.sql(`CREATE USER 'qi'@'localhost' IDENTIFIED BY '${PASSWORD}';
    GRANT SELECT ON isu.* TO 'qi'@'localhost'; GRANT SELECT ON performance_schema.* TO 'qi'@'localhost';
    CREATE USER 'app'@'localhost' IDENTIFIED BY '${APP_PASSWORD}'; GRANT ALL ON isu.* TO 'app'@'localhost';`);
}

before(async () => {
  [db, off] = await Promise.all([startMariaDb({ performanceSchema: true, args: ['--general-log=1'] }), startMariaDb()]);
  for (const s of [db, off]) {
    s.sql('CREATE DATABASE isu');
    s.sql(`CREATE TABLE items (
      id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(64) NOT NULL, seller_id INT NOT NULL, category_id INT NOT NULL,
      price INT NOT NULL, created_at DATETIME NOT NULL,
      KEY idx_category (category_id), KEY idx_seller (seller_id), UNIQUE KEY uk_name (name)
    ) ENGINE=InnoDB`, 'isu');
    const rows: string[] = [];
    for (let i = 1; i <= 3000; i++) rows.push(`(${i}, 'item-${i}', ${i % 97}, ${i % 20}, ${100 + (i % 500)}, '2024-05-01 00:00:00' + INTERVAL ${i} MINUTE)`);
    s.sql(`INSERT INTO items VALUES ${rows.join(',')}; ANALYZE TABLE items;`, 'isu');
    setUsers(s);
  }
  work = mkdtempSync(join(tmpdir(), 'qi-server-stats-'));
}, { timeout: 180_000 } as never);

after(async () => {
  await Promise.all([db?.stop(), off?.stop()]);
  if (work) rmSync(work, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { code, out: stdout, err: stderr } = await runCommand(serverStatsCommand, args, work, { MYSQL_PWD: PASSWORD });
  return { code, stdout, stderr };
}

void test('a window of three statement shapes: exact counts, full scans, the unused index, nothing from before', async () => {
  const app = await mysql.createConnection({ socketPath: db.socket, user: 'app', password: APP_PASSWORD, database: 'isu' });
  try {
    // before the window: the primary-key shape already has a digest with 4 executions
    for (let i = 0; i < 4; i++) await app.query(`SELECT * FROM items WHERE id = ${i + 1}`);
    const conn = ['--socket', db.socket, '--user', 'qi', '--database', 'isu'];
    const first = await cli([...conn, '--save', 'start.json']);
    assert.equal(first.code, 0, first.stderr);

    for (let i = 0; i < 7; i++) await app.query(`SELECT * FROM items WHERE id = ${10 + i * 13}`);
    for (let i = 0; i < 5; i++) await app.query(`SELECT * FROM items WHERE price = ${150 + i}`);
    for (let i = 0; i < 3; i++) await app.query(`SELECT id, name FROM items WHERE category_id = ${i + 1} ORDER BY created_at DESC LIMIT 5`);

    const r = await cli([...conn, '--since', 'start.json', '--format', 'json', '--source', join(FIXTURES, 'serverStats', 'workload'), '--run', 'window.run.json', '--limit', '0']);
    assert.equal(r.code, 0, r.stderr);
    const records = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const stmt = (re: RegExp) => {
      const found = records.filter((x) => x.kind === 'statement' && re.test(x.fingerprint as string));
      assert.equal(found.length, 1, `one shape for ${re}: ${JSON.stringify(records.map((x) => x.fingerprint))}`);
      return found[0];
    };
    const pk = stmt(/^select \* from items where id = \?$/);
    assert.equal(pk.count, 7, 'the 4 executions before the window are not counted again');
    assert.equal(pk.noIndexUsed, 0);
    assert.equal(pk.rowsSent, 7);
    assert.deepEqual(pk.sites, [{ file: 'shop.py', line: 3 }]);
    const scan = stmt(/^select \* from items where price = \?$/);
    assert.equal(scan.count, 5);
    assert.equal(scan.noIndexUsed, 5, 'every execution was a full scan');
    assert.equal(scan.rowsExamined, 5 * 3000);
    assert.deepEqual(scan.sites, [{ file: 'shop.py', line: 8 }]);
    const top = stmt(/^select id, name from items where category_id = \? order by created_at desc limit \?$/);
    assert.equal(top.count, 3);
    assert.equal(top.rowsSent, 15);
    assert.ok((top.sortRows as number) > 0, 'ORDER BY created_at sorts the category\'s rows');
    assert.deepEqual(top.sites, [{ file: 'shop.py', line: 14 }]);
    for (const x of records) {
      if (x.kind !== 'statement') continue;
      assert.ok((x.totalTime as number) > 0 && (x.count as number) > 0, JSON.stringify(x));
      assert.doesNotMatch(x.fingerprint as string, /performance_schema|information_schema/);
    }
    const unused = records.filter((x) => x.kind === 'unused-index').map((x) => `${x.table}.${x.index}`);
    assert.deepEqual(unused, ['items.idx_seller']);
    assert.match(r.stderr, /not listed: items\.uk_name: UNIQUE/);

    const run = parseRun(readFileSync(join(work, 'window.run.json'), 'utf8'));
    assert.equal(run.origin, 'performance_schema');
    assert.equal(run.queries!.find((q) => q.fingerprint === pk.fingerprint)!.count, 7);
    assert.deepEqual(run.unusedIndexes!.map((u) => u.index), ['idx_seller']);
  } finally {
    await app.end();
  }
});

void test('a confirmed DROP INDEX is the one statement beyond reads; unconfirmed it never leaves', async () => {
  const conn = new DbConnection({ socket: db.socket, user: 'app', password: APP_PASSWORD, database: 'isu' });
  try {
    await assert.rejects(dropUnusedIndex(conn, { table: 'items', index: 'idx_seller', database: 'isu' }, { confirmed: false }), /confirmed/);
    const sent = await dropUnusedIndex(conn, { table: 'items', index: 'idx_seller', database: 'isu' }, { confirmed: true });
    assert.equal(sent, 'ALTER TABLE `isu`.`items` DROP INDEX `idx_seller`');
    assert.doesNotMatch(db.sql("SHOW INDEX FROM items WHERE Key_name = 'idx_seller'", 'isu'), /idx_seller/);
  } finally { await conn.close(); }
  const sentBy = (user: string): string[] => {
    const ours = new Set<string>();
    const out: string[] = [];
    for (const line of readFileSync(db.generalLog, 'utf8').split('\n')) {
      const m = /^(?:\S+\s+\S+)?\s+(\d+)\s+(Connect|Query|Init DB|Quit|Prepare|Execute)\t?(.*)$/.exec(line);
      if (!m) continue;
      if (m[2] === 'Connect' && m[3].startsWith(`${user}@`)) ours.add(m[1]);
      else if (ours.has(m[1]) && m[2] !== 'Quit' && m[2] !== 'Connect') out.push(`${m[2]} ${m[3]}`);
    }
    return out;
  };
  const qi = sentBy('qi');
  assert.ok(qi.length >= 10, `too few statements in the general log: ${qi.length}`);
  const allowed = /^Query (?:SELECT .+ FROM (?:performance_schema|information_schema)\.\w+(?: WHERE .*)?$|SELECT VERSION\(\)$|SELECT @@performance_schema$|SET SESSION )/;
  assert.deepEqual(qi.filter((s) => !allowed.test(s)), []);
  for (const t of ['events_statements_summary_by_digest', 'table_io_waits_summary_by_index_usage', 'information_schema.STATISTICS']) {
    assert.ok(qi.some((s) => s.includes(t)), `no read of ${t}`);
  }
  // the tool's connection for the drop (user app here): the confirmed DROP only, inside READ WRITE … READ ONLY
  const app = sentBy('app');
  const drops = app.filter((s) => /DROP|ALTER/i.test(s));
  assert.deepEqual(drops, ['Query ALTER TABLE `isu`.`items` DROP INDEX `idx_seller`']);
  const at = app.indexOf(drops[0]);
  assert.deepEqual(app.slice(at - 1, at + 2), ['Query SET SESSION TRANSACTION READ WRITE', drops[0], 'Query SET SESSION TRANSACTION READ ONLY']);
  assert.equal(app.filter((s) => s.includes('READ WRITE')).length, 1, 'the refused drop touched nothing');
});

void test('performance_schema off: a clear message how to turn it on (my.cnf, restart on MariaDB), exit 1', async () => {
  const out = new PassThrough();
  const err = new PassThrough();
  let stderr = '';
  err.on('data', (d) => { stderr += d; });
  out.resume();
  const code = await serverStatsCommand.run(['--socket', off.socket, '--user', 'qi', '--database', 'isu', '--seconds', '1'],
    { stdout: out, stderr: err, env: { MYSQL_PWD: PASSWORD }, cwd: work });
  assert.equal(code, 1);
  assert.match(stderr, /performance_schema is OFF on this MariaDB server/);
  assert.match(stderr, /performance_schema = ON.*my\.cnf.*restart/s);
});
