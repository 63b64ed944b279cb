/**
 * Statements longer than the reader's statement limit (64 MiB by default; small here, injected) are
 * fingerprinted in parts, so a shape is one class at any length and memory stays bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeFingerprint, fingerprint, fingerprintInto, fingerprintPart, lastCommaEnd, lastFingerprintBytes, type FingerprintPart } from '../../../src/core/sql/fingerprint';
import { SlowLogParser, parseSlowLog, type SlowLogEntry } from '../../../src/core/logs/slowLogParser';
import { forEachLine } from '../../../src/core/logs/lineSource';
import { SlowStatsCollector } from '../../../src/core/logs/slowStats';
import { analyzeSlowLogFile } from '../../../src/node/slowLogFile';

const enc = new TextEncoder();
const HEADER = '# User@Host: app[app] @ localhost []  Id: 7\n# Query_time: 0.5  Lock_time: 0.0 Rows_sent: 0  Rows_examined: 0\n';

/** Rows of a bulk INSERT, with literals holding commas, quotes, parentheses and a comment between rows. */
function bulkInsert(rows: number, sep = ','): string {
  const values = Array.from({ length: rows }, (_, i) => `(${i}, 'it''s, (${i})', "a\\"b,c", -${i}.5, NULL, 0x1F)`);
  return `INSERT INTO \`items\` (id, name, note, price, gone, flags) VALUES ${values.join(sep)} /* done, really */ ON DUPLICATE KEY UPDATE name = VALUES(name), price = price + 1`;
}

const STATEMENTS = [
  bulkInsert(40),
  bulkInsert(40, ',\n'),
  `SELECT id, name FROM users WHERE id IN (${Array.from({ length: 300 }, (_, i) => i * 7).join(', ')}) AND kind = 'a,b' ORDER BY id ASC LIMIT 10, 20`,
  `SELECT /*!40001 SQL_NO_CACHE */ a, b, c, COALESCE(x, -1), f('q,(', 2) FROM t WHERE (a, b) IN ((1, 2), (3, 4)) -- tail, comment\nAND c = 5`,
  `UPDATE t SET a = CASE id ${Array.from({ length: 50 }, (_, i) => `WHEN ${i} THEN 'v${i}'`).join(' ')} END, b = b - -2 WHERE id IN (${Array.from({ length: 50 }, (_, i) => i).join(',')})`,
];

/** The fingerprint of `sql` fingerprinted in parts, split at the last `,` before each of `cuts`. */
function inParts(sql: string, cuts: number[]): string {
  const b = enc.encode(sql);
  let part: FingerprintPart | undefined;
  let from = 0;
  for (const c of cuts) {
    const at = lastCommaEnd(b, from, Math.min(c, b.length));
    if (at <= from) continue;
    part = fingerprintPart(b, from, at, part);
    from = at;
  }
  return decodeFingerprint(lastFingerprintBytes(), fingerprintInto(b, from, b.length, part));
}

void test('a statement fingerprinted in parts, split at any of its commas, gives the whole statement\'s fingerprint', () => {
  for (const sql of STATEMENTS) {
    const whole = fingerprint(sql);
    const n = enc.encode(sql).length;
    for (let c = 1; c < n; c += 7) assert.equal(inParts(sql, [c]), whole, `${sql.slice(0, 30)} split at ${c}`);
    for (const step of [13, 50, 200]) {
      const cuts = Array.from({ length: Math.ceil(n / step) }, (_, i) => (i + 1) * step);
      assert.equal(inParts(sql, cuts), whole, `${sql.slice(0, 30)} every ${step}`);
    }
  }
  assert.equal(lastCommaEnd(enc.encode("SELECT 'a,b' /* , */"), 0, 20), -1, 'commas in literals and comments are not split points');
});

