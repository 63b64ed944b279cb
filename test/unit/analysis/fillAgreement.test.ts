/**
 * The same statement gets the same fill and the same advice in all seven languages: over the agreement
 * fixtures (one app written in Go, Ruby, Python, PHP, JavaScript, Perl and Rust), every statement shape
 * the languages share is filled and advised in each, and the results must be equal. A `LIMIT ?` or a
 * `LIMIT %d` filled differently in one language would give that language another plan. A `LIMIT ?` takes
 * the number the code passes when it is a constant or a known default, else a page of 20, in every language.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import { AGREEMENT_LANGUAGES, runAgreement, statementShape } from '../../support/agreementFixtures';
import { adviseStatement } from '../../../src/core/analysis/advisor';
import { statementFacts } from '../../../src/core/analysis/planFindingsQuery';
import { parseSchemaText } from '../../../src/core/analysis/ddlParse';
import { prepareStatement } from '../../../src/core/plan/statementPrep';
import { DEFAULT_PAGE, fillPlaceholders } from '../../../src/core/sql/fillPlaceholders';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { extractFacts } from '../../../src/core/source/readFacts';
import type { Language } from '../../../src/core/model';
import { fsGrammarSource } from '../../../src/node/grammars';

const schema = parseSchemaText([readFileSync(join(FIXTURES, 'schemas', 'isuconish.sql'), 'utf8')]);

void test('fill and advice agree across the seven languages for every statement they share', async () => {
  const parsers = new ParserSet(fsGrammarSource());
  const byShape = new Map<string, Map<string, Set<string>>>();
  for (const lang of AGREEMENT_LANGUAGES) {
    const run = await runAgreement(join(FIXTURES, 'agreement'), lang, parsers);
    for (const site of run.facts.flatMap((f) => f.sites)) {
      const prep = prepareStatement(site.sql);
      if (!prep.ok) continue;
      const filled = await fillPlaceholders(prep.sql, schema, undefined, site.limit !== undefined ? { limit: site.limit } : {});
      const said = !filled.ok ? `not filled: ${filled.reason}` : [
        filled.sql.replace(/\s+/g, ' ').trim(),
        `limit ${statementFacts(filled.sql, schema).limit ?? '-'}`,
        adviseStatement(prep.sql, { schema }).suggestions.map((s) => `${s.table}(${s.columns.join(',')})`).join(' '),
      ].join(' | ');
      const shape = statementShape(site.sql);
      const langs = byShape.get(shape) ?? new Map<string, Set<string>>();
      langs.set(lang, (langs.get(lang) ?? new Set()).add(said));
      byShape.set(shape, langs);
    }
  }
  let compared = 0;
  let limits = 0;
  for (const [shape, langs] of byShape) {
    if (langs.size < AGREEMENT_LANGUAGES.length) continue;
    compared++;
    const seen = [...langs].map(([lang, said]) => `${lang}: ${[...said].sort().join(' || ')}`);
    const distinct = new Set([...langs.values()].map((said) => [...said].sort().join(' || ')));
    assert.equal(distinct.size, 1, `${shape}\n${seen.join('\n')}`);
    if (/LIMIT (\?|\/\*\?dynamic\*\/)/.test(shape)) {
      limits++;
      assert.match([...distinct][0], new RegExp(`LIMIT ${DEFAULT_PAGE}\\b`), `${shape}: a LIMIT the code does not fix is a page of ${DEFAULT_PAGE}`);
    }
  }
  assert.ok(compared >= 10, `only ${compared} shapes shared by all seven languages`);
  assert.ok(limits >= 1, 'a run-time LIMIT is among them');
});

/** A page of a user's posts, its LIMIT bound to a constant, a local, a default parameter, and to a run-time value. */
const PAGES: [Language, string, string][] = [
  ['go', 'a.go', `package m
const perPage = 30
func pages(db *sqlx.DB, uid int64, r *http.Request) {
	db.Select(&ps, "SELECT id, body FROM posts WHERE user_id = ? ORDER BY id DESC LIMIT ?", uid, perPage)
	limit := 50
	db.Select(&ps, "SELECT id, body FROM posts WHERE user_id = ? ORDER BY created_at DESC LIMIT ?", uid, limit)
	db.Select(&ps, "SELECT id, body FROM posts WHERE user_id = ? ORDER BY id LIMIT ?", uid, 50)
	n, _ := strconv.Atoi(r.FormValue("n"))
	db.Select(&ps, "SELECT id, body FROM posts WHERE user_id = ? ORDER BY body LIMIT ?", uid, n)
}
`],
  ['ruby', 'a.rb', `PER_PAGE = 30
def pages(db, uid, limit = 50)
  db.xquery('SELECT id, body FROM posts WHERE user_id = ? ORDER BY id DESC LIMIT ?', uid, PER_PAGE)
  db.xquery('SELECT id, body FROM posts WHERE user_id = ? ORDER BY created_at DESC LIMIT ?', uid, limit)
  db.xquery('SELECT id, body FROM posts WHERE user_id = ? ORDER BY id LIMIT ?', uid, 50)
  db.xquery('SELECT id, body FROM posts WHERE user_id = ? ORDER BY body LIMIT ?', uid, params[:n].to_i)
end
`],
  ['python', 'a.py', `PER_PAGE = 30
def pages(cur, uid, limit=50):
    cur.execute("SELECT id, body FROM posts WHERE user_id = %s ORDER BY id DESC LIMIT %s", (uid, PER_PAGE))
    cur.execute("SELECT id, body FROM posts WHERE user_id = %s ORDER BY created_at DESC LIMIT %s", (uid, limit))
    cur.execute("SELECT id, body FROM posts WHERE user_id = %s ORDER BY id LIMIT %s", (uid, 50))
    cur.execute("SELECT id, body FROM posts WHERE user_id = %s ORDER BY body LIMIT %s", (uid, int(request.args["n"])))
`],
  ['php', 'a.php', `<?php
function pages($db, $uid, $limit = 50) {
    $perPage = 30;
    $db->query('SELECT id, body FROM posts WHERE user_id = ? ORDER BY id DESC LIMIT ?', [$uid, $perPage]);
    $s = $db->prepare('SELECT id, body FROM posts WHERE user_id = ? ORDER BY created_at DESC LIMIT ?');
    $s->execute([$uid, $limit]);
    $db->query('SELECT id, body FROM posts WHERE user_id = ? ORDER BY id LIMIT ?', [$uid, 50]);
    $db->query('SELECT id, body FROM posts WHERE user_id = ? ORDER BY body LIMIT ?', [$uid, (int)$_GET['n']]);
}
`],
  ['javascript', 'a.js', `const perPage = 30;
async function pages(db, uid, req, limit = 50) {
  await db.query('SELECT id, body FROM posts WHERE user_id = ? ORDER BY id DESC LIMIT ?', [uid, perPage]);
  await db.query('SELECT id, body FROM posts WHERE user_id = ? ORDER BY created_at DESC LIMIT ?', [uid, limit]);
  await db.query('SELECT id, body FROM posts WHERE user_id = ? ORDER BY id LIMIT ?', [uid, 50]);
  await db.query('SELECT id, body FROM posts WHERE user_id = ? ORDER BY body LIMIT ?', [uid, Number(req.query.n)]);
}
`],
  ['perl', 'a.pl', `my $PER_PAGE = 30;
sub pages {
    my ($self, $uid, $n) = @_;
    my $limit = 50;
    $self->dbh->select_all('SELECT id, body FROM posts WHERE user_id = ? ORDER BY id DESC LIMIT ?', $uid, $PER_PAGE);
    $self->dbh->select_all('SELECT id, body FROM posts WHERE user_id = ? ORDER BY created_at DESC LIMIT ?', $uid, $limit);
    $self->dbh->select_all('SELECT id, body FROM posts WHERE user_id = ? ORDER BY id LIMIT ?', $uid, 50);
    $self->dbh->select_all('SELECT id, body FROM posts WHERE user_id = ? ORDER BY body LIMIT ?', $uid, $n);
}
`],
  ['rust', 'a.rs', `const PER_PAGE: i64 = 30;
async fn pages(pool: &MySqlPool, uid: i64, n: i64) {
    sqlx::query("SELECT id, body FROM posts WHERE user_id = ? ORDER BY id DESC LIMIT ?").bind(uid).bind(PER_PAGE).fetch_all(pool).await;
    let limit = 50;
    sqlx::query("SELECT id, body FROM posts WHERE user_id = ? ORDER BY created_at DESC LIMIT ?").bind(uid).bind(limit).fetch_all(pool).await;
    sqlx::query("SELECT id, body FROM posts WHERE user_id = ? ORDER BY id LIMIT ?").bind(uid).bind(50).fetch_all(pool).await;
    sqlx::query("SELECT id, body FROM posts WHERE user_id = ? ORDER BY body LIMIT ?").bind(uid).bind(n).fetch_all(pool).await;
}
`],
];

