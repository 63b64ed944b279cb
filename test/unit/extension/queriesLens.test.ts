/**
 * The figures CodeLenses of the Queries feature, from real source: a statement built in branches is
 * one site per variant, all at one literal, and two calls can share a line. The user sees one lens
 * per line and fingerprint, and the Queries view lists each place once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { FactsCache } from '../../../src/core/workspace';
import { fsGrammarSource } from '../../../src/node/grammars';
import { buildQueryModel, hoverSection, lensRows, siteKey, sitePlace } from '../../../src/extension/queries/queryRows';
import { collect, T0, type Ent } from './queriesSupport';

const cache = new FactsCache(new ParserSet(fsGrammarSource()));

async function sitesOf(file: string, text: string) {
  const facts = await cache.update(file, text);
  assert.ok(facts);
  return facts.sites;
}

/** `n` executions of `sql`, one a millisecond apart from `t`, each taking `qt` seconds. */
function runs(n: number, sql: (i: number) => string, t: number, qt: number): Ent[] {
  return Array.from({ length: n }, (_, i) => ({ t: t + i, qt, sql: sql(i), sent: 3, exam: 40 }));
}

const withLimit = (i: number) => `SELECT * FROM \`comments\` WHERE \`post_id\` = ${i} ORDER BY \`created_at\` DESC LIMIT 3`;
const withoutLimit = (i: number) => `SELECT * FROM \`comments\` WHERE \`post_id\` = ${i} ORDER BY \`created_at\` DESC`;

void test('the sample app\'s branch-built comments query (line 80): one lens per fingerprint, not one per variant', async () => {
  const FILE = 'webapp/go/main.go';
  const sites = await sitesOf(FILE, readFileSync(join(FIXTURES, 'sample-app', FILE), 'utf8'));
  const at80 = sites.filter((s) => s.range.start.line === 79);
  assert.equal(at80.length, 2, `two variants start on line 80: ${JSON.stringify(at80.map((s) => s.sql))}`);

  // the benchmark only sent the LIMIT 3 variant: one lens on line 80
  const limitOnly = buildQueryModel(collect(runs(30, withLimit, T0, 0.001)), sites);
  const lenses = lensRows(sites, limitOnly).filter((l) => l.line === 79);
  assert.deepEqual(lenses.map((l) => [l.row.stats.fingerprint, l.row.stats.count]),
    [['select * from comments where post_id = ? order by created_at desc limit ?', 30]]);
  // the Queries view lists the place once
  assert.deepEqual(limitOnly.rows[0].sites.map(sitePlace), [`${FILE}:80`]);

  // both variants ran: two lenses, each fingerprint once, most total time first
  const both = buildQueryModel(collect([...runs(30, withLimit, T0, 0.001), ...runs(5, withoutLimit, T0 + 1000, 0.01)]), sites);
  assert.deepEqual(lensRows(sites, both).filter((l) => l.line === 79).map((l) => [l.row.stats.count, l.row.stats.fingerprint.endsWith('limit ?')]),
    [[5, false], [30, true]]);
  assert.ok(lensRows(sites, both).every((l, i, all) => all.findIndex((m) => m.line === l.line && m.row === l.row) === i), 'no lens twice');
});

void test('two calls of one statement on one line: one lens; the same statement on two lines: a lens on each', async () => {
  const FILE = 'app.go';
  const src = [
    'package main',
    '',
    'func both(id int) {',
    '\tdb.Get(&a, "SELECT * FROM `users` WHERE `id` = ?", id); db.Get(&b, "SELECT * FROM `users` WHERE `id` = ?", id+1)',
    '\tdb.Get(&c, "SELECT * FROM `users` WHERE `id` = ?", id+2)',
    '}',
    '',
  ].join('\n');
  const sites = await sitesOf(FILE, src);
  assert.equal(sites.length, 3, JSON.stringify(sites.map((s) => s.range.start)));
  const model = buildQueryModel(collect(runs(12, (i) => `SELECT * FROM \`users\` WHERE \`id\` = ${i}`, T0, 0.0005)), sites);
  assert.deepEqual(lensRows(sites, model).map((l) => [l.line + 1, l.row.stats.count]), [[4, 12], [5, 12]]);
  assert.deepEqual(model.rows[0].sites.map(sitePlace), [`${FILE}:4`, `${FILE}:4`, `${FILE}:5`], 'two places on line 4 stay two (different columns)');
});

void test('variants that read as one fingerprint (IN (?) / IN (?, ?)): one lens, the place and the hover row once', async () => {
  const FILE = 'list.go';
  const src = [
    'package main',
    '',
    'func list(two bool) {',
    '\tq := "SELECT * FROM `posts` WHERE `id` IN (?"',
    '\tif two {',
    '\t\tq += ", ?"',
    '\t}',
    '\tq += ")"',
    '\tdb.Select(&posts, q, 1, 2)',
    '}',
    '',
  ].join('\n');
  const sites = await sitesOf(FILE, src);
  assert.deepEqual(sites.map((s) => [s.range.start.line + 1, s.sql.replace(/.* IN /, '')]), [[4, '(?)'], [4, '(?, ?)']]);
  const model = buildQueryModel(collect(runs(7, (i) => `SELECT * FROM \`posts\` WHERE \`id\` IN (${i % 2 ? '1, 2' : '3'})`, T0, 0.002)), sites);
  assert.equal(model.rows.length, 1, JSON.stringify(model.rows.map((r) => r.stats.fingerprint)));
  assert.deepEqual(model.rows[0].sites.map(sitePlace), [`${FILE}:4`], 'the Queries view lists the place once');
  assert.deepEqual(lensRows(sites, model).map((l) => [l.line + 1, l.row.stats.count]), [[4, 7]]);
  assert.equal(model.bySite.get(siteKey(sites[0]))?.length, 1, 'the hover shows the row once');
  assert.match(hoverSection(model.bySite.get(siteKey(sites[1]))!, 'slow.log'), /^\*\*Slow log\*\*[^#]*#1 by total time · 7 calls[^#]*$/);
});
