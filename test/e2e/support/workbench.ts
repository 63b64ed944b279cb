/**
 * Driving the VS Code workbench in headless Chromium (Debian's /usr/bin/chromium) with playwright-core,
 * the way a user would: Quick Open, the command palette, quick pick rows, hovers, quick fixes, side-bar
 * views, the Problems panel. Every wait is a locator wait or a poll with a timeout.
 * Selectors are those of VS Code 1.100 (code-server 4.100.3).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Frame, type Locator, type Page } from 'playwright-core';
import { REPO_ROOT } from '../../support/paths';
import { waitUntil } from './wait';

export const CHROMIUM = process.env.QI_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Screenshots and logs of the e2e suite (kept as CI artifacts). */
export const RESULTS_DIR = join(REPO_ROOT, 'test-results', 'e2e');

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** Headless Chromium on a throw-away profile. */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'qi-chromium-'));
  // why: launch() refuses --user-data-dir in args; a persistent context on a fresh dir is the same thing.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1400, height: 900 },
  });
  // why: the machine running the suite may be shared and busy; a wait is for a state the user would
  // see, and its bound only decides how long a broken state takes to report (30 s was seen to be short).
  context.setDefaultTimeout(60_000);
  const page = context.pages()[0] ?? await context.newPage();
  return {
    context, page,
    close: async () => { await context.close(); rmSync(profile, { recursive: true, force: true }); },
  };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

export async function openWorkbench(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  await page.locator('.part.activitybar').waitFor({ timeout: 30_000 });
}

const quickInput = (page: Page) => page.locator('.quick-input-widget');
const quickInputBox = (page: Page) => page.locator('.quick-input-widget .quick-input-box input');

/** The visible rows of the quick input (Quick Open, palette, an extension's quick pick). */
export function quickPickRows(page: Page): Locator {
  return page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
}

/**
 * Presses `keys` until the quick input shows (a busy workbench, or focus inside a webview, can let a
 * key press go by); gives up after `timeoutMs`.
 */
async function openQuickInput(page: Page, keys: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    await page.keyboard.press(keys);
    try {
      await quickInputBox(page).waitFor({ state: 'visible', timeout: Math.max(1_000, Math.min(5_000, end - Date.now())) });
      return;
    } catch (err) {
      if (Date.now() >= end) throw new Error(`${keys} did not open the quick input within ${timeoutMs} ms: ${(err as Error).message}`);
    }
  }
}

/** Ctrl+P, the file name, Enter; resolves when its tab is active and the editor is drawn. */
export async function quickOpen(page: Page, fileName: string): Promise<void> {
  await openQuickInput(page, 'Control+P');
  await quickInputBox(page).fill(fileName);
  await quickPickRows(page).filter({ hasText: fileName }).first().waitFor({ timeout: 30_000 });
  await page.keyboard.press('Enter');
  await page.locator(`.tabs-container .tab.active[data-resource-name="${fileName}"]`).waitFor();
  await page.locator('.editor-instance .monaco-editor .view-lines').first().waitFor();
}

/**
 * Ctrl+Shift+P, `>title`, then a click on the command's row: the row labelled exactly `title`, else
 * the first one starting with it (the palette's first row may be another command that also matches,
 * a recently used one). The palette lists what the workbench knows when it opens; right after start-up
 * the remote extensions may not be registered yet, so it is reopened until the command shows (up to
 * `timeoutMs`).
 */
export async function runCommand(page: Page, title: string, timeoutMs = 60_000): Promise<void> {
  const rows = quickPickRows(page).filter({ hasText: title });
  const end = Date.now() + timeoutMs;
  for (;;) {
    await openQuickInput(page, 'Control+Shift+P');
    await quickInputBox(page).fill(`>${title}`);
    try {
      await rows.first().waitFor({ timeout: 3_000 });
      break;
    } catch (err) {
      if (Date.now() > end) throw err;
      await page.keyboard.press('Escape');
      await quickInput(page).waitFor({ state: 'hidden' });
    }
  }
  const labels = await rows.evaluateAll((els) => els.map((r) => (r.querySelector('.label-name')?.textContent ?? '').replace(/\u00a0/g, ' ').trim()));
  const exact = labels.indexOf(title);
  const index = exact >= 0 ? exact : Math.max(0, labels.findIndex((l) => l.startsWith(title)));
  await rows.nth(index).click();
}

/** Each row of the open quick pick as { label, description, detail } text. */
export async function quickPickItems(page: Page): Promise<{ label: string; description: string; detail: string }[]> {
  return quickPickRows(page).evaluateAll((rows) => rows.map((r) => ({
    label: r.querySelector('.quick-input-list-label .label-name')?.textContent ?? '',
    description: r.querySelector('.quick-input-list-label .label-description')?.textContent ?? '',
    detail: r.querySelector('.quick-input-list-label-meta, .quick-input-list-detail')?.textContent ?? '',
  })));
}

