/**
 * Where the five former SQL scanners disagreed (`%f`, `:=`, `@name`, `col=%s`, `IN %s`, `--`
 * without a space), every reader now follows the one lexer. One row per disagreement, checked in
 * each reader: placeholdersOf (source), fingerprint, fill, query model, N+1 advice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import type { FileFacts, LoopInfo, Range, Schema, SqlSite } from '../../../src/core/model';
import { placeholdersOf } from '../../../src/core/source/sqlText';
import { fingerprint } from '../../../src/core/sql/fingerprint';
import { fillPlaceholders, type SampleSource, type SampleValue } from '../../../src/core/sql/fillPlaceholders';
import { buildQueryModel } from '../../../src/core/sql/queryModel';
import { detectNPlusOne } from '../../../src/core/analysis/nPlusOne';
import { adviseNPlusOne } from '../../../src/core/analysis/nPlusOneAdvice';
import { findCreateTables, splitStatements } from '../../../src/core/analysis/ddlParse';

const schema = JSON.parse(readFileSync(join(FIXTURES, 'schemas', 'isuconish.schema.json'), 'utf8')) as Schema;
const samples: SampleSource = {
  sample: async (table: string, column: string, count: number): Promise<SampleValue[]> =>
    (({ 'comments.post_id': [10, 20, 30], 'posts.id': [1, 2, 3], 'posts.user_id': [7, 8] } as Record<string, SampleValue[]>)[`${table}.${column}`] ?? []).slice(0, count),
};

async function filled(sql: string): Promise<string> {
  const r = await fillPlaceholders(sql, schema, samples);
  assert.ok(r.ok, `${sql}: ${'reason' in r ? r.reason : ''}`);
  return r.sql;
}

const PLACEHOLDER_ROWS: [string, string[]][] = [
  // `%f` (queryModel read it, fillScan and sqlText did not)
  ['SELECT * FROM posts WHERE score > %f AND id = %d', ['%f', '%d']],
  // `:=` is an assignment, `@name` a MySQL user variable: neither is a driver placeholder
  ['SELECT @n := @n + 1, id FROM posts WHERE id = :id', [':id']],
  // pymysql's `col=%s` without spaces (the fingerprint read `=%` as one operator)
  ['UPDATE posts SET user_id=%s WHERE id=%s', ['%s', '%s']],
  // `--` without a space is two minus signs, not a comment (MySQL's rule)
  ['SELECT id--1 FROM posts WHERE id = ?', ['?']],
];

void test('agreement: placeholders are the same in source and in the fingerprint', () => {
  for (const [sql, want] of PLACEHOLDER_ROWS) {
    assert.deepEqual(placeholdersOf(sql), want, sql);
    const fp = fingerprint(sql);
    for (const p of want) if (p !== '?') assert.ok(!fp.includes(p.toLowerCase()), `${sql} → ${fp}`);
  }
  assert.equal(fingerprint('UPDATE posts SET user_id=%s WHERE id=%s'), fingerprint('UPDATE posts SET user_id = 5 WHERE id = 6'));
  assert.equal(fingerprint('SELECT id--1 FROM posts'), 'select id - ? from posts');
  assert.equal(fingerprint('SELECT @n := @n + 1 FROM posts'), 'select @n := @n + ? from posts');
});

void test('agreement: `IN %s` (and `IN :ids`, `IN ?`) is a list everywhere', async () => {
  const logged = fingerprint('SELECT * FROM comments WHERE post_id IN (10, 20, 30)');
  for (const sql of ['SELECT * FROM comments WHERE post_id IN %s', 'SELECT * FROM comments WHERE post_id IN :ids', 'SELECT * FROM comments WHERE post_id IN %(ids)s']) {
    assert.equal(fingerprint(sql), logged, sql);
  }
  assert.equal(await filled('SELECT * FROM comments WHERE post_id IN %s'), 'SELECT * FROM comments WHERE post_id IN (10, 20, 30)');
  assert.equal(await filled('SELECT * FROM comments WHERE post_id NOT IN %(ids)s AND id = %s'), 'SELECT * FROM comments WHERE post_id NOT IN (10, 20, 30) AND id = 1');
  const m = buildQueryModel('SELECT * FROM comments WHERE post_id IN %s');
  assert.ok(m.ok);
  assert.deepEqual(m.model.blocks[0].tables[0].where.equalities.map((e) => `${e.column}:${e.kind}:${e.param}`), ['post_id:list:true']);
});

void test('agreement: a user variable compared with a column is filled; one that is assigned is left alone', async () => {
  assert.equal(await filled('SELECT * FROM posts WHERE user_id = @uid'), 'SELECT * FROM posts WHERE user_id = 7');
  assert.equal(await filled('SELECT @rank := @rank + 1 AS r, id FROM posts WHERE id = ?'), 'SELECT @rank := @rank + 1 AS r, id FROM posts WHERE id = 1');
});

const rng = (line: number): Range => ({ start: { line, character: 0 }, end: { line, character: 60 } });
const loop: LoopInfo = { kind: 'range', range: { start: { line: 5, character: 1 }, end: { line: 9, character: 2 } }, iterable: 'posts' };

function adviceFor(innerSql: string, language: SqlSite['language'] = 'python') {
  const s = (line: number, sql: string, extra: Partial<SqlSite>): SqlSite => ({ file: 'app.x', language, range: rng(line), literalRanges: [rng(line)], sql, placeholders: placeholdersOf(sql), dynamic: false, loops: [], ...extra });
  const facts: FileFacts = {
    file: 'app.x', language, sites: [s(3, 'SELECT * FROM posts', { resultVar: 'posts' }), s(7, innerSql, { loops: [loop], call: 'db.query' })],
    functions: [{ name: 'index', range: { start: { line: 0, character: 0 }, end: { line: 20, character: 0 } }, nameRange: rng(0) }],
    calls: [{ name: 'query', receiver: 'db', range: rng(7), loops: [loop] }], routes: [], errors: [],
  };
  const [f] = detectNPlusOne([facts]);
  assert.ok(f, 'expected a finding');
  return adviseNPlusOne(f);
}

void test('agreement: N+1 advice reads pymysql placeholders and never throws on identifiers with regex metacharacters', () => {
  assert.equal(adviceFor('SELECT * FROM users WHERE id=%s').batchSql, 'SELECT * FROM users WHERE id IN (%s, %s, …)');
  for (const col of ['a.b(', 'c++', 'x[1]', 'w$1', 'q?|z']) {
    const a = adviceFor(`UPDATE posts SET n = n + 1 WHERE \`${col}\` = %s`);
    assert.equal(a.batchSql, `UPDATE posts SET n = n + 1 WHERE \`${col}\` IN (%s, %s, …)`, col);
  }
});

void test('agreement: schema files split on the same quotes and comments as every other reader', () => {
  const text = "/*!40101 SET NAMES utf8mb4 */;\n-- a; comment\nCREATE TABLE `we``ird` (\n  `a;b` INT DEFAULT 1, # x; y\n  note VARCHAR(9) DEFAULT 'it''s; \\' ok',\n  KEY k (`a;b`) /* ; */\n);\nINSERT INTO t VALUES ('--;', \"#;\");\n";
  const parts = splitStatements(text).map((s) => text.slice(s.start, s.end).trim());
  assert.equal(parts.length, 3, parts.join('\n---\n'));
  assert.ok(parts[0].startsWith('/*!40101'));
  const [t] = findCreateTables(text);
  assert.equal(t.table, 'we`ird');
  assert.deepEqual(t.definitions.map((d) => d.text), ['`a;b` INT DEFAULT 1', "note VARCHAR(9) DEFAULT 'it''s; \\' ok'", 'KEY k (`a;b`)']);
});
