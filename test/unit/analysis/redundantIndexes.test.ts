import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redundantIndexes, redundantIndexesOf } from '../../../src/core/analysis/redundantIndexes';
import type { IndexInfo, TableInfo } from '../../../src/core/model';
import { SCHEMA } from './advisorCases';

const pk = (...columns: string[]): IndexInfo => ({ name: 'PRIMARY', columns, unique: true, primary: true });
const ix = (name: string, columns: string[], unique = false): IndexInfo => ({ name, columns, unique, primary: false });
const t = (indexes: IndexInfo[]): TableInfo => ({ name: 't', rows: 10, columns: [], indexes, engine: 'InnoDB' });
const found = (indexes: IndexInfo[]) => redundantIndexesOf(t(indexes)).map((r) => `${r.index}<${r.coveredBy}:${r.kind}`);

void test('a leftmost prefix of another index is redundant', () => {
  assert.deepEqual(found([pk('id'), ix('a', ['user_id']), ix('ab', ['user_id', 'created_at'])]), ['a<ab:prefix']);
});
void test('exact duplicates: the later plain one is reported once', () => {
  assert.deepEqual(found([pk('id'), ix('x1', ['a', 'b']), ix('x2', ['a', 'b'])]), ['x2<x1:duplicate']);
});
void test('an index ending in the primary key duplicates the one without it (InnoDB)', () => {
  assert.deepEqual(found([pk('id'), ix('u', ['user_id']), ix('u_id', ['user_id', 'id'])]), ['u_id<u:duplicate']);
  assert.deepEqual(found([pk('id'), ix('u_id', ['user_id', 'id']), ix('u', ['user_id'])]), ['u<u_id:duplicate']);
});
void test('unique indexes are kept unless the same constraint exists twice; a plain twin of a unique index is reported', () => {
  assert.deepEqual(found([pk('id'), ix('uq', ['email'], true), ix('uq_email_name', ['email', 'name'])]), []);
  assert.deepEqual(found([pk('id'), ix('uq', ['email'], true), ix('email', ['email'])]), ['email<uq:duplicate']);
  assert.deepEqual(found([pk('id'), ix('uq1', ['email'], true), ix('uq2', ['email'], true)]), ['uq2<uq1:duplicate']);
  assert.deepEqual(found([pk('id'), ix('id_again', ['id'], true)]), ['id_again<PRIMARY:duplicate']);
});
void test('a prefix of the primary key is redundant (a duplicate once InnoDB appends the key)', () => {
  assert.deepEqual(found([pk('follower_id', 'followee_id'), ix('f', ['follower_id'])]), ['f<PRIMARY:duplicate']);
  assert.deepEqual(found([pk('a', 'b', 'c'), ix('f', ['a'])]).length, 1);
});
void test('prefix lengths must match', () => {
  assert.deepEqual(redundantIndexesOf(t([pk('id'), { ...ix('n10', ['name']), subParts: [10] }, ix('n', ['name', 'x'])])).length, 0);
});
void test('schema-wide listing with DROP DDL (reactions.idx_ls is a prefix of idx_ls_created)', () => {
  const all = redundantIndexes(SCHEMA);
  assert.deepEqual(all.map((r) => `${r.table}.${r.index}`), ['reactions.idx_ls']);
  assert.equal(all[0].ddl, 'ALTER TABLE `reactions` DROP INDEX `idx_ls`');
  assert.match(all[0].reason, /leftmost prefix of idx_ls_created/);
});
