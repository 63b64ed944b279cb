import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import { adviseStatement } from '../../../src/core/analysis/advisor';
import { planFindings, siteFindings } from '../../../src/core/analysis/planFindings';
import { statementFacts } from '../../../src/core/analysis/planFindingsQuery';
import { normalizeJson } from '../../../src/core/plan/normalizeJson';
import { normalizeTabular, parseExplainText } from '../../../src/core/plan/normalizeTabular';
import type { Plan, PlanRow } from '../../../src/core/plan/planModel';
import type { Schema } from '../../../src/core/model';

const base = JSON.parse(readFileSync(join(FIXTURES, 'schemas', 'isuconish.schema.json'), 'utf8')) as Schema;
const mysqlSchema: Schema = { ...base, flavor: 'mysql', version: '8.0.36' };
const fixture = (dir: string, name: string, ext: string) => readFileSync(join(FIXTURES, 'explain', dir, `${name}.${ext}`), 'utf8');

/** A schema where every table is tiny (a development database). */
function tinySchema(rows = 20): Schema {
  const tables = Object.fromEntries(Object.entries(base.tables).map(([k, t]) => [k, { ...t, rows }]));
  return { ...base, tables };
}

function row(p: Partial<PlanRow>): PlanRow {
  return { id: 1, selectType: 'SIMPLE', table: null, partitions: null, type: null, possibleKeys: [], key: null, keyLen: null, ref: null, rows: null, filtered: null, extra: [], ...p };
}
const plan = (...rows: Partial<PlanRow>[]): Plan => ({ flavor: 'mariadb', rows: rows.map(row), source: 'tabular' });

const codes = (p: Plan, sql: string, schema: Schema) => planFindings(p, statementFacts(sql, schema), schema).map((f) => f.code).sort();

// Recorded MySQL 8 plans (tabular and JSON) for the same statements: both forms must give the same findings.
const recorded: [string, string[]][] = [
  ['scan-filesort', ['filesort', 'full-table-scan']],
  ['join-buffer', ['join-without-index']],
  ['group-temporary', ['full-table-scan', 'temporary-table']],
  ['dependent', ['dependent-subquery', 'full-table-scan', 'full-table-scan']],
  ['good-join', []],
  ['examined-ratio', ['rows-examined-ratio']],
];

for (const [name, want] of recorded) {
  void test(`findings on recorded MySQL 8 plan ${name}: ${want.join(', ') || 'none'}`, () => {
    const sql = fixture('mysql8', name, 'sql').trim();
    assert.deepEqual(codes(normalizeTabular(parseExplainText(fixture('mysql8', name, 'txt')), 'mysql'), sql, mysqlSchema), want, 'tabular');
    assert.deepEqual(codes(normalizeJson(fixture('mysql8', name, 'json'), 'mysql'), sql, mysqlSchema), want, 'json');
  });
}

