/**
 * Plan findings and index advice on statement shapes that real contest apps have and our own
 * fixtures lacked, each on a schema and data of our own (a video site, 100k+ rows, skewed owners)
 * on a private MariaDB: what the advisor suggests must be what makes the plan cheap, and what the
 * findings say must match the plan in front of them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { adviseStatement } from '../../src/core/analysis/advisor';
import { DbConnection } from '../../src/db/connection';
import { ExplainService } from '../../src/db/explainService';
import { measureStatement } from '../../src/db/measureService';
import { verifyIndex } from '../../src/db/indexVerifier';
import { readSchema } from '../../src/db/schemaReader';
import { startMariaDb, type MariaDbServer } from '../support/mariadb';

// why: owners and channels are skewed the way a real site is (a few popular ones, a long tail), not round-robin.
const SETUP = `
CREATE DATABASE video;
USE video;
CREATE TABLE members (id BIGINT PRIMARY KEY, handle VARCHAR(64) NOT NULL, bio VARCHAR(200) NOT NULL, UNIQUE KEY uq_handle (handle)) ENGINE=InnoDB;
CREATE TABLE channels (id BIGINT PRIMARY KEY, owner_id BIGINT NOT NULL, title VARCHAR(100) NOT NULL, opened_at BIGINT NOT NULL) ENGINE=InnoDB;
CREATE TABLE likes (id BIGINT PRIMARY KEY, member_id BIGINT NOT NULL, channel_id BIGINT NOT NULL, kind VARCHAR(16) NOT NULL, created_at BIGINT NOT NULL) ENGINE=InnoDB;
INSERT INTO members SELECT seq, CONCAT('m', seq), 'hello' FROM seq_1_to_8000;
INSERT INTO channels SELECT seq, IF(seq % 10 < 3, 1 + FLOOR(POW(8000, (seq * 7919 % 1000) / 1000)), 1 + (seq * 104729) % 8000), CONCAT('c', seq), 1700000000 + seq * 60 FROM seq_1_to_20000;
INSERT INTO likes SELECT seq, 1 + (seq * 31) % 8000, IF(seq % 10 < 3, 1 + FLOOR(POW(20000, (seq * 7907 % 1000) / 1000)), 1 + (seq * 15485863) % 20000), ELT(1 + seq % 5, 'wave', 'star', 'fire', 'clap', 'smile'), 1700000000 + seq FROM seq_1_to_150000;
CREATE TABLE slots (id BIGINT PRIMARY KEY, start_at BIGINT NOT NULL, end_at BIGINT NOT NULL, KEY idx_start (start_at, end_at)) ENGINE=InnoDB;
INSERT INTO slots SELECT seq, 1700000000 + seq * 3600, 1700003600 + seq * 3600 FROM seq_1_to_8760;
CREATE TABLE bookings (id BIGINT PRIMARY KEY, seats INT NOT NULL, start_at BIGINT NOT NULL, end_at BIGINT NOT NULL) ENGINE=InnoDB;
INSERT INTO bookings SELECT seq, 5, 1700000000 + seq * 3600, 1700003600 + seq * 3600 FROM seq_1_to_8760;
ANALYZE TABLE members, channels, likes, slots, bookings PERSISTENT FOR ALL;
`;

let server: MariaDbServer;

before(async () => {
  server = await startMariaDb();
  server.sql(SETUP);
}, { timeout: 300_000 } as never);
after(async () => { await server?.stop(); });

const conn = () => new DbConnection({ socket: server.socket, user: server.user, database: 'video', queryTimeoutMs: 30_000 });
const named = (s: { table: string; columns: string[] }) => `${s.table}(${s.columns.join(',')})`;

void test('a join chain: the middle table is reached by the column joined to the table before it, not by its primary key', async () => {
  // members → channels by owner_id → likes by channel_id; channels.id is compared with likes, which is read after it.
  const sql = 'SELECT COUNT(*) FROM members m INNER JOIN channels c ON c.owner_id = m.id INNER JOIN likes l ON l.channel_id = c.id WHERE m.id = ?';
  const filled = sql.replace('?', '42');
  const db = conn();
  const schema = await readSchema(db, 1);
  const advice = adviseStatement(sql, { schema });
  assert.deepEqual(advice.suggestions.map(named), ['channels(owner_id)', 'likes(channel_id)']);
  assert.ok(!advice.served.some((s) => s.table === 'channels'), JSON.stringify(advice.served));
  // Both together make the plan cheap: each table is a lookup.
  const r = await verifyIndex(db, advice.suggestions, filled, { confirmed: true });
  const msg = `${r.before.rowsExamined} ${r.before.access.join(' ')} → ${r.after.rowsExamined} ${r.after.access.join(' ')}`;
  assert.ok(r.before.rowsExamined >= 10 * r.after.rowsExamined, msg);
  await db.close();

  const svc = new ExplainService(conn());
  try {
    // No index yet: the plan scans one table and reaches channels by its primary key; the finding on the scan names both indexes.
    const first = await svc.explainSql(sql);
    const scan = first.findings.find((f) => f.code === 'full-table-scan' || f.code === 'join-without-index');
    assert.ok(scan, JSON.stringify(first.findings));
    assert.match(scan.message, /channels\(owner_id\)/);
    // Only likes(channel_id) added: now channels is scanned, and the finding names the index it lacks, not its primary key.
    server.sql('ALTER TABLE likes ADD INDEX trial_channel (channel_id); ANALYZE TABLE likes', 'video');
    await svc.refreshSchema();
    const second = await svc.explainSql(sql);
    const onChannels = second.findings.find((f) => f.table === 'channels');
    assert.ok(onChannels, JSON.stringify({ plan: second.plan?.rows, findings: second.findings }));
    assert.match(onChannels.message, /no index on channels\(owner_id\)/);
    assert.doesNotMatch(onChannels.message, /PRIMARY/);
  } finally {
    server.sql('ALTER TABLE likes DROP INDEX trial_channel', 'video');
    await svc.close();
  }
});

void test('a locking read through an index: a range open on one side locks thousands of rows; both bounds on the indexed column lock few', async () => {
  const svc = new ExplainService(conn());
  try {
    // Hour 6,000 of the year onwards through idx_start, end_at checked on each: reserving two hours locks the rest of the year.
    const wide = await svc.explainSql('SELECT * FROM slots WHERE start_at >= 1721600000 AND end_at <= 1721607200 FOR UPDATE');
    assert.equal(wide.plan?.rows[0].key, 'idx_start', JSON.stringify(wide.plan?.rows));
    const lock = wide.findings.find((f) => f.code === 'locking-scan');
    assert.ok(lock, JSON.stringify({ plan: wide.plan?.rows, findings: wide.findings }));
    assert.equal(lock.severity, 'warning');
    assert.match(lock.message, /reads ~[\d,]+ rows of slots through index idx_start: InnoDB locks every row it reads/);
    assert.match(lock.message, /both bounds on one indexed column/);
    // The same slots asked as a range of start_at alone: two rows read, nothing to say.
    const narrow = await svc.explainSql('SELECT * FROM slots WHERE start_at >= 1721600000 AND start_at < 1721607200 FOR UPDATE');
    assert.deepEqual(narrow.findings.map((f) => f.code), [], JSON.stringify(narrow.plan?.rows));
  } finally { await svc.close(); }
});

void test('Measure: an aggregate without GROUP BY sends one row, however many rows it counted', async () => {
  const svc = new ExplainService(conn());
  try {
    const count = await measureStatement(svc, 'SELECT COUNT(*) FROM channels c INNER JOIN likes l ON l.channel_id = c.id WHERE c.owner_id = 1');
    assert.equal(count.error, undefined, count.error?.message);
    assert.ok((count.measurement?.rowsRead ?? 0) > 1000, JSON.stringify(count.measurement));
    assert.equal(count.measurement?.rowsSent, 1, JSON.stringify(count.measurement));
    // Grouped, it sends one row per group: not one.
    const grouped = await measureStatement(svc, 'SELECT l.kind, COUNT(*) FROM channels c INNER JOIN likes l ON l.channel_id = c.id WHERE c.owner_id = 1 GROUP BY l.kind');
    assert.notEqual(grouped.measurement?.rowsSent, 1, JSON.stringify(grouped.measurement));
  } finally { await svc.close(); }
});

void test('OFFSET pagination: a page chosen at run time over the whole table is a hint to page by key; a first page is not', async () => {
  const svc = new ExplainService(conn());
  try {
    const paged = await svc.explainSql('SELECT id, kind FROM likes ORDER BY id DESC LIMIT 20 OFFSET ?');
    assert.match(paged.filledSql ?? '', /OFFSET 0$/);
    const f = paged.findings.find((x) => x.code === 'offset-pagination');
    assert.ok(f, JSON.stringify({ plan: paged.plan?.rows, findings: paged.findings }));
    assert.equal(f.severity, 'info');
    assert.match(f.message, /deep pages read up to ~[\d,]+ rows of likes/);
    const first = await svc.explainSql('SELECT id, kind FROM likes ORDER BY id DESC LIMIT 20');
    assert.deepEqual(first.findings.map((x) => x.code), []);
  } finally { await svc.close(); }
});

void test('a window read (start_at >= ? AND end_at <= ?) on a narrow table: the index suggested is one the server uses', async () => {
  // Without the other columns, an index on start_at alone leaves a third of the year to look up row by row, and the server scans instead.
  const sql = 'SELECT * FROM bookings WHERE start_at >= 1721600000 AND end_at <= 1721607200 FOR UPDATE';
  const db = conn();
  try {
    const schema = await readSchema(db, 1);
    const advice = adviseStatement(sql.replace(' FOR UPDATE', ''), { schema });
    assert.deepEqual(advice.suggestions.map(named), ['bookings(start_at,end_at,seats)']);
    assert.equal(advice.suggestions[0].covering, true);
    const r = await verifyIndex(db, advice.suggestions, sql.replace(' FOR UPDATE', ''), { confirmed: true });
    assert.ok(r.after.access.some((a) => a.includes(advice.suggestions[0].name)), `the plan uses the new index: ${r.after.access.join(' ')}`);
  } finally { await db.close(); }
});
