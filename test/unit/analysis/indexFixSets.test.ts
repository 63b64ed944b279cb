/** The index quick fixes of one statement: every suggested index once, the finding's own table first. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { indexFixSets } from '../../../src/core/analysis/indexFixSets';
import type { IndexSuggestion } from '../../../src/core/model';

const idx = (table: string, columns: string[], mergeGroup?: string): IndexSuggestion => ({
  table, columns, name: `idx_${table}_${columns.join('_')}`, ddl: '', reason: '', servesOrderBy: false, covering: false, ...(mergeGroup ? { mergeGroup } : {}),
});
const names = (sets: IndexSuggestion[][]): string[] => sets.map((s) => s.map((x) => x.name).join('+'));

void test('a join chain: the finding\'s own index first, the join\'s other index after it, each once', () => {
  // users u JOIN posts p ON p.user_id = u.id JOIN comments c ON c.post_id = p.id WHERE u.id = ?: the scan is on comments.
  const advice = [idx('posts', ['user_id']), idx('comments', ['post_id'])];
  assert.deepEqual(names(indexFixSets(advice, ['comments'])), ['idx_comments_post_id', 'idx_posts_user_id']);
  // Two findings on one table (full scan and filesort), one on a table without a suggestion, one without a table: still one fix per index.
  assert.deepEqual(names(indexFixSets(advice, ['Comments', 'comments', 'users', undefined])), ['idx_comments_post_id', 'idx_posts_user_id']);
  // No finding names a table: the advisor's order.
  assert.deepEqual(names(indexFixSets(advice, [undefined])), ['idx_posts_user_id', 'idx_comments_post_id']);
});

void test('an index-merge pair is one fix; no suggestion, no fix', () => {
  const advice = [idx('items', ['seller_id'], 'or-1'), idx('items', ['buyer_id'], 'or-1'), idx('users', ['id'])];
  assert.deepEqual(names(indexFixSets(advice, ['users'])), ['idx_users_id', 'idx_items_seller_id+idx_items_buyer_id']);
  assert.deepEqual(indexFixSets([], ['items']), []);
});