// Statement-shaped cases on plans as the server prints them.
const cases: { name: string; sql: string; plan: Plan; schema?: Schema; want: string[] }[] = [
  { name: 'primary key lookup', sql: 'SELECT * FROM users WHERE id = 1', plan: plan({ table: 'users', type: 'const', key: 'PRIMARY', rows: 1 }), want: [] },
  { name: 'unique key lookup', sql: "SELECT * FROM users WHERE account_name = 'user1'", plan: plan({ table: 'users', type: 'const', key: 'account_name', rows: 1 }), want: [] },
  { name: 'ORDER BY served by an index with LIMIT', sql: 'SELECT * FROM posts ORDER BY created_at DESC LIMIT 20', plan: plan({ table: 'posts', type: 'index', key: 'idx_created_at', rows: 20 }), want: [] },
  { name: 'whole-index read for COUNT(*)', sql: 'SELECT COUNT(*) FROM posts', plan: plan({ table: 'posts', type: 'index', key: 'idx_created_at', rows: 100069, extra: ['Using index'] }), want: ['full-index-scan'] },
  { name: 'function on an indexed column', sql: "SELECT * FROM users WHERE LOWER(account_name) = 'x'", plan: plan({ table: 'users', type: 'ALL', rows: 9829, extra: ['Using where'] }), want: ['function-on-column'] },
  { name: 'DATE() on an indexed datetime', sql: "SELECT * FROM posts WHERE DATE(created_at) = '2024-01-01'", plan: plan({ table: 'posts', type: 'ALL', rows: 100069, extra: ['Using where'] }), want: ['function-on-column'] },
  { name: 'leading wildcard on an indexed column', sql: "SELECT * FROM users WHERE account_name LIKE '%bob'", plan: plan({ table: 'users', type: 'ALL', rows: 9829, extra: ['Using where'] }), want: ['leading-wildcard'] },
  { name: 'prefix LIKE uses the index', sql: "SELECT * FROM users WHERE account_name LIKE 'bob%'", plan: plan({ table: 'users', type: 'range', key: 'account_name', rows: 12, extra: ['Using index condition'] }), want: [] },
  { name: 'OR across an indexed and a plain column', sql: 'SELECT * FROM items WHERE seller_id = 1 OR buyer_id = 2', plan: plan({ table: 'items', type: 'ALL', rows: 99603, extra: ['Using where'] }), want: ['or-across-columns'] },
  { name: 'OR served by index_merge', sql: 'SELECT * FROM items WHERE seller_id = 1 OR id = 2', plan: plan({ table: 'items', type: 'index_merge', key: 'idx_seller_id,PRIMARY', rows: 12, extra: ['Using union(idx_seller_id,PRIMARY); Using where'] }), want: [] },
  { name: 'composite index serves WHERE and ORDER BY', sql: 'SELECT * FROM items WHERE category_id = 3 ORDER BY created_at DESC LIMIT 48', plan: plan({ table: 'items', type: 'ref', key: 'idx_category_created', rows: 3333, ref: 'const', extra: ['Using where'] }), want: [] },
  { name: 'small filesort after a selective lookup is fine', sql: 'SELECT * FROM comments WHERE post_id = 3 ORDER BY created_at', plan: plan({ table: 'comments', type: 'ref', key: 'idx_post_id', rows: 2, extra: ['Using filesort'] }), want: [] },
  { name: 'INSERT … SELECT row is not a scan', sql: 'INSERT INTO tags SELECT id + 100, name FROM tags', plan: plan({ selectType: 'INSERT', table: 'tags', type: 'ALL' }, { table: 'tags', type: 'ALL', rows: 8, extra: ['Using temporary'] }), want: [] },
  { name: 'tiny table, no condition: reading all rows is intended', sql: 'SELECT * FROM categories', plan: plan({ table: 'categories', type: 'ALL', rows: 30 }), want: [] },
];

for (const c of cases) {
  void test(`findings: ${c.name} → ${c.want.join(', ') || 'none'}`, () => {
    assert.deepEqual(codes(c.plan, c.sql, c.schema ?? base), [...c.want].sort());
  });
}

void test('tiny table: "only because tiny" when an index could serve, "will scan at scale" when none can', () => {
  const tiny = tinySchema();
  const withIndex = planFindings(plan({ table: 'posts', type: 'ALL', rows: 20, extra: ['Using where'] }), statementFacts('SELECT * FROM posts WHERE created_at > NOW()', tiny), tiny);
  assert.equal(withIndex.length, 1);
  assert.equal(withIndex[0].severity, 'hint');
  assert.match(withIndex[0].message, /only because the table is tiny.*idx_created_at/);
  const without = planFindings(plan({ table: 'posts', type: 'ALL', rows: 20, extra: ['Using where'] }), statementFacts('SELECT * FROM posts WHERE user_id = 5', tiny), tiny);
  assert.equal(without.length, 1);
  assert.equal(without[0].severity, 'info');
  assert.match(without[0].message, /will scan at scale: no index covers user_id/);
});