void test('the slow-log reader keeps one class for one shape at any length, in memory bounded by its limit', () => {
  const limit = 512;
  const sizes = [3, 40, 400, 4000];
  const log = sizes.map((rows) => `${HEADER}${bulkInsert(rows, rows % 2 ? ',\n' : ',')};\n`).join('');
  const c = new SlowStatsCollector();
  let largest = 0;
  const p = new SlowLogParser((e: SlowLogEntry) => { largest = Math.max(largest, e.sqlBytes.length); c.add(e); }, { maxStatementBytes: limit });
  forEachLine(enc.encode(log), (b, s, e, n) => p.line(b, s, e, n));
  const summary = p.end();
  assert.equal(summary.entries, 4);
  assert.equal(summary.truncatedStatements, 0);
  assert.equal(summary.longStatements, 3);
  assert.equal(summary.damaged, 0);
  assert.ok(largest <= Math.max(limit, 4096), `statement buffer ${largest} bytes (it starts at 4 KiB)`);
  const stats = c.result();
  assert.equal(stats.length, 1, stats.map((s) => s.fingerprint).join('\n'));
  assert.equal(stats[0].count, 4);
  assert.equal(stats[0].fingerprint, fingerprint(bulkInsert(2)));
  // A literal longer than the limit cannot be split: that statement is cut, and counted.
  const { summary: cut } = parseSlowLog(`${HEADER}INSERT INTO t VALUES (1, '${'x'.repeat(2000)}');\n`, { maxStatementBytes: limit });
  assert.equal(cut.truncatedStatements, 1);
  assert.equal(cut.entries, 1);
});

void test('a long IN list keeps its class and its example starts with the fingerprint of what was dropped', () => {
  const sql = (n: number) => `SELECT * FROM t WHERE id IN (${Array.from({ length: n }, (_, i) => i).join(', ')})`;
  const { records, summary } = parseSlowLog(`${HEADER}${sql(2000)};\n${HEADER}${sql(3)};\n`, { maxStatementBytes: 100 });
  assert.equal(summary.longStatements, 1);
  assert.equal(summary.truncatedStatements, 0);
  assert.ok(records[0].sql.startsWith('select * from t where id in(?,'), records[0].sql.slice(0, 60));
  assert.ok(records[0].sql.endsWith('1998, 1999)'));
  assert.equal(fingerprint(records[0].sql), fingerprint(sql(3)));
});

void test('a real statement over 64 MiB, read from a file with the default limit, is one class with its short twin', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-long-'));
  try {
    const path = join(dir, 'slow.log');
    const out = createWriteStream(path);
    const write = (s: string) => new Promise<void>((resolve) => { if (out.write(s)) resolve(); else out.once('drain', resolve); });
    await write(`${HEADER}INSERT INTO logs (id, body) VALUES (0, 'first')`);
    // ~70 MiB: 640,000 rows of ~115 bytes, a few per line (a client that wraps its bulk INSERT).
    const row = (i: number) => `(${i}, 'user ${i} said: hello, world (${'x'.repeat(80)})')`;
    let chunk = '';
    for (let i = 1; i <= 640_000; i++) {
      chunk += i % 8 === 0 ? `,${row(i)}\n` : `,${row(i)}`;
      if (chunk.length > 1 << 20) { await write(chunk); chunk = ''; }
    }
    await write(chunk);
    await write(`;\n${HEADER}INSERT INTO logs (id, body) VALUES (1, 'a'), (2, 'b');\n`);
    await new Promise<void>((resolve) => out.end(resolve));
    const r = await analyzeSlowLogFile(path);
    assert.equal(r.summary.entries, 2);
    assert.ok(r.read.bytes > 64 * 1024 * 1024, `${r.read.bytes} bytes`);
    assert.equal(r.summary.longStatements, 1);
    assert.equal(r.summary.truncatedStatements, 0);
    assert.equal(r.stats.length, 1, r.stats.map((s) => s.fingerprint.slice(0, 80)).join('\n'));
    assert.equal(r.stats[0].count, 2);
    assert.equal(r.stats[0].fingerprint, fingerprint('INSERT INTO logs (id, body) VALUES (1, 2)'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
