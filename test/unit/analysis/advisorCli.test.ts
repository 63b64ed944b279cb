import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mergeSuggestions } from '../../../src/cli/commands/advise';
import { runAdvise } from './advisorCliRun';
import { adviseStatement } from '../../../src/core/analysis/advisor';
import { FIXTURES } from '../../support/paths';
import { SCHEMA } from './advisorCases';

void test('suggestions merge across statements: equal ones and leftmost prefixes join the longer index', () => {
  const site = (line: number, sql: string) => ({ file: 'app.go', line, sql });
  const items = [
    'SELECT * FROM comments WHERE post_id = ? ORDER BY created_at DESC LIMIT 3',
    'SELECT * FROM `comments` WHERE `post_id` = ? ORDER BY `created_at` DESC LIMIT 3',
    'SELECT * FROM login_log WHERE user_id = ? AND created_at > ?',
    'SELECT MAX(created_at) FROM login_log WHERE user_id = ?',
  ].flatMap((sql, i) => adviseStatement(sql, { schema: SCHEMA }).suggestions.map((suggestion) => ({ suggestion, site: site(10 * (i + 1), sql) })));
  const merged = mergeSuggestions(items, SCHEMA);
  assert.deepEqual(merged.map((m) => `${m.table}(${m.columns.join(',')}) ${m.sites.map((s) => s.line).join(',')}`),
    ['comments(post_id,created_at) 10,20', 'login_log(user_id,created_at) 30,40']);
  assert.match(merged[0].ddl, /DROP INDEX `idx_post`, ADD INDEX `idx_comments_post_id_created_at`/);
});

void test('advise DIR offline: schema file found under DIR, JSON Lines with table, ordered columns, ddl and sites', async () => {
  const r = await runAdvise([join(FIXTURES, 'sample-app'), '--format', 'json']);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; table: string; columns: string[]; ddl: string; sites: { file: string; line: number }[] });
  const byCols = Object.fromEntries(lines.map((l) => [`${l.table}(${l.columns.join(',')})`, l]));
  assert.deepEqual(Object.keys(byCols).sort(), ['comments(post_id,created_at)', 'comments(user_id)', 'posts(user_id,created_at)']);
  const c = byCols['comments(post_id,created_at)'];
  assert.equal(c.ddl, 'ALTER TABLE `comments` ADD INDEX `idx_comments_post_id_created_at` (`post_id`, `created_at`)');
  assert.ok(c.sites.length >= 2 && c.sites.every((s) => s.file === 'webapp/go/main.go' && s.line > 0), JSON.stringify(c.sites));
  assert.match(r.err, /row counts unknown/);
});

void test('advise --schema FILE with table and md output; bad usage is refused with a clear message', async () => {
  const schema = join(FIXTURES, 'schema-files', 'schema.sql');
  const t = await runAdvise([join(FIXTURES, 'sample-app'), '--schema', schema]);
  assert.equal(t.code, 0, t.err);
  assert.match(t.out, /\| comments \| post_id, created_at \|/);
  assert.match(t.out, /ALTER TABLE `comments` ADD INDEX/);
  const md = await runAdvise([join(FIXTURES, 'sample-app'), '--schema', join(FIXTURES, 'schema-files', 'init.sql'), '--format', 'md']);
  assert.match(md.out, /^\| table \| columns \|/m);
  await assert.rejects(runAdvise([join(FIXTURES, 'sample-app'), '--format', 'csv']), /--format must be one of table, json, md/);
  await assert.rejects(runAdvise([join(FIXTURES, 'sample-app'), '--schema', 'x.sql', '--socket', '/tmp/x']), /either connection options or --schema/);
  await assert.rejects(runAdvise([join(FIXTURES, 'sample-app'), '--password', 'pw', '--user', 'u']), /--password is not accepted/);
  await assert.rejects(runAdvise([join(FIXTURES, 'sample-app'), '--schema', join(FIXTURES, 'nope.sql')]), /cannot read schema file/);
});
