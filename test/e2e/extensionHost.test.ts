/**
 * Runs the extension-host suite (test/e2e/exthost/*.exthost.ts, mocha inside VS Code's extension host)
 * in code-server on a copy of the sample app, with the extension loaded from this checkout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/paths';
import { runSuiteOnSampleApp } from './support/extHost';
import { RESULTS_DIR } from './support/workbench';
import { declaredTests, parseMochaSummary } from './support/mochaSummary';

void test('extension-host suite passes inside code-server', { timeout: 300_000 }, async () => {
  const started = Date.now();
  const run = await runSuiteOnSampleApp('exthost', 'exthost');
  const report = run.output.join('\n');
  assert.equal(run.code, 0, `extension-host tests failed (exit ${run.code}):\n${report}`);
  // why: not a fixed count, so adding an extension-host test does not break this runner; every
  // test the sources declare must have passed, and nothing failed.
  const summary = parseMochaSummary(run.output);
  const known = declaredTests(join(REPO_ROOT, 'test', 'e2e', 'exthost'));
  assert.ok(known.length >= 3, `the exthost sources declare their tests: ${JSON.stringify(known)}`);
  assert.equal(summary.failing, 0, report);
  assert.ok(summary.passing >= known.length, `${summary.passing} passing, ${known.length} declared:\n${report}`);
  for (const title of known) assert.ok(summary.passed.includes(title), `"${title}" passed:\n${report}`);
  // the extension's log (its output channel, kept on disk by code-server) names the ignored directory as scan's stderr does
  const logs = readdirSync(join(RESULTS_DIR, 'exthost.logs'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.log')).map((e) => join(e.parentPath, e.name)).filter((f) => statSync(f).mtimeMs >= started);
  const noted = logs.filter((f) => /scan: skipped scratch\/ \(1 source file\): ignored by \.gitignore/.test(readFileSync(f, 'utf8')));
  assert.equal(noted.length, 1, `one log of this run names scratch/: ${logs.join(', ')}`);
});
