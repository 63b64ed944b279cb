/**
 * A CPU profile in the editor: the packaged extension in code-server on the sample app (chi
 * handlers in main.go) with its access log and folded stacks of the app (perf + stackcollapse, Go
 * names). "Query Insight: Import access log", then "Query Insight: Import profile" offers the
 * workspace's profile; afterwards the Endpoints view has a CPU column, getPost has the CodeLens
 * `CPU 63 % · 20 ms/req` (600 of the 950 handler samples at 100 Hz, over the log's 300 requests),
 * and clicking it shows getPost's flame graph in the report's CPU tab.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { filterQuickPick, goToLine, openViewContainer, openWorkbench, quickOpen, quickPickItems, quickPickRows, runCommand, screenshot, webviewFrame } from './support/workbench';
import { openEditorSession, type EditorSession } from './support/editorSession';
import { waitUntil } from './support/wait';
import { writeSampleAccessLog } from './endpointsLog';

let session: EditorSession | undefined;

const SERVE = 'runtime.goexit;net/http.(*conn).serve;net/http.serverHandler.ServeHTTP;github.com/go-chi/chi/v5.(*Mux).ServeHTTP;net/http.HandlerFunc.ServeHTTP';

/** Folded stacks as `perf script | stackcollapse-perf.pl` writes them for the sample app's binary. */
const FOLDED = [
  `${SERVE};main.getPost;main.makePosts;github.com/jmoiron/sqlx.(*DB).Select;database/sql.(*DB).QueryContext;github.com/go-sql-driver/mysql.(*mysqlConn).readPacket 150`,
  `${SERVE};main.getPost;main.makePosts;html/template.(*Template).Execute;text/template.(*state).walk 300`,
  `${SERVE};main.getPost;encoding/json.Marshal 150`,
  `${SERVE};main.getIndex;main.makePosts;html/template.(*Template).Execute 200`,
  `${SERVE};main.getAccountName;database/sql.(*Row).Scan 100`,
  `${SERVE};main.postComment;net/http.(*Request).ParseForm 50`,
  'runtime.gcBgMarkWorker;runtime.gcDrain;runtime.scanobject 80',
  `${SERVE};net/http.(*conn).readRequest;bufio.(*Reader).ReadLine 20`,
].join('\n') + '\n';

before(async () => {
  session = await openEditorSession({
    name: 'profile',
    prepare: (dir) => {
      writeSampleAccessLog(dir);
      writeFileSync(join(dir, 'logs', 'cpu.folded'), FOLDED);
    },
  });
});

after(async () => {
  await session?.close();
});

void test('Import profile: a CPU column in the Endpoints view, a CPU CodeLens over the handler, its flame graph in the report', { timeout: 240_000 }, async () => {
  await steps(session!.page);
});

/** `label — description` of the Endpoints view's rows. */
async function endpointRows(page: Page): Promise<string[]> {
  const pane = page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: /^Endpoints/ }) });
  return pane.locator('.monaco-list-row').evaluateAll((rows) => rows.map((r) => {
    const t = (sel: string) => (r.querySelector(sel)?.textContent ?? '').replace(/\u00a0/g, ' ');
    return `${t('.label-name')} — ${t('.label-description')}`;
  }));
}

async function pickInQuickPick(page: Page, label: string): Promise<void> {
  await quickPickRows(page).filter({ hasText: label.split('/').pop()! }).first().waitFor({ timeout: 30_000 });
  await filterQuickPick(page, label);
  await waitUntil(async () => (await quickPickItems(page)).filter((i) => i.label === label).length === 1, `${label} in the picker`);
  await page.keyboard.press('Enter');
}

async function steps(page: Page): Promise<void> {
  await openWorkbench(page, session!.server.url());

  await runCommand(page, 'Query Insight: Import access log');
  await pickInQuickPick(page, 'logs/access.log');
  await openViewContainer(page, 'Query Insight');
  await waitUntil(async () => (await endpointRows(page)).some((r) => r.startsWith('GET /posts/{id}')), 'the access log in the Endpoints view', 60_000);

  await runCommand(page, 'Query Insight: Import profile');
  await quickPickRows(page).filter({ hasText: 'Fetch from a URL' }).first().waitFor({ timeout: 30_000 });
  const offered = await quickPickItems(page);
  assert.ok(offered.some((i) => i.label === 'logs/cpu.folded' && /in the workspace/.test(i.description)), JSON.stringify(offered));
  await pickInQuickPick(page, 'logs/cpu.folded');

  // the CPU column: share of the CPU under handlers (getPost 600 of 950 samples)
  await waitUntil(async () => (await endpointRows(page)).some((r) => r.startsWith('GET /posts/{id} — ') && r.endsWith('· CPU 63 %')), 'CPU 63 % on GET /posts/{id}', 60_000)
    .catch(async (err) => { throw new Error(`${(err as Error).message}; shown: ${JSON.stringify(await endpointRows(page))}`); });
  const rows = await endpointRows(page);
  assert.ok(rows.some((r) => r.startsWith('GET / — ') && r.includes('CPU 21 %')), JSON.stringify(rows));
  assert.ok(rows.some((r) => r.startsWith('GET /css/*.css — ') && !r.includes('CPU')), `static files have no handler CPU: ${JSON.stringify(rows)}`);
  await screenshot(page, 'profile-endpoints-cpu');

  // the CPU lens over getPost: 6 s of CPU (600 samples at 100 Hz) over the log's 300 requests
  await quickOpen(page, 'main.go');
  await goToLine(page, 122);
  const lenses = page.locator('.monaco-editor .codelens-decoration a', { hasText: /^CPU / });
  await lenses.first().waitFor({ timeout: 30_000 });
  const titles = async () => (await lenses.allInnerTexts()).map((t) => t.replace(/\u00a0/g, ' ').trim());
  // getIndex: 2 s over its 100 requests; getPost: 6 s over 300
  await waitUntil(async () => (await titles()).includes('CPU 63 % · 20 ms/req'), 'the CPU lens over getPost')
    .catch(async (err) => { throw new Error(`${(err as Error).message}; shown: ${JSON.stringify(await titles())}`); });
  assert.ok((await titles()).includes('CPU 21 % · 20 ms/req'), JSON.stringify(await titles()));
  const lens = lenses.filter({ hasText: 'CPU 63 %' }).first();
  await screenshot(page, 'profile-codelens');

  // clicking it shows getPost's flame graph in the report's CPU tab
  await lens.click();
  const frame = await webviewFrame(page, '#flame-graph');
  const caption = await frame.locator('figure.flame figcaption').innerText();
  assert.match(caption, /^GET \/posts\/\{id\}: getPost \(webapp\/go\/main\.go:122\), 6\.00 s$/);
  const boxes = await frame.locator('#flame-graph .flame-box').evaluateAll((gs) => gs.map((g) => g.getAttribute('aria-label') ?? ''));
  assert.ok(boxes[0].startsWith('main.getPost'), JSON.stringify(boxes.slice(0, 4)));
  assert.ok(boxes.some((b) => b.startsWith('main.makePosts') && b.includes('75.0 %')), JSON.stringify(boxes));
  assert.match(await frame.locator('#cpu-summary').innerText(), /logs\/cpu\.folded · 10\.50 s CPU, 90\.5 % under handlers · outside: runtime\/GC 7\.6 %, database driver 0\.0 %, other 1\.9 %/);
  await screenshot(page, 'profile-flame-graph');
}
