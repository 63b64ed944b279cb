/** Labels for the variants of one statement (a branch appends a clause): what differs, in whole words. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { variantLabels } from '../../../src/core/sql/variantLabels';

void test('an appended clause: the longer variant names it, the shorter says it lacks it', () => {
  assert.deepEqual(variantLabels([
    'SELECT * FROM `comments` WHERE `post_id` = ? ORDER BY `created_at` DESC',
    'SELECT * FROM `comments` WHERE `post_id` = ? ORDER BY `created_at` DESC LIMIT 3',
  ]), ['variant 1 of 2: without LIMIT 3', 'variant 2 of 2: LIMIT 3']);
});

void test('a condition added in the middle: whole words, never cut inside one', () => {
  assert.deepEqual(variantLabels([
    'SELECT id FROM posts WHERE user_id = ? ORDER BY created_at DESC',
    'SELECT id FROM posts WHERE user_id = ? AND public = 1 ORDER BY created_at DESC',
  ]), ['variant 1 of 2: without AND public = 1', 'variant 2 of 2: AND public = 1']);
  assert.deepEqual(variantLabels(['DELETE FROM livecomments WHERE id > 1000', 'DELETE FROM reactions WHERE id > 1000']),
    ['variant 1 of 2: livecomments', 'variant 2 of 2: reactions']);
});

void test('one statement: no label; the same text twice, or three variants: the number, and the words when there are some', () => {
  assert.deepEqual(variantLabels(['SELECT 1']), ['']);
  assert.deepEqual(variantLabels(['SELECT 1', 'SELECT 1']), ['variant 1 of 2', 'variant 2 of 2']);
  assert.deepEqual(variantLabels(['SELECT a FROM t', 'SELECT a FROM t LIMIT 1', 'SELECT a FROM t LIMIT 2']),
    ['variant 1 of 3', 'variant 2 of 3: LIMIT 1', 'variant 3 of 3: LIMIT 2']);
});

void test('a long difference is shortened', () => {
  const long = `SELECT a FROM t WHERE ${'x = 1 AND '.repeat(10)}y = 2`;
  const [, b] = variantLabels(['SELECT a FROM t', long]);
  assert.ok(b.length <= 'variant 2 of 2: '.length + 40 && b.endsWith('…'), b);
});
