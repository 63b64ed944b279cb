// Recall and precision of N+1 detection over the fixture apps (test/fixtures/nplus1/<lang>/):
// the real extractors + detection, scored against each app's expect.json.
//   node scripts/nplus1-score.mjs            table per language and overall; exit 1 below 100%
//   node scripts/nplus1-score.mjs --verbose  also lists missed and unexpected findings
import * as esbuild from 'esbuild';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const verbose = process.argv.includes('--verbose');
const outDir = join(root, '.test-run');
mkdirSync(outDir, { recursive: true });
const outfile = join(outDir, 'nplus1-score.cjs');
// why: the support module is TypeScript; bundle it (inside the repo, so node_modules and the grammars resolve).
await esbuild.build({ entryPoints: [join(root, 'test/support/nplus1Fixtures.ts')], outfile, bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning' });
const require = createRequire(import.meta.url);
const { runFixture, fixtureLanguages } = require(outfile);

const fixtures = join(root, 'test/fixtures/nplus1');
const pct = (x) => `${(x * 100).toFixed(1)}%`;
const rows = [];
let tp = 0, fp = 0, fn = 0, neg = 0;
for (const lang of fixtureLanguages(fixtures)) {
  const t0 = performance.now();
  const run = await runFixture(fixtures, lang);
  const ms = performance.now() - t0;
  const s = run.score;
  tp += s.truePositives; fp += s.falsePositives; fn += s.falseNegatives; neg += run.expect.negatives.length;
  rows.push([lang, run.expect.positives.length, run.expect.negatives.length, s.truePositives, s.falsePositives, s.falseNegatives, pct(s.recall), pct(s.precision), `${ms.toFixed(0)} ms`]);
  if (verbose || s.recall < 1 || s.precision < 1) {
    for (const m of s.missed) console.log(`  ${lang}: missed ${m.case} ${m.file}:${m.line} (loop ${m.loopFile ?? m.file}:${m.loopLine})`);
    for (const u of s.unexpected) console.log(`  ${lang}: unexpected ${u.file}:${u.line} (loop ${u.loopFile}:${u.loopLine})${u.negative ? ` — negative case ${u.negative}` : ''}`);
    for (const f of run.facts) for (const e of f.errors) console.log(`  ${lang}: ${e.file}${e.line ? `:${e.line}` : ''}: ${e.message}`);
  }
}
const recall = tp + fn ? tp / (tp + fn) : 1;
const precision = tp + fp ? tp / (tp + fp) : 1;
rows.push(['overall', tp + fn, neg, tp, fp, fn, pct(recall), pct(precision), '']);
const head = ['language', 'positives', 'negatives', 'TP', 'FP', 'FN', 'recall', 'precision', 'time'];
const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
const line = (r) => r.map((c, i) => (i === 0 ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join('  ');
console.log(line(head));
for (const r of rows) console.log(line(r));
process.exit(recall === 1 && precision === 1 ? 0 : 1);
