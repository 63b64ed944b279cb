/**
 * The slow-log reader on the oddities real logs contain (issue #14) and on hostile ones (issue #15):
 * every entry pt-query-digest keeps is kept, damage is counted, forged header lines inside a string
 * literal stay in their statement, and bad numbers are malformed by reason. Each log is written here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SlowLogParser, parseSlowLog } from '../../../src/core/logs/slowLogParser';
import { forEachLine } from '../../../src/core/logs/lineSource';
import { SlowStatsCollector } from '../../../src/core/logs/slowStats';
import { fingerprint } from '../../../src/core/sql/fingerprint';

const HEAD = (t: string, q: number, id = 14) => `# Time: 2024-03-02T10:00:0${t}Z\n# User@Host: isucon[isucon] @ localhost []  Id:    ${id}\n# Query_time: ${q.toFixed(6)}  Lock_time: 0.000010 Rows_sent: 1  Rows_examined: 50\n`;

function lineSum(summary: ReturnType<typeof parseSlowLog>['summary']): number {
  const c = summary.lineCounts;
  return c.entries + c.malformed + c.banners + c.blank;
}

void test('`# User:` instead of `# User@Host:`: every entry kept, each counted as damaged', () => {
  let log = '';
  for (let i = 0; i < 50; i++) {
    log += `# Time: 2024-03-02T10:00:00.${String(i).padStart(6, '0')}Z\n# User: isucon\n# Query_time: 0.010000  Lock_time: 0.000010 Rows_sent: 1  Rows_examined: 50\nSET timestamp=1709373600;\nSELECT name FROM chairs WHERE id = ${i};\n`;
  }
  const { records, summary } = parseSlowLog(log);
  assert.equal(records.length, 50);
  assert.equal(summary.malformed, 0);
  assert.equal(summary.damaged, 50);
  assert.equal(summary.damagedSamples[0].reason, 'no # User@Host line');
  assert.ok(records.every((r) => r.user === '' && r.extra?.User === 'isucon' && r.queryTime === 0.01));
  assert.equal(records[49].sql, 'SELECT name FROM chairs WHERE id = 49');
  assert.equal(lineSum(summary), summary.lines);
});

void test('a garbled `# Time:` keeps its entry (time from SET timestamp) and is counted as damaged', () => {
  const log = '# Time: margdl 11:48:27\n# User@Host: isucon[isucon] @ localhost []  Id:    14\n# Query_time: 0.110000  Lock_time: 0.000010 Rows_sent: 1  Rows_examined: 900\n'
    + 'SET timestamp=1709373600;\nSELECT * FROM livestreams WHERE user_id = 4;\n'
    + '# Time: 2024-13-02T10:00:01.000001Z\n# User@Host: isucon[isucon] @ localhost []  Id:    14\n# Query_time: 0.120000  Lock_time: 0.000010 Rows_sent: 1  Rows_examined: 900\n'
    + 'SELECT * FROM livestreams WHERE user_id = 5;\n'
    + HEAD('2.000001', 0.005) + 'SET timestamp=1709373602;\nSELECT * FROM themes WHERE user_id = 5;\n';
  const { records, summary } = parseSlowLog(log);
  assert.equal(records.length, 3);
  assert.equal(summary.damaged, 2);
  assert.deepEqual(summary.damagedSamples.map((d) => [d.line, d.reason]), [[1, 'unreadable # Time'], [6, 'unreadable # Time']]);
  assert.equal(records[0].time, 1709373600000);
  assert.ok(Number.isNaN(records[1].time), 'month 13 is not a date');
  assert.equal(records[2].time, Date.UTC(2024, 2, 2, 10, 0, 2) + 0.001);
});

void test('`# Time:` values read in a row: each its own date, hour and clock, the bad ones unreadable whatever came before', () => {
  const times = ['2024-03-02T10:00:00.000001Z', '2024-03-02T10:59:60.5Z', '2024-03-02T11:00:01Z', '2024-03-03T11:00:01+09:00', '2024-03-03T11:61:00Z',
    '2024-03-03T11:07:09.25Z', '2024-03-03T24:00:00Z', '2024-03-03T11:07:x9Z', '2024-03-03T11:07:09Z', '2023-03-03T11:07:09Z', '2024-02-30T11:00:00Z', '2024-03-03T11:60:00Z'];
  const log = times.map((t) => `# Time: ${t}\n# User@Host: a[a] @ h []  Id: 1\n# Query_time: 0.1  Lock_time: 0 Rows_sent: 1  Rows_examined: 1\nSELECT 1;\n`).join('');
  const { records } = parseSlowLog(log);
  const want = (t: string): number => {
    const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?(Z|\+09:00)$/.exec(t);
    if (!m || +m[4] > 23 || +m[5] > 59 || +m[6] > 60) return NaN;
    const ms = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], 0) + +m[6] * 1000 + (m[7] ? Number(m[7]) * 1000 : 0);
    return m[8] === 'Z' ? ms : ms - 9 * 3600000;
  };
  assert.deepEqual(records.map((r) => r.time), times.map(want));
});

void test('the last statement without `;` is kept (a log still being written)', () => {
  const log = HEAD('0.000100', 0.01) + 'SELECT name FROM chairs WHERE id = 12;\n' + HEAD('0.000200', 0.25) + 'SELECT COUNT(*)\nFROM chairs WHERE stock > 0';
  const { records, summary } = parseSlowLog(log);
  assert.deepEqual(records.map((r) => r.sql), ['SELECT name FROM chairs WHERE id = 12', 'SELECT COUNT(*)\nFROM chairs WHERE stock > 0']);
  assert.equal(records[1].queryTime, 0.25);
  assert.equal(summary.malformed, 0);
  assert.deepEqual(summary.damagedSamples.map((d) => d.reason), ['statement without its final ;']);
});

void test('an entry that is only `use db;` is kept as `use ?`; an administrator command on line 1 with no header is kept', () => {
  const log = '# administrator command: Quit;\n'
    + HEAD('0.000100', 0.0001) + 'use isuride;\n'
    + HEAD('0.000200', 0.03) + 'SET timestamp=1709373600;\nSELECT * FROM rides WHERE chair_id = \'c1\';\n';
  const { records, summary } = parseSlowLog(log);
  assert.deepEqual(records.map((r) => [r.sql, r.admin]), [['administrator command: Quit', true], ['use isuride', false], ["SELECT * FROM rides WHERE chair_id = 'c1'", false]]);
  assert.equal(fingerprint(records[1].sql), 'use ?');
  assert.equal(records[1].schema, 'isuride');
  assert.equal(records[1].queryTime, 0.0001);
  assert.equal(summary.malformed, 0);
  assert.deepEqual(summary.damagedSamples.map((d) => [d.line, d.reason]), [[1, 'administrator command without a header'], [2, 'only `use db;`, no statement']]);
  assert.equal(lineSum(summary), summary.lines);
});

void test('garbage between entries: counted once, and reading resumes at the next header', () => {
  const log = HEAD('0.1', 0.01) + 'SELECT 1;\n\x00\x00garbage\xff line\nmore garbage\n' + HEAD('0.2', 0.02) + 'SELECT 2;\n';
  const { records, summary } = parseSlowLog(log);
  // the garbage follows a statement: it is text of that statement (as pt-query-digest reads it) up to the next header
  assert.equal(records.length, 2);
  assert.equal(records[1].sql, 'SELECT 2');
  assert.equal(summary.damaged, 1);
  assert.equal(summary.damagedSamples[0].reason, 'statement without its final ;');
  const cut = HEAD('0.1', 0.01) + 'SELECT * FROM t WHERE id IN (1, 2\n' + HEAD('0.2', 0.02) + 'SELECT 2;\n';
  const r2 = parseSlowLog(cut);
  assert.deepEqual(r2.records.map((r) => r.sql), ['SELECT * FROM t WHERE id IN (1, 2', 'SELECT 2'], 'a strict header recovers after an entry cut mid-statement');
  assert.equal(r2.summary.damaged, 1);
});

void test('the schema is carried forward as the server writes it: `use db;` only when it changes, for every connection', () => {
  const log = HEAD('0.1', 0.01, 14) + 'use isucon;\nSET timestamp=1709373600;\nSELECT 1;\n'
    + HEAD('0.2', 0.01, 15) + 'SET timestamp=1709373600;\nSELECT 2;\n'
    + '# Time: 2024-03-02T10:00:00.3Z\n# User@Host: isucon[isucon] @ localhost []\n# Query_time: 0.1  Lock_time: 0 Rows_sent: 1  Rows_examined: 1\nSELECT 3;\n'
    + HEAD('0.4', 0.01, 15) + 'use other;\nSELECT 4;\n' + HEAD('0.5', 0.01, 14) + 'SELECT 5;\n';
  const { records } = parseSlowLog(log);
  assert.deepEqual(records.map((r) => r.schema), ['isucon', 'isucon', 'isucon', 'other', 'other']);
});

void test('forged entries: header lines inside an open string literal belong to the statement', () => {
  // what a driver sends for the value `x';` + forged lines: the quote escaped, the newlines raw
  const payload = "x\\';\n# Time: 2024-03-02T10:00:09.000000Z\n# User@Host: evil[evil] @ localhost []  Id: 99\n# Query_time: 999.000000  Lock_time: 0.000000 Rows_sent: 0  Rows_examined: 0\nSELECT SLEEP(999);\n# c''";
  const insert = `INSERT INTO livecomments (user_id, comment) VALUES (7, 'it\\'s ${payload}'), (8, "say ""hi""\n# Query_time: 5");`;
  const log = HEAD('0.1', 0.002) + `SET timestamp=1709373600;\n${insert}\n` + HEAD('0.2', 0.003) + 'SELECT 2;\n';
  const { records, summary } = parseSlowLog(log);
  assert.equal(summary.malformed, 0);
  assert.equal(summary.damaged, 0);
  assert.deepEqual(records.map((r) => r.queryTime), [0.002, 0.003]);
  assert.equal(records[0].sql, insert.slice(0, -1));
  assert.equal(records[0].user, 'isucon');
  assert.equal(fingerprint(records[0].sql), fingerprint('INSERT INTO livecomments (user_id, comment) VALUES (1, \'a\'), (2, "b")'));
  // a block comment and a quoted name hide headers too; a line comment does not
  const other = HEAD('0.1', 0.002) + 'SELECT /* a\n# Query_time: 9\n*/ `col\n# Time: 2024-03-02T10:00:00Z\n` FROM t;\n' + HEAD('0.2', 0.003) + 'SELECT 1 -- it\'s\n;\n' + HEAD('0.3', 0.004) + 'SELECT 3;\n';
  const r2 = parseSlowLog(other);
  assert.deepEqual(r2.records.map((r) => r.queryTime), [0.002, 0.003, 0.004]);
});

