/**
 * What a user sees: the packaged extension (.vsix) installed into code-server, the sample app open,
 * "Query Insight: List SQL statements" from the command palette shows the app's statements with
 * file:line, function and loop depth; picking one opens the file at that line; the side bar lists them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cursorPosition, filterQuickPick, openViewContainer, openWorkbench, quickOpen, quickPickItems,
  quickPickRows, runCommand, screenshot,
} from './support/workbench';
import { openEditorSession, type EditorSession } from './support/editorSession';
import { waitUntil } from './support/wait';
import type { Page } from 'playwright-core';

let session: EditorSession | undefined;

before(async () => {
  session = await openEditorSession({ name: 'ui' });
});

after(async () => {
  await session?.close();
});

void test('List SQL statements: palette, quick pick rows, jump to the site, side bar', { timeout: 240_000 }, async () => {
  await steps(session!.page);
});

async function steps(page: Page): Promise<void> {
  await openWorkbench(page, session!.server.url());
  // why: the extension starts with a file of the project's languages (or its view), and its commands
  // show in the palette from then on; a user opens their code first
  await quickOpen(page, 'main.go');

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
