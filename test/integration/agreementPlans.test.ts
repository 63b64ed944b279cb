/**
 * The same statement gets the same fill and the same findings in all seven languages, on a real
 * MariaDB (issue #28). The agreement app (test/fixtures/agreement/ and its second part, a shop) is
 * written in Go, Ruby, Python, PHP, JavaScript, Perl and Rust; each language's version is read with its
 * own extractor, every statement is explained by the explain service the hover uses (with that
 * language's own workload, as in the editor), and `advise` runs over each language's directory. For
 * every statement shape the languages share, and the dynamically built ones above all (a LIMIT the code
 * adds at run time, conditions joined from a list, a statement formatted from pieces), each language
 * must send the same filled SQL and get the same findings and the same index advice; `advise` must
 * give the same index set for every language's version of the app.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../support/paths';
import { startMariaDb, type MariaDbServer } from '../support/mariadb';
import { AGREEMENT_LANGUAGES, agreementRunner, statementShape } from '../support/agreementFixtures';
import { adviseJson, asText, indexSet } from '../support/adviseApplied';
import { DbConnection } from '../../src/db/connection';
import { ExplainService, type ExplainResult } from '../../src/db/explainService';
import { workloadStatements } from '../../src/core/analysis/workloadAdvice';
import { ParserSet } from '../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../src/node/grammars';

const PASSWORD = 'qi-agreement';
const APPS = [
  { name: 'agreement', dir: 'agreement', database: 'agree1' },
  { name: 'agreement-part2', dir: 'agreement/part2', database: 'agree2' },
] as const;

/** What one language says about one statement shape: its fill, its findings, its advice. */
interface Said { fill: string; findings: string; advice: string }

/** Per app: shape → language → what each of its sites of that shape said (sorted, distinct). */
const said = new Map<string, Map<string, Map<string, string[]>>>();
/** Per app: the shapes built at run time (a site with a dynamic part), per language. */
const dynamicShapes = new Map<string, Map<string, Set<string>>>();
/** Per app: `advise`'s index set per language. */
const adviseSets = new Map<string, Map<string, string[]>>();

let db: MariaDbServer;

/** The filled statement as sent, whitespace collapsed. */
const normalise = (sql: string): string => sql.replace(/\s+/g, ' ').trim();

function describe(r: ExplainResult): Said {
  const fill = r.filledSql !== undefined ? normalise(r.filledSql)
    : r.skipped !== undefined ? `skipped: ${r.skipped}` : `not filled: ${r.error?.kind ?? '?'}`;
  const findings = r.findings.map((f) => `${f.severity} ${f.code} ${f.table ?? '-'}: ${f.message}`).sort().join(' / ');
  const advice = asText(r.advice?.suggestions ?? []).sort().join(' ');
  return { fill, findings, advice };
}

before(async () => {
  db = await startMariaDb();
  const parsers = new ParserSet(fsGrammarSource());
  for (const app of APPS) {
    const root = join(FIXTURES, app.dir);
    db.sql(`CREATE DATABASE ${app.database}`);
    db.sql(readFileSync(join(FIXTURES, 'schemas', `${app.name}.sql`), 'utf8'), app.database);
    db.sql(`CREATE USER IF NOT EXISTS 'agree'@'localhost' IDENTIFIED BY '${PASSWORD}'; GRANT SELECT ON ${app.database}.* TO 'agree'@'localhost';`);
    const run = agreementRunner(root, parsers);
    const shapes = new Map<string, Map<string, string[]>>();
    const dynamic = new Map<string, Set<string>>();
    const sets = new Map<string, string[]>();
    for (const lang of AGREEMENT_LANGUAGES) {
      const sites = (await run(lang)).facts.flatMap((f) => f.sites);
      const statements = workloadStatements(sites);
      const svc = new ExplainService(new DbConnection({ socket: db.socket, user: 'agree', password: PASSWORD, database: app.database, queryTimeoutMs: 30_000 }), { workload: () => statements });
      try {
        for (const s of sites) {
          const shape = statementShape(s.sql);
          const d = describe(await svc.explainSite(s));
          const byLang = shapes.get(shape) ?? new Map<string, string[]>();
          const line = `fill: ${d.fill}\n  findings: ${d.findings || '(none)'}\n  advice: ${d.advice || '(none)'}`;
          byLang.set(lang, [...new Set([...(byLang.get(lang) ?? []), line])].sort());
          shapes.set(shape, byLang);
          if (s.dynamic) dynamic.set(lang, (dynamic.get(lang) ?? new Set()).add(shape));
        }
      } finally {
        await svc.close();
      }
      sets.set(lang, indexSet((await adviseJson(join(root, lang), { socket: db.socket, user: 'agree', database: app.database, password: PASSWORD })).lines));
    }
    said.set(app.name, shapes);
    dynamicShapes.set(app.name, dynamic);
    adviseSets.set(app.name, sets);
  }
}, { timeout: 600_000 } as never);

