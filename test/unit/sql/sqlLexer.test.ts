import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DYNAMIC_MARK } from '../../../src/core/model';
import { escapeRegExp, lexSql, SqlCursor, T_EOF } from '../../../src/core/sql/sqlLexer';

/** `kind:text` of every token (comments included), list placeholders marked with `[]`. */
function lex(sql: string): string[] {
  return lexSql(sql, { comments: true }).map((t) => `${t.kind}:${t.text}${t.list ? '[]' : ''}`);
}

const CASES: [string, string[]][] = [
  // quotes: doubled quotes, backslash escapes, backquoted identifiers with doubled backquotes
  ["'it''s' \"say \\\"hi\\\"\" 'a\\\\' `we``ird`", ["string:'it''s'", 'string:"say \\"hi\\""', "string:'a\\\\'", 'qident:`we``ird`']],
  ["X'4142' b'101' N'x' x", ["string:X'4142'", "string:b'101'", "string:N'x'", 'word:x']],
  // comments: `--` needs a space after it (MySQL), `#`, /* */, executable /*! */, hints, the dynamic mark
  ['a -- c\nb', ['word:a', 'comment:-- c', 'word:b']],
  ['a--1', ['word:a', 'op:-', 'op:-', 'number:1']],
  ['a # c\nb /* x */ c /*!50000 STRAIGHT_JOIN */ d /*+ BKA(t) */', ['word:a', 'comment:# c', 'word:b', 'comment:/* x */', 'word:c', 'exec-comment:/*!50000 STRAIGHT_JOIN */', 'word:d', 'comment:/*+ BKA(t) */']],
  [`id IN ${DYNAMIC_MARK} AND ${DYNAMIC_MARK}`, ['word:id', 'word:IN', `dynamic:${DYNAMIC_MARK}[]`, 'word:AND', `dynamic:${DYNAMIC_MARK}`]],
  // numbers and digits-first identifiers
  ['.5 1 2.5 1e-3 0x1F 0b11 2fa_codes t.5x', ['number:.5', 'number:1', 'number:2.5', 'number:1e-3', 'number:0x1F', 'number:0b11', 'word:2fa_codes', 'word:t', 'punct:.', 'word:5x']],
  // operators, one token each
  ['a<=>b c:=d e->>f g::int h<>i j!=k l||m n>=o', ['word:a', 'op:<=>', 'word:b', 'word:c', 'op::=', 'word:d', 'word:e', 'op:->>', 'word:f', 'word:g', 'op:::', 'word:int', 'word:h', 'op:<>', 'word:i', 'word:j', 'op:!=', 'word:k', 'word:l', 'op:||', 'word:m', 'word:n', 'op:>=', 'word:o']],
  // variables
  ["@a := @b + 1, @@session.sql_mode, @@version, @'q x'", ['uservar:@a', 'op::=', 'uservar:@b', 'op:+', 'number:1', 'punct:,', 'sysvar:@@session.sql_mode', 'punct:,', 'sysvar:@@version', 'punct:,', "uservar:@'q x'"]],
  // placeholders of every driver
  ['a = ? AND b = $1 AND c = :name AND d = %s AND e = %(x)s AND f = %d AND g = %f', ['word:a', 'op:=', 'placeholder:?', 'word:AND', 'word:b', 'op:=', 'placeholder:$1', 'word:AND', 'word:c', 'op:=', 'placeholder::name', 'word:AND', 'word:d', 'op:=', 'placeholder:%s', 'word:AND', 'word:e', 'op:=', 'placeholder:%(x)s', 'word:AND', 'word:f', 'op:=', 'placeholder:%d', 'word:AND', 'word:g', 'op:=', 'placeholder:%f']],
  // pymysql: `col=%s` with no spaces, `IN %s` (a list), `%%` is a literal percent
  ['col=%s AND id IN %s AND x NOT IN :ids AND y IN (%s, %s) AND z %% 2', ['word:col', 'op:=', 'placeholder:%s', 'word:AND', 'word:id', 'word:IN', 'placeholder:%s[]', 'word:AND', 'word:x', 'word:NOT', 'word:IN', 'placeholder::ids[]', 'word:AND', 'word:y', 'word:IN', 'punct:(', 'placeholder:%s', 'punct:,', 'placeholder:%s', 'punct:)', 'word:AND', 'word:z', 'op:%', 'op:%', 'number:2']],
  // `%` after an operand is modulo; `%sum` is not a placeholder
  ['a%b, (c)%d, e % f, %sum', ['word:a', 'op:%', 'word:b', 'punct:,', 'punct:(', 'word:c', 'punct:)', 'op:%', 'word:d', 'punct:,', 'word:e', 'op:%', 'word:f', 'punct:,', 'op:%', 'word:sum']],
  // `::` casts and labels are not :name; `$` inside identifiers
  ['x::text, a:b, a$1, $12', ['word:x', 'op:::', 'word:text', 'punct:,', 'word:a', 'op::', 'word:b', 'punct:,', 'word:a$1', 'punct:,', 'placeholder:$12']],
  // placeholders inside strings, identifiers and comments are not placeholders
  ["'?' `a?` -- ?\n/* :x */ '%s'", ["string:'?'", 'qident:`a?`', 'comment:-- ?', 'comment:/* :x */', "string:'%s'"]],
  // non-ASCII identifiers
  ['SELECT 名前 FROM ユーザー', ['word:SELECT', 'word:名前', 'word:FROM', 'word:ユーザー']],
];

