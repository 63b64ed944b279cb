/**
 * `advise` on the demo app (test/fixtures/sample-app, the database `npm run demo` loads): the CLI, the
 * explain service the hover and the quick fix call, and the quick fix's index sets give the same exact
 * set; applied to the private MariaDB with its own DDL, it takes the full scans and filesorts out of the
 * plans of the statements each index serves (EXPLAIN after).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES } from '../support/paths';
import type { MariaDbServer } from '../support/mariadb';
import { adviseJson, assertSetApplied, indexSet, offeredSet } from '../support/adviseApplied';
import { DbConnection } from '../../src/db/connection';
import { ExplainService, type ExplainResult } from '../../src/db/explainService';
import { workloadStatements } from '../../src/core/analysis/workloadAdvice';
import { FactsCache } from '../../src/core/workspace';
import { ParserSet } from '../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../src/node/grammars';
import { scanProject } from '../../src/node/scanDir';
import { SAMPLE_DB, startSampleDatabase } from '../../src/node/demo/sampleDatabase';
import type { SqlSite } from '../../src/core/model';

const APP = join(FIXTURES, 'sample-app');
/** Comments of a post (counted, and listed in date order), comments by user (counted), a user's posts in date order. */
const EXPECTED = ['comments(post_id,created_at)', 'comments(user_id)', 'posts(user_id,created_at)'];

let db: MariaDbServer;
let sites: SqlSite[] = [];
const results = new Map<string, ExplainResult>();
const conn = () => new DbConnection({ socket: db.socket, user: db.user, database: SAMPLE_DB, queryTimeoutMs: 30_000 });
const who = () => ({ socket: db.socket, user: db.user, database: SAMPLE_DB });

before(async () => {
  db = await startSampleDatabase(APP);
  const scan = await scanProject(APP, new FactsCache(new ParserSet(fsGrammarSource()), { routes: false }));
  sites = scan.facts.flatMap((f) => f.sites);
  const statements = workloadStatements(sites);
  const svc = new ExplainService(conn(), { workload: () => statements });
  try {
    for (const s of sites) results.set(s.sql, await svc.explainSite(s));
  } finally {
    await svc.close();
  }
}, { timeout: 300_000 } as never);

after(async () => {
  await db?.stop();
});

void test('demo app: advise, the hover and the quick fix give the same exact set', async () => {
  const { lines } = await adviseJson(APP, who());
  assert.deepEqual(indexSet(lines), EXPECTED, JSON.stringify(lines, null, 1));
  const comments = lines.find((l) => l.table === 'comments' && l.columns[0] === 'post_id')!;
  assert.equal(comments.sites.length, 3, 'one index for the comment count and the comment list of a post, with and without its LIMIT 3 (two variants of one line)');
  assert.deepEqual(offeredSet(sites, results), EXPECTED);
});

void test('demo app: the set applied, the statements it serves lose their scans and sorts (EXPLAIN after)', async () => {
  const { lines } = await adviseJson(APP, who());
  const checked = await assertSetApplied(db, SAMPLE_DB, conn, sites, lines);
  assert.equal(checked, 5, 'the comment count and list (both variants) of a post, the comment count of a user, the posts of a user');
});
