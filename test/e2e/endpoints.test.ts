/**
 * What a user sees after a benchmark: the packaged extension in code-server on the sample app with
 * its access log; "Query Insight: Import access log" offers the workspace's log, the Endpoints view
 * ranks the endpoints by total time, the handler in main.go shows its CodeLens, and clicking an
 * endpoint opens its handler at its line.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import {
  cursorPosition, filterQuickPick, openViewContainer, openWorkbench, quickOpen, quickPickItems, quickPickRows,
  runCommand, screenshot,
} from './support/workbench';
import { openEditorSession, withFailureShot, type EditorSession } from './support/editorSession';
import { waitUntil } from './support/wait';
import { SAMPLE_ENDPOINTS, totalSeconds, writeSampleAccessLog } from './endpointsLog';

let session: EditorSession | undefined;

before(async () => {
  session = await openEditorSession({ name: 'endpoints', prepare: (dir) => { writeSampleAccessLog(dir); } });
});

after(async () => {
  await session?.close();
});

void test('Import access log: Endpoints view ranked by total time, CodeLens over the handler, a row opens the handler', { timeout: 240_000 }, async () => {
  await withFailureShot(session!.page, 'endpoints-failure', steps);
});

/** Labels of the Endpoints view's rows, top to bottom. */
async function endpointRows(page: Page): Promise<string[]> {
  const pane = page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: /^Endpoints/ }) });
  return pane.locator('.monaco-list-row .label-name').evaluateAll((els) => els.map((e) => (e.textContent ?? '').replace(/\u00a0/g, ' ')));
}

async function steps(page: Page): Promise<void> {
  await openWorkbench(page, session!.server.url());
  await runCommand(page, 'Query Insight: Import access log');
  await quickPickRows(page).filter({ hasText: 'access.log' }).first().waitFor({ timeout: 30_000 });
  const offered = await quickPickItems(page);
  assert.ok(offered.some((i) => i.label === 'logs/access.log' && /in the workspace/.test(i.description)), JSON.stringify(offered));
  assert.ok(offered.some((i) => /Browse/.test(i.label)));
  await filterQuickPick(page, 'logs/access.log');
  await waitUntil(async () => (await quickPickItems(page)).filter((i) => i.label === 'logs/access.log').length === 1, 'the log in the picker');
  await page.keyboard.press('Enter');

  // ranked by total time, largest first
  await openViewContainer(page, 'Query Insight');
  const expected = [...SAMPLE_ENDPOINTS].sort((a, b) => totalSeconds(b) - totalSeconds(a)).map((e) => `${e.method} ${e.pattern}`);
  assert.deepEqual(expected, ['GET /posts/{id}', 'GET /', 'GET /@{accountName}', 'POST /initialize', 'POST /comment', 'GET /css/*.css']);
  await waitUntil(async () => JSON.stringify(await endpointRows(page)) === JSON.stringify(expected), `Endpoints rows ${JSON.stringify(expected)}`, 60_000)
    .catch(async (err) => { throw new Error(`${(err as Error).message}; shown: ${JSON.stringify(await endpointRows(page))}`); });
  await screenshot(page, 'endpoints-view');

  // the CodeLens above getPost
  await quickOpen(page, 'main.go');
  // getPost is below the first screen: go to its line (Ctrl+G) so the lens above it is drawn
  await page.keyboard.press('Control+G');
  await page.keyboard.type('122');
  await page.keyboard.press('Enter');
  const lens = page.locator('.monaco-editor .codelens-decoration', { hasText: 'GET /posts/{id}' }).first();
  await lens.waitFor({ timeout: 30_000 });
  assert.equal((await lens.innerText()).replace(/\u00a0/g, ' ').trim(), 'GET /posts/{id} · 300 req · 15.0 s total · p99 70.0 ms');
  await screenshot(page, 'endpoints-codelens');

  // clicking an endpoint opens its handler: close the editor first, then click GET /@{accountName}
  await runCommand(page, 'View: Close All Editors');
  await page.locator('.tabs-container .tab').first().waitFor({ state: 'detached' });
  const pane = page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: /^Endpoints/ }) });
  await pane.locator('.monaco-list-row', { has: page.locator('.label-name', { hasText: /^GET \/@\{accountName\}$/ }) }).click();
  await page.locator('.tabs-container .tab.active[data-resource-name="main.go"]').waitFor({ timeout: 20_000 });
  await waitUntil(async () => (await cursorPosition(page))?.line === 148, 'the cursor on getAccountName (line 148)');
  await screenshot(page, 'endpoints-opened-handler');
}
