/**
 * A contest round in the editor, as a player goes through it: the sample app in a git repository,
 * its logs named once in .query-insight/config.json (a real MariaDB slow log of the app's index
 * page, and an access log of a benchmark that starts with POST /initialize after some warm-up
 * traffic). *Record run* asks for the score and a memo, and the Runs view shows the round with its
 * score and commit. After a window reload the Endpoints and Queries views, the handler's CodeLens and
 * the slow log's N+1 confirmation are back. The handler of GET /posts/{id} is changed and committed,
 * the next benchmark appends to the same access log, *Record run* again; *Compare recorded runs*
 * shows the score change and "handler changed in <commit>" beside the endpoint's figures.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { goToLine, openProblems, openViewContainer, openWorkbench, quickOpen, quickPickRows, runCommand, screenshot } from './support/workbench';
import { openEditorSession, type EditorSession } from './support/editorSession';
import { waitUntil } from './support/wait';
import { writeSampleSlowLog } from './queriesSlowLog';

let session: EditorSession | undefined;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 'p', GIT_AUTHOR_EMAIL: 'p@example.com', GIT_COMMITTER_NAME: 'p', GIT_COMMITTER_EMAIL: 'p@example.com' } }).trim();
}

/** One LTSV line as the contest's nginx writes it. */
function line(ms: number, method: string, uri: string, seconds: number): string {
  return [`time:${new Date(ms).toISOString()}`, 'host:127.0.0.1', 'forwardedfor:-', 'req:-', `method:${method}`, `uri:${uri}`, 'status:200', 'size:120',
    'referer:-', 'ua:isucandar', `reqtime:${seconds.toFixed(3)}`, `apptime:${seconds.toFixed(3)}`].join('\t') + '\n';
}

/** A benchmark: `warmup` requests a minute before, POST /initialize at `start`, then `posts` post pages of `postSeconds` and 20 index pages, one every `gapMs`. */
function benchmark(start: number, warmup: number, posts: number, postSeconds: number, gapMs: number): string {
  let out = '';
  for (let i = 0; i < warmup; i++) out += line(start - 60_000 + i * 1000, 'GET', `/posts/${i + 1}`, 0.5);
  out += line(start, 'POST', '/initialize', 1.2);
  let t = start + 1500;
  for (let i = 0; i < posts; i++, t += gapMs) out += line(t, 'GET', `/posts/${100 + (i % 30)}`, postSeconds * (1 + ((i % 5) - 2) * 0.05));
  for (let i = 0; i < 20; i++, t += gapMs) out += line(t, 'GET', '/', 0.1 * (1 + ((i % 5) - 2) * 0.05));
  return out;
}

let firstCommit = '';

before(async () => {
  session = await openEditorSession({
    name: 'runs-editor',
    prepare: async (dir) => {
      await writeSampleSlowLog(dir);
      // why: the slow log's entries carry the time MariaDB ran them (the last minutes, on a busy machine): the benchmark's
      // window (from 5 minutes ago to 20 s from now) holds them.
      writeFileSync(join(dir, 'logs', 'access.log'), benchmark(Date.now() - 300_000, 5, 60, 0.05, 4000));
      mkdirSync(join(dir, '.query-insight'), { recursive: true });
      writeFileSync(join(dir, '.query-insight', 'config.json'), JSON.stringify({ access: ['logs/access.log'], slow: ['logs/slow.log'] }));
      git(dir, 'init', '-q', '-b', 'main');
      writeFileSync(join(dir, '.git', 'info', 'exclude'), 'logs/\n');
      git(dir, 'add', '.');
      git(dir, 'commit', '-q', '-m', 'the app as handed out');
      firstCommit = git(dir, 'rev-parse', 'HEAD');
    },
  });
});

after(async () => {
  await session?.close();
});

const text = (s: string): string => s.replace(/\u00a0/g, ' ').trim();

function pane(page: Page, title: RegExp) {
  return page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: title }) });
}

/** Types into the open input box and accepts it. */
async function answer(page: Page, title: RegExp, value: string): Promise<void> {
  const widget = page.locator('.quick-input-widget', { hasText: title });
  await widget.waitFor({ timeout: 30_000 });
  await page.locator('.quick-input-widget .quick-input-box input').fill(value);
  await page.keyboard.press('Enter');
}