void test('LIMIT ? takes the number the code passes (a constant, a local, a default, a literal), else a page of 20, the same in all seven languages', async () => {
  const parsers = new ParserSet(fsGrammarSource());
  const byLang = new Map<string, string[]>();
  for (const [language, file, text] of PAGES) {
    await parsers.loadFor([language]);
    const facts = extractFacts(file, text, language, parsers);
    const filled: string[] = [];
    for (const site of facts.sites) {
      const prep = prepareStatement(site.sql);
      assert.ok(prep.ok, site.sql);
      const f = await fillPlaceholders(prep.sql, schema, undefined, site.limit !== undefined ? { limit: site.limit } : {});
      assert.ok(f.ok, site.sql);
      filled.push(f.sql.replace(/user_id = \S+/, 'user_id = …'));
    }
    byLang.set(language, filled);
  }
  const want = [
    'SELECT id, body FROM posts WHERE user_id = … ORDER BY id DESC LIMIT 30',
    'SELECT id, body FROM posts WHERE user_id = … ORDER BY created_at DESC LIMIT 50',
    'SELECT id, body FROM posts WHERE user_id = … ORDER BY id LIMIT 50',
    `SELECT id, body FROM posts WHERE user_id = … ORDER BY body LIMIT ${DEFAULT_PAGE}`,
  ];
  for (const [language, filled] of byLang) assert.deepEqual(filled, want, language);
  assert.equal(byLang.size, 7);
});
