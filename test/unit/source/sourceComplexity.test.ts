/**
 * Reading a source file is linear in its size, whatever its shape: nested closures `(|| (|| …)())()`, chains of
 * calls, conditional appends to one variable, nested functions and loops, in every language. One file of each shape
 * of about 48 KB (8n) must take less than 3 times as long as 8 files of 6 KB (n) read one after the other (linear:
 * about as long; quadratic: about 8 times; before the bounds, nested Rust closures of 39 KB took seconds). Both sides do
 * the same amount of reading, so a load on a shared machine weighs on both alike; times are the best of five runs,
 * the two sides interleaved, after a warm-up. Where a bound on the work is hit, the facts say where.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractFacts } from '../../../src/core/source/readFacts';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../../src/node/grammars';
import { MAX_NESTING, NESTING_NOTE } from '../../../src/core/source/bounds';
import { MAX_REACHING } from '../../../src/core/source/valueFlow';
import type { Language } from '../../../src/core/model';

const parsers = new ParserSet(fsGrammarSource());
const r = (s: string, k: number) => s.repeat(k);

/** name → language, file name, text of size k. */
const SHAPES: [string, Language, string, (k: number) => string][] = [
  ['nested closures', 'rust', 'a.rs', (k) => `fn main() { let x = ${r('(|| ', k)}db.query("SELECT 1")${r(' )()', k)}; }\n`],
  ['a chain of calls', 'rust', 'a.rs', (k) => `fn main() { let x = q${r('.push("a = ?")', k)}.build(); }\n`],
  ['conditional appends', 'rust', 'a.rs', (k) => `fn main() { let mut q = String::from("SELECT 1"); ${r('if c { q.push_str(" AND a"); } else { q.push_str(" AND b"); }\n', k)} db.query(&q); }\n`],
  ['nested arrow functions', 'javascript', 'a.js', (k) => `const x = ${r('(() => ', k)}db.query("SELECT 1")${r(')()', k)};\n`],
  ['nested functions', 'javascript', 'a.js', (k) => `${r('function f() { ', k)}db.query("SELECT 1");${r(' }', k)}\n`],
  ['nested loops', 'javascript', 'a.js', (k) => `function f(xs) { ${r('for (const x of xs) { ', k)}db.query("SELECT 1");${r(' }', k)} }\n`],
  ['reassignments', 'javascript', 'a.js', (k) => `function f(c) { let q = "SELECT 1"; ${r('q = q + " AND a";\n', k)} db.query(q); }\n`],
  ['nested closures', 'go', 'a.go', (k) => `package m\nfunc f() { ${r('func() { ', k)}db.Query("SELECT 1")${r(' }()', k)} }\n`],
  ['conditional appends', 'python', 'a.py', (k) => `def f(c):\n    q = "SELECT 1"\n${r('    if c:\n        q += " AND a"\n    else:\n        q += " AND b"\n', k)}    db.execute(q)\n`],
  ['nested lambdas', 'python', 'a.py', (k) => `x = ${r('(lambda: ', k)}db.execute("SELECT 1")${r(')()', k)}\n`],
  ['nested blocks', 'ruby', 'a.rb', (k) => `x = ${r('-> { ', k)}db.query("SELECT 1")${r(' }.call', k)}\n`],
  ['a chain of calls', 'ruby', 'a.rb', (k) => `x = q${r('.where("a = ?")', k)}.all\n`],
  ['nested closures', 'php', 'a.php', (k) => `<?php\n$x = ${r('(function() { return ', k)}$db->query("SELECT 1")${r('; })()', k)};\n`],
  ['nested subs', 'perl', 'a.pl', (k) => `my $x = ${r('sub { ', k)}$dbh->do("SELECT 1")${r(' }->()', k)};\n`],
  ['a chain of calls', 'perl', 'a.pl', (k) => `my $x = $q${r('->where("a = ?")', k)}->all;\n`],
  ['conditional appends', 'perl', 'a.pl', (k) => `sub f { my $q = "SELECT 1";\n${r('if ($c) { $q .= " AND a"; } else { $q .= " AND b"; }\n', k)} $dbh->do($q); }\n`],
];

