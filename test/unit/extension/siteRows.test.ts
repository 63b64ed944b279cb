/** How a site is shown in the quick pick and what the list command returns. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SqlSite } from '../../../src/core/model';
import { oneLineSql, siteLabels, siteRow } from '../../../src/extension/statements/siteRows';

const range = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });
const loop = { kind: 'for', range: range(1, 0, 9, 1) };
const site: SqlSite = {
  file: 'webapp/go/main.go', language: 'go', range: range(88, 48, 88, 86), literalRanges: [range(88, 48, 88, 86)],
  sql: 'SELECT *\n\t\tFROM `users`\n\t\tWHERE `id` = ?', placeholders: ['?'], dynamic: false,
  function: 'makePosts', loops: [loop, loop],
};

void test('a row has 1-based line and column, the loop depth and the SQL as found', () => {
  assert.deepEqual(siteRow(site), {
    file: 'webapp/go/main.go', line: 89, column: 49, language: 'go', function: 'makePosts', loopDepth: 2,
    sql: 'SELECT *\n\t\tFROM `users`\n\t\tWHERE `id` = ?', dynamic: false,
  });
});

void test('quick-pick labels: SQL on one line, file:line, function and loops in words', () => {
  assert.deepEqual(siteLabels(siteRow(site)), {
    label: 'SELECT * FROM `users` WHERE `id` = ?', description: 'webapp/go/main.go:89', detail: 'in makePosts · inside 2 loops',
  });
  const top = siteLabels(siteRow({ ...site, function: undefined, loops: [loop], dynamic: true }));
  assert.equal(top.detail, 'at top level · inside 1 loop · partly dynamic');
  assert.equal(siteLabels(siteRow({ ...site, loops: [] })).detail, 'in makePosts · not in a loop');
});

void test('long statements are cut with an ellipsis', () => {
  const long = `SELECT ${'a, '.repeat(100)}b FROM t`;
  const s = oneLineSql(long, 40);
  assert.equal(s.length, 40);
  assert.ok(s.endsWith('…'));
});
