import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mergeSuggestions } from '../../../src/core/analysis/adviceMerge';
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

void test('suggestions merge when equality columns can be reordered: one index serves (a, b, order), (b) and (b, a)', () => {
  const site = (line: number, sql: string) => ({ file: 'app.go', line, sql });
  const items = [
    // One user's events of a kind, newest first; every event of a kind; deleting one user's events of a kind.
    'SELECT * FROM events WHERE user_id = ? AND kind = ? ORDER BY created_at DESC',
    'SELECT * FROM events WHERE kind = ?',
    'DELETE FROM events WHERE kind = ? AND user_id = ?',
    // tenant_id leads idx_tenant, which the first suggestion extends: its order stays, so (score) alone is an index of its own.
    'SELECT * FROM events WHERE tenant_id = ? AND score = ? ORDER BY created_at',
    'SELECT * FROM events WHERE score = ?',
  ].flatMap((sql, i) => adviseStatement(sql, { schema: SCHEMA }).suggestions.map((suggestion) => ({ suggestion, site: site(10 * (i + 1), sql) })));
  const merged = mergeSuggestions(items, SCHEMA);
  const shown = merged.map((m) => `${m.table}(${m.columns.join(',')}) ${m.sites.map((s) => s.line).join(',')}`).sort();
  assert.deepEqual(shown, ['events(kind,user_id,created_at) 10,20,30', 'events(score) 50', 'events(tenant_id,score,created_at) 40']);
  const one = merged.find((m) => m.sites.length === 3)!;
  assert.equal(one.name, 'idx_events_kind_user_id_created_at');
  assert.match(one.ddl, /ADD INDEX `idx_events_kind_user_id_created_at` \(`kind`, `user_id`, `created_at`\)/);
  assert.match(one.reason, /ordered kind, user_id so that one index serves them all/);
  assert.match(merged.find((m) => m.sites[0].line === 40)!.ddl, /DROP INDEX `idx_tenant`/);
  // An order or range column cannot move into the equality part: (created_at) is no prefix of (kind, user_id, created_at).
  const apart = mergeSuggestions(['SELECT * FROM events WHERE user_id = ? AND kind = ? ORDER BY created_at DESC', 'SELECT * FROM events WHERE created_at > ? ORDER BY created_at LIMIT 5']
    .flatMap((sql, i) => adviseStatement(sql, { schema: SCHEMA }).suggestions.map((suggestion) => ({ suggestion, site: site(i + 1, sql) }))), SCHEMA);
  assert.equal(apart.length, 2, JSON.stringify(apart.map((m) => m.columns)));
  // A statement with fewer equality columns, then a column in order: (kind, user_id | score) fits (kind, user_id, score | created_at).
  const nested = mergeSuggestions(['SELECT * FROM events WHERE score = ? AND user_id = ? AND kind = ? ORDER BY created_at', 'SELECT score FROM events WHERE kind = ? AND user_id = ?', 'SELECT id FROM events WHERE user_id = ?']
    .flatMap((sql, i) => adviseStatement(sql, { schema: SCHEMA }).suggestions.map((suggestion) => ({ suggestion, site: site(i + 1, sql) }))), SCHEMA);
  assert.deepEqual(nested.map((m) => `${m.columns.join(',')} ${m.sites.map((x) => x.line).join(',')}`), ['user_id,kind,score,created_at 1,2,3']);
});
