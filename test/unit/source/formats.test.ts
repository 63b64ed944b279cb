import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFormat, type FormatPiece } from '../../../src/core/source/formatHoles';
import { extractFacts } from '../../../src/core/source/readFacts';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../../src/node/grammars';
import type { Language } from '../../../src/core/model';
import type { FormatStyle } from '../../../src/core/source/lang/treeSitter/langSpec';

const parsers = new ParserSet(fsGrammarSource());

/** The sql of every site that has a call, in order. */
async function statements(file: string, language: Language, text: string): Promise<string[]> {
  if (language !== 'perl') await parsers.loadFor([language]);
  const facts = extractFacts(file, text, language, parsers);
  assert.deepEqual(facts.errors, []);
  return facts.sites.map((s) => s.sql);
}

/** A reading written short: text as is, a dynamic part `~`, a hole `<arg>` (`<arg*>` when it shows the argument's text). */
function short(text: string, style: FormatStyle): string {
  const show = (p: FormatPiece) => (p.kind === 'text' ? p.text : p.kind === 'dynamic' ? '~' : `<${p.arg ?? p.name ?? '?'}${p.asText ? '*' : ''}>`);
  const parts = text.split('~').flatMap((t, i) => (i ? [{ dynamic: true as const }, { text: t }] : [{ text: t }])).filter((p) => p.dynamic || p.text);
  return readFormat(parts, style).pieces.map(show).join('');
}

void test('printf holes: which argument each takes, and which show its text as it is', () => {
  assert.equal(short('a %% b %s', 'printf'), 'a % b <0*>');
  // `*` takes the width from an argument; flags, widths and number verbs change the text.
  assert.equal(short('%*d|%s|%-5s|%.2s|%v|%q|%d', 'printf'), '<1>|<2*>|<3>|<4>|<5*>|<6>|<7>');
  // Explicit indexes: `%2$s` (PHP, Perl, Ruby, C) leaves the count alone; Go's `%[2]s` moves it.
  assert.equal(short('%2$s %1$s %s', 'printf'), '<1*> <0*> <0*>');
  assert.equal(short('%[2]s %s %[1]s', 'printf'), '<1*> <2*> <0*>');
  // A dynamic part of the format may hold holes of its own: the holes after it take unknown arguments.
  assert.equal(short('%s~%s', 'printf'), '<0*>~<?*>');
  // A percent sign before a letter that is no verb is text ('%a' is Ruby's and Python's, not every language's).
  assert.equal(short("LIKE '%%x%%' AND n = %d", 'printf'), "LIKE '%x%' AND n = <0>");
});

void test("util.format holes: only Node's verbs, no flags", () => {
  assert.equal(short('%s %d %% %x %-5s %j', 'node'), '<0*> <1> % %x %-5s <2>');
});

void test('brace holes: automatic and explicit numbers, names, conversions and specs', () => {
  assert.equal(short('{} {0} {name} {!r} {:>3} {{x}} {}', 'brace'), '<0*> <0*> <name*> <1> <2> {x} <3*>');
  assert.equal(short('{a.b} {a[0]} {!s} {:.*} {}', 'brace'), '<a> <a> <0*> <2> <3*>');
});

void test('go: a Sprintf argument that was Sprintf\'d itself fills its own hole once; the text it holds is not read as a format', async () => {
  assert.deepEqual(await statements('a.go', 'go', `package m
func f(lat, lon float64) {
	area := fmt.Sprintf("'POLYGON((%s))'", ring())
	point := fmt.Sprintf("'POINT(%f %f)'", lat, lon)
	pat := "50%s%%"
	q := fmt.Sprintf("SELECT id FROM zones WHERE ST_Contains(ST_GeomFromText(%s), ST_GeomFromText(%s)) AND note LIKE '%s' AND pct = 100%%", area, point, pat)
	db.Select(&ids, q)
}
`), ["SELECT id FROM zones WHERE ST_Contains(ST_GeomFromText('POLYGON((/*?dynamic*/))'), ST_GeomFromText('POINT(/*?dynamic*/ /*?dynamic*/)')) AND note LIKE '50%s%%' AND pct = 100%"]);
});

