/**
 * N+1 in the editor, from the sample app's real source: the finding sits on the inner statement with
 * the loop (and the outer query) as related locations, is found under a cursor, and the outer query's
 * plan gives the estimated iterations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { FactsCache } from '../../../src/core/workspace';
import { fsGrammarSource } from '../../../src/node/grammars';
import { detectNPlusOne } from '../../../src/core/analysis/nPlusOne';
import { estimatedResultRows, findingsAt, findingsByFile, indentOf, loopIterations } from '../../../src/extension/nplus1/nPlusOneMapping';
import type { Plan, PlanRow } from '../../../src/core/plan/planModel';

const FILE = 'webapp/go/main.go';

const cache = new FactsCache(new ParserSet(fsGrammarSource()));

async function sampleFindings(estimatedRows?: (sql: string) => number | undefined, path = join('sample-app', FILE), file = FILE) {
  const text = readFileSync(join(FIXTURES, path), 'utf8');
  const facts = await cache.update(file, text);
  assert.ok(facts);
  return detectNPlusOne([facts], estimatedRows ? { estimatedRows: (s) => estimatedRows(s.sql) } : {});
}

void test('the users lookup inside the comments loop: on the statement, loop and enclosing loop as related information', async () => {
  const byFile = findingsByFile(await sampleFindings());
  const list = byFile.get(FILE) ?? [];
  // line 89 (1-based) is `db.Get(&comments[i].User, "SELECT * FROM `users` WHERE `id` = ?", …)` inside two loops
  const at89 = findingsAt(list, FILE, { line: 88, character: 50 });
  assert.equal(at89.length, 1, JSON.stringify(list.map((f) => f.range.start.line)));
  const f = at89[0];
  assert.equal(f.code, 'n-plus-one');
  assert.equal(f.range.start.line, 88);
  assert.ok(f.related && f.related.length >= 2);
  assert.equal(f.related[0].file, FILE);
  assert.equal(f.related[0].range.start.line, 87, 'the inner for loop (line 88) comes first');
  assert.match(f.related[0].message, /for loop.*runs once per iteration/);
  assert.ok(f.related.some((r) => r.range.start.line === 74 && /enclosing range loop/.test(r.message)), 'the outer range loop');
  assert.deepEqual(findingsAt(list, FILE, { line: 88, character: 2 }), [], 'left of the statement: nothing');
  assert.deepEqual(findingsAt(list, 'other.go', { line: 88, character: 50 }), []);
});

void test('with a connection, the outer query\'s row estimate reaches the finding', async () => {
  // the N+1 fixture's `for i := range posts` walks the rows of the SELECT above it
  const fixture = ['nplus1/go/handlers.go', 'handlers.go'] as const;
  const plain = await sampleFindings(undefined, ...fixture);
  const withOuter = plain.find((f) => f.data.outer);
  assert.ok(withOuter, 'a loop over the rows of a query');
  assert.equal(withOuter.data.estimatedIterations, undefined);
  const estimated = await sampleFindings((sql) => (sql === withOuter.data.outer!.sql ? 123 : undefined), ...fixture);
  const again = estimated.find((f) => f.range.start.line === withOuter.range.start.line && f.data.loopLine === withOuter.data.loopLine)!;
  assert.equal(again.data.estimatedIterations, 123);
  assert.match(again.message, /about 123 iterations/);
});

const row = (o: Partial<PlanRow>): PlanRow => ({
  id: 1, selectType: 'SIMPLE', table: 't', partitions: null, type: 'ALL', possibleKeys: [], key: null, keyLen: null, ref: null, rows: 100, filtered: 100, extra: [], ...o,
});
const plan = (rows: PlanRow[]): Plan => ({ flavor: 'mariadb', source: 'tabular', rows });

void test('estimated result rows: filtered scales, unique lookups count once, subqueries do not multiply, no estimate without rows', () => {
  assert.equal(estimatedResultRows(plan([row({ rows: 1000, filtered: 10 })])), 100);
  assert.equal(estimatedResultRows(plan([row({ rows: 50 }), row({ type: 'eq_ref', rows: 1 })])), 50);
  assert.equal(estimatedResultRows(plan([row({ rows: 50 }), row({ type: 'ref', rows: 3 })])), 150);
  assert.equal(estimatedResultRows(plan([row({ rows: 20 }), row({ id: 2, selectType: 'SUBQUERY', rows: 9999 })])), 20);
  assert.equal(estimatedResultRows(plan([row({ rows: null })])), undefined);
  assert.equal(estimatedResultRows(plan([])), undefined);
  assert.equal(estimatedResultRows(plan([row({ rows: 5, filtered: 1 })])), 1, 'at least one');
  // A loop over `LIMIT 3` makes 3 passes, however many rows the scan behind it examines; the message says which bound it is.
  assert.deepEqual(loopIterations(plan([row({ rows: 199_840 })]), 3), { rows: 3, from: 'the LIMIT 3 of that query' });
  assert.deepEqual(loopIterations(plan([row({ rows: 40, filtered: 50 })]), 20), { rows: 20, from: "EXPLAIN's rows of t after its condition" });
  // A LIMIT ? says where its number comes from: the code's value, or a page when the code's is unknown.
  assert.deepEqual(loopIterations(plan([row({ rows: 199_840 })]), 30, 'code'), { rows: 30, from: 'the LIMIT 30 the code passes to that query' });
  assert.deepEqual(loopIterations(plan([row({ rows: 199_840 })]), 20, 'page'), { rows: 20, from: "the LIMIT ? of that query read as a page of 20 (the code's value is not known)" });
});

void test('indentOf keeps tabs and spaces', () => {
  assert.equal(indentOf('\t\tfor _, p := range posts {'), '\t\t');
  assert.equal(indentOf('    for x in y:'), '    ');
  assert.equal(indentOf('x'), '');
});
