/**
 * The same statement gets the same fill and the same advice in all seven languages: over the agreement
 * fixtures (one app written in Go, Ruby, Python, PHP, JavaScript, Perl and Rust), every statement shape
 * the languages share is filled and advised in each, and the results must be equal. A `LIMIT ?` or a
 * `LIMIT %d` filled differently in one language would give that language another plan.
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
import { ParserSet } from '../../../src/core/source/treeSitter';
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
      const filled = await fillPlaceholders(prep.sql, schema);
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
