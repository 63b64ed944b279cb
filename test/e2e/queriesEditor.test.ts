/**
 * What a user sees after a benchmark with the slow log on: the packaged extension in code-server on
 * the sample app, whose slow log was just written by a private MariaDB (long_query_time = 0) running
 * the app's index-page statements. "Query Insight: Import slow query log" offers the workspace's
 * log; the Queries view ranks the fingerprints by total time in the order the engine (the CLI's)
 * computes, unmapped ones marked; the statement's line in main.go shows its figures as a CodeLens;
 * the hover on the statement carries the same figures; the N+1 in makePosts is confirmed by the log;
 * in watch mode, a second benchmark appended to the log updates the figures, and the view's title bar
 * offers Stop in place of Watch. With no connection configured, the database status item shows only
 * while a file with statements is in the editor.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { sortStats, type QueryStats } from '../../src/core/logs/slowStats';
import { analyzeSlowLogFile } from '../../src/node/slowLogFile';
import { indexSites, sitesFor } from '../../src/core/logs/slowMapping';
import { ParserSet } from '../../src/core/source/lang/treeSitter/treeSitter';
import { FactsCache } from '../../src/core/workspace';
import { fsGrammarSource } from '../../src/node/grammars';
import { scanProject } from '../../src/node/scanDir';
import { figuresText, queryLabel } from '../../src/extension/queries/queryRows';
import {
  filterQuickPick, goToLine, hoverOver, openProblems, openViewContainer, openWorkbench, quickOpen, quickPickItems,
  quickPickRows, runCommand, screenshot,
} from './support/workbench';
import { openEditorSession, type EditorSession } from './support/editorSession';
import { waitUntil } from './support/wait';
import { readmeShot } from './readmeShots';
import { writeSampleSlowLog } from './queriesSlowLog';

let session: EditorSession | undefined;
let ranked: QueryStats[] = [];
/** Per ranked fingerprint: whether the engine maps it to no statement of the workspace. */
let unmapped: boolean[] = [];
let logPath = '';

before(async () => {
  session = await openEditorSession({
    name: 'queries',
    prepare: async (dir) => {
      logPath = await writeSampleSlowLog(dir);
      ranked = sortStats((await analyzeSlowLogFile(logPath)).stats, 'sum');
      const scan = await scanProject(dir, new FactsCache(new ParserSet(fsGrammarSource())));
      const index = indexSites(scan.facts.flatMap((f) => f.sites));
      unmapped = ranked.map((s) => sitesFor(index, s.fingerprint).how === 'none');
    },
  });
}, { timeout: 180_000 } as never);

after(async () => {
  await session?.close();
});

void test('Import slow query log: Queries view ranked by total time, figures CodeLens on the statement, hover, N+1 confirmed', { timeout: 300_000 }, async () => {
  await steps(session!.page);
});

const text = (s: string): string => s.replace(/\u00a0/g, ' ').trim();

/** The Queries view's rows, top to bottom: label and description. */
async function queryRows(page: Page): Promise<{ label: string; description: string }[]> {
  const pane = page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: /^Queries/ }) });
  return pane.locator('.monaco-list-row').evaluateAll((rows) => rows.map((r) => ({
    label: (r.querySelector('.label-name')?.textContent ?? '').replace(/\u00a0/g, ' '),
    description: (r.querySelector('.label-description')?.textContent ?? '').replace(/\u00a0/g, ' '),
  })));
}