void test('lexer: table of token streams', () => {
  for (const [sql, want] of CASES) assert.deepEqual(lex(sql), want, sql);
});

void test('lexer: offsets are those of the input, unterminated runs end at the end', () => {
  const sql = "SELECT `a` FROM t WHERE b = 'x";
  for (const t of lexSql(sql)) assert.equal(sql.slice(t.start, t.end), t.text);
  const last = lexSql(sql).at(-1)!;
  assert.equal(last.kind, 'string');
  assert.equal(last.unterminated, true);
  assert.equal(lexSql('/* open').at(0)?.unterminated, undefined); // comments are left out by default
  assert.equal(lexSql('/* open', { comments: true }).at(0)?.unterminated, true);
  assert.deepEqual(lex('`open'), ['qident:`open']);
});

void test('lexer: bytes and text give the same tokens (UTF-8 offsets for bytes)', () => {
  const sql = "SELECT `名前`, 'ä' FROM t WHERE a IN %s";
  const bytes = new TextEncoder().encode(sql);
  const cur = new SqlCursor().reset(bytes);
  const fromBytes: string[] = [];
  for (let k = cur.next(); k !== T_EOF; k = cur.next()) fromBytes.push(new TextDecoder().decode(bytes.subarray(cur.start, cur.end)) + (cur.flags & 1 ? '[]' : ''));
  assert.deepEqual(fromBytes, lexSql(sql).map((t) => t.text + (t.list ? '[]' : '')));
});

void test('lexer: adversarial input (runs of quotes, comment openers, dashes) reads as SQL does', () => {
  const count = (s: string): number => lexSql(s, { comments: true }).length;
  assert.equal(count("'".repeat(20001)), 1);            // doubled quotes all the way: one open string
  assert.equal(count("'a' ".repeat(5000)), 5000);
  assert.equal(count('/* '.repeat(5000)), 1);
  assert.equal(count('-'.repeat(1000)), 999);                // 998 minus signs, then `--` at the end: a comment
});

void test('escapeRegExp: identifiers with regex metacharacters match literally', () => {
  for (const id of ['a.b', 'x(', 'c++', '[t]', 'a|b', '$1', 'q?', 'w\\z']) {
    assert.ok(new RegExp(`^${escapeRegExp(id)}$`).test(id), id);
  }
});

void test('lexer: a reused buffer never shows a longer text read before', () => {
  lexSql("SELECT 0x1F, 'abc', @@version, x FROM t");
  assert.deepEqual(lex('SELECT 0'), ['word:SELECT', 'number:0']);
  assert.deepEqual(lex("'a"), ["string:'a"]);
  for (let k = 0; k < 6; k++) lexSql(`SELECT ${k} FROM t${k} -- ${'x'.repeat(k * 100)}`);
  assert.deepEqual(lex('id'), ['word:id']);
});