void test('severity scales with the table size', () => {
  const sev = (rows: number) => {
    const s: Schema = { ...base, tables: { ...base.tables, posts: { ...base.tables.posts, rows } } };
    return planFindings(plan({ table: 'posts', type: 'ALL', rows, extra: ['Using where'] }), statementFacts('SELECT * FROM posts WHERE user_id = 5', s), s)[0].severity;
  };
  assert.deepEqual([sev(200), sev(5000), sev(500000)], ['info', 'warning', 'error']);
});

void test('siteFindings ties plan findings to the site range', () => {
  const f = planFindings(plan({ table: 'posts', type: 'ALL', rows: 100069, extra: ['Using where'] }), statementFacts('SELECT * FROM posts WHERE user_id = 5', base), base);
  const range = { start: { line: 3, character: 10 }, end: { line: 3, character: 40 } };
  assert.deepEqual(siteFindings('app/main.go', range, f).map((x) => [x.code, x.file, x.range.start.line, x.table]), [['full-table-scan', 'app/main.go', 3, 'posts']]);
});

void test('statementFacts reads predicates, order, functions, wildcards and ORs per table', () => {
  const f = statementFacts("SELECT * FROM posts p JOIN users u ON u.id = p.user_id WHERE p.created_at > '2024-01-01' AND (u.del_flg = 0 OR u.authority = 1) AND UPPER(u.account_name) = 'X' AND p.mime LIKE '%png' ORDER BY p.created_at LIMIT 5", base);
  const p = f.tables.find((t) => t.table === 'posts')!;
  const u = f.tables.find((t) => t.table === 'users')!;
  assert.deepEqual([p.eq, p.range, p.order, p.leadingWildcard], [['user_id'], ['created_at'], ['created_at'], ['mime']]);
  assert.deepEqual([u.eq, u.orGroups, u.functionCols], [['id'], [['del_flg', 'authority']], [{ column: 'account_name', fn: 'UPPER' }]]);
  assert.equal(f.limit, 5);
  assert.equal(statementFacts('SELEC nonsense', base).parsed, false);
});

void test('a join chain: the middle table is reached by the column joined to the table before it; the findings name that index', () => {
  const sql = 'SELECT COUNT(*) FROM users u JOIN posts p ON p.user_id = u.id JOIN comments c ON c.post_id = p.id WHERE u.id = 5';
  const facts = statementFacts(sql, base);
  // comments(post_id) exists: the server reads users, then scans posts (nothing finds a user's posts), then looks comments up.
  const scanMiddle = plan({ table: 'u', type: 'const', key: 'PRIMARY', rows: 1 }, { table: 'p', type: 'ALL', rows: 100069, extra: ['Using where'] }, { table: 'c', type: 'ref', key: 'idx_post_id', ref: 'p.id', rows: 2 });
  const advice = adviseStatement(sql, { schema: base });
  assert.deepEqual(advice.suggestions.map((s) => `${s.table}(${s.columns.join(',')})`), ['posts(user_id)']);
  const [onPosts] = planFindings(scanMiddle, facts, base, { advice });
  assert.equal(onPosts.code, 'full-table-scan');
  assert.match(onPosts.message, /no index on posts\(user_id\)/);
  assert.doesNotMatch(onPosts.message, /PRIMARY/, 'posts.id is compared with comments, read after posts: its primary key looks nothing up here');
  // Without comments(post_id) either, the server scans comments and reaches posts by its primary key: posts has no finding
  // of its own, so the one on comments names both indexes the join needs.
  const bare: Schema = { ...base, tables: { ...base.tables, comments: { ...base.tables.comments, indexes: base.tables.comments.indexes.filter((i) => i.primary) } } };
  const scanLast = plan({ table: 'u', type: 'const', key: 'PRIMARY', rows: 1 }, { table: 'c', type: 'ALL', rows: 199571 }, { table: 'p', type: 'eq_ref', key: 'PRIMARY', ref: 'c.post_id', rows: 1, extra: ['Using where'] });
  const advice2 = adviseStatement(sql, { schema: bare });
  assert.deepEqual(advice2.suggestions.map((s) => `${s.table}(${s.columns.join(',')})`), ['posts(user_id)', 'comments(post_id)']);
  const found = planFindings(scanLast, statementFacts(sql, bare), bare, { advice: advice2 });
  assert.deepEqual(found.map((f) => `${f.code} ${f.table}`), ['full-table-scan comments']);
  assert.match(found[0].message, /no index on comments\(post_id\); the join also needs posts\(user_id\)/);
});

