import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractFacts } from '../../../src/core/source/extract';
import { ParserSet } from '../../../src/core/source/treeSitter';
import { fsGrammarSource } from '../../../src/node/grammars';
import type { Language } from '../../../src/core/model';

const parsers = new ParserSet(fsGrammarSource());

async function sqlOf(file: string, language: Language, text: string): Promise<string[]> {
  await parsers.loadFor([language]);
  const facts = extractFacts(file, text, language, parsers);
  assert.deepEqual(facts.errors, []);
  return facts.sites.map((s) => s.sql);
}

void test('go: an append under a condition gives the statement with and without it', async () => {
  const sql = await sqlOf('a.go', 'go', `package m
func (h *H) get(all bool, id int) {
	query := "SELECT * FROM comments ORDER BY created_at DESC"
	if !all {
		query += " LIMIT 3"
	}
	h.db.Select(&cs, query, id)
}
`);
  assert.deepEqual(sql, ['SELECT * FROM comments ORDER BY created_at DESC', 'SELECT * FROM comments ORDER BY created_at DESC LIMIT 3']);
});

void test('go: an unconditional append and q = q + … are part of the one statement; an append after the call is not', async () => {
  const sql = await sqlOf('a.go', 'go', `package m
func f(db *sql.DB, n int) {
	q := "SELECT id FROM users"
	q += " WHERE id > ?"
	q = q + " LIMIT " + strconv.Itoa(n)
	db.Query(q, 1)
	q += " FOR UPDATE"
}
`);
  assert.deepEqual(sql, ['SELECT id FROM users WHERE id > ? LIMIT /*?dynamic*/']);
});

void test('go: an append inside a loop is a dynamic tail', async () => {
  const sql = await sqlOf('a.go', 'go', `package m
func f(db *sql.DB, xs []int) {
	q := "INSERT INTO t (a) VALUES (?)"
	for range xs[1:] {
		q += ", (?)"
	}
	db.Exec(q)
}
`);
  assert.deepEqual(sql, ['INSERT INTO t (a) VALUES (?)/*?dynamic*/']);
});

void test('ruby: << on a statement string is included; a statement pushed onto a list stays its own', async () => {
  const sql = await sqlOf('a.rb', 'ruby', `def f(db, all)
  q = 'SELECT id FROM users'
  q << ' LIMIT 3' unless all
  db.query(q)
  list = []
  list << 'DELETE FROM users WHERE id > 1000'
  list.each { |s| db.query(s) }
end
`);
  assert.deepEqual(sql, ['SELECT id FROM users', 'SELECT id FROM users LIMIT 3', 'DELETE FROM users WHERE id > 1000']);
});
