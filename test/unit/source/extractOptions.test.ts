import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractFacts } from '../../../src/core/source/readFacts';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { FactsCache } from '../../../src/core/workspace';
import { fsGrammarSource } from '../../../src/node/grammars';

const parsers = new ParserSet(fsGrammarSource());

const GO = `package main
func main() {
	e := echo.New()
	e.GET("/api/users/:id", getUser)
}
func getUser(c echo.Context) error {
	return db.Get(&u, "SELECT * FROM users WHERE id = ?", c.Param("id"))
}
`;
const PERL = `get '/api/users/:id' => sub {
    my ($c) = @_;
    return $c->dbh->select_row('SELECT * FROM users WHERE id = ?', $c->args->{id});
};
`;

void test('routes: false leaves routes out and everything else as it was (tree-sitter and Perl)', async () => {
  await parsers.load('go');
  for (const [file, text, language] of [['a.go', GO, 'go'], ['app.pl', PERL, 'perl']] as const) {
    const full = extractFacts(file, text, language, parsers);
    const lean = extractFacts(file, text, language, parsers, { routes: false });
    assert.equal(full.routes.length, 1, `${file}: ${JSON.stringify(full.routes)}`);
    assert.deepEqual(lean.routes, []);
    assert.deepEqual({ ...lean, routes: full.routes }, full);
  }
});

void test('FactsCache hands its options to every extraction', async () => {
  const lean = await new FactsCache(parsers, { routes: false }).update('a.go', GO);
  const full = await new FactsCache(parsers).update('a.go', GO);
  assert.deepEqual(lean?.routes, []);
  assert.equal(full?.routes.length, 1);
  assert.deepEqual(lean?.sites, full?.sites);
});
