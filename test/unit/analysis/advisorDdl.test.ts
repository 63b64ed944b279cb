import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addIndexDdl, dropIndexDdl, indexName, MAX_IDENTIFIER_LENGTH, quoteIdent } from '../../../src/core/analysis/ddl';

void test('identifiers are quoted with backticks, inner backticks doubled', () => {
  assert.equal(quoteIdent('a`b'), '`a``b`');
  assert.equal(addIndexDdl('my table', ['from', 'x`y'], 'idx').ddl, 'ALTER TABLE `my table` ADD INDEX `idx` (`from`, `x``y`)');
  assert.equal(dropIndexDdl('t', 'i', 'db'), 'ALTER TABLE `db`.`t` DROP INDEX `i`');
});

void test('index names: conventional, cleaned, within 64 characters with a stable hash suffix, no clash', () => {
  assert.equal(indexName('posts', ['user_id', 'created_at']), 'idx_posts_user_id_created_at');
  assert.equal(indexName('my-table', ['a b']), 'idx_my_table_a_b');
  const long = indexName('isu_condition_history_archive', ['jia_isu_uuid', 'timestamp', 'condition_level', 'created_at']);
  assert.equal(long.length, MAX_IDENTIFIER_LENGTH);
  assert.match(long, /_[0-9a-f]{8}$/);
  assert.equal(long, indexName('isu_condition_history_archive', ['jia_isu_uuid', 'timestamp', 'condition_level', 'created_at']));
  assert.notEqual(long, indexName('isu_condition_history_archive', ['jia_isu_uuid', 'timestamp', 'condition_level', 'updated_at']));
  assert.equal(indexName('t', ['a'], new Set(['idx_t_a'])), 'idx_t_a_2');
  assert.ok(indexName('t'.repeat(70), ['a'], new Set([indexName('t'.repeat(70), ['a'])])).length <= MAX_IDENTIFIER_LENGTH);
});

void test('large tables get an online ALTER and a warning; small ones do not; extensions drop the old index', () => {
  const big = addIndexDdl('events', ['a'], 'idx_events_a', { rows: 5_000_000 });
  assert.equal(big.ddl, 'ALTER TABLE `events` ADD INDEX `idx_events_a` (`a`), ALGORITHM=INPLACE, LOCK=NONE');
  assert.match(big.warnings[0], /about 5M rows/);
  assert.deepEqual(addIndexDdl('events', ['a'], 'i', { rows: 999 }).warnings, []);
  assert.equal(addIndexDdl('t', ['a', 'b'], 'i2', { replaces: 'i1' }).ddl, 'ALTER TABLE `t` DROP INDEX `i1`, ADD INDEX `i2` (`a`, `b`)');
  assert.equal(addIndexDdl('t', ['a'], 'i', { invisible: true }).ddl, 'ALTER TABLE `t` ADD INDEX `i` (`a`) INVISIBLE');
});