async function recordRun(page: Page, score: string, memo: string): Promise<void> {
  await runCommand(page, 'Query Insight: Record run');
  await answer(page, /the benchmark's score/, score);
  await answer(page, /a memo/, memo);
}

void test('Record run with a score; reload: views, CodeLens and findings back; a commit, a second run; compare: score change and the commit that changed the handler', { timeout: 420_000 }, async () => {
  const page = session!.page;
  const dir = session!.dir;
  await openWorkbench(page, session!.server.url());

  // (1) the first round
  await recordRun(page, '1234', 'baseline');
  const sidebar = await openViewContainer(page, 'Query Insight');
  const runs = pane(page, /^Runs/);
  const first = runs.locator('.monaco-list-row', { hasText: `score 1234 · ${firstCommit.slice(0, 7)}` }).first();
  await first.waitFor({ timeout: 90_000 });
  assert.match(text(await first.innerText()), /baseline · 81 requests/, 'the memo and the window\'s requests: /initialize + 60 + 20, not the 5 warm-up requests');
  const stored = readdirSync(join(dir, '.query-insight', 'runs')).filter((f) => f.endsWith('.json'));
  assert.equal(stored.length, 1);
  const rec = JSON.parse(readFileSync(join(dir, '.query-insight', 'runs', stored[0]), 'utf8')) as { score: number; git: { commit: string; dirty: boolean }; slow: { summary: { count: number } } };
  assert.deepEqual([rec.score, rec.git.commit, rec.git.dirty], [1234, firstCommit, false]);
  const entries = readFileSync(join(dir, 'logs', 'slow.log'), 'utf8').match(/^# Query_time:/gm)?.length ?? 0;
  assert.equal(rec.slow.summary.count, entries, 'every statement of the slow log lies in the window');
  await screenshot(page, 'runs-recorded');

  // (2) reload the window: the newest round's figures come back
  // why: in code-server the window is the page; reloading it starts a new window and a new extension host.
  // (Reload Window through the palette returns before the old workbench is gone, so a wait could see the old one.)
  await page.reload({ waitUntil: 'load' });
  await openWorkbench(page, page.url());
  await openViewContainer(page, 'Query Insight');
  await pane(page, /^Endpoints/).locator('.monaco-list-row', { hasText: 'GET /posts/{id}' }).first().waitFor({ timeout: 90_000 });
  await pane(page, /^Queries/).locator('.monaco-list-row', { hasText: /users/ }).first().waitFor({ timeout: 60_000 });
  await pane(page, /^Runs/).locator('.monaco-list-row', { hasText: 'score 1234' }).first().waitFor({ timeout: 30_000 });
  await quickOpen(page, 'main.go');
  await goToLine(page, 122);
  const lens = page.locator('.monaco-editor .codelens-decoration', { hasText: 'GET /posts/{id}' }).first();
  await lens.waitFor({ timeout: 60_000 });
  assert.match(text(await lens.innerText()), /^GET \/posts\/\{id\} · 60 req · /);
  const problems = await openProblems(page);
  await problems.locator('.monaco-list-row', { hasText: /confirmed by the slow log: 240 calls/ }).first().waitFor({ timeout: 60_000 });
  await screenshot(page, 'runs-after-reload');

  // (3) a fix to the post handler, committed; the next benchmark appends to the same log
  const main = join(dir, 'webapp', 'go', 'main.go');
  writeFileSync(main, readFileSync(main, 'utf8').replace('func getPost(w http.ResponseWriter, r *http.Request) {\n', 'func getPost(w http.ResponseWriter, r *http.Request) {\n\tw.Header().Set("Cache-Control", "max-age=60")\n'));
  git(dir, 'commit', '-q', '-am', 'cache post pages');
  const secondCommit = git(dir, 'rev-parse', 'HEAD');
  appendFileSync(join(dir, 'logs', 'access.log'), benchmark(Date.now() + 600_000, 3, 80, 0.01, 500));
  await page.keyboard.press('Escape');
  await recordRun(page, '1800', '');
  await sidebar.locator('.monaco-list-row', { hasText: `score 1800 · ${secondCommit.slice(0, 7)}` }).first().waitFor({ timeout: 90_000 });

  // (4) compare the last two: the score first, and the handler the commit changed beside its figures
  await runCommand(page, 'Query Insight: Compare recorded runs (score, verdicts, what changed)');
  await quickPickRows(page).filter({ hasText: 'The last two runs' }).first().click();
  const lines = page.locator('.editor-instance .monaco-editor .view-lines');
  await lines.filter({ hasText: 'Score 1234 → 1800' }).first().waitFor({ timeout: 60_000 });
  const changed = `GET /posts/{id}: handler changed in ${secondCommit.slice(0, 7)}, p99`;
  await waitUntil(async () => text(await lines.first().innerText()).includes(changed), `"${changed}" in the comparison`, 30_000)
    .catch(async (err: Error) => { throw new Error(`${err.message}; shown: ${await lines.first().innerText()}`); });
  assert.match(text(await lines.first().innerText()), /\(faster\)/);
  await screenshot(page, 'runs-compare');
});
