import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { addIndexToSchemaText, applyEdit, findSchemaFile } from '../../../src/core/analysis/schemaFileEdit';
import { findCreateTables, parseSchemaText, splitStatements } from '../../../src/core/analysis/ddlParse';
import { FIXTURES } from '../../support/paths';

const DIR = join(FIXTURES, 'schema-files');
interface Case { file: string; table: string; name: string; columns: string[]; replaces?: string; style?: string; already?: string }
const CASES = JSON.parse(readFileSync(join(DIR, 'cases.json'), 'utf8')) as Case[];
const read = (f: string) => readFileSync(join(DIR, f), 'utf8');

CASES.forEach((c, i) => {
  void test(`schema file ${c.file}: ${c.table} (${c.columns.join(', ')})${c.already ? ' is already there' : ` as ${c.style}`}`, () => {
    const text = read(c.file);
    const r = addIndexToSchemaText(text, c.table, c);
    assert.ok(r.ok, r.ok ? '' : r.error);
    if (c.already) {
      assert.deepEqual(r, { ok: true, already: true, existing: c.already });
      return;
    }
    assert.ok('edit' in r);
    assert.equal(r.style, c.style);
    const expectedFile = join(DIR, 'expected', `${String(i + 1).padStart(2, '0')}-${c.table}-${c.file}`);
    assert.ok(existsSync(expectedFile), expectedFile);
    const out = applyEdit(text, r.edit);
    assert.equal(out, readFileSync(expectedFile, 'utf8'));
    // The line/character range names the same span as the offsets.
    const lines = text.split('\n');
    const offsetOf = (p: { line: number; character: number }) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
    assert.equal(offsetOf(r.edit.range.start), r.edit.start);
    assert.equal(offsetOf(r.edit.range.end), r.edit.end);
    // The result still parses, holds the new index, and a second run adds nothing.
    const schema = parseSchemaText([out]);
    const t = schema.tables[c.table.toLowerCase()];
    assert.ok(t.indexes.some((x) => x.name === c.name && x.columns.join() === c.columns.join()), JSON.stringify(t.indexes));
    if (c.replaces) assert.ok(!t.indexes.some((x) => x.name === c.replaces));
    assert.deepEqual(addIndexToSchemaText(out, c.table, c), { ok: true, already: true, existing: c.name });
  });
});

void test('a name taken by an index with other columns is refused, a missing table is reported', () => {
  const text = read('schema.sql');
  const r = addIndexToSchemaText(text, 'posts', { name: 'idx_created_at', columns: ['user_id'] });
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.error : '', /already exists on posts/);
  const missing = addIndexToSchemaText(text, 'nope', { name: 'x', columns: ['a'] });
  assert.deepEqual(missing, { ok: false, error: 'no CREATE TABLE for nope in this file' });
});

void test('statements split across DELIMITER blocks and quoted semicolons', () => {
  const text = read('mixed.sql');
  const heads = splitStatements(text).map((s) => text.slice(s.start, s.end).trim().split('\n').pop()!.slice(0, 20));
  assert.equal(splitStatements(text).length, 4);
  assert.ok(heads[2].startsWith('END'), heads.join(' | '));
  assert.deepEqual(findCreateTables(text).map((c) => c.table), ['events', 'tags', 'audit']);
});

void test('schema files parse into a Schema: inline keys, UNIQUE columns, ALTER/CREATE INDEX, qualified names', () => {
  const s = parseSchemaText([read('schema.sql'), read('0_Schema.sql'), read('init.sql'), read('create_index.sql'), read('mixed.sql')]);
  const idx = (t: string) => s.tables[t].indexes.map((i) => `${i.name}${i.unique ? '!' : ''}(${i.columns.join(',')})`);
  assert.deepEqual(idx('users'), ['PRIMARY!(id)', 'account_name!(account_name)']);
  assert.deepEqual(idx('posts'), ['PRIMARY!(id)', 'idx_created_at(created_at)']);
  assert.deepEqual(idx('isu'), ['jia_isu_uuid!(jia_isu_uuid)', 'PRIMARY!(id)']);
  assert.deepEqual(idx('livecomments'), ['PRIMARY!(id)', 'livestream_id_idx(livestream_id,created_at)']);
  assert.deepEqual(idx('visit_history'), ['tenant_id_idx(tenant_id)']);
  assert.deepEqual(idx('events'), ['PRIMARY!(id)', 'idx_tenant(tenant_id)']);
  assert.deepEqual(idx('tags'), ['PRIMARY!(id)']);
  assert.deepEqual(s.tables.posts.columns.map((c) => `${c.name}:${c.type}`), ['id:int', 'user_id:int', 'mime:varchar(64)', 'imgdata:mediumblob', 'body:text', 'created_at:timestamp']);
  assert.equal(s.tables.isu_condition.engine, 'InnoDB');
  assert.equal(s.tables.posts.rows, 0);
});

void test('the schema file defining a table is found among workspace .sql files', () => {
  const files = [
    { path: 'webapp/sql/data/dump.sql', text: 'INSERT INTO posts VALUES (1);' },
    { path: 'webapp/sql/1_InitData.sql', text: 'CREATE TABLE posts (id INT);' },
    { path: 'webapp/sql/0_Schema.sql', text: read('0_Schema.sql') },
    { path: 'webapp/sql/schema.sql', text: read('schema.sql') },
    { path: 'webapp/sql/init.sql', text: read('init.sql') },
  ];
  assert.equal(findSchemaFile(files, 'isu_condition')?.path, 'webapp/sql/0_Schema.sql');
  assert.equal(findSchemaFile(files, 'POSTS')?.path, 'webapp/sql/schema.sql');
  assert.equal(findSchemaFile(files, 'livecomments')?.path, 'webapp/sql/init.sql');
  assert.equal(findSchemaFile(files, 'nope'), undefined);
});