after(async () => {
  await db?.stop();
});

/** Asserts every language said the same about `shape`; returns what they said. */
function assertAgree(app: string, shape: string): string {
  const byLang = said.get(app)!.get(shape);
  assert.ok(byLang, `${app}: no language has ${shape}`);
  assert.deepEqual([...byLang.keys()].sort(), [...AGREEMENT_LANGUAGES].sort(), `${app}: ${shape} is not found in every language`);
  const texts = [...byLang].map(([lang, xs]) => [lang, xs.join('\n')] as const);
  const distinct = new Set(texts.map(([, t]) => t));
  assert.equal(distinct.size, 1, `${app}: ${shape}\n${texts.map(([l, t]) => `[${l}]\n${t}`).join('\n')}`);
  return texts[0][1];
}

void test('every dynamically built statement gets the same fill, findings and advice in all seven languages', () => {
  const dynamic = dynamicShapes.get('agreement')!;
  const shapes = new Set([...dynamic.values()].flatMap((s) => [...s]));
  for (const lang of AGREEMENT_LANGUAGES) {
    assert.deepEqual([...(dynamic.get(lang) ?? [])].sort(), [...shapes].sort(), `${lang} builds the same statements at run time`);
  }
  const seen = [...shapes].map((shape) => [shape, assertAgree('agreement', shape)] as const);
  assert.ok(seen.length >= 4, `only ${seen.length} dynamic statements`);
  // What they agree on is the real thing: the run-time LIMIT is a page of 20, the joined conditions are
  // filled and explained, and the lookups by user get an index.
  // The two variants of the page (with and without `AND public = 1`) share their line: each is served by
  // the index, so the hover of either offers it.
  const limits = seen.filter(([shape]) => /LIMIT \/\*\?dynamic\*\/$/.test(shape));
  assert.equal(limits.length, 2, 'the two pages whose LIMIT the code appends');
  for (const [shape, text] of limits) {
    assert.match(text, /^fill: SELECT .* LIMIT 20$/m, shape);
    assert.match(text, /advice: posts\(user_id,created_at\)/, `${shape}: the page by user in date order gets its index`);
  }
  const joined = seen.find(([shape]) => shape.startsWith('SELECT id, user_id, comment FROM comments WHERE /*?dynamic*/'));
  assert.ok(joined, 'the comments filtered by conditions joined from a list');
  assert.doesNotMatch(joined[1], /dynamic\*\//, 'the joined conditions are filled');
  assert.match(joined[1], /^fill: SELECT id, user_id, comment FROM comments WHERE \S.* ORDER BY id DESC LIMIT 5$/m, 'explained with its literal LIMIT');
});

for (const app of APPS) {
  void test(`${app.name}: every statement the seven languages share gets the same fill, findings and advice`, () => {
    let compared = 0;
    let withFindings = 0;
    for (const shape of said.get(app.name)!.keys()) {
      const text = assertAgree(app.name, shape);
      compared++;
      if (!/findings: \(none\)/.test(text)) withFindings++;
    }
    assert.ok(compared >= 20, `${app.name}: only ${compared} shapes`);
    assert.ok(withFindings >= 3, `${app.name}: only ${withFindings} statements with findings: the data is too small to compare findings`);
  });

  void test(`${app.name}: advise gives the same index set for every language's version of the app`, () => {
    const sets = adviseSets.get(app.name)!;
    const go = sets.get('go')!;
    assert.ok(go.length >= 2, `${app.name}: advise proposes ${JSON.stringify(go)}`);
    for (const lang of AGREEMENT_LANGUAGES) assert.deepEqual(sets.get(lang), go, `${app.name}: ${lang} against go`);
  });
}