/** Types a filter into the open quick input. */
export async function filterQuickPick(page: Page, text: string): Promise<void> {
  await quickInputBox(page).fill(text);
}

/** Picks the row labelled exactly `label` in the open quick pick (filtered until it stands alone). */
export async function pickByLabel(page: Page, label: string): Promise<void> {
  await quickPickRows(page).filter({ hasText: label }).first().waitFor({ timeout: 30_000 });
  await filterQuickPick(page, label);
  await waitUntil(async () => (await quickPickItems(page)).filter((i) => i.label === label).length === 1, `${label} alone in the picker`);
  await page.keyboard.press('Enter');
}

/** Picks the one run whose row matches `source` in the open run picker ("Compare", "Open run"). */
export async function pickRun(page: Page, source: string): Promise<void> {
  await quickPickRows(page).first().waitFor({ timeout: 30_000 });
  await filterQuickPick(page, source);
  await waitUntil(async () => (await quickPickItems(page)).length === 1, `one run matching ${source}`);
  await page.keyboard.press('Enter');
}

/** The webview frame (VS Code nests the page in an inner iframe) that holds `selector`. */
export async function webviewFrame(page: Page, selector: string): Promise<Frame> {
  let found: Frame | undefined;
  await waitUntil(async () => {
    for (const f of page.frames()) {
      if (await f.locator(selector).count().catch(() => 0)) { found = f; return true; }
    }
    return false;
  }, `${selector} inside a webview`, 60_000, 250);
  return found!;
}

export async function closeQuickInput(page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  await quickInput(page).waitFor({ state: 'hidden' });
}

/** Cursor position from the status bar ("Ln 12, Col 5"). */
export async function cursorPosition(page: Page): Promise<{ line: number; column: number } | undefined> {
  const text = await page.locator('.statusbar-item[id="status.editor.selection"]').first().innerText().catch(() => '');
  const m = /Ln (\d+), Col (\d+)/.exec(text);
  return m ? { line: Number(m[1]), column: Number(m[2]) } : undefined;
}

/** The rendered editor token whose whole text is `text` (e.g. '"hello world"'). */
export function editorToken(page: Page, text: string): Locator {
  // why: Monaco renders spaces as U+00A0, and tokens of one colour merge (quotes included).
  const esc = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '[ \\u00a0]');
  return page.locator('.editor-instance .monaco-editor .view-lines .view-line span span', { hasText: new RegExp(`^${esc}$`) }).first();
}

/**
 * Moves the mouse onto the middle of `target` and returns the visible hover. The editor opens a hover
 * on a pointer move onto the text, so the pointer is first taken off it; a hover that does not come
 * (the move was taken by a widget closing) is asked for again until `timeoutMs`. `maxOffset` keeps the
 * pointer that close to the target's left edge (a long string in a narrow editor runs under what is beside it).
 */
export async function hoverOver(page: Page, target: Locator, timeoutMs = 60_000, maxOffset = Infinity): Promise<Locator> {
  const hover = page.locator('.monaco-editor .monaco-hover:not(.hidden)').last();
  const end = Date.now() + timeoutMs;
  for (;;) {
    const box = await target.boundingBox();
    if (!box) throw new Error('hover target is not visible');
    await page.mouse.move(5, 5);
    await page.mouse.move(box.x + Math.min(box.width / 2, maxOffset), box.y + box.height / 2, { steps: 4 });
    try {
      await hover.waitFor({ state: 'visible', timeout: Math.max(1_000, Math.min(20_000, end - Date.now())) });
      return hover;
    } catch (err) {
      if (Date.now() >= end) throw err;
    }
  }
}

/**
 * Ctrl+G and the line number, as a user goes to a line; resolves when the status bar shows the cursor
 * on it (asked again if the keys were lost, until `timeoutMs`).
 */
export async function goToLine(page: Page, line: number, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    await openQuickInput(page, 'Control+G', 10_000);
    await quickInputBox(page).fill(`:${line}`);
    await page.keyboard.press('Enter');
    const there = await waitUntil(async () => (await cursorPosition(page))?.line === line, `the cursor on line ${line}`, Math.min(5_000, Math.max(0, end - Date.now())))
      .then(() => true, () => false);
    if (there) return;
    if (Date.now() >= end) throw new Error(`Ctrl+G ${line}: the cursor is at ${JSON.stringify(await cursorPosition(page))}`);
    if (await quickInput(page).isVisible()) await closeQuickInput(page);
  }
}

const actionWidget = (page: Page) => page.locator('.action-widget');
const actionRows = (page: Page) => page.locator('.action-widget .monaco-list-row.action');

/** Closes the quick-fix list if it is open (Escape), and waits until it is gone. */
async function closeActionWidget(page: Page): Promise<void> {
  if (await actionWidget(page).isVisible().catch(() => false)) await page.keyboard.press('Escape');
  await actionWidget(page).waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
}

