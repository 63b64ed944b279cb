/**
 * The "Get started" walkthrough as a user goes through it: the packaged extension in code-server on
 * the sample app, with a private MariaDB (the app's schema) configured in the settings.
 *   - no step is ticked at first; the nginx step's Copy buttons (the step's button and the link in its
 *     Markdown) put the log_format on the clipboard;
 *   - a cancelled import ticks nothing;
 *   - the connection coming up ticks "Connect"; importing an access log ticks the nginx step; importing
 *     a slow log ticks the slow-log step; comparing two runs ticks "Compare";
 *   - in a second workspace, every step done before the walkthrough was first opened (half of them
 *     before a window reload that loses the browser's storage) shows ticked when it opens.
 * Screenshots go to test-results/e2e/ (walkthrough-*.png; the session's page is shot when the test fails).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { startMariaDb, type MariaDbServer } from '../support/mariadb';
import { SAMPLE_DB, sampleConnectionSettings, sampleSchemaFile } from '../../src/node/demo/sampleDatabase';
import { SNIPPETS } from '../../src/extension/walkthrough/walkthroughSteps';
import { openViewContainer, openWorkbench, pickByLabel, pickRun, quickOpen, quickPickRows, runCommand, screenshot } from './support/workbench';
import { openEditorSession, type EditorSession } from './support/editorSession';
import { waitUntil } from './support/wait';
import { sampleAccessLog } from './endpointsLog';
import { writeSampleSlowLog } from './queriesSlowLog';

let db: MariaDbServer | undefined;
let session: EditorSession | undefined;
let second: EditorSession | undefined;
let secondRoot: string | undefined;

/** The key of the runs' list in the extension's state file (RUNS_INDEX_KEY in src/extension/report/runStore.ts). */
const RUNS_KEY = 'queryInsight.runs';

/**
 * Waits until a run read from `source` is in the extension's state file under code-server's `root`
 * (user-data/User/workspaceStorage/<id>/<extension>/state.json): on disk, so a reload keeps it.
 */
async function waitRunStored(root: string, source: string): Promise<void> {
  const storage = join(root, 'user-data', 'User', 'workspaceStorage');
  await waitUntil(() => {
    for (const id of existsSync(storage) ? readdirSync(storage) : []) {
      const file = join(storage, id, 'query-insight.query-insight', 'state.json');
      if (!existsSync(file)) continue;
      const runs = (JSON.parse(readFileSync(file, 'utf8')) as { values: Record<string, { source?: string }[] | undefined> }).values[RUNS_KEY];
      if (runs?.some((r) => r.source === source)) return true;
    }
    return false;
  }, `the run of ${source} in the workspace's state file`, 30_000);
}

/** A session on a fresh copy of the sample app with two access logs and a slow log to import. */
function openSession(name: string, serverRoot?: string): Promise<EditorSession> {
  return openEditorSession({
    name, settings: sampleConnectionSettings(db!), ...(serverRoot ? { serverRoot } : {}),
    prepare: async (dir) => {
      db!.sql(readFileSync(sampleSchemaFile(dir), 'utf8'), SAMPLE_DB);
      mkdirSync(join(dir, 'logs'), { recursive: true });
      writeFileSync(join(dir, 'logs', 'access.log'), sampleAccessLog());
      writeFileSync(join(dir, 'logs', 'access-round2.log'), sampleAccessLog());
      await writeSampleSlowLog(dir);
    },
  });
}

before(async () => {
  db = await startMariaDb();
  db.sql(`CREATE DATABASE ${SAMPLE_DB}`);
  session = await openSession('walkthrough');
}, { timeout: 240_000 } as never);

after(async () => {
  await session?.close();
  await second?.close();
  if (secondRoot) rmSync(secondRoot, { recursive: true, force: true });
  await db?.stop();
});

void test('walkthrough: Copy buttons copy the settings; steps tick after the real actions only', { timeout: 300_000 }, async () => {
  await steps(session!.page);
});

const STEPS = ['connect', 'nginxLog', 'slowLog', 'compareRuns'] as const;
type StepId = (typeof STEPS)[number];

const stepButton = (page: Page, id: StepId) => page.locator(`button.getting-started-step[data-step-id$="#queryInsight.gettingStarted#${id}"]`);

/** Brings the walkthrough's editor tab to the front (imports and the report take the focus). */
async function showWalkthrough(page: Page): Promise<void> {
  await page.locator('.tabs-container .tab', { hasText: 'Walkthrough: Query Insight' }).first().click();
  await stepButton(page, 'connect').waitFor({ timeout: 15_000 });
}

