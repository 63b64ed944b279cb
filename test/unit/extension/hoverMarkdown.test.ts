/**
 * The EXPLAIN hover's Markdown: the plan table with the tabular EXPLAIN columns, findings,
 * substitutions, suggested index with exactly our command links, and escaping of everything quoted
 * (a statement or a server message cannot add links, HTML or table cells).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codeBlock, escapeMarkdown, explainHoverMarkdown, inlineCode, planTable, type HoverCommands } from '../../../src/extension/explain/hoverMarkdown';
import type { Plan, PlanRow } from '../../../src/core/plan/planModel';
import type { IndexSuggestion } from '../../../src/core/model';

const row = (o: Partial<PlanRow>): PlanRow => ({
  id: 1, selectType: 'SIMPLE', table: 'posts', partitions: null, type: 'ALL', possibleKeys: [], key: null, keyLen: null,
  ref: null, rows: 99974, filtered: 100, extra: ['Using where', 'Using filesort'], ...o,
});
const plan: Plan = { flavor: 'mariadb', source: 'tabular+json', rows: [row({})] };
const suggestion: IndexSuggestion = {
  table: 'posts', columns: ['user_id', 'created_at'], name: 'idx_posts_user_id_created_at',
  ddl: 'ALTER TABLE `posts` ADD INDEX `idx_posts_user_id_created_at` (`user_id`, `created_at`)',
  reason: 'equality on user_id, then the ORDER BY column', servesOrderBy: true, covering: false,
};
const commands: HoverCommands = {
  addToDatabase: 'queryInsight.addIndexToDatabase', addToSchemaFile: 'queryInsight.addIndexToSchemaFile',
  copyDdl: 'queryInsight.copyIndexDdl', showLog: 'queryInsight.showLog',
  args: (s) => ({ uri: 'file:///w/main.go', line: 154, character: 30, index: s.name }),
};

void test('plan table: header of tabular EXPLAIN, one row per plan row, numbers formatted, empty cells as a dash', () => {
  const t = planTable({ ...plan, rows: [row({}), row({ id: 1, table: 'u', type: 'eq_ref', possibleKeys: ['PRIMARY'], key: 'PRIMARY', keyLen: '4', ref: 'isupic.p.user_id', rows: 1, filtered: 33.333333, extra: [] })] }).split('\n');
  assert.equal(t[0], '| id | select_type | table | type | possible_keys | key | key_len | ref | rows | filtered | Extra |');
  assert.equal(t.length, 4);
  assert.equal(t[2], '| 1 | SIMPLE | posts | ALL | — | — | — | — | 99,974 | 100% | Using where; Using filesort |');
  assert.equal(t[3], '| 1 | SIMPLE | u | eq\\_ref | PRIMARY | PRIMARY | 4 | isupic\\.p\\.user\\_id | 1 | 33\\.33% | — |');
});

void test('the hover: plan, findings, substitutions, suggestion with the three command links, trusted ids', () => {
  const { markdown, enabledCommands } = explainHoverMarkdown({
    sql: 'SELECT * FROM posts WHERE user_id = ? ORDER BY created_at DESC', plan,
    findings: [{ code: 'full-table-scan', severity: 'error', message: 'full table scan of posts', table: 'posts', planRows: [0] }],
    substitutions: [{ placeholder: '?', index: 0, value: '42', column: 'posts.user_id', source: 'sample' }],
    filledSql: 'SELECT * FROM posts WHERE user_id = 42 ORDER BY created_at DESC', suggestions: [suggestion], server: 'MariaDB 10.11.6',
  }, commands);
  assert.match(markdown.split('\n')[0], /^\*\*Query Insight\*\* · \$\(error\) full table scan of posts · MariaDB 10\\\.11\\\.6$/);
  assert.match(markdown, /\| select_type \|/);
  assert.match(markdown, /`full-table-scan` full table scan of posts/);
  assert.match(markdown, /`\?` #1 → `42` \(posts\\\.user\\_id, sample\)/);
  assert.match(markdown, /```sql\nALTER TABLE `posts` ADD INDEX/);
  const links = [...markdown.matchAll(/\]\(command:([\w.]+)\?([^)]*)\)/g)];
  assert.deepEqual(links.map((l) => l[1]), ['queryInsight.addIndexToDatabase', 'queryInsight.addIndexToSchemaFile', 'queryInsight.copyIndexDdl']);
  assert.deepEqual(JSON.parse(decodeURIComponent(links[0][2])), [{ uri: 'file:///w/main.go', line: 154, character: 30, index: 'idx_posts_user_id_created_at' }]);
  assert.deepEqual(enabledCommands.sort(), ['queryInsight.addIndexToDatabase', 'queryInsight.addIndexToSchemaFile', 'queryInsight.copyIndexDdl']);
});

void test('no links and no trusted commands without a suggestion; errors offer only Show Log', () => {
  const none = explainHoverMarkdown({ sql: 'SELECT 1', plan, findings: [], substitutions: [], suggestions: [] }, commands);
  assert.deepEqual(none.enabledCommands, []);
  assert.doesNotMatch(none.markdown, /command:/);
  assert.match(none.markdown.split('\n')[0], /No plan findings/);
  const err = explainHoverMarkdown({ sql: 'SELECT * FROM nope', findings: [], substitutions: [], suggestions: [], error: { kind: 'unknown-table', message: "Table 'isupic.nope' doesn't exist" } }, commands);
  assert.deepEqual(err.enabledCommands, ['queryInsight.showLog']);
  assert.match(err.markdown, /EXPLAIN failed \(unknown\\-table\): Table 'isupic\\\.nope' doesn't exist/);
});

void test('a statement not explained for a reason outside it says so, with the server\'s words, and no error mark', () => {
  const { markdown, enabledCommands } = explainHoverMarkdown({
    sql: 'SELECT * FROM scores', findings: [], substitutions: [], suggestions: [],
    error: { kind: 'unknown-table', message: "Table 'isupic.scores' doesn't exist", notExplained: '`scores` is not in the connected database `isupic` (defined in sql/tenant.sql)' },
  }, commands);
  assert.equal(markdown.split('\n')[0], '**Query Insight** · $(info) not explained: \\`scores\\` is not in the connected database \\`isupic\\` \\(defined in sql/tenant\\.sql\\)');
  assert.match(markdown, /The server said: Table 'isupic\\\.scores' doesn't exist/);
  assert.doesNotMatch(markdown, /\$\(error\)|EXPLAIN failed/);
  assert.deepEqual(enabledCommands, []);
});

void test('quoted text is escaped: no link, HTML, emphasis or table cell can come from a statement or a message', () => {
  const evil = '[run](command:queryInsight.addIndexToDatabase?%5B%5D) <img src=x> | *x* `y`';
  const e = escapeMarkdown(evil);
  assert.doesNotMatch(e, /(?<!\\)[[\]()<>|*`]/);
  const { markdown } = explainHoverMarkdown({
    sql: evil, findings: [{ code: 'filesort', severity: 'warning', message: evil, planRows: [] }],
    substitutions: [{ placeholder: '?', index: 0, value: "'a`b``c'", source: 'typed' }], skipped: evil, suggestions: [],
    plan: { ...plan, rows: [row({ table: evil, extra: [evil] })] },
  }, commands);
  assert.doesNotMatch(markdown, /(?<!\\)\]\(command:/, 'no live command link');
  assert.doesNotMatch(markdown, /(?<!\\)<img/);
  for (const line of markdown.split('\n').filter((l) => l.startsWith('| 1 '))) {
    assert.equal(line.split(/(?<!\\)\|/).length - 2, 11, 'a table row keeps its 11 cells');
  }
  assert.equal(inlineCode("'a`b``c'"), "```'a`b``c'```");
  assert.equal(codeBlock('x ```` y').split('\n')[0], '`````sql');
});

void test('the hover leads with the verdict and the actions: summary line, the links, then the suggested index, the plan collapsed, then details', () => {
  const { markdown } = explainHoverMarkdown({
    sql: 'SELECT * FROM posts WHERE user_id = ? ORDER BY created_at DESC', plan,
    findings: [
      { code: 'filesort', severity: 'warning', message: 'filesort of posts', table: 'posts', planRows: [0] },
      { code: 'full-table-scan', severity: 'error', message: 'full table scan of posts', table: 'posts', planRows: [0] },
    ],
    substitutions: [{ placeholder: '?', index: 0, value: '42', column: 'posts.user_id', source: 'sample' }],
    filledSql: 'SELECT * FROM posts WHERE user_id = 42 ORDER BY created_at DESC', suggestions: [suggestion],
  }, { ...commands, showPlan: { command: 'queryInsight.showPlan', args: { line: 1 } }, measure: 'queryInsight.measureStatement', measureArgs: { line: 1 } });
  const lines = markdown.split('\n');
  assert.equal(lines[0], '**Query Insight** · $(error) full table scan of posts (+1 more)', 'the worst finding first, one line');
  // the actions come right after the verdict: the index links on the third line, Show plan and Measure on the fifth
  assert.match(lines[2], /^\[Add index to the database\]\(command:queryInsight\.addIndexToDatabase\?.*\[Copy DDL\]/);
  assert.match(lines[4], /^\[Show plan\]\(command:queryInsight\.showPlan\?[^)]*\) · \[Measure\]\(command:queryInsight\.measureStatement\?\S+ "Measure: runs this SELECT once under ANALYZE/);
  const at = (needle: string) => { const i = markdown.indexOf(needle); assert.ok(i >= 0, needle); return i; };
  const order = [at('command:queryInsight.addIndexToDatabase'), at('command:queryInsight.showPlan'), at('command:queryInsight.measureStatement'), at('**Suggested index**'), at('ALTER TABLE `posts`'),
    at('<details><summary>Plan</summary>'), at('| select_type |'), at('</details>'), at('**Findings**'), at('**Substituted for placeholders**'), at('Explained as:')];
  assert.deepEqual([...order].sort((a, b) => a - b), order);
  // the table is Markdown inside the HTML block: blank lines around it
  assert.match(markdown, /<summary>Plan<\/summary>\n\n\| id \|[^\n]*\n[^\n]*\n[^\n]*\n\n<\/details>/);
});

void test('hover: "explained without FOR UPDATE", a trusted Measure link with its limits, the measurement beside the estimates', () => {
  const base = { sql: 'SELECT * FROM posts WHERE user_id = ? FOR UPDATE', plan, findings: [], substitutions: [], suggestions: [] };
  const locked = explainHoverMarkdown({ ...base, explainedWithout: ['FOR UPDATE'], measureRefusal: 'a locking read (FOR UPDATE) is never measured: it would take locks' },
    { ...commands, measure: 'queryInsight.measureStatement', measureArgs: { uri: 'file:///a.go', line: 1, character: 2 } });
  assert.match(locked.markdown, /Explained without FOR UPDATE: the plan is the same/);
  assert.ok(!locked.enabledCommands.includes('queryInsight.measureStatement'));
  assert.match(locked.markdown, /Not measurable: a locking read \\\(FOR UPDATE\\\) is never measured/);
  const plain = explainHoverMarkdown({ ...base, sql: 'SELECT * FROM posts WHERE user_id = ?', measureLimits: 'at most 1,000,000 rows examined and 5 s',
    measured: { rowsRead: 100003, rowsSent: 0, ms: 44.2, capped: false, accesses: [{ table: 'posts', estimate: 2, rowsRead: 100003, loops: 1, ms: 43.9 }],
      findings: [{ code: 'measured-over-estimate', severity: 'error', message: 'measured: read 100,003 rows of posts where EXPLAIN estimated ~2', planRows: [0] }] } },
  { ...commands, measure: 'queryInsight.measureStatement', measureArgs: { uri: 'file:///a.go', line: 1, character: 2 } });
  assert.ok(plain.enabledCommands.includes('queryInsight.measureStatement'));
  assert.match(plain.markdown, /\[Measure\]\(command:queryInsight\.measureStatement\?/);
  assert.match(plain.markdown, /at most 1,000,000 rows examined and 5 s/);
  assert.match(plain.markdown, /\*\*Measured\*\* \(ANALYZE\): read 100,003 rows, returned 0/);
  assert.match(plain.markdown, /\| posts \| 2 \| 100,003 \| 1 \| 43\\\.9 \|/);
  assert.match(plain.markdown, /`measured-over-estimate`/);
});

void test('a statement that needs several indexes (a join chain) also offers them all at once; one index, or an index-merge pair, does not', () => {
  const other: IndexSuggestion = { ...suggestion, table: 'users', columns: ['id', 'del_flg'], name: 'idx_users_id_del_flg', ddl: 'ALTER TABLE `users` ADD INDEX `idx_users_id_del_flg` (`id`, `del_flg`)' };
  const all = { uri: 'file:///w/main.go', line: 154, character: 30, all: true };
  const both = explainHoverMarkdown({ sql: 'SELECT 1', plan, findings: [], substitutions: [], suggestions: [suggestion, other] }, { ...commands, allArgs: all });
  const links = [...both.markdown.matchAll(/\[([^\]]+)\]\(command:([\w.]+)\?([^)]*)\)/g)];
  const together = links.filter((l) => JSON.parse(decodeURIComponent(l[3]))[0].all === true);
  assert.deepEqual(together.map((l) => `${l[1]} ${l[2]}`), ['Add them to the database queryInsight.addIndexToDatabase', 'Add them to the schema files queryInsight.addIndexToSchemaFile', 'Copy DDL queryInsight.copyIndexDdl']);
  assert.match(both.markdown, /\*\*All 2 indexes together\*\*/);
  // with several indexes, each line of links names its index
  assert.match(both.markdown, /^posts\\\(user\\_id, created\\_at\\\): \[Add index to the database\]/m);
  assert.match(both.markdown, /^users\\\(id, del\\_flg\\\): \[Add index to the database\]/m);
  assert.equal(links.length, 9, 'three links per index and three for both');
  const one = explainHoverMarkdown({ sql: 'SELECT 1', plan, findings: [], substitutions: [], suggestions: [suggestion] }, { ...commands, allArgs: all });
  assert.doesNotMatch(one.markdown, /together/);
  const pair = [{ ...suggestion, mergeGroup: 'posts:or:0' }, { ...other, table: 'posts', mergeGroup: 'posts:or:0' }];
  assert.doesNotMatch(explainHoverMarkdown({ sql: 'SELECT 1', plan, findings: [], substitutions: [], suggestions: pair }, { ...commands, allArgs: all }).markdown, /together/);
});