void test('an index on the ORDER BY column alone is not named as a cure for a sort the WHERE narrows', () => {
  // posts: idx_created_at exists. The filter on user_id picks a few rows; reading idx_created_at in order would read all
  // ~100k entries to find them (no LIMIT to stop it), so sorting the few is the cheaper plan, not a missed index.
  const sql = 'SELECT * FROM posts WHERE user_id IN (3, 5, 8) ORDER BY created_at DESC';
  const p = plan({ table: 'posts', type: 'range', key: 'idx_user_id', rows: 6546, extra: ['Using index condition', 'Using filesort'] });
  const schema: Schema = { ...base, tables: { ...base.tables, posts: { ...base.tables.posts, indexes: [...base.tables.posts.indexes, { name: 'idx_user_id', columns: ['user_id'], unique: false, primary: false }] } } };
  const [sort] = planFindings(p, statementFacts(sql, schema), schema).filter((f) => f.code === 'filesort');
  assert.ok(sort, 'the sort is still a finding');
  assert.doesNotMatch(sort.message, /idx_created_at could return them in order/, sort.message);
  // Without a filter, the order index does return the rows in order: it is named.
  const all = planFindings(plan({ table: 'posts', type: 'ALL', rows: 100069, extra: ['Using filesort'] }), statementFacts('SELECT * FROM posts ORDER BY created_at DESC LIMIT 30', base), base);
  assert.match(all.find((f) => f.code === 'filesort')?.message ?? '', /idx_created_at could return them in order/);
});

void test('rows examined per row returned is no finding for GROUP BY, DISTINCT or an aggregate: every examined row counts', () => {
  // A join counting one user's comments per post, busiest first (plan as MariaDB prints it, indexes in place).
  const grouped = 'SELECT c.post_id FROM users u JOIN posts p ON p.user_id = u.id JOIN comments c ON c.post_id = p.id WHERE u.account_name = \'x\' GROUP BY c.post_id ORDER BY COUNT(*) DESC LIMIT 1';
  const p = plan(
    { table: 'u', type: 'const', key: 'account_name', rows: 1, extra: ['Using index', 'Using temporary', 'Using filesort'] },
    { table: 'p', type: 'ref', key: 'idx_user_id', ref: 'const', rows: 450, extra: ['Using index'] },
    { table: 'c', type: 'ref', key: 'idx_post_id', ref: 'p.id', rows: 3, extra: ['Using index'] },
  );
  assert.deepEqual(codes(p, grouped, base), []);
  assert.deepEqual(codes(p, grouped.replace('SELECT c.post_id', 'SELECT COUNT(*)').replace(/ GROUP BY.*$/, ''), base), []);
  // The same rows returned one by one under a LIMIT is a ratio worth a finding.
  assert.deepEqual(codes(plan({ table: 'items', type: 'ref', key: 'idx_category_created', ref: 'const', rows: 30000, filtered: 0.5, extra: ['Using where'] }), 'SELECT * FROM items WHERE category_id = 3 AND price < 10 LIMIT 5', base), ['rows-examined-ratio']);
});

