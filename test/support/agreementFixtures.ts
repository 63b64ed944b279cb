/**
 * The agreement fixture (test/fixtures/agreement/<lang>/): one small contest app written in each of
 * the seven languages. Reads each version with the real extractors, runs N+1 detection, and reduces
 * the result to what must agree across languages: the set of statement shapes (placeholders of every
 * driver written `?`) and the N+1 findings as (statement, loop's outer query, severity). The expected
 * findings and non-findings are marked in the sources (`N+1:case` on a statement, `LOOP:case` on its
 * loop, `NOT:case` on a statement that is no N+1), so the same app also feeds the precision/recall score.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { FileFacts, Language } from '../../src/core/model';
import { extractFacts, languageForPath } from '../../src/core/source/readFacts';
import { ParserSet } from '../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../src/node/grammars';
import { detectNPlusOne, type NPlusOneFinding } from '../../src/core/analysis/nPlusOne';
import { scoreNPlusOne, type NotNPlusOne, type NPlusOneExpectations, type NPlusOneScore } from '../../src/core/analysis/nPlusOneScore';

export const AGREEMENT_LANGUAGES = ['go', 'ruby', 'python', 'php', 'javascript', 'perl', 'rust'] as const;

export interface AgreementRun {
  language: string;
  facts: FileFacts[];
  findings: NPlusOneFinding[];
  /** Distinct statement shapes, sorted. */
  shapes: string[];
  /** `statement | outer query or loop source | severity`, sorted. */
  nPlusOne: string[];
  /** The same with the call path from the loop (names lower case, `_` dropped: `nextID` and `next_id` alike), sorted. */
  nPlusOneWithPath: string[];
  /** Sites reported twice with the same SQL at the same place. */
  duplicates: string[];
  /** Statements cut short (ending in WHERE, AND, IN ( …). */
  truncated: string[];
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

/** A statement as every driver would send it: whitespace collapsed, `%s`, `$1`, `:name` written `?`. */
export function statementShape(sql: string): string {
  return sql.replace(/\s+/g, ' ').trim()
    .replace(/%\(\w+\)s|%s|\$\d+|(?<![:\w]):[A-Za-z_]\w*/g, '?');
}

/** A statement that stops where more must follow: `… WHERE`, `… AND`, `… IN (`, `… = `. */
export function isTruncated(sql: string): boolean {
  return /(?:\b(?:WHERE|AND|OR|IN|SET|VALUES|FROM|JOIN|ON|BY|LIMIT|SELECT)|[(=,<>])\s*$/i.test(sql.trim());
}

/** The markers of one source file (lines are 1-based). */
interface Marks { statements: { c: string; file: string; line: number }[]; loops: Map<string, { file: string; line: number }>; negatives: NotNPlusOne[] }

function readMarks(rel: string, text: string, marks: Marks): void {
  text.split('\n').forEach((l, i) => {
    for (const m of l.matchAll(/\b(N\+1|LOOP|NOT):([\w-]+)/g)) {
      if (m[1] === 'LOOP') marks.loops.set(m[2], { file: rel, line: i + 1 });
      else if (m[1] === 'NOT') marks.negatives.push({ case: m[2], file: rel, line: i + 1 });
      else marks.statements.push({ c: m[2], file: rel, line: i + 1 });
    }
  });
}

/** Runs extraction + detection over one language's version of the app. */
export async function runAgreement(root: string, lang: string, parsers = new ParserSet(fsGrammarSource())): Promise<AgreementRun> {
  const dir = join(root, lang);
  const sources = files(dir).map((p) => ({ path: p, rel: relative(dir, p).split('\\').join('/'), language: languageForPath(p) }))
    .filter((f): f is { path: string; rel: string; language: Language } => f.language !== undefined);
  await parsers.loadFor(new Set(sources.map((s) => s.language)));
  const marks: Marks = { statements: [], loops: new Map(), negatives: [] };
  const facts = sources.map((s) => {
    const text = readFileSync(s.path, 'utf8');
    readMarks(s.rel, text, marks);
    return extractFacts(s.rel, text, s.language, parsers, { routes: false });
  });
  // Each N+1 marker names its loop by case; a case without a loop marker is a fixture error.
  const expect: NPlusOneExpectations = {
    positives: marks.statements.map((m) => {
      const loop = marks.loops.get(m.c);
      if (!loop) throw new Error(`${lang}: N+1:${m.c} at ${m.file}:${m.line} has no LOOP:${m.c}`);
      return { case: m.c, file: m.file, line: m.line, loopFile: loop.file, loopLine: loop.line };
    }),
    negatives: marks.negatives,
  };
  const findings = detectNPlusOne(facts);
  const sites = facts.flatMap((f) => f.sites);
  const shapes = [...new Set(sites.map((s) => statementShape(s.sql)))].sort();
  const seen = new Set<string>();
  const duplicates: string[] = [];
  const place = (s: typeof sites[number]) => `${s.file}:${s.range.start.line}:${s.range.start.character}`;
  const called = new Set(sites.filter((s) => s.callRange).map((s) => `${place(s)}|${s.sql}`));
  for (const s of sites) {
    const k = `${place(s)}:${s.callRange ? `${s.callRange.start.line}:${s.callRange.start.character}` : '-'}|${s.sql}`;
    if (seen.has(k)) duplicates.push(k); else seen.add(k);
    // The same text at the same place once with its call and once without: one statement read twice.
    if (!s.callRange && called.has(`${place(s)}|${s.sql}`)) duplicates.push(`${k} (also with its call)`);
  }
  const truncated = sites.filter((s) => isTruncated(s.sql)).map((s) => `${s.file}:${s.range.start.line + 1}: ${s.sql}`);
  const nPlusOne = findings.map((f) => `${statementShape(f.data.innerSql)} | ${f.data.outer ? statementShape(f.data.outer.sql) : f.data.source} | ${f.severity}`).sort();
  const pathOf = (f: NPlusOneFinding) => f.data.path.map((c) => c.name.toLowerCase().replace(/_/g, '')).join(' > ');
  const nPlusOneWithPath = findings.map((f) => `${statementShape(f.data.innerSql)} | ${f.data.outer ? statementShape(f.data.outer.sql) : f.data.source} | ${f.severity} | ${pathOf(f)}`).sort();
  return { language: lang, facts, findings, shapes, nPlusOne, nPlusOneWithPath, duplicates, truncated, expect, score: scoreNPlusOne(findings, expect) };
}

/** `runAgreement` for the fixture under `root`, each language read once however many tests ask for it. */
export function agreementRunner(root: string, parsers = new ParserSet(fsGrammarSource())): (lang: string) => Promise<AgreementRun> {
  const runs = new Map<string, Promise<AgreementRun>>();
  return (lang) => {
    let r = runs.get(lang);
    if (!r) runs.set(lang, r = runAgreement(root, lang, parsers));
    return r;
  };
}