function time(lang: Language, file: string, text: string): number {
  const t0 = performance.now();
  extractFacts(file, text, lang, parsers, { routes: false });
  return performance.now() - t0;
}

for (const [name, lang, file, gen] of SHAPES) {
  void test(`${lang}: ${name} 8 times as large take < 3× as long as 8 small files`, async () => {
    if (lang !== 'perl') await parsers.loadFor([lang]);
    // The size of one more unit of the shape, so every shape is read at about 6 KB and 48 KB.
    const k = Math.ceil(6144 / (gen(2).length - gen(1).length));
    const small = gen(k), big = gen(8 * k);
    time(lang, file, small); // warm up the JIT on this shape
    time(lang, file, big);
    let ts = Infinity, tb = Infinity;
    for (let i = 0; i < 5; i++) {
      let t = 0;
      for (let j = 0; j < 8; j++) t += time(lang, file, small);
      ts = Math.min(ts, t);
      tb = Math.min(tb, time(lang, file, big));
    }
    const ratio = tb / ts;
    assert.ok(ratio < 3, `8 × ${(small.length / 1024).toFixed(1)} KB: ${ts.toFixed(1)} ms, ${(big.length / 1024).toFixed(1)} KB: ${tb.toFixed(1)} ms (${ratio.toFixed(1)}×)`);
  });
}

void test('a statement nested deeper than the bound is still found, and the file says where the bound was hit', async () => {
  await parsers.loadFor(['javascript']);
  const deep = MAX_NESTING + 20;
  const text = `function f(xs) {\n${r('for (const x of xs) {\n', deep)}db.query("SELECT 1");\n${r('}\n', deep)}}\n`;
  const facts = extractFacts('a.js', text, 'javascript', parsers);
  assert.deepEqual(facts.sites.map((s) => s.sql), ['SELECT 1']);
  // The function stands and the loops up to the bound are counted; the first frame past it is named by its line.
  assert.equal(facts.sites[0].function, 'f');
  assert.equal(facts.sites[0].loops.length, MAX_NESTING - 1);
  assert.deepEqual(facts.errors.map((e) => `${e.line}: ${e.message}`), [`${MAX_NESTING + 1}: ${NESTING_NOTE}`]);

  const perl = extractFacts('a.pl', `sub f {\n${r('for my $x (@xs) {\n', deep)}$dbh->do("SELECT 1");\n${r('}\n', deep)}}\n`, 'perl', parsers);
  assert.deepEqual(perl.sites.map((s) => s.sql), ['SELECT 1']);
  assert.equal(perl.sites[0].function, 'f');
  assert.deepEqual(perl.errors.map((e) => `${e.line}: ${e.message}`), [`${MAX_NESTING + 1}: ${NESTING_NOTE}`]);
});

void test('more assignments reaching one use than the bound: the first are followed, and the use says so', async () => {
  await parsers.loadFor(['javascript']);
  const n = MAX_REACHING + 10;
  const text = `function f(c) {\n  let q = "SELECT name FROM users";\n${r('  if (c) q += " AND id = 1";\n', n)}  db.query(q);\n}\n`;
  const facts = extractFacts('a.js', text, 'javascript', parsers);
  assert.ok(facts.sites.some((s) => s.call === 'db.query' && s.sql.startsWith('SELECT name FROM users')), facts.sites.map((s) => s.sql).join('\n'));
  assert.deepEqual(facts.errors.map((e) => `${e.line}: ${e.message}`), [`${n + 3}: more than ${MAX_REACHING} assignments of \`q\` reach here; the first ${MAX_REACHING} are followed`]);
});
