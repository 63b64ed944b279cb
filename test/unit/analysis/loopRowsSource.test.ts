import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Language } from '../../../src/core/model';
import { extractFacts } from '../../../src/core/source/readFacts';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../../src/node/grammars';
import { detectNPlusOne } from '../../../src/core/analysis/nPlusOne';

// A handle reused for an UPDATE or INSERT after the SELECT: the message names the rows the loop really walks, those of
// a statement that gives rows, never "the rows of UPDATE …".
const parsers = new ParserSet(fsGrammarSource());

async function messages(file: string, lang: Language, text: string): Promise<string[]> {
  await parsers.loadFor(new Set([lang]));
  return detectNPlusOne([extractFacts(file, text, lang, parsers, { routes: false })]).map((f) => f.message);
}

void test('php: a reused $stmt: the loop over it walks the rows of its SELECT, not of the UPDATE run on it later', async () => {
  const got = await messages('index.php', 'php', `<?php
function feed($db, $uid) {
    $stmt = $db->prepare('SELECT id FROM tags WHERE user_id = ?');
    $stmt->execute([$uid]);
    $stmt = $db->prepare('UPDATE users SET seen = 1 WHERE id = ?');
    $stmt->execute([$uid]);
    foreach ($stmt as $t) {
        $db->prepare('SELECT name FROM tag_names WHERE tag_id = ?')->execute([$t['id']]);
    }
}
`);
  assert.equal(got.length, 1);
  assert.match(got[0], /the loop walks the rows of "SELECT id FROM tags WHERE user_id = \?" \(line 3\)/);
});

void test('perl: a reused $sth: the loop over it walks the rows of its SELECT, not of the INSERT run on it later', async () => {
  const got = await messages('app.psgi', 'perl', `sub feed {
    my ($self, $uid) = @_;
    my $sth = $self->dbh->prepare('SELECT id FROM tags WHERE user_id = ?');
    $sth->execute($uid);
    $sth = $self->dbh->prepare('INSERT INTO visits (user_id) VALUES (?)');
    $sth->execute($uid);
    while (my $t = $sth->fetchrow_hashref) {
        $self->dbh->select_one('SELECT name FROM tag_names WHERE tag_id = ?', $t->{id});
    }
}
`);
  assert.equal(got.length, 1);
  assert.doesNotMatch(got[0], /rows of "INSERT/);
});

void test('python: a cursor reused for an INSERT: the loop over it walks the rows of its SELECT', async () => {
  const got = await messages('app.py', 'python', `def feed(cur, uid):
    cur.execute("SELECT id FROM tags WHERE user_id = %s", (uid,))
    cur.execute("INSERT INTO visits (user_id) VALUES (%s)", (uid,))
    for t in cur:
        cur.execute("SELECT name FROM tag_names WHERE tag_id = %s", (t["id"],))
`);
  assert.equal(got.length, 1);
  assert.match(got[0], /the loop walks the rows of "SELECT id FROM tags WHERE user_id = %s" \(line 2\)/);
});
