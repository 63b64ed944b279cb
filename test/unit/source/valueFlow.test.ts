import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractFacts } from '../../../src/core/source/readFacts';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../../src/node/grammars';
import type { Language } from '../../../src/core/model';

const parsers = new ParserSet(fsGrammarSource());

/** `line: sql` of every site, in order (lines 1-based, of the literal that starts the statement). */
async function sitesOf(file: string, language: Language, text: string): Promise<string[]> {
  if (language !== 'perl') await parsers.loadFor([language]);
  const facts = extractFacts(file, text, language, parsers);
  assert.deepEqual(facts.errors, []);
  return facts.sites.map((s) => `${s.range.start.line + 1}${s.call ? ` ${s.call}` : ''}: ${s.sql}`);
}

void test('python: a variable reused in one function reaches each call with the value assigned last', async () => {
  assert.deepEqual(await sitesOf('a.py', 'python', `def f(cur, a, b):
    query = "SELECT name FROM users WHERE id = %s"
    cur.execute(query, (a,))
    query = "UPDATE users SET visits = visits + 1 WHERE id = %s"
    cur.execute(query, (b,))

def g(cur):
    cur.execute(query)
`), ['2 cur.execute: SELECT name FROM users WHERE id = %s', '4 cur.execute: UPDATE users SET visits = visits + 1 WHERE id = %s']);
});

void test('php: closures in one file reusing $sql and $stmt never reach each other', async () => {
  assert.deepEqual(await sitesOf('a.php', 'php', `<?php
$app->get('/a', function () use ($db) {
    $sql = 'SELECT name FROM users';
    $stmt = $db->prepare($sql);
});
$app->get('/b', function () use ($db) {
    $stmt = $db->prepare($sql);
    $sql = 'SELECT title FROM posts';
});
`), ['3 $db->prepare: SELECT name FROM users', '8: SELECT title FROM posts']);
});

void test('go: a shadowing := in a loop body is a new variable; the outer one reaches calls after the loop', async () => {
  assert.deepEqual(await sitesOf('a.go', 'go', `package m
func f() {
	query := "SELECT id FROM posts"
	db.Select(&posts, query)
	for _, p := range posts {
		query := "SELECT COUNT(*) FROM comments WHERE post_id = ?"
		db.Get(&n, query, p.ID)
	}
	db.Select(&again, query)
}
`), ['3 db.Select: SELECT id FROM posts', '3 db.Select: SELECT id FROM posts', '6 db.Get: SELECT COUNT(*) FROM comments WHERE post_id = ?']);
});

void test('ruby: an early halt ends its path; interpolation and fragments come out whole', async () => {
  assert.deepEqual(await sitesOf('a.rb', 'ruby', `get '/x' do
  query = 'SELECT id FROM posts WHERE user_id = ?'
  if params[:empty]
    query = 'SELECT COUNT(*) FROM posts'
    db.xquery(query)
    halt 404
  end
  query = "#{query} LIMIT #{params[:n].to_i}"
  db.xquery(query, 1)
end
`), ['2 db.xquery: SELECT id FROM posts WHERE user_id = ? LIMIT /*?dynamic*/', '4 db.xquery: SELECT COUNT(*) FROM posts']);
});

void test('javascript: a query variable logged while an error is handled is not a statement there', async () => {
  assert.deepEqual(await sitesOf('a.js', 'javascript', `async function f(pool) {
  const sql = 'UPDATE users SET visits = 0';
  try {
    await pool.query(sql);
  } catch (err) {
    report(sql, err);
  }
}
`), ['2 pool.query: UPDATE users SET visits = 0']);
});

void test('rust: format! fills its holes with the text of the variables it names; push_str under a branch gives two', async () => {
  assert.deepEqual(await sitesOf('a.rs', 'rust', `fn f(all: bool) {
    let mut w = String::from(" WHERE a = ?");
    if all { w.push_str(" AND b = 1"); }
    let q = format!("SELECT id FROM t{}{w}", "");
    sqlx::query(&q).fetch_all(&pool);
}
`), ['4 sqlx::query: SELECT id FROM t WHERE a = ?', '4 sqlx::query: SELECT id FROM t WHERE a = ? AND b = 1']);
});

