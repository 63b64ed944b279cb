/**
 * Two readings answer whether a slow-log statement ends inside a string, quoted name or block
 * comment (then a header-looking line after it is still its text): the reader's incremental scan
 * (QuoteScan) and the SQL lexer under the fingerprint, which the reader uses for the first check of
 * each statement. They must agree on every statement, read whole or line by line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QuoteScan } from '../../../src/core/logs/slowQuoteScan';
import { parseSlowLog, SlowLogParser } from '../../../src/core/logs/slowLogParser';
import { forEachLine } from '../../../src/core/logs/lineSource';
import { SlowStatsCollector } from '../../../src/core/logs/slowStats';
import { fingerprint, fingerprintInto, lastFingerprintOpen } from '../../../src/core/sql/fingerprint';

const encode = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

function lexerOpen(b: Uint8Array): boolean {
  fingerprintInto(b, 0, b.length);
  return lastFingerprintOpen();
}

/** The scan as the reader runs it: asked at the end of each line, and at the end. */
function scanOpen(b: Uint8Array, extraStops: (i: number) => boolean = () => false): boolean {
  const q = new QuoteScan();
  let open = false;
  for (let e = 0; e <= b.length; e++) if (e === b.length || b[e] === 10 || extraStops(e)) open = q.openAt(b, e);
  return open;
}

const CASES: [string, boolean][] = [
  ["SELECT 'a", true],
  ["SELECT 'a'", false],
  ["SELECT 'a''", true],
  ["SELECT 'it''s'", false],
  ["SELECT 'a\\", true],
  ["SELECT 'a\\'", true],
  ["SELECT 'a\\\\'", false],
  ['SELECT "a\\"b', true],
  ['SELECT `a', true],
  ['SELECT `a\\`', false],
  ['SELECT ``a``', false],
  ['SELECT /* x', true],
  ['SELECT /* x */ 1', false],
  ["SELECT /*!40101 'a */ 1", false],
  ["SELECT /*?dynamic*/ 'a", true],
  ["SELECT @'a", true],
  ["SELECT X'4F", true],
  ["SELECT 1 -- it's", false],
  ["SELECT 1 --it's", true],
  ["SELECT 1 --\tit's", false],
  // MySQL: `--` starts a comment before any space or control character
  ["SELECT 1 --\fit's", false],
  ["SELECT 1 --\x01it's", false],
  ["SELECT 1-'", true],
  ["SELECT 1 # it's", false],
  ["SELECT 'a\n# Time: 2024-03-02T10:00:00Z\n", true],
];

void test('the scan and the lexer agree on statements that end open or closed', () => {
  for (const [sql, open] of CASES) {
    const b = encode(sql);
    assert.equal(lexerOpen(b), open, `lexer: ${JSON.stringify(sql)}`);
    assert.equal(scanOpen(b), open, `scan: ${JSON.stringify(sql)}`);
    assert.equal(scanOpen(b, () => true), open, `scan byte by byte: ${JSON.stringify(sql)}`);
  }
});

void test('the scan and the lexer agree on random statements of quotes, escapes, comments and control characters', () => {
  const alphabet = Array.from("'\"`\\/*-#\n ab;\t@!xX$?:%.1\f\x01\x0b", (c) => c.charCodeAt(0));
  const pieces = ['/*?dynamic*/', '/*!40101 ', "X'", '\u00e9'].map(encode);
  let seed = 7;
  const rnd = (n: number): number => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
  for (let t = 0; t < 20000; t++) {
    const units: number[] = [];
    const want = 1 + rnd(t % 4 === 0 ? 100 : 25);
    while (units.length < want) {
      const r = rnd(40);
      if (r < pieces.length) units.push(...pieces[r]);
      else units.push(alphabet[rnd(alphabet.length)]);
    }
    const b = Uint8Array.from(units);
    const stops = new Set(Array.from({ length: 4 }, () => rnd(b.length + 1)));
    const lexer = lexerOpen(b);
    assert.equal(scanOpen(b, (e) => stops.has(e)), lexer, JSON.stringify(String.fromCharCode(...b)));
  }
});

const HEAD = (t: string, q: number) => `# Time: 2024-03-02T10:00:0${t}Z\n# User@Host: isucon[isucon] @ localhost []  Id:    14\n# Query_time: ${q.toFixed(6)}  Lock_time: 0.000010 Rows_sent: 1  Rows_examined: 50\n`;

void test('a quote opened right after a minus at a line end keeps the header-looking lines after it in the statement', () => {
  const log = HEAD('0.1', 0.01) + "SELECT 1-'\n" + HEAD('0.2', 0.02) + "';\n" + HEAD('0.3', 0.03) + 'SELECT 3;\n';
  const { records } = parseSlowLog(log);
  assert.deepEqual(records.map((r) => r.queryTime), [0.01, 0.03]);
  assert.ok(records[0].sql.startsWith("SELECT 1-'\n# Time: 2024-03-02T10:00:00.2Z\n"));
});

void test('the fingerprint the reader makes while checking a statement is the one the statistics would make', () => {
  // statements that end closed (fingerprint made by the check), open at a header (made later), with a
  // `;;`, trailing blanks, a comment-only last line, and a `# Key: value` line inside the statement
  const statements = ['SELECT * FROM t WHERE id = 5;', 'SELECT 1;;', 'SELECT a FROM t  \t;  ', "SELECT 'x\n# Time: 2024-03-02T10:00:00Z\n' FROM t;",
    'SELECT 2\n-- done\n;', 'SELECT 3\n# Note: not a header\n;', 'INSERT INTO t VALUES (1),(2),(3);', 'use db2;', '# administrator command: Quit;'];
  let log = '';
  statements.forEach((s, i) => { log += HEAD(`${i}.1`, 0.001 * (i + 1)) + s + '\n'; });
  const made = new SlowStatsCollector();
  const parser = new SlowLogParser((e) => made.add(e));
  forEachLine(encode(log), (b, s, e, n) => parser.line(b, s, e, n));
  parser.end();
  const got = made.result().map((s) => [s.fingerprint, s.count]);
  const { records } = parseSlowLog(log);
  const want = new Map<string, number>();
  // an administrator command's class is the command as logged (pt-query-digest's)
  const key = (r: (typeof records)[number]): string => (r.admin ? r.sql : fingerprint(r.sql));
  for (const r of records) want.set(key(r), (want.get(key(r)) ?? 0) + 1);
  assert.deepEqual(got, [...want.entries()]);
  assert.equal(records.length, statements.length);
});