void test('a locking read through an index that reads thousands of rows and drops most is a locking-scan; one that wants every row it reads is not', () => {
  // created_at >= … reads every post from then on through idx_created_at, and id is checked on each.
  const sql = 'SELECT * FROM posts WHERE created_at >= \'2024-01-01\' AND id <= 5000';
  const wide = plan({ table: 'posts', type: 'range', key: 'idx_created_at', rows: 4386, extra: ['Using where'] });
  const found = planFindings(wide, statementFacts(sql, base), base, { locking: 'FOR UPDATE' });
  assert.deepEqual(found.map((f) => `${f.code} ${f.severity}`), ['locking-scan warning']);
  assert.match(found[0].message, /FOR UPDATE\) reads ~4,386 rows of posts through index idx_created_at: InnoDB locks every row it reads/);
  // Not locking: an index range is no finding.
  assert.deepEqual(planFindings(wide, statementFacts(sql, base), base).map((f) => f.code), []);
  // Every row the index gives is wanted (no condition left to check), or few rows: nothing to say.
  assert.deepEqual(planFindings(plan({ table: 'posts', type: 'range', key: 'idx_created_at', rows: 4386 }), statementFacts('SELECT * FROM posts WHERE created_at >= \'2024-01-01\'', base), base, { locking: 'UPDATE' }).map((f) => f.code), []);
  assert.deepEqual(planFindings(plan({ table: 'posts', type: 'range', key: 'idx_created_at', rows: 40, extra: ['Using where'] }), statementFacts(sql, base), base, { locking: 'FOR UPDATE' }).map((f) => f.code), []);
});

void test('OFFSET pagination: a run-time offset over a large read is a hint to page by key; a shallow literal offset or a small matching set is not', () => {
  const sql = 'SELECT * FROM posts ORDER BY created_at DESC LIMIT 20';
  const walk = plan({ table: 'posts', type: 'index', key: 'idx_created_at', rows: 20 });
  const f = planFindings(walk, statementFacts(sql, base), base, { offset: 'run-time' });
  assert.deepEqual(f.map((x) => `${x.code} ${x.severity}`), ['offset-pagination info']);
  assert.match(f[0].message, /deep pages read up to ~100,069 rows of posts, and this plan was made at OFFSET 0\); keyset pagination \(WHERE created_at past the last row shown, then LIMIT 20\)/);
  assert.deepEqual(planFindings(walk, statementFacts(sql, base), base, { offset: 20_000 }).map((x) => `${x.code} ${x.severity}`), ['offset-pagination warning']);
  assert.deepEqual(planFindings(walk, statementFacts(sql, base), base, { offset: 40 }).map((x) => x.code), []);
  assert.deepEqual(planFindings(walk, statementFacts(sql, base), base).map((x) => x.code), []);
  // One user's comments: the ref read is the whole matching set (~300), so no page is deep.
  const mine = 'SELECT * FROM comments WHERE post_id = 3 ORDER BY id DESC LIMIT 20';
  assert.deepEqual(planFindings(plan({ table: 'comments', type: 'ref', key: 'idx_post_id', ref: 'const', rows: 300, extra: ['Using where'] }), statementFacts(mine, base), base, { offset: 'run-time' }).map((x) => x.code), []);
});

void test('an IN list of several values breaks the order of the index after it: no claim that it returns the rows in order', () => {
  const schema: Schema = { ...base, tables: { ...base.tables, posts: { ...base.tables.posts, indexes: [...base.tables.posts.indexes, { name: 'idx_user_created', columns: ['user_id', 'created_at'], unique: false, primary: false }] } } };
  const p = plan({ table: 'posts', type: 'range', key: 'idx_user_created', rows: 6546, extra: ['Using index condition', 'Using filesort'] });
  const many = planFindings(p, statementFacts('SELECT * FROM posts WHERE user_id IN (3, 5, 8) ORDER BY created_at DESC', schema), schema).find((f) => f.code === 'filesort');
  assert.ok(many);
  assert.doesNotMatch(many.message, /could return them in order/, many.message);
  // One value is an equality: the index does return them in order.
  const one = planFindings(plan({ table: 'posts', type: 'ALL', rows: 100069, extra: ['Using where', 'Using filesort'] }), statementFacts('SELECT * FROM posts WHERE user_id IN (3) ORDER BY created_at DESC', schema), schema).find((f) => f.code === 'filesort');
  assert.match(one?.message ?? '', /idx_user_created could return them in order/);
});
