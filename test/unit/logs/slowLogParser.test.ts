import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import { parseSlowLog, SlowLogParser } from '../../../src/core/logs/slowLogParser';
import { forEachLine } from '../../../src/core/logs/lineSource';

const fixture = (name: string): string => readFileSync(join(FIXTURES, 'logs/slow', name), 'utf8');

void test('MySQL 5.7: ISO # Time, Id on User@Host, use db, multi-line statement, admin command, banner mid-file', () => {
  const { records, summary } = parseSlowLog(fixture('mysql57.log'));
  assert.equal(summary.malformed, 0, JSON.stringify(summary.problems));
  assert.equal(summary.banners, 2);
  assert.equal(records.length, 4);
  const [a, b, c, d] = records;
  assert.equal(a.sql, 'SELECT * FROM users WHERE id = 42');
  assert.equal(a.time, Date.UTC(2023, 10, 14, 22, 13, 20, 123) + 0.456);
  assert.equal(a.preciseTime, true);
  assert.equal(a.user, 'isucon');
  assert.equal(a.host, 'localhost');
  assert.equal(a.threadId, 5);
  assert.equal(a.schema, 'isuconp');
  assert.equal(a.queryTime, 0.001234);
  assert.equal(a.lockTime, 0.0001);
  assert.equal(a.rowsSent, 1);
  assert.equal(a.rowsExamined, 1000);
  assert.equal(a.line, 4);
  assert.equal(b.sql, 'SELECT p.id, p.body\nFROM posts p\nWHERE p.user_id IN (1, 2, 3)\nORDER BY p.created_at DESC');
  assert.equal(b.schema, 'isuconp', 'schema carried over for the same connection');
  assert.equal(c.admin, true);
  assert.equal(c.sql, 'administrator command: Quit');
  // log_timestamps=SYSTEM: +09:00 offset normalized to UTC
  assert.equal(d.time, Date.UTC(2023, 10, 14, 22, 13, 22, 500));
  assert.equal(d.schema, 'other-db');
  assert.equal(d.user, 'app');
  assert.equal(d.host, 'web1');
  assert.ok(summary.features.includes('mysql-time'));
});

void test('MySQL 8: log_slow_extra fields, SET last_insert_id/insert_id/timestamp, escaped quotes', () => {
  const { records, summary } = parseSlowLog(fixture('mysql80.log'));
  assert.equal(summary.malformed, 0, JSON.stringify(summary.problems));
  assert.equal(records.length, 3);
  const [a, b, c] = records;
  assert.equal(a.sql, "SELECT * FROM `isu` WHERE `jia_user_id` = 'O\\'Reilly' AND `jia_isu_uuid` = 'it''s'");
  assert.equal(a.bytesSent, 120);
  assert.equal(a.threadId, 17);
  assert.equal(a.extra?.Errno, '0');
  assert.equal(a.extra?.Start, '2023-11-14T22:13:20.499710Z');
  assert.equal(a.extra?.Read_key, '1');
  assert.ok(b.sql.startsWith('INSERT INTO `isu_condition`\n\t\t(`jia_isu_uuid`'));
  assert.ok(b.sql.endsWith("'world')"));
  assert.equal(b.time, Date.UTC(2023, 10, 14, 22, 13, 20, 600), 'precise # Time kept over SET timestamp of the same second');
  assert.equal(b.schema, 'isucon');
  assert.equal(c.threadId, 18);
  assert.ok(summary.features.includes('slow-extra'));
});

void test('MariaDB: legacy # Time carried over, Thread_id/Schema/QC_hit, Rows_affected, verbosity flags, explain lines', () => {
  const { records, summary } = parseSlowLog(fixture('mariadb.log'));
  assert.equal(summary.malformed, 0, JSON.stringify(summary.problems));
  assert.equal(summary.banners, 2);
  assert.equal(records.length, 4);
  const [a, b, c, d] = records;
  assert.equal(a.time, Date.UTC(2023, 10, 14, 22, 13, 20));
  assert.equal(a.preciseTime, false);
  assert.equal(a.threadId, 31);
  assert.equal(a.schema, 'isucon');
  assert.equal(a.extra?.QC_hit, 'No');
  assert.equal(a.rowsAffected, 0);
  assert.equal(a.bytesSent, 120);
  assert.equal(a.fullScan, false);
  assert.equal(a.filesort, false);
  assert.equal(b.line, 13, 'an entry without # Time starts at # User@Host');
  assert.equal(b.time, Date.UTC(2023, 10, 14, 22, 13, 20), 'inherits the last # Time');
  assert.equal(b.fullScan, true);
  assert.equal(b.tmpTableOnDisk, true);
  assert.equal(b.filesort, true);
  assert.equal(b.sql, 'SELECT * FROM posts\n  ORDER BY created_at DESC\n  LIMIT 100');
  assert.equal(b.queryTime, 0.03);
  assert.equal(c.admin, true);
  assert.equal(c.time, Date.UTC(2023, 10, 14, 22, 13, 21), 'space-padded legacy time');
  assert.equal(c.schema, '');
  assert.equal(d.sql, 'SELECT * FROM users WHERE id = 8');
  assert.ok(summary.features.includes('legacy-time') && summary.features.includes('thread-id-line') && summary.features.includes('verbosity'));
});

