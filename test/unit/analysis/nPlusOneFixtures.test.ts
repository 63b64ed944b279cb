import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import { fixtureLanguages, runFixture } from '../../support/nplus1Fixtures';
import { isTruncated } from '../../support/agreementFixtures';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../../src/node/grammars';

const root = join(FIXTURES, 'nplus1');
const parsers = new ParserSet(fsGrammarSource());
const CASES = ['direct', 'one-call', 'two-calls', 'closure', 'method', 'nested'];

void test('every language has a fixture app with at least 8 positive and 6 negative cases', () => {
  assert.deepEqual(fixtureLanguages(root), ['go', 'ruby', 'python', 'php', 'javascript', 'perl', 'rust']);
});

for (const lang of fixtureLanguages(root)) {
  void test(`${lang}: recall and precision are 100% on the fixture app`, async () => {
    const run = await runFixture(root, lang, parsers);
    const { expect, score } = run;
    assert.ok(expect.positives.length >= 8, 'at least 8 positives');
    assert.ok(expect.negatives.length >= 6, 'at least 6 negatives');
    for (const c of CASES) assert.ok(expect.positives.some((p) => p.case.includes(c) || (c === 'direct' && p.case.startsWith('rows'))), `${lang} covers ${c}`);
    assert.deepEqual(score.missed, [], 'missed positives');
    assert.deepEqual(score.unexpected, [], 'unexpected findings');
    assert.equal(score.recall, 1);
    assert.equal(score.precision, 1);
    // A statement built in pieces (a query builder's pushes) comes out whole, never stopping at `… IN (`.
    const cut = run.facts.flatMap((f) => f.sites).filter((s) => isTruncated(s.sql)).map((s) => `${s.file}:${s.range.start.line + 1}: ${s.sql}`);
    assert.deepEqual(cut, [], 'no statement cut short');
    // Negatives are not vacuous: each marks a line where the extractor did find a statement.
    for (const n of expect.negatives) {
      const facts = run.facts.find((f) => f.file === n.file);
      assert.ok(facts?.sites.some((s) => s.range.start.line + 1 === n.line), `${lang} negative ${n.case} at ${n.file}:${n.line} has a SQL site`);
    }
    // The constant pair is still seen, only lowered to a hint (VS Code keeps hints out of the Problems panel).
    const pair = expect.negatives.find((n) => n.case === 'constant-pair');
    assert.ok(pair);
    const hint = run.findings.find((f) => f.file === pair.file && f.range.start.line + 1 === pair.line);
    assert.equal(hint?.severity, 'hint');
    // Loops over another query's rows carry it and are raised to errors.
    const rows = run.findings.filter((f) => f.data.source === 'query-rows');
    assert.ok(rows.length >= 1, `${lang} links at least one loop to its outer query`);
    for (const f of rows) assert.equal(f.severity, 'error');
  });
}
