/**
 * Runs the report's extension-host suite (test/e2e/report/*.exthost.ts) in code-server on a copy of
 * the sample app, with the extension loaded from this checkout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/paths';
import { runExtensionHostTests } from './support/extHost';
import { copySampleApp } from './sampleApp';

void test('report suite passes inside code-server', { timeout: 300_000 }, async () => {
  const ws = copySampleApp();
  try {
    const run = await runExtensionHostTests({
      name: 'report-exthost', workspace: ws.dir, extensionPath: REPO_ROOT,
      testsPath: join(REPO_ROOT, 'out', 'test', 'e2e', 'report', 'index.js'),
    });
    const report = run.output.join('\n');
    assert.equal(run.code, 0, `report extension-host tests failed (exit ${run.code}):\n${report}`);
    assert.match(report, /\b3 passing\b/, report);
    assert.doesNotMatch(report, /\bfailing\b/, report);
  } finally {
    ws.remove();
  }
});
