import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Language } from '../../../src/core/model';
import { extractFacts } from '../../../src/core/source/readFacts';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../../src/node/grammars';
import { skipReason } from '../../../src/core/source/generatedText';
import { explainability } from '../../../src/core/plan/explainable';

// Statements the reader once cut short, missed or left out: Rust's concat!, a template literal whose statement
// starts after many blank lines, a statement on one line longer than a minified file's, TRUNCATE / LOCK / UNLOCK.
const parsers = new ParserSet(fsGrammarSource());

async function sqls(file: string, lang: Language, text: string): Promise<string[]> {
  await parsers.loadFor(new Set([lang]));
  const facts = extractFacts(file, text, lang, parsers, { routes: false });
  assert.deepEqual(facts.errors, []);
  return facts.sites.map((s) => s.sql.replace(/\s+/g, ' ').trim());
}

void test("rust: concat!'s pieces are one statement, inline, bound to a variable, or as std::concat!", async () => {
  const got = await sqls('src/main.rs', 'rust', `
async fn user(pool: &MySqlPool, id: i64) -> sqlx::Result<()> {
    let row = sqlx::query(concat!("SELECT id, name ", "FROM users ", "WHERE id = ?")).bind(id).fetch_one(pool).await?;
    let q = concat!(
        "INSERT INTO visits (user_id, page) ",
        // one row per visit
        "VALUES (?, ?)",
    );
    sqlx::query(q).bind(id).bind("top").execute(pool).await?;
    sqlx::query(std::concat!("DELETE FROM sessions ", "WHERE user_id = ?")).bind(id).execute(pool).await?;
    Ok(())
}
`);
  assert.deepEqual(got, ['SELECT id, name FROM users WHERE id = ?', 'INSERT INTO visits (user_id, page) VALUES (?, ?)', 'DELETE FROM sessions WHERE user_id = ?']);
});

const BLANK = `${' '.repeat(100)}\n`.repeat(6);

void test('javascript and typescript: a template literal whose statement follows many blank lines and a comment is read', async () => {
  for (const [file, lang] of [['app.js', 'javascript'], ['app.ts', 'typescript']] as const) {
    const got = await sqls(file, lang, `
async function latest(db, id) {
  const [rows] = await db.query(\`
${BLANK}    /* the newest first: the page shows ten, and the template reads them in this order; keep the columns
       in the order of the cards on the page, because they are read by position and not by name at all. */
    SELECT id, title, created_at
    FROM posts
    WHERE user_id = ?
    ORDER BY created_at DESC
    LIMIT 10
  \`, [id]);
  return rows;
}
`);
    assert.deepEqual(got.map((s) => s.replace(/^\/\*.*?\*\/ /, '')), ['SELECT id, title, created_at FROM posts WHERE user_id = ? ORDER BY created_at DESC LIMIT 10'], lang);
  }
});

void test('python and go: a multi-line string whose statement follows many blank lines is read', async () => {
  assert.deepEqual(await sqls('app.py', 'python', `
def latest(cur, id):
    cur.execute("""
${BLANK}        SELECT id, title FROM posts WHERE user_id = %s
    """, (id,))
`), ['SELECT id, title FROM posts WHERE user_id = %s']);
  assert.deepEqual(await sqls('main.go', 'go', `package main

func latest(db *sqlx.DB, id int64) {
	db.Exec(\`
${BLANK}		UPDATE posts SET seen = 1 WHERE user_id = ?\`, id)
}
`), ['UPDATE posts SET seen = 1 WHERE user_id = ?']);
});

void test('a statement on one line longer than 1,000 characters is hand-written source; a minified line still is not', () => {
  const cols = Array.from({ length: 150 }, (_, i) => `u.col_${i}`).join(', ');
  const ts = `export async function wide(db: Pool, id: number) {\n  return db.query('SELECT ${cols} FROM users u WHERE u.id = ?', [id]);\n}\n`;
  assert.ok(ts.split('\n')[1].length > 1000);
  assert.equal(skipReason('src/app.ts', ts), undefined);
  const go = `package main\n\nconst wide = \`SELECT ${cols}\nFROM users u WHERE u.id = ?\`\n`;
  assert.equal(skipReason('main.go', go), undefined);
  // Code, not a string, past 1,000 characters on a line; and a file of dense code lines.
  assert.match(skipReason('public/a.js', `var a='x';${'b(c,"d");'.repeat(400)}\n`) ?? '', /^minified \(a line of \d+ characters\)$/);
  assert.match(skipReason('public/b.js', `${'x=1;y=2;z=3;'.repeat(30)}\n`.repeat(40)) ?? '', /^minified \(\d+ characters per line\)$/);
  // A quote never closed does not hide the code after it.
  assert.match(skipReason('public/c.js', `var q=/"/;${'b(c,d);'.repeat(400)}\n`) ?? '', /^minified/);
  assert.match(skipReason('public/d.js', `var q=/\`/;${'b(c,d);'.repeat(400)}\n`) ?? '', /^minified/);
});

