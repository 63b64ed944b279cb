/**
 * The workload's index set on a real MariaDB (issue #28): a game backend of our own in contest style
 * (test/fixtures/workload) with sessions under a UNIQUE (user_id, …), a status table of presents read
 * four ways by user_id, static master tables, a boolean column, ORDER BY RAND(), FOR UPDATE on the
 * second column of a composite primary key, a keyword search, a paged list with a sort and an OR that
 * matches most rows, and a search built with optional filters, the keyword last. `advise` (the CLI) and the explain service (what the hover and the quick fix
 * offer) must give the same exact set, without the useless indexes; the findings must say what an
 * expert says; and the set, applied, must take the scans and sorts out of the plans it serves.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../support/paths';
import { startMariaDb, type MariaDbServer } from '../support/mariadb';
import { adviseJson, asText, assertSetApplied, indexSet, offeredSet } from '../support/adviseApplied';
import { DbConnection } from '../../src/db/connection';
import { ExplainService, type ExplainResult } from '../../src/db/explainService';
import { workloadStatements } from '../../src/core/analysis/workloadAdvice';
import { FactsCache } from '../../src/core/workspace';
import { ParserSet } from '../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../src/node/grammars';
import { scanProject } from '../../src/node/scanDir';
import type { SqlSite } from '../../src/core/model';

const APP = join(FIXTURES, 'workload', 'app');
const PASSWORD = 'qi-workload';
/**
 * The exact set: one index for the four present lookups; one for a user's items in date order (the paged
 * list and the search by user); the newest items (the search without filters); the point lock.
 */
const EXPECTED = ['items(created_at)', 'items(user_id,created_at)', 'user_items(code,amount)', 'user_presents(user_id,created_at)'];

let db: MariaDbServer;
let sites: SqlSite[] = [];
let svc: ExplainService;
const results = new Map<string, ExplainResult>();

const conn = () => new DbConnection({ socket: db.socket, user: 'player', password: PASSWORD, database: 'game', queryTimeoutMs: 30_000 });
const site = (needle: string): SqlSite => {
  const s = sites.find((x) => x.sql.includes(needle));
  assert.ok(s, `a site with ${needle}`);
  return s;
};
const explained = (needle: string): ExplainResult => {
  const r = results.get(site(needle).sql);
  assert.ok(r, `explained: ${needle}`);
  return r;
};
const codes = (r: ExplainResult) => r.findings.map((f) => f.code);

before(async () => {
  db = await startMariaDb();
  db.sql('CREATE DATABASE game');
  db.sql(readFileSync(join(APP, 'sql', 'schema.sql'), 'utf8'), 'game');
  db.sql(readFileSync(join(APP, 'sql', 'data.sql'), 'utf8'), 'game');
  db.sql(`CREATE USER 'player'@'localhost' IDENTIFIED BY '${PASSWORD}'; GRANT SELECT ON game.* TO 'player'@'localhost';`);
  const scan = await scanProject(APP, new FactsCache(new ParserSet(fsGrammarSource()), { routes: false }));
  sites = scan.facts.flatMap((f) => f.sites);
  const statements = workloadStatements(sites);
  svc = new ExplainService(conn(), { workload: () => statements });
  for (const s of sites) results.set(s.sql, await svc.explainSite(s));
}, { timeout: 300_000 } as never);

after(async () => {
  await svc?.close();
  await db?.stop();
});

async function advise(): Promise<Record<string, unknown>[]> {
  return (await adviseJson(APP, { socket: db.socket, user: 'player', database: 'game', password: PASSWORD })).lines;
}

void test('advise: the exact index set, each with the statements it serves and the writes it slows', async () => {
  const lines = (await advise()).filter((l) => l.kind === 'index');
  const got = lines.map((l) => `${String(l.table)}(${(l.columns as string[]).join(',')})`).sort();
  assert.deepEqual(got, EXPECTED, JSON.stringify(lines, null, 1));
  const presents = lines.find((l) => l.table === 'user_presents')!;
  assert.equal((presents.sites as unknown[]).length, 4, 'one index serves the four lookups led by user_id');
  assert.match(String(presents.reason), /each user_id has about 6 row\(s\)/);
  assert.deepEqual((presents.writes as { line: number }[]).map((w) => w.line), [30], 'the INSERT it slows');
  const items = lines.find((l) => l.table === 'items' && (l.columns as string[])[0] === 'user_id')!;
  assert.equal(items.servesOrderBy, true, 'the paged list keeps its sort in the index');
  assert.deepEqual((items.sites as { sql: string }[]).map((x) => /deleted_at IS NULL AND user_id = \?/.test(x.sql) ? 'search by user' : 'paged list').sort(), ['paged list', 'search by user', 'search by user'], 'the paged list, and both variants of the search that filter by user');
});

void test('the hover and the quick fix offer the same set as advise', async () => {
  const fromCli = indexSet((await adviseJson(APP, { socket: db.socket, user: 'player', database: 'game', password: PASSWORD })).lines);
  assert.deepEqual(offeredSet(sites, results), fromCli);
  assert.deepEqual(asText(explained('user_id = ? AND is_received = 0').advice!.suggestions), ['user_presents(user_id,created_at)'], 'a flag lookup gets the shared index');
});

