import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import { parseMariaDbAnalyze, parseMySqlExplainAnalyze } from '../../../src/core/plan/measured';
import { measuredFindings } from '../../../src/core/analysis/planFindingsMeasured';
import { normalizeTabular, parseExplainText } from '../../../src/core/plan/normalizeTabular';
import { guardStatement } from '../../../src/db/guard';
import { explainAnalyzeSupported, mariaDbAnalyzeSql, measureRefusal, mySqlAnalyzeSql } from '../../../src/db/measureService';
import type { ExplainResult } from '../../../src/db/explainService';
import type { Plan } from '../../../src/core/plan/planModel';

const fixture = (dir: string, name: string) => readFileSync(join(FIXTURES, 'explain', dir, name), 'utf8');

void test('MySQL 8 EXPLAIN ANALYZE: the LIMIT trap reads 120,000 rows where the plan said 2', () => {
  const m = parseMySqlExplainAnalyze(fixture('mysql8', 'analyze-limit-trap.txt'));
  assert.deepEqual(m.accesses, [{ table: 'login_events', estimate: 2, rowsRead: 120000, loops: 1, ms: 54.312 }]);
  assert.equal(m.rowsRead, 120000);
  assert.equal(m.rowsSent, 0);
  assert.equal(m.ms, 61.874);
  assert.equal(m.capped, false);
  const plan = normalizeTabular(parseExplainText('id\tselect_type\ttable\ttype\tpossible_keys\tkey\tkey_len\tref\trows\tfiltered\tExtra\n1\tSIMPLE\tlogin_events\tindex\tNULL\tPRIMARY\t8\tNULL\t2\t1.00\tUsing where; Backward index scan'), 'mysql');
  const f = measuredFindings(plan, m);
  assert.equal(f.length, 1);
  assert.equal(f[0].code, 'measured-over-estimate');
  assert.equal(f[0].severity, 'error');
  assert.match(f[0].message, /measured: read 120,000 rows of login_events where EXPLAIN estimated ~2 \(×60,000\)/);
});

void test('MySQL 8 EXPLAIN ANALYZE: joins count rows × loops per access; the root gives rows sent and time', () => {
  const j = parseMySqlExplainAnalyze(fixture('mysql8', 'analyze-join.txt'));
  assert.deepEqual(j.accesses.map((a) => [a.table, a.rowsRead, a.loops]), [['p', 10, 1], ['u', 10, 10]]);
  assert.equal(j.rowsSent, 10);
  assert.equal(j.ms, 0.231);
  const s = parseMySqlExplainAnalyze(fixture('mysql8', 'analyze-scan-sort.txt'));
  assert.deepEqual(s.accesses.map((a) => [a.table, a.rowsRead, a.estimate]), [['posts', 100069, 99660]]);
  assert.equal(s.rowsSent, 11);
  const l = parseMySqlExplainAnalyze(fixture('mysql8', 'analyze-lookup-loops.txt'));
  assert.deepEqual(l.accesses.map((a) => [a.table, a.rowsRead, a.loops]), [['p', 100069, 1], ['c', 22, 11]]);
  assert.equal(l.rowsRead, 100091);
  // Estimates that held: no finding.
  const plan: Plan = { flavor: 'mysql', source: 'tabular', rows: [
    { id: 1, selectType: 'SIMPLE', table: 'p', partitions: null, type: 'index', possibleKeys: [], key: 'idx_created_at', keyLen: '5', ref: null, rows: 10, filtered: 100, extra: [] },
    { id: 1, selectType: 'SIMPLE', table: 'u', partitions: null, type: 'eq_ref', possibleKeys: ['PRIMARY'], key: 'PRIMARY', keyLen: '4', ref: 'p.user_id', rows: 1, filtered: 10, extra: [] },
  ] };
  assert.deepEqual(measuredFindings(plan, j), []);
  assert.throws(() => parseMySqlExplainAnalyze('id\tselect_type\n1\tSIMPLE'), /not EXPLAIN ANALYZE output/);
});

void test('MariaDB ANALYZE FORMAT=JSON (recorded): rows read, loops, time; rows sent derived', () => {
  const m = parseMariaDbAnalyze(fixture('mariadb', 'analyze-limit-trap.json'), { limit: 2, rowCap: 1_000_000 });
  assert.equal(m.accesses.length, 1);
  assert.equal(m.accesses[0].table, 'login_events');
  assert.equal(m.rowsRead, 120000);
  assert.equal(m.accesses[0].loops, 1);
  assert.equal(m.rowsSent, 0);
  assert.ok(m.ms > 0);
  assert.equal(m.capped, false);
  assert.equal(parseMariaDbAnalyze(fixture('mariadb', 'analyze-limit-trap.json'), { rowCap: 120000 }).capped, true);
  assert.throws(() => parseMariaDbAnalyze('{"a":1}'), /no query_block/);
});