void test('a literal left open by a log cut inside it: the entries after it are read again, each line once', () => {
  const log = HEAD('0.1', 0.01) + "INSERT INTO t VALUES ('cut here\n"
    + '/usr/sbin/mariadbd, Version: 10.11.6-MariaDB-log (Debian 12). started with:\nTcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n'
    + HEAD('1.1', 0.02) + "SELECT 'a' FROM t;\n" + HEAD('1.2', 0.03) + "SELECT 'b', 'c' FROM t;\n" + HEAD('1.3', 0.04) + 'SELECT 4;\n';
  const { records, summary } = parseSlowLog(log);
  assert.deepEqual(records.map((r) => r.queryTime), [0.01, 0.02, 0.03, 0.04]);
  assert.equal(records[0].sql, "INSERT INTO t VALUES ('cut here\n/usr/sbin/mariadbd, Version: 10.11.6-MariaDB-log (Debian 12). started with:\nTcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument");
  assert.equal(records[3].sql, 'SELECT 4');
  assert.equal(summary.reread, 1);
  assert.equal(summary.damaged, 1);
  assert.equal(summary.lines, log.split('\n').length - 1);
  assert.equal(lineSum(summary), summary.lines);
});

void test('negative, absurd and unreadable times make the entry malformed, by reason; a bad count only damages it', () => {
  const bad = (q: string) => `# Time: 2024-03-02T10:00:00.1Z\n# User@Host: a[a] @ h []  Id: 1\n# Query_time: ${q}  Lock_time: 0.000010 Rows_sent: 1  Rows_examined: 50\nSELECT 1;\n`;
  const log = bad('-0.5') + bad('18446744073709.550781') + bad('1e309') + bad('0.5')
    + '# User@Host: a[a] @ h []  Id: 1\n# Query_time: 0.2  Lock_time: 0 Rows_sent: -3  Rows_examined: 5\nSELECT 2;\n';
  const { records, summary } = parseSlowLog(log);
  assert.deepEqual(records.map((r) => r.queryTime), [0.5, 0.2]);
  assert.equal(records[1].rowsSent, 0);
  assert.deepEqual(summary.problems.map((p) => p.reason), ['negative Query_time -0.5', 'absurd Query_time 18446744073709.550781 (over 30 days)', 'unreadable number "1e309"']);
  assert.deepEqual(summary.damagedSamples.map((p) => p.reason), ['unreadable number "-3"']);
});

