/**
 * What a user sees with a database: the packaged extension in code-server on the sample app, pointed
 * (by user settings) at a private MariaDB holding the app's schema and 300k generated rows.
 * (c) the status bar shows MariaDB and its version; (a) hovering the statement that filters posts by
 * an unindexed column shows the verdict and the actions inside the visible hover, then the plan table and the findings; (b) the Problems panel lists the full
 * scan; (d) the light bulb offers the index fixes: the schema-file fix edits schema.sql on disk, the
 * database fix (confirmed in the modal) adds the index and the finding goes away; (e) the N+1
 * diagnostic shows with its loop as related information; (f) the report opens beside the code, its
 * Plan tab's "Show plan" draws the tree of the statement under the cursor, its Measure adds the rows
 * read; the hover's "Show plan" fills the tab, and the hover's Measure refreshes it there.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import type { MariaDbServer } from '../support/mariadb';
import { applyQuickFix, goToLine, hoverOver, openProblems, openQuickFixes, openWorkbench, quickOpen, runCommand, screenshot, sqlOnLine, webviewFrame } from './support/workbench';
import { openEditorSession, type EditorSession } from './support/editorSession';
import { waitUntil } from './support/wait';
import { readmeShot } from './readmeShots';
import { connectionSettings, SAMPLE_DB, startSampleDb } from './sampleDb';

let db: MariaDbServer | undefined;
let session: EditorSession | undefined;

before(async () => {
  db = await startSampleDb();
  session = await openEditorSession({ name: 'explain', settings: connectionSettings(db) });
}, { timeout: 240_000 } as never);

after(async () => {
  await session?.close();
  await db?.stop();
});


/** The report closes again (it opened beside the code, in the second group); the code's group gets focus. */
async function closeReport(page: Page): Promise<void> {
  const tab = page.locator('.tabs-container .tab', { hasText: 'Query Insight Report' }).first();
  await tab.click();
  await page.keyboard.press('Control+W');
  await tab.waitFor({ state: 'detached' });
  await page.keyboard.press('Control+1');
}