async function steps(page: Page): Promise<void> {
  const lookup = ranked.find((s) => s.fingerprint === 'select * from users where id = ?');
  assert.ok(lookup && lookup.count === 240, `the workload's user lookups are in the log: ${JSON.stringify(ranked.map((s) => [s.fingerprint, s.count]))}`);

  await openWorkbench(page, session!.server.url());
  await runCommand(page, 'Query Insight: Import slow query log');
  await quickPickRows(page).filter({ hasText: 'slow.log' }).first().waitFor({ timeout: 30_000 });
  const offered = await quickPickItems(page);
  assert.ok(offered.some((i) => i.label === 'logs/slow.log' && /in the workspace/.test(i.description)), JSON.stringify(offered));
  await filterQuickPick(page, 'logs/slow.log');
  await waitUntil(async () => (await quickPickItems(page)).filter((i) => i.label === 'logs/slow.log').length === 1, 'the log in the picker');
  await page.keyboard.press('Enter');
  // the import's summary goes to the status bar and the view, not to a notification
  await page.locator('.part.statusbar', { hasText: /Slow log: [\d,]+ statements/ }).first().waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('.notifications-toasts .notification-toast', { hasText: /Slow log/ }).count(), 0, 'no notification for the import');

  // (0) no connection and no file with statements in the editor: no database status item
  const dbItem = page.locator('.part.statusbar .statusbar-item', { hasText: 'Query Insight: no database' });
  assert.equal(await dbItem.count(), 0, 'no status item before a file with statements is open');

  // (1) ranked by total time, in the engine's order; the rows the view draws are a prefix of it
  await openViewContainer(page, 'Query Insight');
  await queriesPane(page).locator('.pane-header', { hasText: /[\d,]+ statements/ }).waitFor({ timeout: 30_000 });
  const expected = ranked.map((s, i) => `${i + 1}. ${queryLabel(s)}`);
  let shown: { label: string; description: string }[] = [];
  await waitUntil(async () => {
    shown = await queryRows(page);
    return shown.length >= Math.min(4, expected.length) && shown.every((r, i) => r.label === expected[i]);
  }, 'the Queries rows in the order of total time', 60_000).catch((err: Error) => {
    throw new Error(`${err.message}; shown: ${JSON.stringify(shown)}; expected: ${JSON.stringify(expected)}`);
  });
  // the view marks exactly the fingerprints the engine maps to no statement
  shown.forEach((row, i) => (unmapped[i] ? assert.match : assert.doesNotMatch)(row.description, /unmapped/, `row ${i + 1}: ${row.label}`));
  assert.ok(!unmapped[ranked.indexOf(lookup)]);
  await screenshot(page, 'queries-view');

  // (2) the figures on the statement's line: a CodeLens right above line 89 of main.go
  await quickOpen(page, 'main.go');
  await dbItem.first().waitFor({ timeout: 30_000 });
  await goToLine(page, 89);
  const figures = figuresText(lookup);
  assert.match(figures, /^240 calls · /);
  const lens = page.locator('.monaco-editor .codelens-decoration', { hasText: figures }).first();
  await lens.waitFor({ timeout: 30_000 });
  assert.match(text(await lens.innerText()), new RegExp(`^#${ranked.indexOf(lookup) + 1} · ${figures.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} · \\d+\\.\\d% of query time$`));
  const line89 = page.locator('.editor-instance .monaco-editor .view-lines .view-line', { hasText: /db\.Get\(&comments\[i\]\.User/ }).first();
  const [lensBox, lineBox] = [await lens.boundingBox(), await line89.boundingBox()];
  assert.ok(lensBox && lineBox && lineBox.y - (lensBox.y + lensBox.height) >= -2 && lineBox.y - (lensBox.y + lensBox.height) < 30,
    `the lens sits right above the statement (lens ${JSON.stringify(lensBox)}, line ${JSON.stringify(lineBox)})`);
  // line 80 builds its query in branches (`query += " LIMIT 3"`): two variants of one literal, one lens for the one fingerprint the log has
  const comments = ranked.find((s) => s.fingerprint === 'select * from comments where post_id = ? order by created_at desc limit ?');
  assert.ok(comments, `the workload's comments query is in the log: ${JSON.stringify(ranked.map((s) => s.fingerprint))}`);
  const lens80 = page.locator('.monaco-editor .codelens-decoration', { hasText: figuresText(comments) });
  const once = new RegExp(`^#${ranked.indexOf(comments) + 1} · ${figuresText(comments).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} · \\d+\\.\\d% of query time$`);
  let lensTexts: string[] = [];
  // why: lenses are redrawn when the figures are mapped again; the line settles on what the user reads
  await waitUntil(async () => {
    lensTexts = (await lens80.allInnerTexts()).map(text);
    return lensTexts.length === 1 && once.test(lensTexts[0]);
  }, 'one lens with the comments figures on line 80', 30_000).catch((err: Error) => {
    throw new Error(`${err.message}: the figures once, not once per variant; shown: ${JSON.stringify(lensTexts)}`);
  });
  await screenshot(page, 'queries-codelens');
  await readmeShot(page, 'queries-view');

  // (3) the hover on the statement carries the same figures (no database here: the plan part says so)
  const sql = line89.locator('span span', { hasText: /"SELECT/ }).first();
  const hover = await hoverOver(page, sql);
  await hover.locator('text=Slow log').first().waitFor({ timeout: 15_000 });
  const hoverText = text(await hover.innerText());
  assert.ok(hoverText.includes(figures), hoverText);
  assert.match(hoverText, /logs\/slow\.log/);
  await screenshot(page, 'queries-hover');
  await page.keyboard.press('Escape');
  await page.mouse.move(5, 5);

  // (4) the N+1 of makePosts, confirmed by the log's bursts of the same lookup
  const problems = await openProblems(page);
  await problems.locator('.monaco-list-row', { hasText: /confirmed by the slow log: 240 calls/ }).first().waitFor({ timeout: 30_000 });
  await screenshot(page, 'queries-n-plus-one-confirmed');

  // (5) watch mode from the view's title bar: Stop takes Watch's place, the view says "watching", and the
  // next benchmark's entries appended to the log show up in the figures
  const header = queriesPane(page).locator('.pane-header');
  await header.hover();
  await header.locator('.action-label[aria-label="Watch the slow query log"]').click();
  await header.locator('.action-label[aria-label="Stop watching the slow query log"]').waitFor({ timeout: 30_000 });
  assert.equal(await header.locator('.action-label[aria-label="Watch the slow query log"]').count(), 0, 'Watch is replaced by Stop');
  await header.locator('.description', { hasText: /watching/ }).waitFor({ timeout: 10_000 });
  appendFileSync(logPath, readFileSync(logPath));
  await page.locator('.monaco-editor .codelens-decoration', { hasText: /· 480 calls · / }).first().waitFor({ timeout: 30_000 });
  await screenshot(page, 'queries-watch');
  await header.hover();
  await header.locator('.action-label[aria-label="Stop watching the slow query log"]').click();
  await header.locator('.action-label[aria-label="Watch the slow query log"]').waitFor({ timeout: 30_000 });

  // (6) a file without statements in the editor: the status item goes away again
  await quickOpen(page, 'schema.sql');
  await dbItem.first().waitFor({ state: 'hidden', timeout: 30_000 });
}

function queriesPane(page: Page) {
  return page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: /^Queries/ }) });
}