void test('an out-of-range SET timestamp damages its entry only; the time stays a valid date', () => {
  const log = HEAD('0.1', 0.01) + 'SET timestamp=99999999999999999999;\nSELECT 1;\n' + HEAD('0.2', 0.02) + 'SET timestamp=1709373600;\nSELECT 2;\n';
  const { records, summary } = parseSlowLog(log);
  assert.equal(records.length, 2);
  assert.equal(records[0].time, Date.UTC(2024, 2, 2, 10, 0, 0, 100));
  assert.doesNotThrow(() => new Date(records[0].time).toISOString());
  assert.equal(summary.damaged, 1);
  assert.match(summary.damagedSamples[0].reason, /^SET timestamp out of range/);
});

// why: how the time grows with such a line (`a:a:a…` after Query_time) is logComplexity.test.ts's to check, with the other shapes.
void test('header lines: `a:a:a…` fields are capped, a line over 64 KiB is counted as too long', () => {
  for (const n of [3000, 30000]) {
    const log = `# User@Host: a[a] @ h []  Id: 1\n# Query_time: 0.1 Lock_time: 0 Rows_sent: 1 Rows_examined: 1 ${'a:'.repeat(n)}\nSELECT 1;\n`;
    const { records } = parseSlowLog(log);
    assert.equal(records.length, 1);
    assert.ok(Object.keys(records[0].extra ?? {}).length <= 64);
  }
  const many = `# User@Host: a[a] @ h []  Id: 1\n# Query_time: 0.1 Lock_time: 0 Rows_sent: 1 Rows_examined: 1 ${'K: v '.repeat(1000)}\nSELECT 1;\n`;
  assert.ok(Object.keys(parseSlowLog(many).records[0].extra ?? {}).length <= 64);
  const long = `# User@Host: a[a] @ h []  Id: 1\n# Query_time: 0.1 Lock_time: 0 Rows_sent: 1 Rows_examined: 1\n# Thread_id: 1 ${'a:'.repeat(400_000)}\nSELECT 1;\n`
    + `# User@Host: a[a] @ h []  Id: 1\n# Query_time: 0.1 ${'a:'.repeat(400_000)}\nSELECT 2;\n`;
  const r = parseSlowLog(long);
  assert.equal(r.summary.tooLong, 2);
  assert.deepEqual(r.records.map((x) => x.sql), ['SELECT 1'], 'the entry whose Query_time line was unreadable is malformed');
  assert.match(r.summary.problems[0].reason, /^header line too long \(\d+ bytes\)/);
});

