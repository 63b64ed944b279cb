// Recall and precision of N+1 detection over every N+1 fixture: the apps of test/fixtures/nplus1/<lang>/
// (scored against each app's expect.json) and the agreement app of test/fixtures/agreement/<lang>/ and its part 2
// in test/fixtures/agreement/part2/<lang>/ (the same
// contest app in every language, its cases marked in the sources), with the real extractors + detection.
//   node scripts/nplus1-score.mjs            table per language and overall; exit 1 when a language is below 97%
//   node scripts/nplus1-score.mjs --verbose  also lists missed and unexpected findings
import * as esbuild from 'esbuild';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const verbose = process.argv.includes('--verbose');
const outDir = join(root, '.test-run');
mkdirSync(outDir, { recursive: true });
const outfile = join(outDir, 'nplus1-score.cjs');
// why: the support module is TypeScript; bundle it (inside the repo, so node_modules and the grammars resolve).
await esbuild.build({
  stdin: { contents: "export * from './test/support/nplus1Fixtures'; export { runAgreement, AGREEMENT_LANGUAGES } from './test/support/agreementFixtures';", resolveDir: root, loader: 'ts' },
  outfile, bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning',
});
const require = createRequire(import.meta.url);
const { runFixture, fixtureLanguages, runAgreement, AGREEMENT_LANGUAGES } = require(outfile);

const fixtures = join(root, 'test/fixtures/nplus1');
const agreement = join(root, 'test/fixtures/agreement');
// Part 2 of the agreement app: a caller's arguments, the kinds of loop, helpers inside loops, qualified calls.
const agreement2 = join(root, 'test/fixtures/agreement/part2');
const part2 = existsSync(agreement2) ? readdirSync(agreement2) : [];
const pct = (x) => `${(x * 100).toFixed(1)}%`;
const rows = [];
let tp = 0, fp = 0, fn = 0, neg = 0, pos = 0;
let below = false;
const languages = [...new Set([...fixtureLanguages(fixtures), ...AGREEMENT_LANGUAGES])];
for (const lang of languages) {
  const t0 = performance.now();
  // TypeScript shares JavaScript's agreement app (one family); every other language has both sets.
  const runs = [];
  if (fixtureLanguages(fixtures).includes(lang)) runs.push({ set: 'nplus1', run: await runFixture(fixtures, lang) });
  if (AGREEMENT_LANGUAGES.includes(lang)) runs.push({ set: 'agreement', run: await runAgreement(agreement, lang) });
  if (part2.includes(lang)) runs.push({ set: 'agreement/part2', run: await runAgreement(agreement2, lang) });
  const ms = performance.now() - t0;
  let lt = 0, lf = 0, ln = 0, lp = 0, lneg = 0;
  for (const { set, run } of runs) {
    const s = run.score;
    lt += s.truePositives; lf += s.falsePositives; ln += s.falseNegatives; lp += run.expect.positives.length; lneg += run.expect.negatives.length;
    if (verbose || s.recall < 1 || s.precision < 1) {
      for (const m of s.missed) console.log(`  ${lang} (${set}): missed ${m.case} ${m.file}:${m.line} (loop ${m.loopFile ?? m.file}:${m.loopLine})`);
      for (const u of s.unexpected) console.log(`  ${lang} (${set}): unexpected ${u.file}:${u.line} (loop ${u.loopFile}:${u.loopLine})${u.negative ? ` — negative case ${u.negative}` : ''}`);
      for (const f of run.facts) for (const e of f.errors) console.log(`  ${lang} (${set}): ${e.file}${e.line ? `:${e.line}` : ''}: ${e.message}`);
    }
  }
  const r = lt + ln ? lt / (lt + ln) : 1, p = lt + lf ? lt / (lt + lf) : 1;
  if (r < 0.97 || p < 0.97) below = true;
  tp += lt; fp += lf; fn += ln; pos += lp; neg += lneg;
  rows.push([lang, lp, lneg, lt, lf, ln, pct(r), pct(p), `${ms.toFixed(0)} ms`]);
}
const recall = tp + fn ? tp / (tp + fn) : 1;
const precision = tp + fp ? tp / (tp + fp) : 1;
rows.push(['overall', pos, neg, tp, fp, fn, pct(recall), pct(precision), '']);
const head = ['language', 'positives', 'negatives', 'TP', 'FP', 'FN', 'recall', 'precision', 'time'];
const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
const line = (r) => r.map((c, i) => (i === 0 ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join('  ');
console.log(line(head));
for (const r of rows) console.log(line(r));
process.exit(below ? 1 : 0);
