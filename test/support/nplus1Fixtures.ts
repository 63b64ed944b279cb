/**
 * The N+1 fixture apps (test/fixtures/nplus1/<lang>/): reads every source file, extracts its facts
 * with the real extractors (tree-sitter, Perl lexer), runs detection, and scores the findings
 * against the app's expect.json. Shared by the unit test and scripts/nplus1-score.mjs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { FileFacts, Language } from '../../src/core/model';
import { extractFacts, languageForPath } from '../../src/core/source/readFacts';
import { extractPerl } from '../../src/core/source/lang/perl/extractPerl';
import { ParserSet } from '../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../src/node/grammars';
import { detectNPlusOne, type NPlusOneFinding } from '../../src/core/analysis/nPlusOne';
import { scoreNPlusOne, type NPlusOneExpectations, type NPlusOneScore } from '../../src/core/analysis/nPlusOneScore';

export const NPLUS1_LANGUAGES = ['go', 'ruby', 'python', 'php', 'javascript', 'typescript', 'perl', 'rust'] as const;

export interface FixtureRun {
  language: string;
  facts: FileFacts[];
  findings: NPlusOneFinding[];
  expect: NPlusOneExpectations;
  score: NPlusOneScore;
}

function files(dir: string): string[] {
  const out: string[] = [];
  for (const n of readdirSync(dir).sort()) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else out.push(p);
  }
  return out;
}

/** Runs extraction + detection over one fixture app (`root`/<lang>) and scores it. */
export async function runFixture(root: string, lang: string, parsers = new ParserSet(fsGrammarSource())): Promise<FixtureRun> {
  const dir = join(root, lang);
  const sources = files(dir).map((p) => ({ path: p, rel: relative(dir, p).split('\\').join('/'), language: languageForPath(p) }))
    .filter((f): f is { path: string; rel: string; language: Language } => f.language !== undefined);
  await parsers.loadFor(new Set(sources.map((s) => s.language)));
  const facts = sources.map((s) => {
    const text = readFileSync(s.path, 'utf8');
    return s.language === 'perl' ? extractPerl(s.rel, text) : extractFacts(s.rel, text, s.language, parsers);
  });
  const findings = detectNPlusOne(facts);
  const expect = JSON.parse(readFileSync(join(dir, 'expect.json'), 'utf8')) as NPlusOneExpectations;
  return { language: lang, facts, findings, expect, score: scoreNPlusOne(findings, expect) };
}

/** The languages that have a fixture app under `root`. */
export function fixtureLanguages(root: string): string[] {
  return NPLUS1_LANGUAGES.filter((l) => { try { return statSync(join(root, l, 'expect.json')).isFile(); } catch { return false; } });
}