void test('Measure statements: MariaDB time limit and row cap, MySQL hint; the guard takes only those, only confirmed', () => {
  const a = mariaDbAnalyzeSql('SELECT id FROM t WHERE a = 1 ORDER BY id LIMIT 2', 5000, 1_000_000);
  assert.equal(a, 'SET STATEMENT max_statement_time=5 FOR ANALYZE FORMAT=JSON SELECT id FROM t WHERE a = 1 ORDER BY id LIMIT 2 ROWS EXAMINED 1000000');
  assert.equal(mariaDbAnalyzeSql('SELECT id FROM t WHERE a IN (SELECT b FROM u LIMIT 3);', 2500, 5000), 'SET STATEMENT max_statement_time=2.5 FOR ANALYZE FORMAT=JSON SELECT id FROM t WHERE a IN (SELECT b FROM u LIMIT 3) LIMIT ROWS EXAMINED 5000');
  assert.equal(mariaDbAnalyzeSql('SELECT id FROM t LIMIT 10 OFFSET 20', 1000, 10), 'SET STATEMENT max_statement_time=1 FOR ANALYZE FORMAT=JSON SELECT id FROM t LIMIT 10 OFFSET 20 ROWS EXAMINED 10');
  const b = mySqlAnalyzeSql('SELECT id FROM t WHERE a = (SELECT MAX(a) FROM t)', 5000);
  assert.equal(b, 'EXPLAIN ANALYZE SELECT /*+ MAX_EXECUTION_TIME(5000) */ id FROM t WHERE a = (SELECT MAX(a) FROM t)');
  for (const s of [a, b!]) {
    guardStatement(s, 'analyze', { confirmed: true });
    assert.throws(() => guardStatement(s, 'analyze'), /only when the user asked/);
    assert.throws(() => guardStatement(s, 'explain'));
  }
  for (const bad of [
    'ANALYZE SELECT 1', 'EXPLAIN ANALYZE SELECT id FROM t', 'ANALYZE FORMAT=JSON SELECT id FROM t LIMIT ROWS EXAMINED 5',
    'SET STATEMENT max_statement_time=5 FOR ANALYZE FORMAT=JSON SELECT id FROM t FOR UPDATE LIMIT ROWS EXAMINED 5',
    'SET STATEMENT max_statement_time=5 FOR ANALYZE FORMAT=JSON SELECT id FROM t LOCK IN SHARE MODE LIMIT ROWS EXAMINED 5',
    'SET STATEMENT max_statement_time=5 FOR ANALYZE FORMAT=JSON SELECT id INTO @x FROM t LIMIT ROWS EXAMINED 5',
    'SET STATEMENT max_statement_time=5 FOR ANALYZE FORMAT=JSON DELETE FROM t LIMIT ROWS EXAMINED 5',
    'SET STATEMENT max_statement_time=5 FOR ANALYZE FORMAT=JSON SELECT id FROM t',
    'EXPLAIN ANALYZE UPDATE t SET a = 1', 'EXPLAIN ANALYZE SELECT /*+ MAX_EXECUTION_TIME(5) */ id FROM t FOR SHARE',
  ]) assert.throws(() => guardStatement(bad, 'analyze', { confirmed: true }), /refused|only when/, bad);
  assert.equal(explainAnalyzeSupported('8.0.36'), true);
  assert.equal(explainAnalyzeSupported('8.0.17'), false);
  assert.equal(explainAnalyzeSupported('8.4.2'), true);
  assert.equal(explainAnalyzeSupported('5.7.44-log'), false);
});

void test('Measure refuses what is not a plain SELECT', () => {
  const base: ExplainResult = { findings: [], substitutions: [], cached: false, generation: 1, plan: { flavor: 'mariadb', rows: [], source: 'tabular' }, filledSql: 'SELECT 1' };
  assert.equal(measureRefusal(base), undefined);
  assert.match(measureRefusal({ ...base, lockingClause: 'FOR UPDATE', explainedWithout: ['FOR UPDATE'] })!, /locking read \(FOR UPDATE\) is never measured/);
  assert.match(measureRefusal({ ...base, explainedWithout: ['INTO @x'] })!, /INTO @x/);
  assert.match(measureRefusal({ ...base, explainedSql: 'SELECT * FROM t WHERE a = 1' })!, /only SELECT/);
  assert.match(measureRefusal({ ...base, plan: undefined, skipped: 'not explainable: built at run time (x)' })!, /built at run time/);
});