/**
 * One attempt at what a user does for a quick fix: the cursor on `target`, the light bulb awaited
 * (VS Code draws it once the code actions at the cursor are computed), Ctrl+., and the list drawn
 * with a row containing `title`. Every step is bounded by `ms`; returns whether the row showed.
 */
async function tryOpenQuickFixes(page: Page, target: Locator, title: string, ms: number): Promise<boolean> {
  await closeActionWidget(page);
  // why: a hover left open by an earlier step can lie over the target and take the click.
  await page.keyboard.press('Escape');
  await target.click({ timeout: ms });
  // the light bulb (a content widget, or in the gutter) says the actions at the cursor are known;
  // without it Ctrl+. may answer from an older computation, so it is waited for, not required.
  await page.locator('.monaco-editor .lightBulbWidget, .monaco-editor .glyph-margin-widgets [class*="codicon-lightbulb"]')
    .first().waitFor({ state: 'visible', timeout: Math.min(ms, 5_000) }).catch(() => undefined);
  await page.keyboard.press('Control+.');
  await actionWidget(page).waitFor({ state: 'visible', timeout: ms });
  await actionRows(page).filter({ hasText: title }).first().waitFor({ state: 'visible', timeout: ms });
  return true;
}

/**
 * Puts the cursor on `target` and opens the quick-fix list (Ctrl+.) until a row containing `title`
 * shows; returns the titles of all rows. why: Ctrl+. right after a re-analysis (a schema refresh, a
 * save) can open the list before the diagnostics under the cursor are back ("No code actions"), and
 * a list can be dismissed by a re-analysis while it is open; the list is closed and asked again, as
 * a user would, until the row is there or `timeoutMs` passes.
 */
export async function openQuickFixes(page: Page, target: Locator, title: string, timeoutMs = 90_000): Promise<string[]> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (let attempt = 1; Date.now() < end; attempt++) {
    try {
      await tryOpenQuickFixes(page, target, title, Math.max(1_000, Math.min(10_000, end - Date.now())));
      return (await actionRows(page).allInnerTexts()).map((t) => t.replace(/\u00a0/g, ' ').trim());
    } catch (err) {
      last = err;
    }
  }
  const shown = await actionRows(page).allInnerTexts().catch(() => []);
  await closeActionWidget(page);
  throw new Error(`no quick fix "${title}" within ${timeoutMs} ms (rows shown: ${JSON.stringify(shown)}): ${(last as Error | undefined)?.message}`);
}

/**
 * Opens the quick-fix list on `target` (see openQuickFixes) and clicks the action whose title
 * contains `title`. A list that closes before the click lands (a re-analysis replaced it) is opened
 * again; once the click has landed the action has run, and it is never clicked twice.
 */
export async function applyQuickFix(page: Page, target: Locator, title: string, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    await openQuickFixes(page, target, title, Math.max(10_000, end - Date.now()));
    const row = actionRows(page).filter({ hasText: title }).first();
    try {
      // why: the action widget lays a .context-view-pointerBlock over the page until the first pointer
      // move, and click() will not click through it.
      const box = await row.boundingBox({ timeout: 2_000 });
      if (!box) throw new Error('quick fix row is not visible');
      await page.mouse.move(box.x + 4, box.y + box.height / 2);
      await page.mouse.move(box.x + 12, box.y + box.height / 2, { steps: 2 });
      await row.click({ timeout: 3_000 });
    } catch (err) {
      if (Date.now() >= end) throw new Error(`the quick fix "${title}" could not be clicked within ${timeoutMs} ms: ${(err as Error).message}`);
      continue;
    }
    await actionWidget(page).waitFor({ state: 'hidden' });
    return;
  }
}

/**
 * Shows an activity-bar container by its title and returns the side bar. Its icon is clicked only
 * when the side bar shows something else: a click on the container already shown would close it.
 */
export async function openViewContainer(page: Page, title: string): Promise<Locator> {
  const sidebar = page.locator('.part.sidebar');
  const heading = sidebar.locator('.composite.title', { hasText: title }).first();
  if (!await heading.isVisible()) await page.locator(`.part.activitybar .action-item a.action-label[aria-label^="${title}"]`).click();
  await heading.waitFor();
  return sidebar;
}

/** Ctrl+Shift+M: the Problems panel (rows `.monaco-list-row`, the aria-label carries the message). */
export async function openProblems(page: Page): Promise<Locator> {
  await page.keyboard.press('Control+Shift+M');
  const panel = page.locator('.markers-panel');
  await panel.waitFor({ state: 'visible' });
  return panel;
}

/**
 * The rendered opening of the SQL string on the editor line whose text matches `line`. Monaco draws
 * spaces as U+00A0 and splits long tokens into several spans, so the line is matched as a whole and
 * the span by the string's opening.
 */
export function sqlOnLine(page: Page, line: RegExp): Locator {
  return page.locator('.editor-instance .monaco-editor .view-lines .view-line', { hasText: line })
    .locator('span span', { hasText: /"SELECT/ }).first();
}
