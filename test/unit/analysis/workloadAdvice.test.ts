/**
 * The workload's index set on a contest-style schema: one index where one will do, none where none
 * helps. Each case names the useless index an advisor per statement would add, and asserts it is not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { adviseStatement } from '../../../src/core/analysis/advisor';
import { columnsToSample, estimateDistinct, lowCardinality, orShareAtLeast } from '../../../src/core/analysis/columnStats';
import { adviseWorkload, indexesFor, isInitialiser, workloadStatements, writtenTable, type WorkloadStatement } from '../../../src/core/analysis/workloadAdvice';
import type { IndexInfo, Schema, TableInfo } from '../../../src/core/model';

function table(name: string, rows: number, columns: [string, string][], indexes: IndexInfo[], columnDistinct?: Record<string, number>): TableInfo {
  return { name, rows, engine: 'InnoDB', columns: columns.map(([n, type]) => ({ name: n, type, nullable: false })), indexes, ...(columnDistinct ? { columnDistinct } : {}) };
}
const pk = (...columns: string[]): IndexInfo => ({ name: 'PRIMARY', columns, unique: true, primary: true });
const idx = (name: string, columns: string[], cardinality?: number[], unique = false): IndexInfo => ({ name, columns, unique, primary: false, ...(cardinality ? { cardinality } : {}) });

const SCHEMA: Schema = {
  database: 'contest', flavor: 'mariadb', version: '10.11.6-MariaDB', generation: 1,
  tables: {
    user_sessions: table('user_sessions', 20_000, [['id', 'bigint'], ['user_id', 'bigint'], ['session_id', 'varchar(128)'], ['expired_at', 'bigint'], ['deleted_at', 'bigint']],
      [pk('id'), idx('uniq_user_session', ['user_id', 'session_id'], [5_000, 20_000], true)]),
    user_presents: table('user_presents', 30_000, [['id', 'bigint'], ['user_id', 'bigint'], ['present_id', 'int'], ['item_type', 'int'], ['is_received', 'tinyint(1)'], ['created_at', 'bigint'], ['deleted_at', 'bigint']],
      [pk('id')], { user_id: 5_000, present_id: 900, item_type: 12 }),
    items: table('items', 50_000, [['id', 'bigint'], ['user_id', 'bigint'], ['name', 'varchar(191)'], ['status', "enum('draft','open','closed')"], ['is_public', 'tinyint(1)'], ['created_at', 'datetime'], ['deleted_at', 'datetime']],
      [pk('id')], { user_id: 10_000 }),
    item_masters: table('item_masters', 40, [['id', 'int'], ['item_type', 'int'], ['status', 'varchar(16)'], ['start_at', 'bigint']], [pk('id')]),
    coupons: table('coupons', 300, [['id', 'int'], ['user_id', 'bigint'], ['code', 'varchar(32)']], [pk('id')]),
    user_items: table('user_items', 80_000, [['user_id', 'bigint'], ['code', 'varchar(32)'], ['amount', 'int']], [pk('user_id', 'code')], { code: 2_000 }),
  },
};

const at = (line: number, sql: string, fn = 'handler'): WorkloadStatement => ({ sql, site: { file: 'app.go', line, sql, function: fn } });
const names = (xs: { table: string; columns: string[] }[]) => xs.map((s) => `${s.table}(${s.columns.join(',')})`);

const WORKLOAD: WorkloadStatement[] = [
  // Four lookups led by user_id, each user holding ~6 presents: one (user_id, created_at) serves them all.
  at(10, 'SELECT * FROM user_presents WHERE user_id = ? AND deleted_at IS NULL ORDER BY created_at DESC LIMIT ? OFFSET ?'),
  at(11, 'SELECT * FROM user_presents WHERE user_id = ? AND present_id = ?'),
  at(12, 'SELECT COUNT(*) FROM user_presents WHERE user_id = ? AND item_type = ?'),
  at(13, 'SELECT * FROM user_presents WHERE user_id = ? AND is_received = 0'),
  // Sessions: the UNIQUE (user_id, session_id) already finds a user's ~4 sessions.
  at(20, 'SELECT * FROM user_sessions WHERE user_id = ? AND deleted_at IS NULL'),
  at(21, 'UPDATE user_sessions SET deleted_at = ? WHERE user_id = ? AND deleted_at IS NULL'),
  // A static master table read by item_type and status, written only by the initialiser.
  at(30, 'SELECT * FROM item_masters WHERE item_type = ? AND start_at <= ?'),
  at(31, 'SELECT * FROM item_masters WHERE status = ? ORDER BY start_at'),
  at(32, 'INSERT INTO item_masters (id, item_type, status, start_at) VALUES (?, ?, ?, ?)', 'postInitialize'),
  // A small table the app writes: it grows, so it is indexed.
  at(40, 'SELECT * FROM coupons WHERE code = ?'),
  at(41, 'INSERT INTO coupons (user_id, code) VALUES (?, ?)'),
  // An OR whose boolean branch matches half of the table; a random pick among public items.
  at(50, 'SELECT * FROM items WHERE is_public = 1 OR user_id = ? ORDER BY created_at DESC'),
  at(51, 'SELECT * FROM items WHERE is_public = 1 ORDER BY RAND() LIMIT 5'),
  at(52, 'SELECT * FROM items WHERE id IN (?, ?, ?) AND deleted_at IS NULL'),
  // FOR UPDATE on the second column of a composite primary key: the index that makes it a point lock.
  at(60, 'SELECT * FROM user_items WHERE code = ?'),
];

void test('the workload gets exactly the indexes it needs', () => {
  const w = adviseWorkload(WORKLOAD, { schema: SCHEMA, fromDatabase: true });
  assert.deepEqual(names(w.indexes).sort(), ['coupons(code,user_id)', 'user_items(code,amount)', 'user_presents(user_id,created_at)'], w.indexes.map((i) => i.reason).join('\n'));
  const presents = w.indexes.find((i) => i.table === 'user_presents')!;
  assert.deepEqual(presents.sites.map((s) => s.line), [10, 11, 12, 13], 'one index serves all four lookups');
  assert.match(presents.reason, /about 6 row\(s\)/);
  assert.equal(presents.servesOrderBy, true);
  assert.deepEqual(w.indexes.find((i) => i.table === 'coupons')!.writes.map((s) => s.line), [41], 'the write it slows');
  assert.deepEqual(w.indexes.find((i) => i.table === 'user_items')!.writes, []);
  assert.ok(!w.written.has('item_masters'), 'the initialiser\'s INSERT does not make a master table written');
  assert.deepEqual(names(indexesFor(w, WORKLOAD[1].sql)), ['user_presents(user_id,created_at)'], 'the hover offers the set\'s index');
});

void test('why no index: unique key narrows, static master table, flag, OR of most rows, primary-key IN list', () => {
  const w = adviseWorkload(WORKLOAD, { schema: SCHEMA, fromDatabase: true });
  const served = (line: number) => w.perStatement.get(WORKLOAD.find((s) => s.site.line === line)!.sql)!;
  assert.deepEqual(served(20).suggestions, []);
  assert.match(served(20).served[0].reason, /uniq_user_session .* narrows to about 4 row\(s\) per user_id/);
  assert.deepEqual(served(30).suggestions, []);
  assert.match(served(30).served[0].reason, /static master table/);
  assert.deepEqual(served(50).suggestions, []);
  assert.match(served(50).served[0].reason, /matches at least 50% of items.*cache the result or paginate/);
  assert.deepEqual(served(51).suggestions, [], 'no index on a boolean for ORDER BY RAND()');
  assert.match(served(51).served[0].reason, /is_public has only two or three values.*RAND\(\)/);
  assert.deepEqual(served(52).suggestions, [], 'no index on deleted_at for a primary-key IN list');
});

void test('without the workload\'s writes known, a small table is indexed; written by the app, it is too', () => {
  assert.deepEqual(names(adviseStatement('SELECT * FROM item_masters WHERE item_type = ?', { schema: SCHEMA, fromDatabase: true }).suggestions), ['item_masters(item_type)']);
  assert.deepEqual(names(adviseStatement('SELECT * FROM item_masters WHERE item_type = ?', { schema: SCHEMA, fromDatabase: true, writtenTables: new Set(['item_masters']) }).suggestions), ['item_masters(item_type)']);
  assert.deepEqual(names(adviseStatement('SELECT * FROM item_masters WHERE item_type = ?', { schema: SCHEMA, fromDatabase: true, writtenTables: new Set() }).suggestions), []);
});

void test('a flag stays in an index behind a selective column, never in front', () => {
  assert.deepEqual(names(adviseStatement('SELECT * FROM items WHERE is_public = 1 AND user_id = ?', { schema: SCHEMA }).suggestions), ['items(user_id,is_public)']);
  assert.deepEqual(names(adviseStatement('SELECT * FROM items WHERE is_public = 1 ORDER BY created_at DESC LIMIT 20', { schema: SCHEMA }).suggestions), ['items(created_at)']);
});

void test('an OR one of whose branches no index serves gets no index at all', () => {
  const a = adviseStatement("SELECT * FROM items WHERE user_id = ? OR status = 'draft'", { schema: SCHEMA });
  assert.deepEqual(a.suggestions, []);
  assert.match(a.served[0].reason, /OR branch 2 of 2 cannot use an index/);
});

void test('an index that extends an existing plain one replaces it; one that covers a prefix makes it redundant', () => {
  const schema: Schema = { ...SCHEMA, tables: { ...SCHEMA.tables, logs: table('logs', 100_000, [['id', 'bigint'], ['kind', 'varchar(8)'], ['user_id', 'int'], ['created_at', 'datetime']], [pk('id'), idx('idx_user', ['user_id'], [900]), idx('idx_user_kind', ['user_id', 'kind'], [900, 2_000])]) } };
  const w = adviseWorkload([at(1, 'SELECT * FROM logs WHERE user_id = ? AND kind = ? ORDER BY created_at DESC LIMIT 10')], { schema });
  assert.deepEqual(names(w.indexes), ['logs(user_id,kind,created_at)']);
  assert.equal(w.indexes[0].replaces, 'idx_user_kind');
  assert.deepEqual(w.indexes[0].makesRedundant.map((r) => r.index), ['idx_user']);
  assert.deepEqual(w.redundant.map((r) => r.index), ['idx_user'], 'already a prefix of idx_user_kind');
});

void test('statistics: flags, the share an OR matches, the distinct estimate from a sample', () => {
  const items = SCHEMA.tables.items;
  assert.equal(lowCardinality(items, 'is_public'), true);
  assert.equal(lowCardinality(items, 'user_id'), false);
  assert.ok(Math.abs(orShareAtLeast(items, [{ eq: ['is_public'], range: [] }, { eq: ['user_id'], range: [] }])! - 0.5001) < 1e-9);
  assert.equal(orShareAtLeast(SCHEMA.tables.user_presents, [{ eq: ['deleted_at'], range: [] }]), undefined);
  assert.equal(estimateDistinct(500, 1000, 0, 1000), 500, 'the whole table sampled');
  const est = estimateDistinct(9_000, 20_000, 8_000, 1_000_000);
  assert.ok(est > 14_000 && est < 1_000_000, `values seen once stand for the unseen: ${est}`);
  assert.ok(estimateDistinct(2, 20_000, 0, 1_000_000) === 2, 'a flag stays two values');
  assert.deepEqual(columnsToSample([{ table: 'user_sessions', columns: ['deleted_at', 'expired_at'] }, { table: 'user_sessions', columns: ['user_id', 'expired_at'] }, { table: 'item_masters', columns: ['status'] }], SCHEMA.tables), [{ table: 'user_sessions', column: 'deleted_at' }]);
});

void test('writes and the initialiser', () => {
  const ws = workloadStatements([{ file: 'a.go', language: 'go', range: { start: { line: 4, character: 0 }, end: { line: 4, character: 9 } }, literalRanges: [], sql: 'INSERT INTO coupons (code) VALUES (?)', placeholders: ['?'], dynamic: false, loops: [] }]);
  assert.deepEqual(ws.map((w) => [w.site.line, w.writeOnly]), [[5, true]], 'an INSERT … VALUES counts as a write');
  assert.equal(writtenTable('INSERT INTO `coupons` (a) VALUES (?)'), 'coupons');
  assert.equal(writtenTable('UPDATE users u SET a = 1 WHERE id = ?'), 'users');
  assert.equal(writtenTable('DELETE FROM sessions WHERE id = ?'), 'sessions');
  assert.equal(writtenTable('SELECT * FROM users'), undefined);
  for (const fn of ['initialize', 'postInitialize', 'Handler.Initialize', 'init_db', 'initDB', 'App::initialize']) assert.equal(isInitialiser(fn), true, fn);
  for (const fn of ['getIndex', 'initiateTrade', 'postIsuCondition', undefined]) assert.equal(isInitialiser(fn), false, String(fn));
});
