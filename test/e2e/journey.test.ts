/**
 * The whole journey as a user lives it, in one scenario: the packaged extension in code-server on
 * the sample app, connected to a private MariaDB with its schema and 300k rows, after a benchmark
 * round run by the demo's own generator (the sample app served by Node with its real SQL, behind
 * nginx with the documented LTSV log, the slow log at long_query_time = 0).
 *   1. hover a bad statement: its plan and findings;
 *   2. the index quick fix: the schema file changes; applied to the database, the finding goes;
 *   3. a second benchmark round (with the index), then: import the access log — the Endpoints view
 *      ranked as the engine ranks it, the CodeLens over the handler with the engine's figures;
 *   4. import the slow log — the Queries view in the engine's order;
 *   5. compare the two runs — the comparison table drawn inside the report's webview.
 * Screenshots of every step go to test-results/journey/.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdirSync, readFileSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { analyzeAccessLogFile } from '../../src/node/accessLogFile';
import { analyzeSlowLogFile } from '../../src/node/slowLogFile';
import { discoverRoutesInDir } from '../../src/node/routesDir';
import { runBenchmark, type BenchmarkResult } from '../../src/node/demo/benchmark';
import { sortStats } from '../../src/core/logs/slowStats';
import type { EndpointStats } from '../../src/core/logs/accessAnalysis';
import { codeLensTitle, endpointLabel, sortEndpoints } from '../../src/extension/endpoints/endpointRows';
import { queryLabel } from '../../src/extension/queries/queryRows';
import type { MariaDbServer } from '../support/mariadb';
import { REPO_ROOT } from '../support/paths';
import { applyQuickFix, goToLine, hoverOver, openProblems, openViewContainer, openWorkbench, pickByLabel, pickRun, quickOpen, runCommand, sqlOnLine, webviewFrame } from './support/workbench';
import { openEditorSession, type EditorSession } from './support/editorSession';
import { waitUntil } from './support/wait';
import { connectionSettings, SAMPLE_DB, startSampleDb } from './sampleDb';

const SHOTS = join(REPO_ROOT, 'test-results', 'journey');

let db: MariaDbServer | undefined;
let session: EditorSession | undefined;
let round1: BenchmarkResult | undefined;

/** A short round: enough requests for every endpoint, bounded in time on a busy machine. */
const round = (label: string, appDir = session!.dir): Promise<BenchmarkResult> => runBenchmark({
  db: db!, appDir, docsFile: join(REPO_ROOT, 'docs', 'nginx-log-formats.md'), outDir: join(appDir, 'logs'),
  label, requests: 400, seconds: 8,
});

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  db = await startSampleDb();
  session = await openEditorSession({
    name: 'journey', settings: connectionSettings(db),
    prepare: async (dir) => { round1 = await round('before', dir); },
  });
}, { timeout: 240_000 } as never);

after(async () => {
  await session?.close();
  await db?.stop();
});

