/**
 * The README's pictures, taken by the e2e run itself so they show what the tests assert: when
 * QI_SCREENSHOTS names a directory (relative to the repository, e.g. `docs/images`), the states a
 * test marks with `readmeShot` are saved there as `<name>.png`; otherwise nothing is written. Run
 * `QI_SCREENSHOTS=docs/images npm test -- e2e` to refresh them.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { REPO_ROOT } from '../support/paths';

/** Saves the page as QI_SCREENSHOTS/`name`.png when that variable is set; returns the file or undefined. */
export async function readmeShot(page: Page, name: string): Promise<string | undefined> {
  const dir = process.env.QI_SCREENSHOTS;
  if (!dir) return undefined;
  const out = resolve(REPO_ROOT, dir);
  mkdirSync(out, { recursive: true });
  const path = join(out, `${name}.png`);
  await page.screenshot({ path });
  return path;
}