const LOCKS: Record<Language, [string, string]> = {
  go: ['main.go', `package main\n\nfunc reset(db *sqlx.DB) {\n\tdb.Exec("LOCK TABLES visits WRITE")\n\tdb.Exec("TRUNCATE TABLE visits")\n\tdb.Exec("UNLOCK TABLES")\n}\n`],
  ruby: ['app.rb', `def reset\n  db.query('LOCK TABLES visits WRITE')\n  db.query('TRUNCATE TABLE visits')\n  db.query('UNLOCK TABLES')\nend\n`],
  python: ['app.py', `def reset(cur):\n    cur.execute("LOCK TABLES visits WRITE")\n    cur.execute("TRUNCATE TABLE visits")\n    cur.execute("UNLOCK TABLES")\n`],
  php: ['index.php', `<?php\nfunction reset_all($db) {\n    $db->exec('LOCK TABLES visits WRITE');\n    $db->exec('TRUNCATE TABLE visits');\n    $db->exec('UNLOCK TABLES');\n}\n`],
  javascript: ['app.js', `async function reset(db) {\n  await db.query('LOCK TABLES visits WRITE');\n  await db.query('TRUNCATE TABLE visits');\n  await db.query('UNLOCK TABLES');\n}\n`],
  typescript: ['app.ts', `async function reset(db: Pool) {\n  await db.query('LOCK TABLES visits WRITE');\n  await db.query('TRUNCATE TABLE visits');\n  await db.query('UNLOCK TABLES');\n}\n`],
  perl: ['app.psgi', `sub reset {\n    my ($self) = @_;\n    $self->dbh->query('LOCK TABLES visits WRITE');\n    $self->dbh->query('TRUNCATE TABLE visits');\n    $self->dbh->query('UNLOCK TABLES');\n}\n`],
  rust: ['src/main.rs', `async fn reset(pool: &MySqlPool) {\n    sqlx::query("LOCK TABLES visits WRITE").execute(pool).await.unwrap();\n    sqlx::query("TRUNCATE TABLE visits").execute(pool).await.unwrap();\n    sqlx::query("UNLOCK TABLES").execute(pool).await.unwrap();\n}\n`],
};

for (const [lang, [file, text]] of Object.entries(LOCKS)) {
  void test(`${lang}: TRUNCATE, LOCK TABLES and UNLOCK TABLES are recorded as statements, and none is explained`, async () => {
    const got = await sqls(file, lang as Language, text);
    assert.deepEqual(got, ['LOCK TABLES visits WRITE', 'TRUNCATE TABLE visits', 'UNLOCK TABLES']);
    for (const s of got) assert.deepEqual(explainability(s), { explain: false, reason: `${s.split(' ')[0]} statements have no EXPLAIN plan` });
  });
}

void test('perl: a bulk INSERT grown by .= with a join of placeholders, and statements of a SQL::Maker builder, as Kossy apps write them', async () => {
  const got = await sqls('lib/Isu/Web.pm', 'perl', `package Isu::Web;
use Kossy;
use DBIx::Sunny;
use SQL::Maker;

sub dbh { $_[0]->{dbh} }
sub sql_maker { $_[0]->{sql_maker} //= SQL::Maker->new(driver => 'mysql') }

post '/api/condition/:uuid' => sub {
    my ($self, $c) = @_;
    my $conds = $c->req->body_parameters->get_all('cond');
    my $sql = 'INSERT INTO isu_condition (jia_isu_uuid, timestamp, message) VALUES ';
    $sql .= join ', ', map { '(?, ?, ?)' } @$conds;
    $self->dbh->query($sql, map { ($c->args->{uuid}, $_->{timestamp}, $_->{message}) } @$conds);

    my $where = ' WHERE jia_isu_uuid = ?';
    my $count = 'SELECT COUNT(*) FROM isu_condition';
    $count .= $where;
    $self->dbh->select_one($count, $c->args->{uuid});
    $c->render_json({ ok => 1 });
};

sub save_lines {
    my ($self, $order_id, $lines) = @_;
    my ($sql, @binds) = $self->sql_maker->insert_multi('order_lines', [qw/order_id item_id qty/], [map { [$order_id, $_->{item_id}, $_->{qty}] } @$lines]);
    $self->dbh->query($sql, @binds);
    my ($ins) = $self->sql_maker->insert('orders', { id => $order_id, state => 'new' });
    my ($sel) = $self->sql_maker->select('items', ['id', 'title'], { shop_id => 1, state => [1, 2] });
    my ($upd) = $self->sql_maker->update('orders', { state => 'paid' }, { id => $order_id });
    my ($del) = $self->sql_maker->delete('carts', { order_id => $order_id });
    my ($tags) = $self->sql_maker->insert_multi('tags', [ { order_id => $order_id, name => 'a' }, { order_id => $order_id, name => 'b' } ]);
    $self->cache->delete('carts');
}
1;
`);
  assert.deepEqual(got, [
    'INSERT INTO isu_condition (jia_isu_uuid, timestamp, message) VALUES /*?dynamic*/',
    'SELECT COUNT(*) FROM isu_condition WHERE jia_isu_uuid = ?',
    'INSERT INTO `order_lines` (`order_id`, `item_id`, `qty`) VALUES (?, ?, ?)',
    'INSERT INTO `orders` (`id`, `state`) VALUES (?, ?)',
    'SELECT `id`, `title` FROM `items` WHERE (`shop_id` = ?) AND (`state` /*?dynamic*/)',
    'UPDATE `orders` SET `state` = ? WHERE (`id` = ?)',
    'DELETE FROM `carts` WHERE (`order_id` = ?)',
    'INSERT INTO `tags` (`order_id`, `name`) VALUES (?, ?)',
  ]);
});
