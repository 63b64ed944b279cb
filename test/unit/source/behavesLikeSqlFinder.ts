/**
 * The shared "behaves like a SQL finder" suite, run once per language over the fixture app in
 * test/fixtures/apps/<lang>/ and its table of expectations, expected.json:
 *
 *   {
 *     "sites": [
 *       { "file": "main.go", "line": 46, "loopDepth": 1,
 *         "sql": "SELECT * FROM `comments` WHERE `post_id` = ?",
 *         "dynamic": false, "function": "Handler.getIndex", "call": "h.db.Select" }
 *     ],
 *     "negatives": ["Select a user first", "update failed: %w"]
 *   }
 *
 * - file: path relative to the app directory, '/'-separated.
 * - line: 1-based line where the SQL text starts (SqlSite.textStart, else range.start).
 * - loopDepth: number of enclosing loops (SqlSite.loops.length).
 * - sql: SqlSite.sql exactly (dynamic parts as DYNAMIC_MARK, newlines and indentation kept).
 * - dynamic, function, call: compared when present (an explicit null means "must be absent").
 * - negatives: strings that appear in the app's source and must not occur in any reported SQL.
 *
 * Every expected site must be found, and nothing else may be reported.
 *
 * It is the contract every language adapter (src/core/source/lang/) passes: by default each file is read
 * through its language's adapter, as the workspace reads it (the tree-sitter languages and Perl alike).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FileFacts, Language, SqlSite } from '../../../src/core/model';
import { listSourceFiles, readSourceFile } from '../../../src/node/scanDir';
import { FactsCache } from '../../../src/core/workspace';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../../src/node/grammars';
import { FIXTURES } from '../../support/paths';

export interface ExpectedSite {
  file: string;
  line: number;
  loopDepth: number;
  sql: string;
  dynamic?: boolean;
  function?: string | null;
  call?: string | null;
}

export interface Expectations { sites: ExpectedSite[]; negatives: string[] }

/** Extracts one file's facts; the default goes through the language's adapter, by the workspace cache. */
export type Extract = (file: string, text: string, language: Language) => Promise<FileFacts | undefined>;

const parsers = new ParserSet(fsGrammarSource());

export function adapterExtract(): Extract {
  const cache = new FactsCache(parsers);
  return (file, text, language) => cache.update(file, text, language);
}

function lineOf(s: SqlSite): number {
  return (s.textStart ?? s.range.start).line + 1;
}

function describeSite(s: SqlSite): string {
  return `${s.file}:${lineOf(s)} depth=${s.loops.length} ${JSON.stringify(s.sql)}`;
}

/** Runs the suite for `language` over test/fixtures/apps/<app>. */
export function behavesLikeSqlFinder(language: Language, app: string = language, extract: Extract = adapterExtract()): void {
  const dir = join(FIXTURES, 'apps', app);
  const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Expectations;
  let facts: FileFacts[] | undefined;
  let sources = '';
  const load = async (): Promise<FileFacts[]> => {
    if (facts) return facts;
    const listing = await listSourceFiles(dir);
    const out: FileFacts[] = [];
    for (const f of listing.files) {
      if (f.language !== language) continue;
      const text = await readSourceFile(f);
      assert.ok(text !== undefined, `${f.rel} unreadable`);
      sources += text + '\n';
      const ff = await extract(f.rel, text, language);
      if (ff) out.push(ff);
    }
    facts = out;
    return out;
  };

  void test(`${language}: the expectation table is large enough (>= 25 sites, >= 10 negatives)`, () => {
    assert.ok(expected.sites.length >= 25, `${expected.sites.length} sites`);
    assert.ok(expected.negatives.length >= 10, `${expected.negatives.length} negatives`);
  });

  void test(`${language}: the fixture parses without errors`, async () => {
    const all = await load();
    assert.ok(all.length > 0, 'no source files found');
    assert.deepEqual(all.flatMap((f) => f.errors), []);
  });

  void test(`${language}: every expected site is found with its exact SQL, line and loop depth`, async () => {
    const sites = (await load()).flatMap((f) => f.sites);
    for (const e of expected.sites) {
      const hit = sites.find((s) => s.file === e.file && lineOf(s) === e.line && s.sql === e.sql);
      assert.ok(hit, `missing ${e.file}:${e.line} ${JSON.stringify(e.sql)}\nfound at that line: ${sites.filter((s) => s.file === e.file && lineOf(s) === e.line).map(describeSite).join('; ') || 'nothing'}`);
      const where = `${e.file}:${e.line}`;
      assert.equal(hit.loops.length, e.loopDepth, `${where} loop depth`);
      if (e.dynamic !== undefined) assert.equal(hit.dynamic, e.dynamic, `${where} dynamic`);
      if (e.function !== undefined) assert.equal(hit.function ?? null, e.function, `${where} function`);
      if (e.call !== undefined) assert.equal(hit.call ?? null, e.call, `${where} call`);
    }
  });

  void test(`${language}: nothing but the expected sites is reported`, async () => {
    const sites = (await load()).flatMap((f) => f.sites);
    const extra = sites.filter((s) => !expected.sites.some((e) => s.file === e.file && lineOf(s) === e.line && s.sql === e.sql));
    assert.deepEqual(extra.map(describeSite), []);
    assert.equal(sites.length, expected.sites.length, 'one report per expected site');
  });

  void test(`${language}: strings that are not SQL are not reported`, async () => {
    const sites = (await load()).flatMap((f) => f.sites);
    for (const n of expected.negatives) {
      assert.ok(sources.includes(n), `negative ${JSON.stringify(n)} does not occur in the fixture`);
      const bad = sites.find((s) => s.sql.includes(n));
      assert.equal(bad, undefined, `reported ${JSON.stringify(n)} as SQL`);
    }
  });
}