void test('none where none helps: sessions, master tables, the boolean, the OR of most rows, the primary-key IN list', () => {
  for (const needle of ['FROM user_sessions WHERE', 'FROM item_masters WHERE item_type', 'FROM item_masters WHERE status', 'FROM login_bonus_masters', 'is_public = 1 OR user_id', 'ORDER BY RAND() LIMIT 5', 'AS t ORDER BY RAND()', 'WHERE id IN (?)', "LIKE CONCAT('%'"]) {
    const r = explained(needle);
    assert.deepEqual(asText(r.advice?.suggestions ?? []), [], `${needle}: ${JSON.stringify(r.advice?.served)}`);
  }
  assert.match(explained('FROM user_sessions WHERE').advice!.served.map((s) => s.reason).join(' '), /uniq_user_session .*narrows to about \d+ row\(s\) per user_id/);
  assert.match(explained('FROM item_masters WHERE item_type').advice!.served[0].reason, /static master table/);
  assert.match(explained('is_public = 1 OR user_id').advice!.served[0].reason, /matches at least 50% of items/);
  assert.match(explained('ORDER BY RAND() LIMIT 5').advice!.served[0].reason, /is_public has only two or three values/);
});

void test('findings: master tables quiet, the OR of most rows, ORDER BY RAND(), the locking scan, the keyword search', () => {
  for (const needle of ['FROM item_masters WHERE item_type', 'FROM item_masters WHERE status', 'FROM login_bonus_masters']) {
    assert.deepEqual(codes(explained(needle)), [], `${needle}: ${JSON.stringify(explained(needle).findings)}`);
  }
  const or = explained('is_public = 1 OR user_id');
  assert.ok(codes(or).includes('returns-most-rows'), JSON.stringify(or.findings));
  assert.ok(!codes(or).includes('or-across-columns'), 'no UNION advice for an OR of most rows');
  assert.ok(or.findings.every((f) => f.severity !== 'error'), JSON.stringify(or.findings));
  assert.match(or.findings.find((f) => f.code === 'returns-most-rows')!.message, /cache the result or paginate/);

  for (const needle of ['ORDER BY RAND() LIMIT 5', 'AS t ORDER BY RAND()']) {
    const r = explained(needle);
    const rand = r.findings.find((f) => f.code === 'order-by-rand');
    assert.ok(rand, `${needle}: ${JSON.stringify(r.findings)}`);
    assert.match(rand.message, /temporary table and sorts them.*pick random ids/);
    assert.ok(!r.findings.some((f) => /is_public\)/.test(f.message)), 'no index on the boolean offered');
  }

  const lock = explained('FOR UPDATE');
  assert.equal(lock.lockingClause, 'FOR UPDATE');
  const ls = lock.findings.find((f) => f.code === 'locking-scan');
  assert.ok(ls, JSON.stringify(lock.findings));
  assert.ok(ls.severity === 'warning' || ls.severity === 'error', ls.severity);
  assert.match(ls.message, /locks every row it reads.*user_items\(code, amount\).*point lock/);
  assert.match(lock.findings.find((f) => f.code === 'full-table-scan')!.message, /under FOR UPDATE: every row it reads is locked/);

  const search = explained("LIKE CONCAT('%'");
  assert.match(search.findings.find((f) => f.code === 'leading-wildcard')?.message ?? '', /no B-tree index helps.*FULLTEXT.*ngram/, JSON.stringify(search.findings));
  assert.ok(!codes(explained('FROM user_sessions WHERE')).includes('full-table-scan'));
});

void test('the set applied: the statements it serves lose their scans and sorts (EXPLAIN after)', async () => {
  const { lines } = await adviseJson(APP, { socket: db.socket, user: 'player', database: 'game', password: PASSWORD });
  assert.equal(await assertSetApplied(db, 'game', conn, sites, lines), 11, 'the four present lookups, the paged item list, the variants of the search by user and of the search without filters, the locking read and the UPDATE by code');
});

void test('the search built with optional filters: each filter explained at least once, the keyword last of four, its term filled', () => {
  const variants = sites.filter((s) => s.sql.startsWith('SELECT * FROM items WHERE deleted_at IS NULL') && s.sql.includes('ORDER BY created_at DESC LIMIT 20'));
  assert.ok(variants.length > 1 && variants.length <= 4, `a few variants: ${variants.length}`);
  for (const filter of ['user_id = ?', 'is_public = 1', 'created_at >= ?', "name LIKE CONCAT('%', ?, '%')"]) {
    const withIt = variants.filter((s) => s.sql.includes(filter));
    assert.ok(withIt.length, `${filter} in no variant: ${variants.map((s) => s.sql).join('\n')}`);
    for (const s of withIt) assert.ok(results.get(s.sql)?.plan, `${filter}: explained`);
  }
  const search = variants.find((s) => s.sql.includes('LIKE CONCAT'))!;
  const r = results.get(search.sql)!;
  assert.ok(r.filledSql && !r.filledSql.includes('?'), r.filledSql);
  const term = /LIKE CONCAT\('%', '([^']+)', '%'\)/.exec(r.filledSql)?.[1];
  assert.ok(term, `a search term filled: ${r.filledSql}`);
  assert.match(term, /^item /, 'the term is a piece of a real name');
  assert.ok(r.findings.some((f) => f.code === 'leading-wildcard'), JSON.stringify(r.findings));
});
