/**
 * What a user sees: the packaged extension (.vsix) installed into code-server, the sample app open,
 * "Query Insight: List SQL statements" from the command palette shows the app's statements with
 * file:line, function and loop depth; picking one opens the file at that line; the side bar lists them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join, dirname } from 'node:path';
import { rmSync } from 'node:fs';
import { packageVsix } from '../support/vsix';
import { startCodeServer, type CodeServer } from './support/codeServer';
import {
  cursorPosition, filterQuickPick, launchBrowser, openViewContainer, openWorkbench, quickPickItems,
  quickPickRows, RESULTS_DIR, runCommand, screenshot, type Browser,
} from './support/workbench';
import { waitUntil } from './support/wait';
import { copySampleApp } from './sampleApp';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';

let server: CodeServer | undefined;
let browser: Browser | undefined;
let ws: ReturnType<typeof copySampleApp> | undefined;
let vsix: string | undefined;

before(async () => {
  mkdirSync(RESULTS_DIR, { recursive: true });
  ws = copySampleApp();
  vsix = packageVsix();
  server = await startCodeServer({ workspace: ws.dir, vsix, logFile: join(RESULTS_DIR, 'ui.code-server.log'), logsTo: join(RESULTS_DIR, 'ui.logs') });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  ws?.remove();
  if (vsix) rmSync(dirname(vsix), { recursive: true, force: true });
});

void test('List SQL statements: palette, quick pick rows, jump to the site, side bar', { timeout: 240_000 }, async () => {
  const page = browser!.page;
  try {
    await steps(page);
  } catch (err) {
    await screenshot(page, 'list-sql-statements-failure').catch(() => undefined);
    throw err;
  }
});

async function steps(page: Page): Promise<void> {
  await openWorkbench(page, server!.url());

  await runCommand(page, 'Query Insight: List SQL statements');
  // the quick pick fills once the background scan is done
  await quickPickRows(page).filter({ hasText: 'main.go:109' }).first().waitFor({ timeout: 60_000 });
  await screenshot(page, 'list-sql-statements');
  const items = await quickPickItems(page);
  const getIndex = items.find((i) => i.description === 'webapp/go/main.go:109');
  assert.ok(getIndex, JSON.stringify(items, null, 1));
  assert.equal(getIndex.label.replace(/\u00a0/g, ' '), 'SELECT `id`, `user_id`, `body`, `mime`, `created_at` FROM `posts` ORDER BY `created_at` DESC');
  assert.equal(getIndex.detail, 'in getIndex · not in a loop');

  // filter to the statement inside two loops, pick it, land on its line
  await filterQuickPick(page, 'main.go:89');
  await waitUntil(async () => (await quickPickItems(page)).length === 1, 'one row for main.go:89');
  const [nested] = await quickPickItems(page);
  assert.equal(nested.detail, 'in makePosts · inside 2 loops');
  await page.keyboard.press('Enter');
  await page.locator('.tabs-container .tab.active[data-resource-name="main.go"]').waitFor();
  await waitUntil(async () => (await cursorPosition(page))?.line === 89, 'the cursor on line 89');
  await screenshot(page, 'jumped-to-site');

  // the side bar's SQL Statements view lists the file and its statements
  const sidebar = await openViewContainer(page, 'Query Insight');
  await sidebar.locator('.monaco-list-row', { hasText: 'main.go' }).first().waitFor();
  await sidebar.locator('.monaco-list-row', { hasText: 'DELETE FROM users WHERE id > 1000' }).first().waitFor();
  await screenshot(page, 'statements-view');
}
