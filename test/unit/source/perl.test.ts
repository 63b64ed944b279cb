import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractPerl } from '../../../src/core/source/lang/perl/extractPerl';
import { DYNAMIC_MARK, type SqlSite } from '../../../src/core/model';
import { behavesLikeSqlFinder } from './behavesLikeSqlFinder';

// The fixture app (test/fixtures/apps/perl: a Kossy/DBIx::Sunny web app, models, a DBI batch script) against its table.
behavesLikeSqlFinder('perl');

/** The sites of one snippet of Perl. */
function sites(code: string) {
  const facts = extractPerl('t.pl', code);
  return facts.sites;
}

function only(code: string): SqlSite {
  const s = sites(code);
  assert.equal(s.length, 1, `one site in: ${code}\nfound: ${JSON.stringify(s.map((x) => x.sql))}`);
  return s[0];
}

void test('single quotes: only \\\\ and \\\' are escapes', () => {
  assert.equal(only(String.raw`$dbh->do('SELECT * FROM t WHERE a = \'x\' AND b = \\ AND c = "\n"');`).sql,
    String.raw`SELECT * FROM t WHERE a = 'x' AND b = \ AND c = "\n"`);
});

void test('double quotes: escapes resolved, $var / @{[ ]} / ${\\ } interpolations are dynamic parts', () => {
  const s = only('$dbh->do("SELECT * FROM $table WHERE id IN (@{[ join \',\', (\'?\') x @ids ]}) AND x = ${\\ $x}\\tLIMIT 1");');
  assert.equal(s.sql, `SELECT * FROM ${DYNAMIC_MARK} WHERE id IN (${DYNAMIC_MARK}) AND x = ${DYNAMIC_MARK}\tLIMIT 1`);
  assert.equal(s.dynamic, true);
  assert.equal(only('$dbh->do("SELECT * FROM t WHERE price = \\$1 AND mail = \'a\\@b\'");').sql, "SELECT * FROM t WHERE price = $1 AND mail = 'a@b'");
  assert.equal(only('$dbh->do("SELECT * FROM t WHERE a = $h{x}{y} AND b = $r->[0]");').sql, `SELECT * FROM t WHERE a = ${DYNAMIC_MARK} AND b = ${DYNAMIC_MARK}`);
});

void test('q and qq with any delimiter: brackets nest, other characters close themselves', () => {
  assert.equal(only('$dbh->do(q{SELECT * FROM t WHERE a IN (SELECT {b} FROM u)});').sql, 'SELECT * FROM t WHERE a IN (SELECT {b} FROM u)');
  assert.equal(only('$dbh->do(q(SELECT COUNT(*) FROM t WHERE (a = ?)));').sql, 'SELECT COUNT(*) FROM t WHERE (a = ?)');
  assert.equal(only('$dbh->do(q[SELECT * FROM t WHERE a = ?]);').sql, 'SELECT * FROM t WHERE a = ?');
  assert.equal(only('$dbh->do(q<SELECT * FROM t WHERE a <> ?>);').sql, 'SELECT * FROM t WHERE a <> ?');
  assert.equal(only('$dbh->do(qq!SELECT * FROM t WHERE a = $a!);').sql, `SELECT * FROM t WHERE a = ${DYNAMIC_MARK}`);
  assert.equal(only('$dbh->do(qq|SELECT * FROM t WHERE a = \\|?|);').sql, 'SELECT * FROM t WHERE a = |?');
  assert.equal(only('$dbh->do(qq {SELECT * FROM t});').sql, 'SELECT * FROM t');
  assert.equal(only("$dbh->do(qq'SELECT * FROM t WHERE a = $a');").sql, 'SELECT * FROM t WHERE a = $a', "qq'…' does not interpolate");
});

