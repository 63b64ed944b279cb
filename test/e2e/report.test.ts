/**
 * Runs the report's extension-host suite (test/e2e/report/*.exthost.ts) in code-server on a copy of
 * the sample app, with the extension loaded from this checkout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSuiteOnSampleApp } from './support/extHost';

void test('report suite passes inside code-server', { timeout: 300_000 }, async () => {
  const run = await runSuiteOnSampleApp('report', 'report-exthost');
  const report = run.output.join('\n');
  assert.equal(run.code, 0, `report extension-host tests failed (exit ${run.code}):\n${report}`);
  assert.match(report, /\b3 passing\b/, report);
  assert.doesNotMatch(report, /\bfailing\b/, report);
});
