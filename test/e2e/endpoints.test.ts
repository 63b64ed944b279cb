/**
 * What a user sees after a benchmark: the packaged extension in code-server on the sample app with
 * its access log; "Query Insight: Import access log" offers the workspace's log, the Endpoints view
 * ranks the endpoints by total time, the handler in main.go shows its CodeLens, and clicking an
 * endpoint opens its handler at its line; a click on the lens opens the report on the endpoint's
 * figures; a lens names client aborts; the picker gives the log's size in KB. Before that, the picker lists only access logs (a slow log
 * and an empty file sit under "Other file…"), and picking the slow log imports nothing: no run, the
 * views as they were, one line saying why.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  cursorPosition, filterQuickPick, goToLine, openViewContainer, openWorkbench, quickOpen, quickPickItems, quickPickRows,
  runCommand, screenshot, webviewFrame,
} from './support/workbench';
import { openEditorSession, type EditorSession } from './support/editorSession';
import { waitUntil } from './support/wait';
import { readmeShot } from './readmeShots';
import { SAMPLE_ENDPOINTS, totalSeconds, writeSampleAccessLog } from './endpointsLog';

let session: EditorSession | undefined;

const SLOW_LOG = [
  '/usr/sbin/mariadbd, Version: 10.11.6-MariaDB-0+deb12u1-log (Debian 12). started with:',
  'Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock',
  'Time\t\t    Id Command\tArgument',
  '# Time: 241125  8:30:01',
  '# User@Host: isucon[isucon] @ localhost []',
  '# Thread_id: 31  Schema: isuconp  QC_hit: No',
  '# Query_time: 0.120412  Lock_time: 0.000101  Rows_sent: 20  Rows_examined: 99974',
  'SET timestamp=1732523401;',
  'SELECT * FROM posts ORDER BY created_at DESC LIMIT 20;',
  '',
].join('\n');

before(async () => {
  session = await openEditorSession({
    name: 'endpoints',
    prepare: (dir) => {
      writeSampleAccessLog(dir);
      // beside it, a slow log and an empty file: neither is an access log
      writeFileSync(join(dir, 'logs', 'slow-before.log'), SLOW_LOG);
      writeFileSync(join(dir, 'logs', 'empty-access.log'), '');
    },
  });
});

after(async () => {
  await session?.close();
});

void test('Import access log: Endpoints view ranked by total time, CodeLens over the handler, a row opens the handler', { timeout: 240_000 }, async () => {
  await steps(session!.page);
});

/** Labels of the Endpoints view's rows, top to bottom. */
async function endpointRows(page: Page): Promise<string[]> {
  const pane = page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: /^Endpoints/ }) });
  return pane.locator('.monaco-list-row .label-name').evaluateAll((els) => els.map((e) => (e.textContent ?? '').replace(/\u00a0/g, ' ')));
}

