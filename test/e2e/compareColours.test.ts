/**
 * Compare by what the player controls, as the user sees it: the packaged extension in code-server on
 * the sample app with two benchmark rounds' access logs (test/support/loadChangedLogs.ts), where the
 * fix let the benchmarker send more requests. Both logs are imported (each import is a run), "Compare
 * two runs" picks them, and the report's webview shows GET / (2.318 s → 494 ms a request, 7 → 57
 * requests, total up by 11.9 s) as faster in the gain colour, the request-count change written out,
 * GET /@{accountName} (same times, more requests) within noise in no verdict colour, POST /comment
 * (4× the time a request) as slower in the regression colour, and the total uncoloured.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Frame, Locator, Page } from 'playwright-core';
import { openViewContainer, openWorkbench, pickByLabel, pickRun, runCommand, screenshot, webviewFrame } from './support/workbench';
import { openEditorSession, withFailureShot, type EditorSession } from './support/editorSession';
import { writeLoadChangedLogs } from '../support/loadChangedLogs';
import { readmeShot } from './readmeShots';

let session: EditorSession | undefined;

before(async () => {
  session = await openEditorSession({ name: 'compare', prepare: (dir) => { writeLoadChangedLogs(dir); } });
}, { timeout: 180_000 } as never);

after(async () => {
  await session?.close();
});

void test('Compare two runs: faster/slower by the time per request on a load-changed pair, the count change shown, noise uncoloured', { timeout: 300_000 }, async () => {
  await withFailureShot(session!.page, 'compare-failure', steps);
});

const text = (s: string): string => s.replace(/\u00a0/g, ' ').trim();

/** Runs "Import access log" and picks the workspace log `label`. */
async function importLog(page: Page, label: string): Promise<void> {
  await runCommand(page, 'Query Insight: Import access log');
  await pickByLabel(page, label);
}

/** What the page's window offers the checks below (the tests compile without the DOM library). */
interface PageWindow {
  getComputedStyle(e: unknown): { color: string };
  document: { createElement(tag: string): { style: { color: string }; remove(): void }; body: { appendChild(e: unknown): void } };
}

/** The computed text colour of an element, as `rgb(…)`. */
async function colourOf(el: Locator): Promise<string> {
  return el.evaluate((e) => (globalThis as unknown as PageWindow).getComputedStyle(e).color);
}

/** The theme's colour in a CSS variable (`--vscode-charts-green`), resolved by the page, as `rgb(…)`. */
async function themeColour(frame: Frame, variable: string): Promise<string> {
  return frame.evaluate((v) => {
    const w = globalThis as unknown as PageWindow;
    const probe = w.document.createElement('span');
    probe.style.color = `var(${v})`;
    w.document.body.appendChild(probe);
    const c = w.getComputedStyle(probe).color;
    probe.remove();
    return c;
  }, variable);
}

async function steps(page: Page): Promise<void> {
  await openWorkbench(page, session!.server.url());
  // each import becomes a run, listed in the Runs view with its request count
  const sidebar = await openViewContainer(page, 'Query Insight');
  const runs = sidebar.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Runs/ }) });
  await importLog(page, 'logs/access-round1.log');
  await runs.locator('.monaco-list-row', { hasText: /access-round1\.log.*138 requests/ }).first().waitFor({ timeout: 60_000 });
  await importLog(page, 'logs/access-round2.log');
  await runs.locator('.monaco-list-row', { hasText: /access-round2\.log.*478 requests/ }).first().waitFor({ timeout: 60_000 });

  await runCommand(page, 'Query Insight: Compare two runs');
  await pickRun(page, 'access-round1');
  await pickRun(page, 'access-round2');
  const frame = await webviewFrame(page, '#comparison-table');
  const row = (key: string) => frame.locator(`#comparison-table tr.row[data-key="${key}"]`);
  await row('GET /').waitFor({ timeout: 30_000 });

  // GET /: faster, although its total rose with the load
  const root = row('GET /');
  assert.equal(await root.getAttribute('data-verdict'), 'faster');
  assert.match(String(await root.getAttribute('class')), /\bgain\b/);
  assert.equal(text(await root.locator('td.verdict').innerText()), 'faster');
  assert.equal(text(await root.locator('td.mean').innerText()), '2.318 s → 494 ms (×0.21)');
  assert.equal(text(await root.locator('td.count').innerText()), '7 → 57 (+50)');
  assert.equal(text(await root.locator('td.delta').innerText()), '+11.932 s');
  const green = await themeColour(frame, '--vscode-charts-green');
  const red = await themeColour(frame, '--vscode-charts-red');
  assert.notEqual(green, red);
  assert.equal(await colourOf(root.locator('td.verdict')), green, 'the verdict is in the gain colour');
  assert.equal(await colourOf(root.locator('td.mean')), green, 'the mean is in the gain colour');
  const totalColour = await colourOf(root.locator('td.delta'));
  assert.ok(totalColour !== red && totalColour !== green, `the total's change is not coloured (${totalColour})`);

  // GET /@{accountName}: the same times with more requests: within noise, in no verdict colour
  const users = row('GET /@{accountName}');
  assert.equal(await users.getAttribute('data-verdict'), 'noise');
  assert.equal(text(await users.locator('td.verdict').innerText()), 'within noise');
  assert.equal(text(await users.locator('td.count').innerText()), '40 → 90 (+50)');
  for (const cell of ['td.verdict', 'td.mean', 'td.delta']) {
    const c = await colourOf(users.locator(cell));
    assert.ok(c !== red && c !== green, `${cell} of a change within noise is not coloured (${c})`);
  }

  // POST /comment: four times the time a request, the same count: slower, in the regression colour
  const comment = row('POST /comment');
  assert.equal(await comment.getAttribute('data-verdict'), 'slower');
  assert.equal(await colourOf(comment.locator('td.mean')), red);

  const verdicts = text(await frame.locator('#comparison-verdicts').innerText());
  assert.match(verdicts, /^2 faster, 1 slower, 1 within noise, 1 too few to judge/);
  assert.match(text(await frame.locator('#comparison-summary').innerText()), /requests 138 → 478 \(\+340, ×3\.46\)/);
  await screenshot(page, 'compare-colours');
  await readmeShot(page, 'compare-report');
}
