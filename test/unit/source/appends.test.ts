import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractFacts } from '../../../src/core/source/readFacts';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
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

/** A search built with four optional filters, the keyword last, then a sort: in each of the seven languages. */
const SEARCH: [Language, string, string][] = [
  ['go', 'a.go', `package m
func search(db *sqlx.DB, c int, lo int, hi int, kw string) {
	query := "SELECT id, name FROM items WHERE deleted_at IS NULL"
	if c != 0 {
		query += " AND category_id = ?"
	}
	if lo > 0 {
		query += " AND price >= ?"
	}
	if hi > 0 {
		query += " AND price <= ?"
	}
	if kw != "" {
		query += " AND name LIKE CONCAT('%', ?, '%')"
	}
	query += " ORDER BY id DESC LIMIT 20"
	db.Select(&items, query, args...)
}
`],
  ['ruby', 'a.rb', `def search(db, c, lo, hi, kw)
  query = 'SELECT id, name FROM items WHERE deleted_at IS NULL'
  query += ' AND category_id = ?' if c
  query += ' AND price >= ?' if lo
  query += ' AND price <= ?' if hi
  query += " AND name LIKE CONCAT('%', ?, '%')" if kw
  query += ' ORDER BY id DESC LIMIT 20'
  db.xquery(query, *args)
end
`],
  ['python', 'a.py', `def search(db, c, lo, hi, kw):
    query = "SELECT id, name FROM items WHERE deleted_at IS NULL"
    if c:
        query += " AND category_id = %s"
    if lo:
        query += " AND price >= %s"
    if hi:
        query += " AND price <= %s"
    if kw:
        query += " AND name LIKE CONCAT('%%', %s, '%%')"
    query += " ORDER BY id DESC LIMIT 20"
    cursor.execute(query, args)
`],
  ['php', 'a.php', `<?php
function search($db, $c, $lo, $hi, $kw) {
    $query = 'SELECT id, name FROM items WHERE deleted_at IS NULL';
    if ($c) { $query .= ' AND category_id = ?'; }
    if ($lo) { $query .= ' AND price >= ?'; }
    if ($hi) { $query .= ' AND price <= ?'; }
    if ($kw !== '') { $query .= " AND name LIKE CONCAT('%', ?, '%')"; }
    $query .= ' ORDER BY id DESC LIMIT 20';
    $stmt = $db->prepare($query);
}
`],
  ['javascript', 'a.js', `async function search(db, c, lo, hi, kw) {
  let query = 'SELECT id, name FROM items WHERE deleted_at IS NULL';
  if (c) query += ' AND category_id = ?';
  if (lo) query += ' AND price >= ?';
  if (hi) query += ' AND price <= ?';
  if (kw) query += " AND name LIKE CONCAT('%', ?, '%')";
  query += ' ORDER BY id DESC LIMIT 20';
  return db.query(query, args);
}
`],
  ['rust', 'a.rs', `async fn search(pool: &MySqlPool, c: i64, lo: i64, hi: i64, kw: &str) {
    let mut query = String::from("SELECT id, name FROM items WHERE deleted_at IS NULL");
    if c != 0 { query.push_str(" AND category_id = ?"); }
    if lo > 0 { query.push_str(" AND price >= ?"); }
    if hi > 0 { query.push_str(" AND price <= ?"); }
    if !kw.is_empty() { query.push_str(" AND name LIKE CONCAT('%', ?, '%')"); }
    query.push_str(" ORDER BY id DESC LIMIT 20");
    sqlx::query(&query).fetch_all(pool).await;
}
`],
  ['perl', 'a.pl', `sub search {
    my ($self, $c, $lo, $hi, $kw) = @_;
    my $query = 'SELECT id, name FROM items WHERE deleted_at IS NULL';
    if ($c) { $query .= ' AND category_id = ?'; }
    if ($lo) { $query .= ' AND price >= ?'; }
    if ($hi) { $query .= ' AND price <= ?'; }
    if ($kw) { $query .= q{ AND name LIKE CONCAT('%', ?, '%')}; }
    $query .= ' ORDER BY id DESC LIMIT 20';
    my $rows = $self->dbh->select_all($query, @args);
}
`],
];

for (const [language, file, text] of SEARCH) {
  void test(`${language}: every optional filter of a built search is in some variant, the keyword search last of four among them`, async () => {
    const sql = (await sqlOf(file, language, text)).map((s) => s.replace(/%s/g, '?').replace(/%%/g, '%'));
    assert.ok(sql.length <= 4, `a few variants, not every combination: ${sql.length}`);
    for (const part of ['category_id = ?', 'price >= ?', 'price <= ?', "name LIKE CONCAT('%', ?, '%')"]) {
      assert.ok(sql.some((s) => s.includes(part)), `${part} in ${JSON.stringify(sql, null, 1)}`);
    }
    assert.ok(sql.includes("SELECT id, name FROM items WHERE deleted_at IS NULL AND category_id = ? AND price >= ? AND price <= ? AND name LIKE CONCAT('%', ?, '%') ORDER BY id DESC LIMIT 20"), 'the variant with every filter');
    assert.ok(sql.includes('SELECT id, name FROM items WHERE deleted_at IS NULL ORDER BY id DESC LIMIT 20'), 'the variant with none');
  });
}