void test('perl: my in a block shadows until it closes; a branch that dies restores the old value; .= sprintf is part of it', async () => {
  assert.deepEqual(await sitesOf('a.pl', 'perl', `sub f {
    my $sql = 'SELECT id FROM posts';
    unless ($ok) {
        $sql = 'SELECT 1 FROM dual';
        die 'no';
    }
    for my $p (@ps) {
        my $sql = 'SELECT n FROM c WHERE p = ?';
        $db->select_one($sql, $p);
    }
    $sql .= sprintf(' LIMIT %d', $n);
    $db->select_all($sql);
}
`), ['2 $db->select_all: SELECT id FROM posts LIMIT /*?dynamic*/', '8 $db->select_one: SELECT n FROM c WHERE p = ?']);
});

void test('rust: a QueryBuilder comes out whole from its pushes: text, binds as ?, a separated view\'s list, push_values', async () => {
  assert.deepEqual(await sitesOf('a.rs', 'rust', `async fn f(tx: &mut Tx, ids: Vec<i64>, a: i64, b: i64) {
    let mut books = sqlx::query_builder::QueryBuilder::new(
        "SELECT id, title FROM books WHERE shelf_id IN (",
    );
    let mut list = books.separated(", ");
    for id in ids {
        list.push_bind(id);
    }
    list.push_unseparated(") ORDER BY title");
    let rows: Vec<Book> = books.build_query_as().fetch_all(&mut *tx).await?;
    let mut qb = QueryBuilder::<MySql>::new("SELECT id FROM loans WHERE ");
    let mut conds = qb.separated(" AND ");
    conds.push("book_id = ").push_bind_unseparated(a);
    conds.push("member_id = ").push_bind_unseparated(b);
    qb.push(" AND id NOT IN (");
    qb.separated(", ").push_bind(a).push_bind(b);
    qb.push(")");
    qb.build_query_as::<Loan>().fetch_all(&mut *tx).await?;
    let mut ins = QueryBuilder::new("INSERT INTO loans (book_id, member_id) ");
    ins.push_values(rows, |mut v, r| { v.push_bind(r.id).push_bind(a); });
    ins.build().execute(&mut *tx).await?;
}
`), [
    '3 books.build_query_as: SELECT id, title FROM books WHERE shelf_id IN (/*?dynamic*/) ORDER BY title',
    '11 qb.build_query_as: SELECT id FROM loans WHERE book_id = ? AND member_id = ? AND id NOT IN (?, ?)',
    '19 ins.build: INSERT INTO loans (book_id, member_id) VALUES /*?dynamic*/',
  ]);
});

void test('rust: a separated view writes its separator only after a push that ran; a builder handed to a function gets a dynamic part', async () => {
  assert.deepEqual(await sitesOf('a.rs', 'rust', `async fn search(pool: &MySqlPool, q: &Query) {
    let mut qb = QueryBuilder::new("SELECT id FROM books WHERE ");
    let mut w = qb.separated(" OR ");
    if q.new { w.push("year > 2020"); }
    if q.cheap { w.push("price < ").push_bind_unseparated(q.price); }
    qb.push(" LIMIT 9");
    qb.build().fetch_all(pool).await?;
}

async fn listed(pool: &MySqlPool, q: &Query) {
    let mut qb = QueryBuilder::new("SELECT id FROM books WHERE ");
    add_filters(&mut qb, q);
    qb.push(" ORDER BY id");
    qb.build().fetch_all(pool).await?;
}
`), [
    '2 qb.build: SELECT id FROM books WHERE  LIMIT 9',
    '2 qb.build: SELECT id FROM books WHERE year > 2020 LIMIT 9',
    '2 qb.build: SELECT id FROM books WHERE price < ? LIMIT 9',
    '2 qb.build: SELECT id FROM books WHERE year > 2020 OR price < ? LIMIT 9',
    '11 qb.build: SELECT id FROM books WHERE /*?dynamic*/ ORDER BY id',
  ]);
});
