import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Language } from '../../../src/core/model';
import { detectNPlusOne } from '../../../src/core/analysis/nPlusOne';
import { readApp } from '../../support/readApp';

// A counted `for` with no condition (`for page := 0; ; page++`) ends only by a `break`, like `for {}` or
// `while True:`: here it reads a table page by page until a page comes back empty. That is one statement per page
// of a job, not one per row of other data: the loop is told as a poll or stream loop (a hint), as the same loop
// written `loop do` or `while True:` is.
const PAGE = 'SELECT id FROM appointments ORDER BY id LIMIT 500 OFFSET ?';

const APPS: { lang: Language; file: string; app: string }[] = [
  { lang: 'go', file: 'main.go', app: `package main
func archive(w http.ResponseWriter, r *http.Request) {
	for page := 0; ; page++ {
		ids := []int64{}
		db.Select(&ids, "${PAGE}", page*500)
		if len(ids) == 0 {
			break
		}
	}
}
` },
  { lang: 'javascript', file: 'app.js', app: `
app.post('/archive', async (req, res) => {
  for (let page = 0; ; page++) {
    const [ids] = await db.query('${PAGE}', [page * 500]);
    if (ids.length === 0) break;
  }
});
` },
  { lang: 'php', file: 'index.php', app: `<?php
function archive($db) {
    for ($page = 0; ; $page++) {
        $ids = $db->query('${PAGE}', [$page * 500])->fetchAll();
        if (!$ids) break;
    }
}
` },
  { lang: 'perl', file: 'app.psgi', app: `
sub archive {
    for (my $page = 0; ; $page++) {
        my $ids = $dbh->selectall_arrayref('${PAGE}', undef, $page * 500);
        last unless @$ids;
    }
}
` },
];

for (const c of APPS) {
  void test(`${c.lang}: a counted for with no condition is a poll or stream loop, not a loop over data`, async () => {
    const facts = await readApp(c.file, c.app, c.lang);
    assert.deepEqual(facts.errors, []);
    const site = facts.sites.find((s) => s.sql === PAGE);
    assert.ok(site, 'the page statement is found');
    assert.equal(site.loops.length, 1, 'inside the loop');
    const found = detectNPlusOne([facts]).filter((f) => f.data.innerSql === PAGE);
    assert.deepEqual(found.map((f) => f.severity), ['hint'], 'a hint only');
    assert.equal(found[0].data.source, 'poll-or-stream');
  });
}

void test('perl: `last unless …` after a statement leaves only when its condition holds, so the statement runs per pass', async () => {
  const app = `
sub names {
    my $rows = $dbh->selectall_arrayref('SELECT id FROM doctors', { Slice => {} });
    my @out;
    for my $r (@$rows) {
        my $name = $dbh->selectrow_array('SELECT name FROM doctors WHERE id = ?', undef, $r->{id});
        last unless defined $name;
        push @out, $name;
    }
    return \\@out;
}
`;
  const facts = await readApp('app.psgi', app, 'perl');
  const found = detectNPlusOne([facts]).filter((f) => f.data.innerSql.startsWith('SELECT name FROM doctors'));
  assert.deepEqual(found.map((f) => f.severity), ['error']);
});