/**
 * Brings main.go back to the front before a quick pick opens. why: the walkthrough's Markdown is a
 * webview that can take the focus when it is drawn again, and a quick pick closes when focus leaves it.
 */
async function showCode(page: Page): Promise<void> {
  await page.locator('.tabs-container .tab', { hasText: 'main.go' }).first().click();
  await page.locator('.tabs-container .tab.active', { hasText: 'main.go' }).waitFor();
  await page.locator('.editor-instance .monaco-editor .view-lines').first().waitFor();
}

/** Which steps show as done (their checkbox ticked). */
async function ticked(page: Page): Promise<Record<StepId, boolean>> {
  const out = {} as Record<StepId, boolean>;
  for (const id of STEPS) out[id] = (await stepButton(page, id).getAttribute('aria-checked')) === 'true';
  return out;
}

/** Waits until the walkthrough shows exactly the steps of `done` ticked. */
async function waitTicked(page: Page, done: StepId[]): Promise<void> {
  await showWalkthrough(page);
  const want = Object.fromEntries(STEPS.map((id) => [id, done.includes(id)]));
  let seen: Record<StepId, boolean> | undefined;
  await waitUntil(async () => { seen = await ticked(page); return STEPS.every((id) => seen![id] === want[id]); },
    `ticked steps ${JSON.stringify(done)}`, 60_000).catch((err: Error) => { throw new Error(`${err.message}; shown ${JSON.stringify(seen)}`); });
}

/** The page's clipboard (these functions run in the browser, where `navigator` is; the tests' types are Node's). */
interface BrowserClipboard { navigator: { clipboard: { readText(): Promise<string>; writeText(t: string): Promise<void> } } }

async function clipboard(page: Page): Promise<string> {
  return page.evaluate(() => (globalThis as unknown as BrowserClipboard).navigator.clipboard.readText());
}

async function clearClipboard(page: Page): Promise<void> {
  await page.evaluate(() => (globalThis as unknown as BrowserClipboard).navigator.clipboard.writeText('(cleared)'));
}

/** Runs an import command and picks `label` (a workspace-relative log) in its quick pick. */
async function importLog(page: Page, command: string, label: string): Promise<void> {
  await showCode(page);
  await runCommand(page, command);
  await pickByLabel(page, label);
}

/** The browser's IndexedDB (where the workbench keeps its state), in the page's own types. */
interface BrowserIndexedDb { indexedDB: { databases(): Promise<{ name?: string }[]>; deleteDatabase(name: string): unknown } }

/**
 * Deletes the page's IndexedDB databases. The workbench holds them open, so they go when the page
 * next unloads (a reload), before the reloaded workbench opens them again.
 */
async function forgetBrowserStorage(page: Page): Promise<void> {
  const names = await page.evaluate(async () => {
    const idb = (globalThis as unknown as BrowserIndexedDb).indexedDB;
    const dbs = (await idb.databases()).map((d) => d.name).filter((n): n is string => !!n);
    for (const n of dbs) idb.deleteDatabase(n);
    return dbs;
  });
  assert.ok(names.length > 0, 'the workbench keeps its state in IndexedDB');
}