void test('malformed entries are counted with their line and reason; damaged headers are kept and counted; never fatal', () => {
  const { records, summary } = parseSlowLog(fixture('malformed.log'));
  assert.deepEqual(records.map((r) => r.sql), ['SELECT * FROM users WHERE id = 1', 'SELECT * FROM users WHERE id = 3', 'SELECT * FROM users WHERE id = 4', 'SELECT * FROM users WHERE']);
  assert.equal(summary.malformed, 3);
  assert.deepEqual(summary.problems.map((p) => [p.line, p.reason.split(' (')[0].split(' "')[0]]), [
    [1, 'text without an entry header'],
    [8, 'no statement'],
    [11, 'unreadable number'],
  ]);
  assert.match(summary.problems[0].text, /WHERE id = 5/);
  assert.equal(summary.damaged, 2);
  assert.deepEqual(summary.damagedSamples.map((p) => [p.line, p.reason]), [[16, 'no # Query_time line'], [25, 'statement without its final ;']]);
  assert.equal(records[1].queryTime, 0);
  const c = summary.lineCounts;
  assert.equal(c.entries + c.malformed + c.banners + c.blank, summary.lines);
});

void test('problem samples are bounded but all are counted', () => {
  const one = '# Time: 2023-11-14T22:13:20.1Z\n# User@Host: a[a] @ h []  Id: 1\n# Query_time: x Lock_time: 0 Rows_sent: 0  Rows_examined: 0\nSELECT 1;\n';
  const { summary } = parseSlowLog(one.repeat(50), { maxProblemSamples: 3 });
  assert.equal(summary.malformed, 50);
  assert.equal(summary.problems.length, 3);
});

void test('CRLF line ends and lines split across feeds give the same entries', () => {
  const text = fixture('mysql80.log');
  const plain = parseSlowLog(text).records;
  const crlf = parseSlowLog(text.replace(/\n/g, '\r\n')).records;
  assert.deepEqual(crlf, plain);
  // feeding line by line through the class API with a reused buffer
  const got: string[] = [];
  const p = new SlowLogParser((e) => got.push(new TextDecoder().decode(e.sqlBytes.subarray(0, e.sqlLength))));
  const bytes = new TextEncoder().encode(text);
  const scratch = new Uint8Array(bytes.length);
  forEachLine(bytes, (b, s, e, n) => {
    scratch.fill(0);
    scratch.set(b.subarray(s, e), 7);
    p.line(scratch, 7, 7 + e - s, n);
  });
  p.end();
  assert.deepEqual(got, plain.map((r) => r.sql));
});

void test('overlong statements are read in parts and counted; one with nothing to split at is cut to the limit', () => {
  const long = `SELECT * FROM t WHERE id IN (${Array.from({ length: 2000 }, (_, i) => i).join(', ')});`;
  const { records, summary } = parseSlowLog(`# User@Host: a[a] @ h []  Id: 1\n# Query_time: 0.1 Lock_time: 0 Rows_sent: 0  Rows_examined: 0\n${long}\n`, { maxStatementBytes: 100 });
  assert.equal(summary.longStatements, 1);
  assert.equal(summary.truncatedStatements, 0);
  assert.equal(records.length, 1, 'the entry is kept');
  const blob = `INSERT INTO t VALUES ('${'a'.repeat(500)}');`;
  const cut = parseSlowLog(`# User@Host: a[a] @ h []  Id: 1\n# Query_time: 0.1 Lock_time: 0 Rows_sent: 0  Rows_examined: 0\n${blob}\n`, { maxStatementBytes: 100 });
  assert.equal(cut.summary.truncatedStatements, 1);
  assert.equal(cut.records.length, 1, 'the entry is kept');
  assert.ok(cut.records[0].sql.length <= 100 && cut.records[0].sql.startsWith("INSERT INTO t VALUES ('aaa"));
  assert.equal(cut.summary.malformed, 0);
});

void test('entries alternating between databases by `use db;` lines each get their own', () => {
  const dbs = ['isucon', 'isuports', 'isucon', 'other', 'isuports', 'a', 'b', 'c', 'd', 'isucon'];
  const text = dbs.map((db, i) => `# Time: 2024-01-01T00:00:0${i % 10}.000000Z\n# User@Host: app[app] @ localhost []  Id: 1\n`
    + `# Query_time: 0.001000  Lock_time: 0.000000 Rows_sent: 0  Rows_examined: 0\nuse ${db};\nSELECT ${i};\n`).join('');
  const { records } = parseSlowLog(text);
  assert.deepEqual(records.map((r) => r.schema), dbs);
});

