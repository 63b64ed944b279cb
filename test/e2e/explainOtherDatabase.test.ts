/**
 * What a user sees when statements cannot be explained, and the index fixes of a join, with the packaged
 * extension in code-server on a copy of the sample app and its private MariaDB (isupic, 300k rows). The
 * copy gains, before code-server opens it, a tenant schema (webapp/sql/tenant/schema.sql, kept in
 * another database as a multi-tenant app keeps one SQLite file per tenant) and a Go file with three
 * statements: one on the tenant table, one with a typo in a table name, and a join chain whose scan
 * finding says "the join also needs posts(user_id, created_at)" (the workload's index: it also serves the
 * app's posts-by-user list sorted by created_at).
 * (a) the typo is a warning in the Problems panel that says no schema file defines the table; the tenant
 * statement has no diagnostic at all, and its hover says why it is not explained and where the table is;
 * (b) the light bulb on the join offers both indexes the statement needs, together and each on its own,
 * no row twice; applying the second alone (the join's other index) adds it, shows rows examined before
 * → after, and the re-EXPLAIN's finding no longer asks for it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import type { MariaDbServer } from '../support/mariadb';
import { applyQuickFix, goToLine, hoverOver, openProblems, openQuickFixes, openWorkbench, quickOpen, screenshot, sqlOnLine } from './support/workbench';
import { openEditorSession, type EditorSession } from './support/editorSession';
import { waitUntil } from './support/wait';
import { connectionSettings, SAMPLE_DB, startSampleDb } from './sampleDb';

const TENANT_SCHEMA = `-- each tenant's own database is created from this file (not the app's MariaDB)
CREATE TABLE scores (
  id INTEGER PRIMARY KEY,
  player_id TEXT NOT NULL,
  points INTEGER NOT NULL
);
`;

const TENANT_GO = `package main

// Added by the e2e test: a statement on a tenant table, a typo, a join chain.

func tenantScores(tenantDB *sqlx.DB, playerID string) error {
	return tenantDB.Select(&scores, "SELECT * FROM scores WHERE player_id = ? ORDER BY points DESC", playerID)
}

func typoed(db *sqlx.DB, id int) error {
	return db.Get(&post, "SELECT * FROM postz WHERE id = ?", id)
}

func userComments(db *sqlx.DB, userID int) error {
	return db.Select(&comments, "SELECT c.* FROM users u JOIN posts p ON p.user_id = u.id JOIN comments c ON c.post_id = p.id WHERE u.id = ?", userID)
}
`;

let db: MariaDbServer | undefined;
let session: EditorSession | undefined;

before(async () => {
  db = await startSampleDb();
  session = await openEditorSession({
    name: 'explain-other-db', settings: connectionSettings(db),
    prepare: (dir) => {
      mkdirSync(join(dir, 'webapp', 'sql', 'tenant'), { recursive: true });
      writeFileSync(join(dir, 'webapp', 'sql', 'tenant', 'schema.sql'), TENANT_SCHEMA);
      writeFileSync(join(dir, 'webapp', 'go', 'tenant.go'), TENANT_GO);
    },
  });
}, { timeout: 240_000 } as never);

after(async () => {
  await session?.close();
  await db?.stop();
});


const text = async (l: Locator): Promise<string> => (await l.innerText()).replace(/\u00a0/g, ' ');

void test('not explained is no squiggle, a typo is; the join\'s other index is a quick fix of its own', { timeout: 300_000 }, async () => {
  const page = session!.page;
  await openWorkbench(page, session!.server.url());
  await quickOpen(page, 'tenant.go');
  await page.locator('.statusbar-item', { hasText: /MariaDB 10\.\d+/ }).first().waitFor({ timeout: 60_000 });

  // (a) the file's diagnostics come together: once the typo's warning is there, every statement of the file was judged
  const problems = await openProblems(page);
  const typo = problems.locator('.monaco-list-row', { hasText: /Table 'isupic\.postz' doesn't exist; no schema file in the workspace defines `postz`/ }).first();
  await typo.waitFor({ timeout: 90_000 });
  assert.match(await typo.getAttribute('aria-label') ?? '', /warning/i, 'the typo is a warning');
  const joinScan = problems.locator('.monaco-list-row', { hasText: /full table scan of comments.*the join also needs posts\(user_id, created_at\)/ }).first();
  await joinScan.waitFor({ timeout: 30_000 });
  assert.equal(await problems.locator('.monaco-list-row', { hasText: /scores/ }).count(), 0, 'the tenant statement has no diagnostic');
  await screenshot(page, 'other-db-problems');

  await goToLine(page, 6);
  const hover = await hoverOver(page, sqlOnLine(page, /tenantDB\.Select/));
  const notExplained = 'not explained: `scores` is not in the connected database `isupic` (defined in webapp/sql/tenant/schema.sql)';
  await waitUntil(async () => (await text(hover)).includes(notExplained), `the hover to say "${notExplained}"`, 30_000);
  const shown = await text(hover);
  assert.doesNotMatch(shown, /EXPLAIN failed|Suggested index/, shown);
  assert.match(shown, /The server said: Table 'isupic\.scores' doesn't exist/);
  await screenshot(page, 'other-db-hover');
  await page.keyboard.press('Escape');

  // (b) the join chain needs two indexes: both at once (preferred), or each on its own, every row once
  await goToLine(page, 14);
  const chain = sqlOnLine(page, /db\.Select\(&comments/);
  const rows = await openQuickFixes(page, chain, 'to the database');
  assert.equal(new Set(rows).size, rows.length, `no row twice:\n${rows.join('\n')}`);
  assert.deepEqual(rows.filter((r) => /^Add index \w+ .* to the database$/.test(r)).map((r) => /Add index (\w+)/.exec(r)?.[1]), ['idx_comments_post_id_created_at', 'idx_posts_user_id_created_at'], rows.join('\n'));
  assert.equal(rows.filter((r) => r.includes('Add indexes idx_comments_post_id_created_at + idx_posts_user_id_created_at (all this statement needs) to the database')).length, 1, rows.join('\n'));
  assert.equal(rows.filter((r) => / to the schema file$/.test(r)).length, 2, rows.join('\n'));
  assert.equal(rows.filter((r) => r.includes('Copy DDL')).length, 1, rows.join('\n'));
  await screenshot(page, 'other-db-join-fixes');
  await page.keyboard.press('Escape');

  await goToLine(page, 14);
  await applyQuickFix(page, chain, 'Add index idx_posts_user_id_created_at (user_id, created_at) on posts to the database');
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 15_000 });
  assert.match(await dialog.innerText(), /ALTER TABLE `posts` ADD INDEX `idx_posts_user_id_created_at` \(`user_id`, `created_at`\)/);
  await dialog.locator('.monaco-button', { hasText: 'Add index' }).first().click();
  await page.locator('.notifications-toasts', { hasText: /added idx_posts_user_id_created_at\. Rows examined \S+ → \S+/ }).first().waitFor({ timeout: 60_000 });
  await screenshot(page, 'other-db-join-second-index');
  // the re-EXPLAIN: the scan finding no longer asks for posts(user_id), the database has it
  await waitUntil(async () => await problems.locator('.monaco-list-row', { hasText: /the join also needs posts\(user_id, created_at\)/ }).count() === 0, 'the finding to stop asking for posts(user_id, created_at)', 60_000);
  assert.match(db!.sql("SELECT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_NAME = 'posts'", SAMPLE_DB), /idx_posts_user_id_created_at/);
  // the typo is still a warning: nothing about it changed
  assert.equal(await problems.locator('.monaco-list-row', { hasText: /no schema file in the workspace defines `postz`/ }).count(), 1);
});