async function steps(page: Page): Promise<void> {
  const url = session!.server.url();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
  await openWorkbench(page, url);
  await runCommand(page, 'Welcome: Open Walkthrough');
  await quickPickRows(page).filter({ hasText: 'Get started with Query Insight' }).first().click();
  await waitTicked(page, []);
  await screenshot(page, 'walkthrough-start');

  // the nginx step: the log_format inline, and its Copy button copies exactly that text
  await stepButton(page, 'nginxLog').click();
  const copyButton = stepButton(page, 'nginxLog').locator('.button-container a', { hasText: 'Copy log_format' });
  await copyButton.waitFor();
  await clearClipboard(page);
  await copyButton.click();
  await page.locator('.statusbar-item', { hasText: 'copied the nginx log_format' }).first().waitFor({ timeout: 30_000 });
  await waitUntil(async () => (await clipboard(page)) === SNIPPETS.nginxLtsv.text, 'the log_format on the clipboard');
  await screenshot(page, 'walkthrough-nginx-copied');
  // the Copy link beside the block in the step's Markdown does the same
  let media: Frame | undefined;
  await waitUntil(async () => {
    for (const f of page.frames()) if (await f.locator('code.language-nginx').count().catch(() => 0)) { media = f; return true; }
    return false;
  }, 'the nginx step\'s Markdown', 30_000, 250);
  assert.match((await media!.locator('code.language-nginx').innerText()).replace(/\u00a0/g, ' '), /log_format ltsv "time:\$time_local"/);
  await clearClipboard(page);
  await media!.locator('a', { hasText: 'Copy log_format' }).click();
  await waitUntil(async () => (await clipboard(page)) === SNIPPETS.nginxLtsv.text, 'the log_format on the clipboard (Markdown link)');

  // a cancelled import is no import: nothing ticks
  await runCommand(page, 'Query Insight: Import access log');
  await quickPickRows(page).first().waitFor({ timeout: 30_000 });
  await page.keyboard.press('Escape');

  // the connection comes up when a file with statements opens: "Connect" ticks, and only it
  await quickOpen(page, 'main.go');
  await page.locator('.statusbar-item', { hasText: /MariaDB 10\.\d+/ }).first().waitFor({ timeout: 60_000 });
  await waitTicked(page, ['connect']);
  await screenshot(page, 'walkthrough-connected');

  await importLog(page, 'Query Insight: Import access log', 'logs/access.log');
  await waitTicked(page, ['connect', 'nginxLog']);
  await importLog(page, 'Query Insight: Import slow query log', 'logs/slow.log');
  await waitTicked(page, ['connect', 'nginxLog', 'slowLog']);
  await screenshot(page, 'walkthrough-imported');

  await importLog(page, 'Query Insight: Import access log', 'logs/access-round2.log');
  await showCode(page);
  await runCommand(page, 'Query Insight: Compare two runs');
  await pickRun(page, 'logs/access.log');
  await pickRun(page, 'access-round2');
  await page.locator('.tabs-container .tab', { hasText: 'Query Insight Report' }).first().waitFor({ timeout: 30_000 });
  await waitTicked(page, ['connect', 'nginxLog', 'slowLog', 'compareRuns']);
  await screenshot(page, 'walkthrough-done');
}

void test('walkthrough: steps done before it was first opened, half of them before a reload, show ticked', { timeout: 400_000 }, async () => {
  await session?.close();
  session = undefined;
  secondRoot = mkdtempSync(join(tmpdir(), 'qi-walkthrough-'));
  second = await openSession('walkthrough-before', secondRoot);
  const page = second.page;
  const url = second.server.url();
  await openWorkbench(page, url);
  const runsPane = async () => (await openViewContainer(page, 'Query Insight')).locator('.pane', { has: page.locator('.pane-header', { hasText: /^Runs/ }) });

  // connect and import an access log, without Get Started ever opened
  await quickOpen(page, 'main.go');
  await page.locator('.statusbar-item', { hasText: /MariaDB 10\.\d+/ }).first().waitFor({ timeout: 60_000 });
  await importLog(page, 'Query Insight: Import access log', 'logs/access.log');
  await (await runsPane()).locator('.monaco-list-row', { hasText: /access\.log/ }).first().waitFor({ timeout: 60_000 });
  // why: the view can list the run a moment before the file holding it is written; a reload in that
  // moment loses it (as it would for a user), which is not what this test is about.
  await waitRunStored(secondRoot, 'logs/access.log');

  // a window reload that loses what the browser kept (VS Code's workspace state, its record of the
  // walkthrough's steps): the runs and the steps done come back from the workspace's storage, as after a
  // reload that came before the browser wrote its storage, or in a browser opened for the first time
  await forgetBrowserStorage(page);
  await page.reload();
  await openWorkbench(page, url);
  await quickOpen(page, 'main.go');
  await importLog(page, 'Query Insight: Import slow query log', 'logs/slow.log');
  const runs = await runsPane();
  await runs.locator('.monaco-list-row', { hasText: /slow\.log/ }).first().waitFor({ timeout: 60_000 });
  await importLog(page, 'Query Insight: Import access log', 'logs/access-round2.log');
  await runs.locator('.monaco-list-row', { hasText: /access-round2\.log/ }).first().waitFor({ timeout: 60_000 });
  await showCode(page);
  await runCommand(page, 'Query Insight: Compare two runs');
  await pickRun(page, 'logs/access.log');
  await pickRun(page, 'access-round2');
  await page.locator('.tabs-container .tab', { hasText: 'Query Insight Report' }).first().waitFor({ timeout: 30_000 });
  await screenshot(page, 'walkthrough-before-work-done');

  // Get Started, opened only now, shows the four steps done
  await runCommand(page, 'Welcome: Open Walkthrough');
  await quickPickRows(page).filter({ hasText: 'Get started with Query Insight' }).first().click();
  await waitTicked(page, ['connect', 'nginxLog', 'slowLog', 'compareRuns']);
  await screenshot(page, 'walkthrough-before-opened');

});