let shot = 0;
async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${String(++shot).padStart(2, '0')}-${name}.png`) });
}

void test('journey: hover, index quick fix, access log → Endpoints + CodeLens, slow log → Queries, compare two runs in the report', { timeout: 420_000 }, async () => {
  // a failure is shot by the session (test-results/e2e/journey-failure-*.png)
  await steps(session!.page);
});

const text = (s: string): string => s.replace(/\u00a0/g, ' ').trim();


function pane(page: Page, title: RegExp): Locator {
  return page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: title }) });
}

async function rowLabels(page: Page, title: RegExp): Promise<string[]> {
  return pane(page, title).locator('.monaco-list-row .label-name').evaluateAll((els) => els.map((e) => (e.textContent ?? '').replace(/\u00a0/g, ' ')));
}

/** Runs an import command and picks `label` (a workspace-relative log) in its quick pick. */
async function importLog(page: Page, command: string, label: string): Promise<void> {
  await runCommand(page, command);
  await pickByLabel(page, label);
}

/** Line 155: posts filtered by user_id and sorted by created_at, neither indexed. */
const BAD = /db\.Select\(&results,.*`user_id`/;
const FULL_SCAN = /full table scan of posts: reads ~[\d,]+ rows; no index on posts\(user_id, created_at\)/;

async function steps(page: Page): Promise<void> {
  assert.ok(round1 && round1.load.sent > 20, `the first round served requests: ${JSON.stringify(round1?.load)}`);
  await openWorkbench(page, session!.server.url());
  await quickOpen(page, 'main.go');
  await page.locator('.statusbar-item', { hasText: /MariaDB 10\.\d+/ }).first().waitFor({ timeout: 60_000 });

  // 1. hover the bad statement: the plan table and its findings
  await goToLine(page, 155);
  const bad = sqlOnLine(page, BAD);
  await bad.waitFor();
  const hover = await hoverOver(page, bad);
  const planToggle = hover.locator('summary', { hasText: /^Plan$/ }).first();
  await planToggle.waitFor({ timeout: 30_000 });
  await planToggle.click();
  await hover.locator('table').first().waitFor({ timeout: 15_000 });
  const hoverText = text(await hover.innerText());
  assert.match(hoverText, /possible_keys/);
  assert.match(hoverText, /full-table-scan/);
  assert.match(hoverText, /filesort/);
  assert.match(hoverText, /ALTER TABLE `posts` ADD INDEX/);
  await screenshot(page, 'hover-plan-and-findings');
  await page.keyboard.press('Escape');
  await page.mouse.move(5, 5);
  const problems = await openProblems(page);
  await problems.locator('.monaco-list-row', { hasText: FULL_SCAN }).first().waitFor({ timeout: 60_000 });
  await screenshot(page, 'problems-full-scan');

  // 2. the index quick fix: into the schema file, then into the database; the finding goes
  const schemaPath = join(session!.dir, 'webapp', 'sql', 'schema.sql');
  const schemaBefore = readFileSync(schemaPath, 'utf8');
  await page.keyboard.press('Control+1');
  await goToLine(page, 155);
  await applyQuickFix(page, sqlOnLine(page, BAD), 'to the schema file');
  // why: the editor saves by rewriting the file, so a read can meet it half written; wait for the index itself
  await waitUntil(() => /INDEX \w+ \(user_id, created_at\)/.test(readFileSync(schemaPath, 'utf8')), 'schema.sql on disk to gain the index', 30_000);
  assert.notEqual(readFileSync(schemaPath, 'utf8'), schemaBefore);
  const added = /INDEX (\w+) \(user_id, created_at\)/.exec(readFileSync(schemaPath, 'utf8'));
  assert.ok(added, `schema.sql gains the index:\n${readFileSync(schemaPath, 'utf8')}`);
  await screenshot(page, 'quick-fix-schema-file');
  await page.keyboard.press('Control+1');
  await goToLine(page, 155);
  await applyQuickFix(page, sqlOnLine(page, BAD), 'to the database');
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 15_000 });
  await dialog.locator('.monaco-button', { hasText: 'Add index' }).first().click();
  await page.locator('.notifications-toasts', { hasText: /Rows examined \S+ → \S+/ }).first().waitFor({ timeout: 60_000 });
  await waitUntil(async () => await problems.locator('.monaco-list-row', { hasText: FULL_SCAN }).count() === 0, 'the full-scan finding to go', 60_000);
  assert.match(db!.sql("SELECT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_NAME = 'posts'", SAMPLE_DB), new RegExp(added[1]));
  await screenshot(page, 'quick-fix-database-finding-gone');

  // 3. benchmark again with the index; import the first round's access log: Endpoints + CodeLens
  const round2 = await round('after');
  const routes = (await discoverRoutesInDir(session!.dir)).routes;
  const report = await analyzeAccessLogFile(round1!.accessLog, { format: 'ltsv', routes });
  const ranked: EndpointStats[] = sortEndpoints(report.endpoints, 'total');
  await importLog(page, 'Query Insight: Import access log', 'logs/access-before.ltsv');
  await openViewContainer(page, 'Query Insight');
  const expected = ranked.slice(0, 3).map(endpointLabel);
  let shown: string[] = [];
  await waitUntil(async () => {
    shown = await rowLabels(page, /^Endpoints/);
    return expected.every((l, i) => shown[i] === l);
  }, `Endpoints rows to start ${JSON.stringify(expected)}`, 60_000).catch((err: Error) => { throw new Error(`${err.message}; shown ${JSON.stringify(shown)}`); });
  await screenshot(page, 'endpoints-view-ranked');
  const getPost = ranked.find((e) => endpointLabel(e) === 'GET /posts/{id}');
  assert.ok(getPost, `the log has GET /posts/{id}: ${JSON.stringify(ranked.map(endpointLabel))}`);
  await quickOpen(page, 'main.go');
  await goToLine(page, 122);
  const lens = page.locator('.monaco-editor .codelens-decoration', { hasText: 'GET /posts/{id}' }).first();
  await lens.waitFor({ timeout: 30_000 });
  assert.equal(text(await lens.innerText()), codeLensTitle(getPost));
  await screenshot(page, 'endpoints-codelens-over-handler');
  // the second round becomes a run too, for the comparison
  await importLog(page, 'Query Insight: Import access log', 'logs/access-after.ltsv');
  await waitUntil(async () => (await rowLabels(page, /^Endpoints/)).length > 0, 'the Endpoints view after the second import');

  // 4. import the slow log: the Queries view in the engine's order
  const stats = sortStats((await analyzeSlowLogFile(round1!.slowLog)).stats, 'sum');
  await importLog(page, 'Query Insight: Import slow query log', 'logs/slow-before.log');
  const expectedQueries = stats.slice(0, 3).map((s, i) => `${i + 1}. ${queryLabel(s)}`);
  await waitUntil(async () => {
    shown = await rowLabels(page, /^Queries/);
    return expectedQueries.every((l, i) => shown[i] === l);
  }, `Queries rows to start ${JSON.stringify(expectedQueries)}`, 60_000).catch((err: Error) => { throw new Error(`${err.message}; shown ${JSON.stringify(shown)}`); });
  await screenshot(page, 'queries-view');

  // 5. compare the two access-log runs: the comparison table inside the report's webview
  await runCommand(page, 'Query Insight: Compare two runs');
  await pickRun(page, 'access-before');
  await pickRun(page, 'access-after');
  const frame = await webviewFrame(page, '#comparison-table');
  const rows = frame.locator('#comparison-table tr.row');
  await waitUntil(async () => await rows.count() > 0, 'comparison rows');
  const tableText = text(await frame.locator('#comparison-table').innerText());
  assert.match(tableText, /\/posts\/\{id\}/);
  assert.match(tableText, /\/@\{accountName\}/);
  const after = await analyzeAccessLogFile(round2.accessLog, { format: 'ltsv', routes });
  const account = after.endpoints.find((e) => e.uri === '/@{accountName}');
  const accountBefore = report.endpoints.find((e) => e.uri === '/@{accountName}');
  if (account && accountBefore) {
    const row = frame.locator('#comparison-table tr.row', { hasText: '/@{accountName}' }).first();
    assert.match(text(await row.innerText()), new RegExp(`${accountBefore.count}\\D+${account.count}`), 'the row shows the counts before → after');
  }
  await screenshot(page, 'report-comparison');
}