void test('javascript: util.format writes the arguments no hole took after a space; a driver\'s format(sql, values) does not', async () => {
  assert.deepEqual(await statements('a.js', 'javascript', `async function f(id) {
  const where = 'WHERE id = ?';
  await pool.query(util.format('SELECT %s FROM users', 'name', where), [id]);
  await pool.query(mysql.format('SELECT name FROM users WHERE id = ?', [id]));
  await pool.query(util.format('SELECT %s FROM %s', ...cols));
}
`), ['SELECT name FROM users WHERE id = ?', 'SELECT name FROM users WHERE id = ?', 'SELECT /*?dynamic*/ FROM /*?dynamic*/']);
});

void test('python: .format and % with more holes than arguments, a spread argument, and a value holding braces', async () => {
  assert.deepEqual(await statements('a.py', 'python', `def f(cur, cols):
    cur.execute("SELECT {} FROM t WHERE c = '{}'".format("id", "{}"))
    cur.execute("SELECT {} FROM {}".format(*cols))
    cur.execute("SELECT %s FROM %s" % ("id",))
    cur.execute("SELECT {col} FROM t".format(col="name"))
`), ["SELECT id FROM t WHERE c = '{}'", 'SELECT /*?dynamic*/ FROM /*?dynamic*/', 'SELECT id FROM /*?dynamic*/', 'SELECT name FROM t']);
});

void test('php: sprintf numbered holes take the same argument twice; vsprintf takes an array; extra arguments are left out', async () => {
  assert.deepEqual(await statements('a.php', 'php', `<?php
function f($db, $id) {
    $db->query(sprintf('SELECT %1$s FROM t ORDER BY %1$s', 'id', 'unused'));
    $db->query(vsprintf('SELECT %s FROM %s', ['name', 'users']));
}
`), ['SELECT id FROM t ORDER BY id', 'SELECT name FROM users']);
});

void test('ruby: % with an array, and format with a padded hole', async () => {
  assert.deepEqual(await statements('a.rb', 'ruby', `def f(db)
  table = 'users'
  db.xquery('SELECT %s FROM %s WHERE note LIKE "%%x"' % ['id', table])
  db.xquery(format('SELECT id FROM %-10s', table))
end
`), ['SELECT id FROM users WHERE note LIKE "%x"', 'SELECT id FROM /*?dynamic*/']);
});

void test('perl: sprintf fills its holes from known arguments; after an array argument the holes are unknown', async () => {
  assert.deepEqual(await statements('a.pl', 'perl', `sub f {
    my $point = sprintf("'POINT(%f %f)'", $lat, $lon);
    my $q = sprintf("SELECT id FROM zones WHERE ST_Contains(ST_GeomFromText(%s), ST_GeomFromText(%s))", area(\\@c), $point);
    $db->select_all($q);
    $db->select_all(sprintf('SELECT %s FROM %s WHERE id = %d', @cols, 'users', $id));
}
`), ["SELECT id FROM zones WHERE ST_Contains(ST_GeomFromText(/*?dynamic*/), ST_GeomFromText('POINT(/*?dynamic*/ /*?dynamic*/)'))", 'SELECT /*?dynamic*/ FROM /*?dynamic*/ WHERE id = /*?dynamic*/']);
});

void test('rust: format! precision from an argument ({:.*}) takes two; a named variable fills its hole', async () => {
  assert.deepEqual(await statements('a.rs', 'rust', `fn f(x: f64) {
    let table = "spots";
    let q = format!("SELECT id FROM {table} WHERE x > {:.*} AND name = '{}'", 2, x, "a");
    sqlx::query(&q).fetch_all(&pool);
}
`), ["SELECT id FROM spots WHERE x > /*?dynamic*/ AND name = 'a'"]);
});
