/** Plan findings and EXPLAIN failures as the diagnostics of one SQL site. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EXPLAIN_FAILED, explainFindings, suggestionFor } from '../../../src/extension/explain/explainFindings';
import type { IndexSuggestion, SqlSite } from '../../../src/core/model';

const site: SqlSite = {
  file: 'webapp/go/main.go', language: 'go', sql: 'SELECT * FROM posts WHERE user_id = ?', placeholders: ['?'], dynamic: false, loops: [],
  range: { start: { line: 154, character: 30 }, end: { line: 154, character: 70 } },
  literalRanges: [{ start: { line: 154, character: 30 }, end: { line: 154, character: 70 } }],
};
const idx = (table: string, name: string): IndexSuggestion => ({ table, columns: ['user_id'], name, ddl: '', reason: '', servesOrderBy: false, covering: false });

void test('each plan finding becomes a finding on the statement range with its code, severity, table and the suggested index', () => {
  const out = explainFindings(site, {
    findings: [
      { code: 'full-table-scan', severity: 'error', message: 'full table scan of posts', table: 'posts', planRows: [0] },
      { code: 'temporary-table', severity: 'info', message: 'uses a temporary table', planRows: [0] },
    ],
  }, [idx('Posts', 'idx_posts_user_id')]);
  assert.deepEqual(out, [
    { code: 'full-table-scan', severity: 'error', file: site.file, range: site.range, table: 'posts', message: 'full table scan of posts — suggested index idx_posts_user_id (user_id)', data: { planRows: [0], index: 'idx_posts_user_id' } },
    { code: 'temporary-table', severity: 'info', file: site.file, range: site.range, message: 'uses a temporary table', data: { planRows: [0] } },
  ]);
});

void test('statement errors show on the site; connection errors do not (the status bar has them)', () => {
  const bad = explainFindings(site, { findings: [], error: { kind: 'unknown-table', message: "Table 'isupic.nope' doesn't exist" } });
  assert.equal(bad.length, 1);
  assert.equal(bad[0].code, EXPLAIN_FAILED);
  assert.equal(bad[0].severity, 'warning');
  assert.match(bad[0].message, /unknown-table.*isupic\.nope/);
  for (const kind of ['unreachable', 'auth', 'unknown-database', 'connection-lost']) {
    assert.deepEqual(explainFindings(site, { findings: [], error: { kind, message: 'x' } }), [], kind);
  }
  for (const kind of ['syntax', 'timeout', 'unknown-column']) assert.equal(explainFindings(site, { findings: [], error: { kind, message: 'x' } }).length, 1, kind);
});

void test('a failure that says nothing against the statement (a table of another database, a lock …) is no squiggle', () => {
  for (const kind of ['unknown-table', 'syntax', 'timeout', 'refused', 'denied']) {
    assert.deepEqual(explainFindings(site, { findings: [], error: { kind, message: 'x', notExplained: '`scores` is not in the connected database `isupic` (defined in sql/tenant.sql)' } }), [], kind);
  }
});

void test('suggestionFor matches the finding\'s table case-insensitively, none without a table', () => {
  const list = [idx('comments', 'a'), idx('posts', 'b')];
  assert.equal(suggestionFor('POSTS', list)?.name, 'b');
  assert.equal(suggestionFor(undefined, list), undefined);
  assert.equal(suggestionFor('users', list), undefined);
});