void test('heredocs: quoted, bare, single-quoted, indented, and several on one line', () => {
  const code = [
    'my ($a, $b) = (<<"A", <<\'B\');',
    'SELECT * FROM ta WHERE x = $x',
    'A',
    'SELECT * FROM b WHERE y = $y',
    'B',
    '$dbh->do(<<SQL);',
    'DELETE FROM c WHERE id = ?',
    'SQL',
    'sub f {',
    '    $dbh->do(<<~EOS, 1);',
    '        UPDATE d',
    '          SET v = ?',
    '        EOS',
    '}',
  ].join('\n');
  const s = sites(code);
  assert.deepEqual(s.map((x) => [x.range.start.line, x.sql]), [
    [1, `SELECT * FROM ta WHERE x = ${DYNAMIC_MARK}\n`],
    [3, 'SELECT * FROM b WHERE y = $y\n'],
    [6, 'DELETE FROM c WHERE id = ?\n'],
    [10, 'UPDATE d\n  SET v = ?\n'],
  ]);
  assert.equal(s[3].function, 'f');
  assert.equal(s[3].call, '$dbh->do');
  assert.deepEqual(s[2].literalRanges, [{ start: { line: 6, character: 0 }, end: { line: 7, character: 0 } }]);
});

void test('a missing heredoc terminator is a FileError, not a throw', () => {
  const facts = extractPerl('t.pl', '$dbh->do(<<SQL);\nSELECT * FROM t\n');
  assert.equal(facts.errors.length, 1);
  assert.equal(facts.errors[0].message, 'heredoc terminator not found');
  assert.equal(facts.errors[0].line, 1);
  assert.equal(facts.sites[0].sql, 'SELECT * FROM t\n');
  assert.doesNotThrow(() => extractPerl('t.pl', 'q{ unterminated "SELECT * FROM t'));
  assert.ok(extractPerl('t.pl', 'sub f { ( ]').errors.length > 0);
});

void test('concatenation with . and .= keeps literal parts and marks the rest dynamic', () => {
  const s = only([
    'my $sql = "SELECT * FROM t WHERE id IN (" . join(",", map { "?" } @ids) . ")";',
    '$sql .= " ORDER BY " . $order;',
    '$sql .= " LIMIT 10";',
    'my $rows = $dbh->selectall_arrayref($sql, { Slice => {} }, @ids);',
  ].join('\n'));
  assert.equal(s.sql, `SELECT * FROM t WHERE id IN (${DYNAMIC_MARK}) ORDER BY ${DYNAMIC_MARK} LIMIT 10`);
  assert.equal(s.literalRanges.length, 4);
  assert.equal(s.call, '$dbh->selectall_arrayref');
  assert.equal(s.resultVar, '$rows');
  assert.equal(only("$dbh->do('SELECT * FROM t WHERE a IN (' . ('?,' x $n) . '?)');").sql, `SELECT * FROM t WHERE a IN (${DYNAMIC_MARK}?)`);
});

void test('sprintf formats: conversions are dynamic, %% is a percent', () => {
  const s = only('my $q = sprintf("SELECT * FROM %s WHERE name LIKE \'a%%\' LIMIT %d", $t, 3);\n$dbh->do($q);');
  assert.equal(s.sql, `SELECT * FROM ${DYNAMIC_MARK} WHERE name LIKE 'a%' LIMIT ${DYNAMIC_MARK}`);
  assert.equal(s.call, '$dbh->do');
});

void test('comments, POD, __END__ and regexes never yield strings', () => {
  const code = [
    '# my $x = "SELECT * FROM comment_table";',
    '=head1 SQL',
    '',
    'SELECT * FROM pod_table WHERE a = 1',
    '',
    '=cut',
    'my $ok = $s =~ /"SELECT * FROM slash_regex"/;',
    'my $m = $s =~ m{"SELECT * FROM m_regex"}x;',
    '$s =~ s/"SELECT * FROM s_regex"/"UPDATE t SET a = 1"/g;',
    '$s =~ s{a}{"SELECT * FROM s_brace"}e;',
    '$s =~ tr/"SELECT * FROM tr"/x/;',
    'my $r = qr!"DELETE FROM qr_table"!;',
    'my @w = qw("SELECT * FROM qw_table");',
    'my @p = split /"SELECT * FROM split"/, $s;',
    'my $half = $n / 2; $dbh->do("SELECT * FROM real_one"); my $q = $m / 3;',
    'my %h = (s => 1, q => 2, y => 3); my $z = $h{s} / $h{q}; $dbh->do(\'SELECT * FROM real_two\'); my $w = $z / 4;',
    '__END__',
    '"SELECT * FROM after_end"',
  ].join('\n');
  assert.deepEqual(sites(code).map((s) => s.sql), ['SELECT * FROM real_one', 'SELECT * FROM real_two']);
});

