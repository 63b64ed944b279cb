import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import { normalizeTabular, parseExplainText, splitExtra } from '../../../src/core/plan/normalizeTabular';
import { mergeJsonDetail, normalizeJson } from '../../../src/core/plan/normalizeJson';
import type { Flavor } from '../../../src/core/model';

const read = (flavor: string, name: string) => readFileSync(join(FIXTURES, 'explain', flavor === 'mysql' ? 'mysql8' : 'mariadb', name), 'utf8');
const tab = (flavor: Flavor, name: string) => normalizeTabular(parseExplainText(read(flavor, `${name}.txt`)), flavor);
const json = (flavor: Flavor, name: string) => normalizeJson(read(flavor, `${name}.json`), flavor);
const brief = (p: ReturnType<typeof tab>) => p.rows.map((r) => [r.id, r.selectType, r.table, r.type, r.key, r.rows, r.extra.join('; ')]);

void test('splitExtra keeps parenthesised commas', () => {
  assert.deepEqual(splitExtra('Using where; Using join buffer (flat, BNL join)'), ['Using where', 'Using join buffer (flat, BNL join)']);
  assert.deepEqual(splitExtra(null), []);
  assert.deepEqual(splitExtra(''), []);
});

void test('MySQL 8 tabular: twelve columns, NULLs, filtered', () => {
  const p = tab('mysql', 'join-buffer');
  assert.deepEqual(brief(p), [
    [1, 'SIMPLE', 'c', 'ref', 'idx_post_id', 2, ''],
    [1, 'SIMPLE', 'p', 'ALL', null, 100113, 'Using where; Using join buffer (hash join)'],
  ]);
  assert.equal(p.rows[1].filtered, 10);
  assert.deepEqual(p.rows[0].possibleKeys, ['idx_post_id']);
  assert.equal(p.rows[0].partitions, null);
  assert.equal(p.rows[0].ref, 'const');
});

void test('MariaDB tabular (captured): no filtered column, BNL join buffer', () => {
  const p = tab('mariadb', 'join-buffer');
  assert.deepEqual(brief(p), [
    [1, 'SIMPLE', 'c', 'ref', 'idx_post_id', 2, ''],
    [1, 'SIMPLE', 'p', 'ALL', null, 100069, 'Using where; Using join buffer (flat, BNL join)'],
  ]);
  assert.equal(p.rows[0].filtered, null);
});

void test('MySQL 8 JSON: ordering_operation filesort, cost, attached condition', () => {
  const p = json('mysql', 'scan-filesort');
  assert.deepEqual(brief(p), [[1, 'SIMPLE', 'posts', 'ALL', null, 100113, 'Using filesort; Using where']]);
  assert.equal(p.cost, 10178.55);
  assert.equal(p.rows[0].filtered, 10);
  assert.match(p.rows[0].condition ?? '', /user_id/);
});

void test('MySQL 8 JSON: hash join buffer and grouping temporary table', () => {
  assert.deepEqual(brief(json('mysql', 'join-buffer'))[1], [1, 'SIMPLE', 'p', 'ALL', null, 100113, 'Using where; Using join buffer (hash join)']);
  assert.deepEqual(brief(json('mysql', 'group-temporary')), [[1, 'SIMPLE', 'comments', 'ALL', null, 199652, 'Using temporary']]);
});

void test('MySQL 8 JSON: dependent attached subquery', () => {
  const p = json('mysql', 'dependent');
  assert.deepEqual(p.rows.map((r) => [r.id, r.selectType, r.table]), [[1, 'PRIMARY', 'p'], [2, 'DEPENDENT SUBQUERY', 'c']]);
});

void test('MariaDB JSON (captured): filesort/temporary wrappers, block-nl-join, expression cache', () => {
  assert.deepEqual(brief(json('mariadb', 'group-temporary')), [[1, 'SIMPLE', 'comments', 'ALL', null, 199571, 'Using filesort; Using temporary']]);
  assert.deepEqual(brief(json('mariadb', 'join-buffer'))[1], [1, 'SIMPLE', 'p', 'ALL', null, 100069, 'Using where; Using join buffer (flat, BNL join)']);
  const dep = json('mariadb', 'dependent');
  assert.deepEqual(dep.rows.map((r) => [r.id, r.selectType, r.table]), [[1, 'PRIMARY', 'p'], [2, 'DEPENDENT SUBQUERY', 'c']]);
});

void test('MariaDB JSON (captured): derived table inside a UNION, UPDATE with buffer', () => {
  const p = json('mariadb', 'derived-union');
  assert.deepEqual(p.rows.map((r) => [r.id, r.selectType, r.table]), [
    [1, 'PRIMARY', 'u'], [1, 'PRIMARY', '<derived2>'], [2, 'DERIVED', 'posts'], [3, 'UNION', null], [null, 'UNION RESULT', '<union1,3>'],
  ]);
  const u = json('mariadb', 'update-order');
  assert.equal(u.rows[0].table, 'posts');
  assert.equal(u.rows[0].type, 'index');
  assert.equal(u.rows[0].keyLen, null);
});

void test('tabular and JSON agree on tables and access types for every fixture', () => {
  for (const flavor of ['mysql', 'mariadb'] as Flavor[]) {
    for (const name of ['scan-filesort', 'join-buffer', 'group-temporary', 'dependent', 'good-join']) {
      const t = tab(flavor, name).rows.map((r) => [r.table, r.type, r.key]);
      const j = json(flavor, name).rows.map((r) => [r.table, r.type, r.key]);
      assert.deepEqual(j, t, `${flavor}/${name}`);
    }
  }
});

void test('mergeJsonDetail adds MariaDB filtered and conditions to the tabular plan', () => {
  const m = mergeJsonDetail(tab('mariadb', 'join-buffer'), json('mariadb', 'join-buffer'));
  assert.equal(m.source, 'tabular+json');
  assert.equal(m.rows[1].filtered, 100);
  assert.equal(m.rows[1].condition, 'p.user_id = c.user_id');
  assert.ok(m.json);
});

void test('normalizeJson refuses a document that is not EXPLAIN JSON', () => {
  assert.throws(() => normalizeJson('{"x":1}', 'mysql'), /query_block/);
  assert.throws(() => normalizeJson('not json', 'mysql'));
});