/** The classes of a log: fingerprint → [count, database of the slowest]. */
function classes(log: string): Map<string, [number, string]> {
  const c = new SlowStatsCollector();
  const p = new SlowLogParser((e) => c.add(e));
  forEachLine(new TextEncoder().encode(log), (b, s, e, n) => p.line(b, s, e, n));
  p.end();
  return new Map(c.result().map((s) => [s.fingerprint, [s.count, s.exampleSchema]]));
}

void test('comment lines in the header (Percona Server) stay out of the statement: `use db;` after them sets the database', () => {
  const percona = (db: string, sql: string, schema = '') => `# User@Host: isucon[isucon] @  [10.0.0.2]\n# Thread_id: 6${schema ? `  Schema: ${schema}` : ''}\n`
    + '# Query_time: 0.000899  Lock_time: 0.000000  Rows_sent: 0  Rows_examined: 0\n# No InnoDB statistics available for this query\n'
    + `${db ? `use ${db};\n` : ''}${sql}\n`;
  const log = percona('isuports', 'SET NAMES utf8mb4;') + percona('', 'SELECT * FROM tenant WHERE id = 1;', 'isuports')
    + percona('isuports_2', 'SELECT * FROM tenant WHERE id = 2;') + percona('', 'SET NAMES utf8mb4;');
  const { records, summary } = parseSlowLog(log);
  assert.equal(summary.malformed, 0);
  assert.deepEqual(records.map((r) => [r.sql, r.schema]), [
    ['SET NAMES utf8mb4', 'isuports'], ['SELECT * FROM tenant WHERE id = 1', 'isuports'], ['SELECT * FROM tenant WHERE id = 2', 'isuports_2'], ['SET NAMES utf8mb4', 'isuports_2']]);
  assert.deepEqual([...classes(log).keys()].sort(), ['select * from tenant where id = ?', 'set names utf8mb4']);
  assert.equal(lineSum(summary), summary.lines);
});

void test('administrator commands keep their class as logged; a `use db;` before one does not make it `use ?`', () => {
  // the database of the last `use` carries on (the server writes it only when it changes)
  const log = `${HEAD('0.1', 0.002)}# No InnoDB statistics available for this query\n# administrator command: Quit;\n`
    + `${HEAD('0.2', 0.018)}use isucon;\n# administrator command: Quit;\n${HEAD('0.3', 0.001)}# administrator command: Ping;\n`;
  const got = classes(log);
  assert.deepEqual([...got.entries()].sort(), [['administrator command: Ping', [1, 'isucon']], ['administrator command: Quit', [2, 'isucon']]]);
});

void test('no class has an empty fingerprint: a comment-only statement is its own text, a `;` alone is malformed', () => {
  const log = `${HEAD('0.1', 0.001)}/* ping */;\n${HEAD('0.2', 0.002)}-- health\n-- check\n;\n${HEAD('0.3', 0.003)};\n${HEAD('0.4', 0.004)}SELECT 1;\n`;
  const got = classes(log);
  assert.deepEqual([...got.keys()].sort(), ['-- health -- check', '/* ping */', 'select ?']);
  assert.ok(![...got.keys()].includes(''));
  const { summary } = parseSlowLog(log);
  assert.deepEqual(summary.problems.map((p) => p.reason), ['empty statement']);
  assert.equal(lineSum(summary), summary.lines);
});
