/**
 * A measured window's findings: observed full scans at the statements' sites, unused indexes at
 * their definitions in the schema file, and the runtime N+1 upgrade from performance_schema figures
 * (only for sites known to sit in a loop: digests carry no per-connection order).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Finding } from '../../../src/core/model';
import { statementShapes, type DigestDelta } from '../../../src/core/serverStats/digestDiff';
import { findIndexDefinition } from '../../../src/core/serverStats/indexLocations';
import { fullScanFindings, unusedIndexFindings } from '../../../src/core/serverStats/serverStatsFindings';
import { queryStatsOf } from '../../../src/core/serverStats/serverStatsRun';
import { digestFingerprint } from '../../../src/core/serverStats/digestText';
import { runtimeOverlay } from '../../../src/extension/queries/runtimeOverlay';
import { site } from '../extension/queriesSupport';

function delta(text: string, count: number, seconds: number, extra: Partial<DigestDelta> = {}): DigestDelta {
  const fp = digestFingerprint(text);
  return {
    schema: 'isu', digest: text, text, fingerprint: fp.fingerprint, truncated: fp.truncated, status: 'grown', count, totalTime: seconds, lockTime: 0,
    maxTime: seconds / count, maxExact: true, rowsSent: count, rowsExamined: count, rowsAffected: 0, tmpDiskTables: 0, tmpTables: 0, sortRows: 0,
    noIndexUsed: 0, noGoodIndexUsed: 0, selectScan: 0, errors: 0, ...extra,
  };
}

const scanSite = site('webapp/go/main.go', 40, 'SELECT * FROM items WHERE price = ?');
const lookupInLoop = site('webapp/go/main.go', 88, 'SELECT * FROM `users` WHERE `id` = ?', true);
const lookupOutside = site('webapp/go/main.go', 93, 'SELECT * FROM `users` WHERE `id` = ?');

void test('full scans the server counted become findings at every site of the shape, with the observed count', () => {
  const shapes = statementShapes([
    delta('SELECT * FROM `items` WHERE `price` = ?', 5, 0.05, { noIndexUsed: 5, rowsExamined: 15000 }),
    delta('SELECT * FROM `users` WHERE ID = ? ', 3000, 0.6),
  ]);
  const f = fullScanFindings(shapes, [scanSite, lookupInLoop]);
  assert.equal(f.length, 1);
  assert.equal(f[0].code, 'full-scan-observed');
  assert.equal(f[0].range, scanSite.range);
  assert.match(f[0].message, /without an index 5 of 5 times .*3,000 rows examined per call/);
});

void test('an unused index is shown on its definition in the schema file (inline KEY or ALTER TABLE); otherwise listed as unplaced', () => {
  const files = [
    { path: 'sql/data.sql', text: 'INSERT INTO items VALUES (1);\n' },
    { path: 'sql/0_schema.sql', text: 'CREATE TABLE items (\n  id INT PRIMARY KEY,\n  seller_id INT,\n  KEY idx_seller (seller_id)\n);\nALTER TABLE items ADD INDEX idx_price (price);\n' },
  ];
  assert.deepEqual(findIndexDefinition(files, 'items', 'idx_seller'), { path: 'sql/0_schema.sql', range: { start: { line: 3, character: 2 }, end: { line: 3, character: 28 } } });
  assert.equal(findIndexDefinition(files, 'items', 'idx_price')?.range.start.line, 5);
  const unused = [
    { schema: 'isu', table: 'items', index: 'idx_seller', columns: ['seller_id'], tableReads: 12, tableWrites: 300 },
    { schema: 'isu', table: 'items', index: 'idx_gone', columns: ['x'], tableReads: 12, tableWrites: 300 },
  ];
  const r = unusedIndexFindings(unused, (u) => findIndexDefinition(files, u.table, u.index));
  assert.equal(r.findings.length, 1);
  assert.equal(r.findings[0].code, 'unused-index');
  assert.match(r.findings[0].message, /idx_seller \(seller_id\) was never read .* 300 rows written/);
  assert.deepEqual(r.findings[0].data?.index, 'idx_seller');
  assert.deepEqual(r.unplaced.map((u) => u.index), ['idx_gone']);
});

void test('performance_schema figures confirm a static N+1 (calls per second over the window) but never suspect one without a known loop', () => {
  const stats = queryStatsOf(statementShapes([delta('SELECT * FROM `users` WHERE `id` = ?', 3000, 0.6)]), 60);
  const statics: Finding[] = [{ code: 'n-plus-one', severity: 'warning', file: lookupInLoop.file, range: lookupInLoop.range, message: 'N+1: runs once per iteration of the for loop' }];
  const shown = runtimeOverlay(stats, [lookupInLoop, lookupOutside])(statics);
  assert.equal(shown.length, 1, 'no suspected N+1 at the site outside a loop');
  assert.equal(shown[0].severity, 'error');
  assert.match(shown[0].message, /— confirmed by performance_schema: 3,000 calls in 60 s \(50\.0\/s\), 0\.20 ms each$/);
  // too slow a rate over the window: not confirmed
  const slow = queryStatsOf(statementShapes([delta('SELECT * FROM `users` WHERE `id` = ?', 600, 0.1)]), 60);
  assert.deepEqual(runtimeOverlay(slow, [lookupInLoop])(statics), statics);
});
