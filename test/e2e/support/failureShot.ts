/**
 * A screenshot of every open editor page when an e2e test fails, a timed-out test included: the
 * pages register here (openEditorSession does it for its page), and one `afterEach` hook, installed
 * when this module is loaded by a test file, shoots them after each test that did not pass. So a
 * test needs no try/catch of its own, and a test that hangs (which a try/catch never sees: node's
 * runner abandons its promise) still leaves a picture of what the user would have seen.
 */
import { afterEach } from 'node:test';
import type { Page } from 'playwright-core';
import { launchBrowser, screenshot } from './workbench';

interface Watched { name: string; page: Page }

const watched = new Set<Watched>();

/** File-name part of a test title: letters, digits and dashes, at most 60 characters. */
export function shotSlug(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60).replace(/-+$/, '') || 'test';
}

/**
 * Keeps `page` under watch until the returned function is called: after a failed test it is saved
 * as RESULTS_DIR/`name`-failure-`test title`.png (the path is printed as a test diagnostic).
 */
export function shootOnFailure(name: string, page: Page): () => void {
  const w = { name, page };
  watched.add(w);
  return () => { watched.delete(w); };
}

/** Saves the watched pages for the failed test `title`; returns the files written. */
export async function shootWatched(title: string): Promise<string[]> {
  const files: string[] = [];
  for (const w of watched) {
    if (w.page.isClosed()) continue;
    // why: a page stuck behind a hung test still draws; bounded so a dead renderer cannot hang the hook.
    const file = await screenshotWithin(w.page, `${w.name}-failure-${shotSlug(title)}`, 15_000);
    if (file) files.push(file);
  }
  return files;
}

async function screenshotWithin(page: Page, name: string, ms: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((r) => { timer = setTimeout(() => r(undefined), ms); });
  try {
    return await Promise.race([screenshot(page, name).catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

// why: installed at load time, at the top level of the test file that imports this module, so it is
// a hook of that file's root and runs after every test in it.
// `passed` is set on the context once the test has finished (Node ≥ 20.12; the installed types predate it).
afterEach(async (t) => {
  const ctx = t as unknown as { name: string; passed?: boolean; diagnostic?(message: string): void };
  if (ctx.passed !== false || watched.size === 0) return;
  for (const file of await shootWatched(ctx.name)) ctx.diagnostic?.(`screenshot of the failure: ${file}`);
});

/**
 * For a test that drives no page (a code-server it only started, as `npm run demo` does): opens `url`
 * in a browser of its own, waits for the workbench (bounded) and saves RESULTS_DIR/`name`.png.
 */
export async function shootUrl(url: string, name: string): Promise<string | undefined> {
  const browser = await launchBrowser();
  try {
    await browser.page.goto(url, { timeout: 30_000 });
    await browser.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 }).catch(() => undefined);
    return await screenshot(browser.page, name);
  } catch {
    return undefined;
  } finally {
    await browser.close();
  }
}
