/**
 * The shared engine never asks which language it reads: every difference between languages is a
 * member of the language adapter (src/core/source/lang/adapter.ts), so that a language is added in
 * one place. This test reads every file of src/core outside src/core/source/lang/ and fails on a
 * check of a language's name: a comparison or `case` with a language or grammar name, a map keyed
 * by language names, or a table typed by Language or grammar.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../../support/paths';
import { LANGUAGES } from '../../../src/core/model';
import { LANGUAGES as TRAITS } from '../../../src/core/source/lang/languages';
import { adapterFor } from '../../../src/core/source/lang/readers';

const NAMES = [...LANGUAGES, 'tsx', 'jsx'].join('|');
const CHECKS: readonly { what: string; re: RegExp }[] = [
  { what: 'a language name in quotes', re: new RegExp(`(['"\`])(?:${NAMES})\\1`) },
  { what: 'a key named after a language', re: new RegExp(`(?:^|[{,])\\s*(?:${NAMES})\\s*:(?!:)`) },
  { what: 'a table keyed by language', re: /Record<\s*(?:Language|GrammarName)\b|\[\s*\w+\s+in\s+(?:Language|GrammarName)\s*\]/ },
];
/** The declaration of the language names themselves. */
const ALLOWED = new Set(['src/core/model.ts:export type Language =', 'src/core/model.ts:export const LANGUAGES:']);

/** Each line of `text` (a file at `path`) that checks a language's name, with what it is. */
function languageChecks(path: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    const code = line.replace(/\/\/.*$/, '').replace(/^\s*\*.*$/, '').replace(/\/\*.*?\*\//g, '');
    if ([...ALLOWED].some((a) => `${path}:${line}`.startsWith(a))) return;
    for (const c of CHECKS) if (c.re.test(code)) { found.push(`${path}:${i + 1}: ${c.what}: ${line.trim()}`); break; }
  });
  return found;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.ts$/.test(e)) out.push(p);
  }
  return out;
}

void test('no file of src/core outside src/core/source/lang/ checks a language name', () => {
  const lang = join(REPO_ROOT, 'src/core/source/lang') + '/';
  const files = sourceFiles(join(REPO_ROOT, 'src/core')).filter((f) => !f.startsWith(lang));
  assert.ok(files.length > 100, `read ${files.length} files of src/core`);
  const found = files.flatMap((f) => languageChecks(relative(REPO_ROOT, f), readFileSync(f, 'utf8')));
  assert.deepEqual(found, [], 'move each into a member of LanguageAdapter (src/core/source/lang/adapter.ts)');
});

void test('the check finds each way of asking for a language', () => {
  const lines = [
    "if (language === 'perl') return extractPerl(file, text);",
    "const js = l == \"typescript\";",
    '  case `rust`: return n.type === \'let_declaration\';',
    "if ('ruby' !== file.language) return;",
    "const COMMENT = { go: '//', python: '#' };",
    "  php: { clean: [] },",
    "const RULES: Record<Language, string> = make();",
    "type Rules = { [k in GrammarName]: string };",
    "if (grammar === 'tsx') wantJsx();",
  ];
  for (const l of lines) assert.equal(languageChecks('src/core/x.ts', l).length, 1, l);
  const fine = ["if (d.file.language === file.language) keep(d);", "// a Go receiver: `language === 'go'` is not asked here", "const ns = 'App::Users';", "return adapterFor(language).calls.family;"];
  for (const l of fine) assert.deepEqual(languageChecks('src/core/x.ts', l), [], l);
});

void test('every language has one adapter, and each reads only its own extensions', () => {
  assert.deepEqual(Object.keys(TRAITS).sort(), [...LANGUAGES].sort());
  const seen = new Map<string, string>();
  for (const a of LANGUAGES.map(adapterFor)) {
    assert.equal(typeof a.extract, 'function', a.language);
    assert.equal(typeof a.routes, 'function', a.language);
    assert.ok(a.extensions.length > 0, a.language);
    for (const ext of a.extensions) {
      assert.equal(seen.get(ext), undefined, `.${ext} claimed by ${seen.get(ext)} and ${a.language}`);
      seen.set(ext, a.language);
    }
  }
});