void test('the # Query_time line: the server\'s layout and any other order or spacing give the same figures; odd values still mark the entry', () => {
  const entry = (queryLine: string): { records: ReturnType<typeof parseSlowLog>['records']; summary: ReturnType<typeof parseSlowLog>['summary'] } =>
    parseSlowLog(`# Time: 2023-11-14T22:13:20.000130Z\n# User@Host: app[app] @ localhost []  Id:     7\n${queryLine}\nSELECT 1;\n`);
  const layouts = [
    '# Query_time: 1.250000  Lock_time: 0.000125 Rows_sent: 3  Rows_examined: 1207 Thread_id: 7 Errno: 0 Killed: 0 Bytes_received: 0 Bytes_sent: 91',
    '# Query_time: 1.25 Rows_sent: 3 Lock_time: 0.000125 Bytes_sent: 91 Rows_examined: 1207 Thread_id: 7 Errno: 0 Killed: 0 Bytes_received: 0',
    '# Query_time:   1.250000   Lock_time:   0.000125 Rows_sent: 3.0  Rows_examined: 1207   Thread_id: 7 Errno: 0 Killed: 0 Bytes_received: 0 Bytes_sent: 91   ',
  ];
  for (const line of layouts) {
    const { records, summary } = entry(line);
    assert.equal(summary.malformed, 0, line);
    assert.equal(summary.damaged, 0, line);
    const [r] = records;
    assert.deepEqual([r.queryTime, r.lockTime, r.rowsSent, r.rowsExamined, r.threadId, r.bytesSent], [1.25, 0.000125, 3, 1207, 7, 91], line);
    assert.deepEqual(r.extra, { Errno: '0', Killed: '0', Bytes_received: '0' }, line);
  }
  // without the extra fields: nothing after Rows_examined
  assert.deepEqual(entry('# Query_time: 0.5  Lock_time: 0.1 Rows_sent: 0  Rows_examined: 0').records.map((r) => [r.queryTime, r.lockTime, r.extra]), [[0.5, 0.1, undefined]]);
  // odd values in the usual layout: the entry is dropped or damaged as before
  for (const [line, reason] of [
    ['# Query_time: -0.5  Lock_time: 0.1 Rows_sent: 0  Rows_examined: 0', 'negative Query_time -0.5'],
    ['# Query_time: 0.5  Lock_time: 1e3 Rows_sent: 0  Rows_examined: 0', 'unreadable number "1e3"'],
    ['# Query_time: 9999999  Lock_time: 0 Rows_sent: 0  Rows_examined: 0', 'absurd Query_time 9999999 (over 30 days)'],
  ]) assert.deepEqual(entry(line).summary.problems.map((p) => p.reason), [reason], line);
  const damaged = entry('# Query_time: 0.5  Lock_time: 0.1 Rows_sent: x  Rows_examined: 4');
  assert.deepEqual(damaged.records.map((r) => [r.rowsSent, r.rowsExamined]), [[0, 4]]);
  assert.equal(damaged.summary.damagedSamples[0]?.reason, 'unreadable number "x"');
});

void test('statement lines of every length up to past 512 bytes, one or several per statement, come out as written', () => {
  const words = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const line = (n: number, k: number): string => Array.from({ length: n }, (_, i) => words[(i * 7 + k) % words.length]).join('');
  const statements: string[] = [];
  for (let n = 0; n <= 600; n += n < 40 ? 1 : 37) statements.push(`SELECT '${line(n, n)}'`, `SELECT 1,\n${line(n, 3)},\n  ${line(n + 5, 1)}\n, 2`);
  const text = statements.map((sql, i) => `# Time: 2023-11-14T22:13:${String(i % 60).padStart(2, '0')}.000001Z\n# User@Host: app[app] @ localhost []  Id: 1\n# Query_time: 0.1  Lock_time: 0 Rows_sent: 0  Rows_examined: 0\n${sql};\n`).join('');
  const { records, summary } = parseSlowLog(text);
  assert.equal(summary.malformed, 0);
  assert.deepEqual(records.map((r) => r.sql), statements);
});

void test('User@Host lines of the same length that differ in one byte name their own user and host', () => {
  const hosts = ['web1', 'web2', 'web1', 'wab1', 'web1', 'web1'];
  const users = ['app', 'app', 'apq', 'app', 'app', 'bpp'];
  const text = hosts.map((h, i) => `# Time: 2023-11-14T22:13:2${i}.000001Z\n# User@Host: ${users[i]}[${users[i]}] @ ${h} [10.0.0.1]  Id: ${i + 1}\n# Query_time: 0.1  Lock_time: 0 Rows_sent: 0  Rows_examined: 0\nSELECT ${i};\n`).join('');
  const { records } = parseSlowLog(text);
  assert.deepEqual(records.map((r) => `${r.user}@${r.host}#${r.threadId}`), hosts.map((h, i) => `${users[i]}@${h}#${i + 1}`));
});