void test('variables and constants flow into the calls that run them, with that call\'s loops', () => {
  const code = [
    'package App::Repo;',
    'use constant FIND => q{SELECT * FROM users WHERE id = ?};',
    'sub load {',
    '    my ($self, $ids) = @_;',
    '    my $sql = "SELECT * FROM posts WHERE user_id = ?";',
    '    for my $id (@$ids) {',
    '        my $posts = $self->dbh->select_all($sql, $id);',
    '        my $user = $self->dbh->select_row(FIND, $id);',
    '    }',
    '}',
  ].join('\n');
  const s = sites(code);
  assert.deepEqual(s.map((x) => [x.range.start.line, x.call, x.resultVar, x.function, x.loops.map((l) => [l.kind, l.iterable])]), [
    [1, '$self->dbh->select_row', '$user', 'App::Repo::load', [['for', '@$ids']]],
    [4, '$self->dbh->select_all', '$posts', 'App::Repo::load', [['for', '@$ids']]],
  ]);
});

void test('loops: blocks, statement modifiers, do-while, map/grep blocks; not the list a map reads', () => {
  const code = [
    'sub f {',
    '    while (my $row = $sth->fetchrow_hashref) { $dbh->do("UPDATE ta SET x = 1") }',
    '    until ($done) { $dbh->do("UPDATE b SET x = 1") }',
    '    $dbh->do("UPDATE c SET x = ?", $_) for @ids;',
    '    do { $dbh->do("UPDATE d SET x = 1") } while ($more);',
    '    my @r = map { $dbh->select_row("SELECT * FROM e WHERE id = ?", $_) } grep { $_ > 0 } @ids;',
    '    my @s = map { $_->{id} } @{ $dbh->select_all("SELECT id FROM f") };',
    '    for (my $i = 0; $i < 3; $i++) { $dbh->do("UPDATE g SET x = 1") }',
    '    LINE: foreach my $x (1..3) { $dbh->do("UPDATE h SET x = 1") }',
    '}',
  ].join('\n');
  assert.deepEqual(sites(code).map((s) => [/(?:UPDATE|FROM) (\w+)/.exec(s.sql)?.[1], s.loops.map((l) => `${l.kind}:${l.iterable ?? ''}`)]), [
    ['ta', ['while:$sth->fetchrow_hashref']],
    ['b', ['until:']],
    ['c', ['for:@ids']],
    ['d', ['while:']],
    ['e', ['map:grep { $_ > 0 } @ids']],
    ['f', []],
    ['g', ['for:']],
    ['h', ['foreach:1..3']],
  ]);
});

void test('functions: named subs with their package, anonymous subs named by variable or route; calls with receivers and loops', () => {
  const facts = extractPerl('t.pl', [
    'package App::Web;',
    'sub index { my $self = shift; $self->render(); helper(1); App::Util::go(); }',
    'my $cb = sub { 1 };',
    'get \'/api/:id\' => [qw(auth)] => sub { my ($self, $c) = @_; for my $x (@xs) { $cb->($x); } };',
    'post \'/login\' => sub { 1 };',
    'package App::Other { sub run { 1 } }',
  ].join('\n'));
  assert.deepEqual(facts.functions.map((f) => [f.name, f.owner]), [
    ['index', 'App::Web'], ['$cb', undefined], ['GET /api/:id', undefined], ['POST /login', undefined], ['run', 'App::Other'],
  ]);
  assert.deepEqual(facts.calls.map((c) => [c.name, c.receiver, c.function, c.loops.length]), [
    ['render', '$self', 'App::Web::index', 0],
    ['helper', undefined, 'App::Web::index', 0],
    ['go', 'App::Util', 'App::Web::index', 0],
    ['$cb', undefined, 'GET /api/:id', 1],
  ]);
});

void test('hash keys and method names that spell quote operators are plain words', () => {
  const s = sites('my %o = (q => 1, s => 2, y => 3, m => 4);\nmy $v = $o{q} + $o->{s} + $x->y(1) + -s $file;\n$dbh->do("SELECT * FROM t");');
  assert.deepEqual(s.map((x) => x.sql), ['SELECT * FROM t']);
});