async function steps(page: Page): Promise<void> {
  await openWorkbench(page, session!.server.url());

  // the picker lists the access log; the slow log and the empty file are under "Other file…"
  await runCommand(page, 'Query Insight: Import access log');
  await quickPickRows(page).filter({ hasText: 'Other file' }).first().waitFor({ timeout: 30_000 });
  const first = await quickPickItems(page);
  assert.ok(first.some((i) => i.label === 'logs/access.log'), JSON.stringify(first));
  assert.ok(!first.some((i) => /slow-before|empty-access/.test(i.label)), `only access logs at the top: ${JSON.stringify(first)}`);
  await quickPickRows(page).filter({ hasText: 'Other file' }).first().click();
  await quickPickRows(page).filter({ hasText: 'slow-before.log' }).first().waitFor();
  const others = await quickPickItems(page);
  assert.ok(others.some((i) => i.label === 'logs/slow-before.log' && /a slow query log/.test(i.description)), JSON.stringify(others));
  assert.ok(others.some((i) => i.label === 'logs/empty-access.log' && /an empty file/.test(i.description)), JSON.stringify(others));
  await screenshot(page, 'import-picker-other-files');
  // picking the slow log anyway imports nothing, says why in one line, and records no run
  await filterQuickPick(page, 'slow-before');
  await waitUntil(async () => (await quickPickItems(page)).filter((i) => i.label === 'logs/slow-before.log').length === 1 && (await quickPickItems(page)).length <= 2, 'the slow log alone in the list');
  await page.keyboard.press('Enter');
  const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'nothing imported from logs/slow-before.log' }).first();
  await toast.waitFor({ timeout: 30_000 });
  assert.match(await toast.innerText(), /it is a slow query log, not an access log/);
  assert.ok(await toast.locator('.monaco-button', { hasText: 'Show Log' }).count() > 0, 'the message offers Show Log');
  await screenshot(page, 'import-nothing-read');
  const sidebar = await openViewContainer(page, 'Query Insight');
  await sidebar.locator('.welcome-view-content', { hasText: 'No runs yet' }).first().waitFor({ timeout: 15_000 });
  await sidebar.locator('.welcome-view-content', { hasText: 'No access log imported yet' }).first().waitFor({ timeout: 15_000 });
  // back to the Explorer, so the side bar opens on Query Insight again below
  await page.keyboard.press('Control+Shift+E');
  await sidebar.locator('.composite.title', { hasText: /Explorer/i }).first().waitFor();
  // the failed file did not become "recent"
  await runCommand(page, 'Query Insight: Import access log');
  await quickPickRows(page).filter({ hasText: 'Other file' }).first().waitFor({ timeout: 30_000 });
  const again = await quickPickItems(page);
  assert.ok(!again.some((i) => /recent/.test(i.description)), `nothing recent after a failed import: ${JSON.stringify(again)}`);
  await page.keyboard.press('Escape');
  await quickPickRows(page).first().waitFor({ state: 'hidden' });

  await runCommand(page, 'Query Insight: Import access log');
  await quickPickRows(page).filter({ hasText: 'access.log' }).first().waitFor({ timeout: 30_000 });
  const offered = await quickPickItems(page);
  assert.ok(offered.some((i) => i.label === 'logs/access.log' && /in the workspace/.test(i.description)), JSON.stringify(offered));
  // the log's size in a unit that shows it: tens of KB, not "0.0 MB"
  const size = /· ([\d.,]+ (?:B|KB|MB))$/.exec(offered.find((i) => i.label === 'logs/access.log')!.description)?.[1];
  assert.match(size ?? '', /^\d+(\.\d)? KB$/, `the size of a ${statSync(join(session!.dir, 'logs', 'access.log')).size}-byte log: ${size}`);
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
  await goToLine(page, 122);
  const lens = page.locator('.monaco-editor .codelens-decoration', { hasText: 'GET /posts/{id}' }).first();
  await lens.waitFor({ timeout: 30_000 });
  assert.equal((await lens.innerText()).replace(/\u00a0/g, ' ').trim(), 'GET /posts/{id} · 300 req · 15.0 s total · p99 70.0 ms');
  await screenshot(page, 'endpoints-codelens');
  await readmeShot(page, 'endpoints-codelens');

  // a click on the lens opens the report beside the code, on that endpoint's figures
  await lens.locator('a', { hasText: 'GET /posts/{id}' }).first().click();
  const report = await webviewFrame(page, '#endpoint-figures');
  const figures = report.locator('#endpoint-figures');
  await figures.locator('h3', { hasText: 'GET /posts/{id}' }).waitFor({ timeout: 30_000 });
  const figureText = (await figures.innerText()).replace(/\s+/g, ' ');
  assert.match(figureText, /requests 300\b/);
  assert.match(figureText, /total 15\.0+ s/);
  assert.match(figureText, /p50 \/ p90 \/ p95 \/ p99 /);
  assert.equal(await report.locator('#tab-run').getAttribute('aria-selected'), 'true');
  await screenshot(page, 'endpoints-codelens-report');
  await page.locator('.tabs-container .tab', { hasText: 'Query Insight Report' }).first().click();
  await page.keyboard.press('Control+W');
  await page.keyboard.press('Control+1');

  // the lens of an endpoint with client aborts names them: "1 client abort (499)"
  await goToLine(page, 137);
  const comment = page.locator('.monaco-editor .codelens-decoration', { hasText: 'POST /comment' }).first();
  await comment.waitFor({ timeout: 30_000 });
  assert.match((await comment.innerText()).replace(/\u00a0/g, ' ').trim(), /^POST \/comment · 50 req · .* · 5xx 2 · 1 client abort \(499\)$/);

  // clicking an endpoint opens its handler: close the editor first, then click GET /@{accountName}
  await runCommand(page, 'View: Close All Editors');
  await page.locator('.tabs-container .tab').first().waitFor({ state: 'detached' });
  const pane = page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: /^Endpoints/ }) });
  await pane.locator('.monaco-list-row', { has: page.locator('.label-name', { hasText: /^GET \/@\{accountName\}$/ }) }).click();
  await page.locator('.tabs-container .tab.active[data-resource-name="main.go"]').waitFor({ timeout: 20_000 });
  await waitUntil(async () => (await cursorPosition(page))?.line === 148, 'the cursor on getAccountName (line 148)');
  await screenshot(page, 'endpoints-opened-handler');
}
