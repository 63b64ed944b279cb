import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Language } from '../../../src/core/model';
import { extractFacts } from '../../../src/core/source/readFacts';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../../src/node/grammars';
import { detectNPlusOne } from '../../../src/core/analysis/nPlusOne';
import { truthy } from '../../../src/core/analysis/callContext';
import { TRUTHINESS } from '../../../src/core/source/lang/truthiness';

// A helper reads a team's members only when its flag is true; a loop over teams calls it with a literal flag.
// Whether that literal is false is the callee's language's own rule: `0` and "" are true in Ruby, "0" is true in
// Python and JavaScript but false in PHP and Perl.
const parsers = new ParserSet(fsGrammarSource());
const MEMBERS = 'SELECT user_id FROM team_members WHERE team_id = ?';

const APPS: Partial<Record<Language, { file: string; app: (flag: string) => string }>> = {
  ruby: { file: 'app.rb', app: (flag) => `
def members(id, with_members)
  if with_members
    return db.xquery('${MEMBERS}', id).to_a
  end
  []
end

get '/teams' do
  db.xquery('SELECT id FROM teams').each do |team|
    members(team[:id], ${flag})
  end
end
` },
  python: { file: 'app.py', app: (flag) => `
def members(id, with_members):
    if with_members:
        return cur.execute("${MEMBERS}", (id,))
    return []

def teams():
    cur.execute("SELECT id FROM teams")
    for team in cur.fetchall():
        members(team["id"], ${flag})
` },
  javascript: { file: 'app.js', app: (flag) => `
async function members(id, withMembers) {
  if (withMembers) {
    return db.query('${MEMBERS}', [id]);
  }
  return [];
}

app.get('/teams', async (req, res) => {
  const [teams] = await db.query('SELECT id FROM teams');
  for (const team of teams) {
    await members(team.id, ${flag});
  }
});
` },
  php: { file: 'index.php', app: (flag) => `<?php
function members($db, $id, $withMembers) {
    if ($withMembers) {
        return $db->prepare('${MEMBERS}')->execute([$id]);
    }
    return [];
}

function teams($db) {
    $teams = $db->query('SELECT id FROM teams')->fetchAll();
    foreach ($teams as $team) {
        members($db, $team['id'], ${flag});
    }
}
` },
  perl: { file: 'app.psgi', app: (flag) => `
sub members {
    my ($self, $id, $with_members) = @_;
    if ($with_members) {
        return $self->dbh->select_all('${MEMBERS}', $id);
    }
    return [];
}

get '/teams' => sub {
    my ($self, $c) = @_;
    my $teams = $self->dbh->select_all('SELECT id FROM teams');
    for my $team (@$teams) {
        $self->members($team->{id}, ${flag});
    }
};
` },
};

async function membersPerPass(lang: Language, flag: string): Promise<boolean> {
  const { file, app } = APPS[lang]!;
  await parsers.loadFor(new Set([lang]));
  const facts = extractFacts(file, app(flag), lang, parsers, { routes: false });
  assert.deepEqual(facts.errors, []);
  assert.ok(facts.sites.some((s) => s.sql.includes('team_members')), `${lang}: the members statement is found`);
  return detectNPlusOne([facts]).some((f) => f.data.innerSql.includes('team_members'));
}

// flag literal -> whether the members read runs once per team
const CASES: Record<string, Record<string, boolean>> = {
  ruby: { '0': true, '1': true, '""': true, '"0"': true, 'nil': false, 'false': false, 'true': true },
  python: { '0': false, '1': true, '""': false, '"0"': true, 'None': false, 'False': false, 'True': true },
  javascript: { '0': false, '1': true, '""': false, '"0"': true, 'null': false, 'false': false, 'true': true },
  php: { '0': false, '1': true, "''": false, "'0'": false, "'0.0'": true, 'null': false, 'false': false, 'true': true },
  perl: { '0': false, '1': true, "''": false, "'0'": false, "'00'": true, 'undef': false },
};

for (const [lang, cases] of Object.entries(CASES)) {
  void test(`${lang}: a literal flag settles the helper's branch by ${lang}'s own truthiness`, async () => {
    for (const [flag, perPass] of Object.entries(cases)) {
      assert.equal(await membersPerPass(lang as Language, flag), perPass, `${lang}: members(…, ${flag}) ${perPass ? 'reads' : 'does not read'} the members per team`);
    }
  });
}

void test('go and rust: a number or a string is no condition there, so it settles nothing; booleans do', () => {
  for (const lang of ['go', 'rust'] as const) {
    const t = TRUTHINESS[lang];
    assert.equal(truthy({ kind: 'literal', text: '0', quoted: false }, t), undefined);
    assert.equal(truthy({ kind: 'literal', text: '', quoted: true }, t), undefined);
    assert.equal(truthy({ kind: 'bool', value: false }, t), false);
    assert.equal(truthy({ kind: 'nil' }, t), false);
  }
  // An empty list: false in Python and PHP, true in Ruby, JavaScript and Perl (a reference).
  assert.deepEqual((['python', 'php', 'ruby', 'javascript', 'typescript', 'perl'] as const).map((l) => truthy({ kind: 'empty' }, TRUTHINESS[l])),
    [false, false, true, true, true, true]);
});
