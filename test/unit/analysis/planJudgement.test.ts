/**
 * Plan judgement rules of issue #13 on plans shaped as MariaDB prints them: the LIMIT trap, locking
 * reads that scan, reads nothing could make cheaper, functions over subqueries, and findings that
 * name exactly the index the advisor suggests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import { planFindings, type PlanFindingOptions } from '../../../src/core/analysis/planFindings';
import { statementFacts } from '../../../src/core/analysis/planFindingsQuery';
import { adviseStatement } from '../../../src/core/analysis/advisor';
import type { Plan, PlanRow } from '../../../src/core/plan/planModel';
import type { Schema } from '../../../src/core/model';

const schema = JSON.parse(readFileSync(join(FIXTURES, 'schemas', 'isuconish.schema.json'), 'utf8')) as Schema;
const row = (p: Partial<PlanRow>): PlanRow => ({ id: 1, selectType: 'SIMPLE', table: null, partitions: null, type: null, possibleKeys: [], key: null, keyLen: null, ref: null, rows: null, filtered: null, extra: [], ...p });
const plan = (...rows: Partial<PlanRow>[]): Plan => ({ flavor: 'mariadb', rows: rows.map(row), source: 'tabular' });
const judge = (sql: string, p: Plan, o: PlanFindingOptions = {}) => planFindings(p, statementFacts(sql, schema), schema, { advice: adviseStatement(sql, { schema }), ...o });

void test('LIMIT trap: index walk in ORDER BY order with filters outside the index → limit-order-scan naming the advised index', () => {
  const sql = 'SELECT * FROM comments WHERE user_id = 5 ORDER BY id DESC LIMIT 2';
  const f = judge(sql, plan({ table: 'comments', type: 'index', key: 'PRIMARY', rows: 2, extra: ['Using where'] }));
  assert.deepEqual(f.map((x) => x.code), ['limit-order-scan']);
  assert.match(f[0].message, /checks user_id on each row until 2 match: the estimate of ~2 rows is a lower bound.*reads all ~199,571/);
  assert.match(f[0].message, /no index on comments\(user_id\)/);
  assert.equal(f[0].severity, 'error');
  // The same walk with the filter inside the index is fine.
  assert.deepEqual(judge('SELECT * FROM items WHERE category_id = 3 ORDER BY created_at DESC LIMIT 2',
    plan({ table: 'items', type: 'index', key: 'idx_category_created', rows: 2, extra: ['Using where'] })).map((x) => x.code), []);
  // A join column is not a filter of the walked table.
  assert.deepEqual(judge('SELECT p.* FROM posts p JOIN users u ON u.id = p.user_id WHERE u.del_flg = 0 ORDER BY p.created_at DESC LIMIT 10',
    plan({ table: 'p', type: 'index', key: 'idx_created_at', rows: 10 }, { table: 'u', type: 'eq_ref', key: 'PRIMARY', rows: 1, extra: ['Using where'] })).map((x) => x.code), []);
});

void test('locking reads and UPDATE/DELETE that scan → locking-scan; a lookup → nothing', () => {
  const sql = 'SELECT * FROM comments WHERE user_id = 5';
  const scan = plan({ table: 'comments', type: 'ALL', rows: 199571, extra: ['Using where'] });
  assert.deepEqual(judge(sql, scan, { locking: 'FOR UPDATE' }).map((x) => x.code).sort(), ['full-table-scan', 'locking-scan']);
  const lock = judge(sql, scan, { locking: 'FOR UPDATE' }).find((x) => x.code === 'locking-scan')!;
  assert.match(lock.message, /locking read \(FOR UPDATE\) scans comments.*locks every row it reads/);
  assert.match(judge(sql, scan, { locking: 'DELETE' }).find((x) => x.code === 'locking-scan')!.message, /^this DELETE scans/);
  assert.deepEqual(judge('SELECT * FROM comments WHERE post_id = 5', plan({ table: 'comments', type: 'ref', key: 'idx_post_id', rows: 3 }), { locking: 'FOR UPDATE' }), []);
});

void test('a read of every row by intent is info at most, with the reason', () => {
  const all = judge('SELECT * FROM posts ORDER BY id', plan({ table: 'posts', type: 'index', key: 'PRIMARY', rows: 100069 }));
  assert.equal(all.length, 1);
  assert.equal(all[0].severity, 'info');
  assert.match(all[0].message, /asks for every row \(no condition on posts, no LIMIT\), so no index or rewrite of it reads fewer/);
  const sorted = judge('SELECT * FROM posts ORDER BY body', plan({ table: 'posts', type: 'ALL', rows: 100069, extra: ['Using filesort'] }));
  assert.ok(sorted.every((x) => x.severity === 'info'), JSON.stringify(sorted));
  // With a filter the same scan is an error.
  assert.equal(judge('SELECT * FROM posts WHERE mime = 1', plan({ table: 'posts', type: 'ALL', rows: 100069, extra: ['Using where'] }))[0].severity, 'error');
});

void test('IFNULL / COALESCE over a subquery wraps no column: no function-on-column', () => {
  for (const sql of [
    'SELECT * FROM posts WHERE id > IFNULL((SELECT MAX(post_id) FROM comments WHERE user_id = 3), 0) ORDER BY id LIMIT 20',
    'SELECT * FROM posts WHERE created_at > COALESCE((SELECT created_at FROM posts WHERE id = 7), 0) ORDER BY created_at LIMIT 20',
  ]) {
    const facts = statementFacts(sql, schema);
    assert.deepEqual(facts.tables.flatMap((t) => t.functionCols), [], sql);
  }
  // A column the function wraps is still found, also inside a subquery, in the subquery's own scope.
  const facts = statementFacts('SELECT * FROM posts p WHERE p.id IN (SELECT post_id FROM comments WHERE DATE(created_at) = 1)', schema);
  assert.deepEqual(facts.tables.find((t) => t.table === 'comments')?.functionCols, [{ column: 'created_at', fn: 'DATE' }]);
  assert.deepEqual(facts.tables.find((t) => t.table === 'posts')?.functionCols, []);
});

void test('several wrapped columns of one table: one function-on-column finding', () => {
  const f = judge("SELECT * FROM users WHERE LOWER(account_name) = 'a' AND DATE(created_at) = '2024-01-01'", plan({ table: 'users', type: 'ALL', rows: 9829, extra: ['Using where'] }));
  assert.deepEqual(f.map((x) => x.code), ['function-on-column']);
});

void test('one voice: the index a finding names is the one advise suggests', () => {
  const sql = 'SELECT * FROM comments WHERE user_id IN (1, 2, 3) ORDER BY post_id';
  const advice = adviseStatement(sql, { schema });
  assert.equal(advice.suggestions.length, 1, JSON.stringify(advice));
  const f = judge(sql, plan({ table: 'comments', type: 'ALL', rows: 199571, extra: ['Using where', 'Using filesort'] }));
  const named = f.flatMap((x) => [...x.message.matchAll(/\bcomments\(([^)]*)\)/g)].map((m) => m[1]));
  assert.ok(named.length > 0);
  for (const cols of named) assert.equal(cols, advice.suggestions[0].columns.join(', '));
});