/** Line 155: posts filtered by user_id and sorted by created_at, neither indexed. */
const BAD = /db\.Select\(&results,.*`user_id`/;
const FULL_SCAN = /full table scan of posts: reads ~[\d,]+ rows; no index on posts\(user_id, created_at\)/;

void test('EXPLAIN in the editor: status bar, hover, Problems, index quick fixes, N+1', { timeout: 300_000 }, async () => {
  await steps(session!.page);
});

async function steps(page: Page): Promise<void> {
  await openWorkbench(page, session!.server.url());
  await quickOpen(page, 'main.go');

  // (c) opening a Go file with SQL connects lazily; the status bar names the server
  const status = page.locator('.statusbar-item', { hasText: /MariaDB 10\.\d+/ }).first();
  await status.waitFor({ timeout: 60_000 });
  assert.match(await status.innerText(), /MariaDB 10\.\d+\.\d+/);
  await screenshot(page, 'explain-status-bar');

  // (a) hover: the verdict, then the actions, then the suggested index, the plan collapsed under "Plan", the details
  await goToLine(page, 155);
  const bad = sqlOnLine(page, BAD);
  await bad.waitFor();
  const hover = await hoverOver(page, bad);
  const planToggle = hover.locator('summary', { hasText: /^Plan$/ }).first();
  await planToggle.waitFor({ timeout: 30_000 });
  // why: VS Code puts the diagnostics' own hover part first; ours starts at its title
  const whole = (await hover.innerText()).replace(/\u00a0/g, ' ');
  const collapsed = whole.slice(whole.indexOf('Query Insight ·'));
  assert.match(collapsed.split('\n')[0], /Query Insight · .*full table scan of posts.*\(\+\d+ more\)/, `the verdict leads:\n${collapsed}`);
  const order = [/Add index to the database/, /Show plan/, /Measure/, /Suggested index/, /ALTER TABLE `posts` ADD INDEX/, /\nPlan\n/, /Findings/, /Substituted for placeholders/]
    .map((re) => collapsed.search(re));
  assert.ok(order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1])), `hover order ${order.join(' < ')}:\n${collapsed}`);
  assert.ok(!collapsed.includes('select_type'), 'the plan table is collapsed');
  // the actions are inside the hover's visible box as it opens, at 1400×900, below the diagnostics' part
  const box = await hover.boundingBox();
  assert.ok(box, 'the hover has a box');
  const inside = async (el: Locator): Promise<boolean> => {
    const b = await el.boundingBox();
    return !!b && b.height > 0 && b.y >= box.y && b.y + b.height <= box.y + box.height && b.x >= box.x && b.x + b.width <= box.x + box.width;
  };
  for (const name of ['Add index to the database', 'Add index to the schema file', 'Copy DDL', 'Show plan', 'Measure']) {
    const link = hover.locator('a', { hasText: new RegExp(`^${name}$`) }).first();
    assert.ok(await inside(link), `"${name}" is inside the visible hover (${JSON.stringify(box)} vs ${JSON.stringify(await link.boundingBox())})`);
  }
  // why: the check above means something only when the hover is capped: its last lines are below the fold
  assert.equal(await inside(hover.locator('p', { hasText: /Substituted for placeholders/ }).first()), false, 'the details further down need scrolling');
  await screenshot(page, 'explain-hover-collapsed');
  await readmeShot(page, 'hover');
  await planToggle.click();
  await hover.locator('table').first().waitFor({ timeout: 15_000 });
  const text = (await hover.innerText()).replace(/\u00a0/g, ' ');
  for (const col of ['select_type', 'possible_keys', 'key_len', 'filtered', 'Extra']) assert.ok(text.includes(col), `hover has column ${col}:\n${text}`);
  assert.match(text, /full-table-scan/);
  assert.match(text, /filesort/);
  assert.match(text, /ALL/);
  await screenshot(page, 'explain-hover');
  await page.keyboard.press('Escape');
  await page.mouse.move(5, 5);

  // (f) Show report opens beside the code; the Plan tab offers "Show plan" before any plan, for the statement under the cursor
  await bad.click();
  await runCommand(page, 'Query Insight: Show report');
  const reportTab = page.locator('.tabs-container .tab', { hasText: 'Query Insight Report' }).first();
  await reportTab.waitFor({ timeout: 30_000 });
  await waitUntil(async () => await page.locator('.editor-group-container').count() === 2, 'the report in a second editor group', 30_000);
  assert.equal(await page.locator('.editor-group-container', { has: reportTab }).locator('.tab[data-resource-name="main.go"]').count(), 0, 'the report opened beside the code, not in its place');
  const empty = await webviewFrame(page, '#tab-plan');
  await empty.locator('#tab-plan').click();
  await empty.locator('#plan-show').click();
  const postsNode = empty.locator('#plan-tree li[data-kind="table"]', { has: empty.locator(':scope > .plan-line .plan-label', { hasText: /^posts$/ }) }).first();
  await postsNode.waitFor({ timeout: 30_000 });
  assert.equal(await empty.locator('#tab-plan').getAttribute('aria-selected'), 'true', 'the Plan tab is the one shown');
  assert.equal(await postsNode.locator(':scope > .plan-line .plan-access').innerText(), 'ALL');
  assert.match(await postsNode.locator(':scope > .plan-line .plan-rows-estimated').innerText(), /^~[\d,]+ est\.$/);
  assert.equal(await postsNode.locator(':scope > .plan-line .plan-rows-measured').count(), 0, 'nothing measured yet');
  assert.match(await postsNode.locator(':scope > .plan-findings').innerText(), /full-table-scan/);
  assert.match(await empty.locator('figure.plan figcaption').innerText(), /main\.go:155/);
  await screenshot(page, 'explain-plan-tab-show-plan');

  // the tab's own Measure button: the rows ANALYZE read appear beside the estimate
  await empty.locator('#plan-measure', { hasText: /^Measure$/ }).click();
  await postsNode.locator(':scope > .plan-line .plan-rows-measured').waitFor({ timeout: 60_000 });
  assert.match(await postsNode.locator(':scope > .plan-line .plan-rows-measured').innerText(), /^[\d,]+ read/);
  assert.match(await postsNode.locator(':scope > .plan-line .plan-rows-estimated').innerText(), /^~[\d,]+ est\.$/);
  assert.equal(await empty.locator('#plan-measure').innerText(), 'Measure again');
  await screenshot(page, 'explain-plan-tab-measured');

  // the hover's "Show plan" on another statement fills the open tab, and the hover's Measure refreshes it there
  const count = sqlOnLine(page, /db\.Get\(&commentCount/);
  await page.keyboard.press('Control+1');
  await goToLine(page, 160);
  const countHover = await hoverOver(page, count, 60_000, 40);
  await countHover.locator('a', { hasText: /^Show plan$/ }).first().click();
  const commentsNode = empty.locator('#plan-tree li[data-kind="table"]', { has: empty.locator(':scope > .plan-line .plan-label', { hasText: /^comments$/ }) }).first();
  await commentsNode.waitFor({ timeout: 30_000 });
  assert.equal(await commentsNode.locator(':scope > .plan-line .plan-rows-measured').count(), 0, 'the count is not measured yet');
  await page.keyboard.press('Escape');
  const again = await hoverOver(page, count, 60_000, 40);
  await again.locator('a', { hasText: /^Measure$/ }).first().click();
  await commentsNode.locator(':scope > .plan-line .plan-rows-measured').waitFor({ timeout: 60_000 });
  assert.match(await empty.locator('figure.plan figcaption').innerText(), /main\.go:160/);
  await screenshot(page, 'explain-plan-tab-refreshed');
  await page.keyboard.press('Escape');
  await page.mouse.move(5, 5);
  await closeReport(page);

  // (b) the Problems panel lists the full scan with its code
  const problems = await openProblems(page);
  const scanRow = problems.locator('.monaco-list-row', { hasText: FULL_SCAN }).first();
  await scanRow.waitFor({ timeout: 60_000 });
  await screenshot(page, 'explain-problems');

  // (e) the N+1 diagnostic, with its loop as related information
  const nPlusOne = problems.locator('.monaco-list-row', { hasText: /N\+1: "SELECT \* FROM `users` WHERE `id` = \?" runs once per iteration of the for loop/ }).first();
  await nPlusOne.waitFor({ timeout: 30_000 });
  await problems.locator('.monaco-list-row', { hasText: /for loop.*: the statement runs once per iteration/ }).first().waitFor({ timeout: 30_000 });
  await screenshot(page, 'n-plus-one-problems');

  // (d) the light bulb on the full-scan finding: schema-file fix, then database fix
  const schemaPath = join(session!.dir, 'webapp', 'sql', 'schema.sql');
  const schemaBefore = readFileSync(schemaPath, 'utf8');
  await goToLine(page, 155);
  await applyQuickFix(page, sqlOnLine(page, BAD), 'to the schema file');
  // why: the editor saves by rewriting the file, so a read can meet it half written; wait for the index itself
  await waitUntil(() => /INDEX \w+ \(user_id, created_at\)/.test(readFileSync(schemaPath, 'utf8')), 'schema.sql on disk to gain the index', 30_000);
  assert.notEqual(readFileSync(schemaPath, 'utf8'), schemaBefore);
  const schemaAfter = readFileSync(schemaPath, 'utf8');
  const added = /INDEX (\w+) \(user_id, created_at\)/.exec(schemaAfter);
  assert.ok(added, `schema.sql gains the index inside CREATE TABLE posts:\n${schemaAfter}`);
  assert.ok(schemaAfter.indexOf(added[0]) > schemaAfter.indexOf('CREATE TABLE posts') && schemaAfter.indexOf(added[0]) < schemaAfter.indexOf('CREATE TABLE comments'));
  await screenshot(page, 'fix-schema-file');

  // one set of index fixes for the statement, though two findings (full scan, filesort) point at it
  await page.keyboard.press('Control+1');
  await goToLine(page, 155);
  const rows = await openQuickFixes(page, sqlOnLine(page, BAD), 'to the database');
  for (const kind of ['to the database', 'to the schema file', 'Copy DDL']) {
    assert.equal(rows.filter((r) => r.includes(kind)).length, 1, `one "${kind}" fix:\n${rows.join('\n')}`);
  }
  await screenshot(page, 'fix-one-set');
  await page.keyboard.press('Escape');
  // why: the line is revealed again, mid-editor: near the top, sticky scroll would cover it
  await goToLine(page, 155);
  await applyQuickFix(page, sqlOnLine(page, BAD), 'to the database');
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 15_000 });
  assert.match(await dialog.innerText(), /ALTER TABLE `posts` ADD INDEX/);
  await screenshot(page, 'fix-database-confirm');
  await dialog.locator('.monaco-button', { hasText: 'Add index' }).first().click();
  await page.locator('.notifications-toasts', { hasText: /Rows examined \S+ → \S+/ }).first().waitFor({ timeout: 60_000 });
  await screenshot(page, 'fix-database-done');
  await waitUntil(async () => await problems.locator('.monaco-list-row', { hasText: FULL_SCAN }).count() === 0, 'the full-scan finding to go', 60_000);
  await screenshot(page, 'fix-database-finding-gone');
  const indexes = db!.sql('SELECT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_NAME = \'posts\'', SAMPLE_DB);
  assert.match(indexes, new RegExp(added[1]), 'the database has the index the schema file got');

  // the N+1 quick fix writes the batched statement as a comment above the loop (last: it shifts lines)
  await goToLine(page, 89);
  const inner = page.locator('.editor-instance .monaco-editor .view-lines .view-line', { hasText: /db\.Get\(&comments\[i\]\.User/ })
    .locator('span span', { hasText: /"SELECT/ }).first();
  await applyQuickFix(page, inner, 'Insert batched query as a comment');
  await page.locator('.editor-instance .monaco-editor .view-lines .view-line', { hasText: /\/\/[ \u00a0]N\+1[ \u00a0]\(n-plus-one\)/ }).first().waitFor({ timeout: 15_000 });
  await screenshot(page, 'n-plus-one-quick-fix');
}
