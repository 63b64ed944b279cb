/**
 * A team's servers in the editor: code-server with the packaged extension and `queryInsight.boxes`
 * naming two private sshd "boxes" (isu1 by user@host:port, isu2 by a ~/.ssh/config alias, its log
 * gzipped) and a third whose log does not exist. *Import from boxes* gives one run: the Endpoints
 * view's counts are the sums over both boxes, a row's tooltip splits it per box, the box that failed
 * is named in a warning while the others were imported, and the Runs view holds one access run.
 * *Set up boxes* offers the hosts of ~/.ssh/config and writes the workspace setting; when its only
 * box fails, the warning says nothing was imported.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { startSshd, type SshdServer } from '../support/sshd';
import { openViewContainer, openWorkbench, quickOpen, quickPickRows, runCommand, screenshot } from './support/workbench';
import { openEditorSession, withFailureShot, type EditorSession } from './support/editorSession';
import { waitUntil } from './support/wait';
import { SAMPLE_ENDPOINTS, sampleAccessLog } from './endpointsLog';

let isu1: SshdServer | undefined;
let isu2: SshdServer | undefined;
let session: EditorSession | undefined;
let scratch: string | undefined;
let halves: [string, string] = ['', ''];

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'qi-e2e-boxes-'));
  isu1 = await startSshd();
  isu2 = await startSshd({ authorizedKeys: [isu1.clientKey.publicKey] });
  // the sample app's log split between the two boxes, the second half gzipped (a rotated log)
  const lines = sampleAccessLog().split('\n').filter(Boolean);
  const cut = Math.floor(lines.length / 2);
  halves = [`${lines.slice(0, cut).join('\n')}\n`, `${lines.slice(cut).join('\n')}\n`];
  writeFileSync(join(scratch, 'isu1-access.log'), halves[0]);
  writeFileSync(join(scratch, 'isu2-access.log.1.gz'), gzipSync(halves[1]));
  // why: the login reads ~/.ssh (default key, config alias, known_hosts); the test's own HOME keeps the machine's untouched.
  const home = join(scratch, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), readFileSync(isu1.clientKey.path), { mode: 0o600 });
  const hostKey = (s: SshdServer) => readFileSync(join(s.dir, 'host_ed25519.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ');
  writeFileSync(join(home, '.ssh', 'known_hosts'), `[127.0.0.1]:${isu1.port} ${hostKey(isu1)}\n[127.0.0.1]:${isu2.port} ${hostKey(isu2)}\n`);
  writeFileSync(join(home, '.ssh', 'config'), `Host isu2\n  HostName 127.0.0.1\n  Port ${isu2.port}\n  User ${isu2.user}\n`);
  session = await openEditorSession({
    name: 'boxes',
    env: { HOME: home, SSH_AUTH_SOCK: '' },
    settings: {
      'queryInsight.boxes': [
        { name: 'isu1', ssh: `${isu1.user}@127.0.0.1:${isu1.port}`, accessLog: join(scratch, 'isu1-access.log') },
        { name: 'isu2', ssh: 'isu2', accessLog: join(scratch, 'isu2-access.log.1.gz') },
        { name: 'isu3', ssh: `${isu1.user}@127.0.0.1:${isu1.port}`, accessLog: join(scratch, 'no-such-access.log') },
      ],
    },
  });
}, { timeout: 300_000 } as never);

after(async () => {
  await session?.close();
  await Promise.all([isu1?.stop(), isu2?.stop()]);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The Endpoints view's rows: label and description. */
async function endpointRows(page: Page): Promise<{ label: string; description: string }[]> {
  const pane = page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: /^Endpoints/ }) });
  return pane.locator('.monaco-list-row').evaluateAll((rows) => rows.map((r) => ({
    label: (r.querySelector('.label-name')?.textContent ?? '').replace(/\u00a0/g, ' '),
    description: (r.querySelector('.label-description')?.textContent ?? '').replace(/\u00a0/g, ' '),
  })));
}

void test('Import from boxes: one run whose Endpoints counts are the sums over the boxes, split per box in the tooltip; a failing box is named', { timeout: 300_000 }, async () => {
  await withFailureShot(session!.page, 'boxes-failure', async (page) => {
    await openWorkbench(page, session!.server.url());
    // the extension activates on a Go file; then the boxes' commands are offered
    await quickOpen(page, 'main.go');
    await runCommand(page, 'Query Insight: Import from boxes');

    // the box whose log is missing is named; the others were imported (the progress toast, "connecting to
    // isu1, isu2, isu3", names it too: the warning is the one that says why)
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: /isu3: cannot read/ }).first();
    await toast.waitFor({ timeout: 90_000 });
    const warning = (await toast.innerText()).replace(/\u00a0/g, ' ');
    assert.match(warning, /isu3: cannot read .*no-such-access\.log: .*No such file/);
    assert.match(warning, /The other boxes were imported/);
    await screenshot(page, 'boxes-failed-box');

    // one row per endpoint, its count the sum over both boxes
    await openViewContainer(page, 'Query Insight');
    const want = new Map(SAMPLE_ENDPOINTS.map((e) => [`${e.method} ${e.pattern}`, e.count]));
    await waitUntil(async () => (await endpointRows(page)).length === want.size, `${want.size} Endpoints rows`, 60_000)
      .catch(async (err) => { throw new Error(`${(err as Error).message}; shown: ${JSON.stringify(await endpointRows(page))}`); });
    const rows = await endpointRows(page);
    for (const r of rows) {
      const count = Number(/^([\d,]+) req\b/.exec(r.description)?.[1]?.replace(/,/g, ''));
      assert.equal(count, want.get(r.label), `${r.label}: ${r.description}`);
    }
    await screenshot(page, 'boxes-endpoints-view');

    // the tooltip of GET /posts/{id} splits its 300 requests per box
    const per = halves.map((h) => h.split('\n').filter((l) => /\tmethod:GET\turi:\/posts\/\d/.test(l)).length);
    assert.equal(per[0] + per[1], 300);
    const pane = page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: /^Endpoints/ }) });
    await pane.locator('.monaco-list-row', { has: page.locator('.label-name', { hasText: /^GET \/posts\/\{id\}$/ }) }).hover();
    const hover = page.locator('.workbench-hover, .monaco-hover:not(.hidden)', { hasText: /by box/ }).last();
    await hover.waitFor({ timeout: 20_000 });
    const tip = (await hover.innerText()).replace(/\u00a0/g, ' ');
    const split = [['isu1', per[0]], ['isu2', per[1]]].sort((a, b) => (b[1] as number) - (a[1] as number) || String(a[0]).localeCompare(String(b[0])));
    const cell = split.map(([h, n]) => `${h} ${n} (${Math.round(((n as number) / 300) * 100)} %)`).join(' · ');
    assert.ok(tip.includes(cell), `tooltip shows "${cell}":\n${tip}`);
    await screenshot(page, 'boxes-endpoint-tooltip');
    await page.mouse.move(900, 500);

    // one access run, named after the boxes
    const runsPane = page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: /^Runs/ }) });
    await waitUntil(async () => (await runsPane.locator('.monaco-list-row', { hasText: /boxes isu1, isu2, isu3/ }).count()) === 1, 'one run from the boxes', 30_000);
  });
});

void test('Set up boxes proposes the hosts of ~/.ssh/config and writes the workspace setting; when every box fails, the warning says nothing was imported', { timeout: 300_000 }, async () => {
  await withFailureShot(session!.page, 'boxes-setup-failure', async (page) => {
    await runCommand(page, 'Query Insight: Set up boxes…');
    const row = quickPickRows(page).filter({ hasText: /^isu2/ }).first();
    await row.waitFor({ timeout: 30_000 });
    assert.match((await row.innerText()).replace(/\u00a0/g, ' '), /from ~\/\.ssh\/config/);
    // why: the first pointer move after the picker opens can be taken by an overlay; click until the box counts as selected
    const count = page.locator('.quick-input-widget .quick-input-count');
    await waitUntil(async () => {
      if (/^1 Selected/.test((await count.innerText().catch(() => '')).trim())) return true;
      const box = await row.boundingBox();
      if (box) { await page.mouse.move(box.x + 5, box.y + 3); await page.mouse.move(box.x + 12, box.y + box.height / 2); }
      await row.locator('.quick-input-list-checkbox, input[type="checkbox"], .monaco-checkbox').first().click({ timeout: 2_000 }).catch(() => undefined);
      return /^1 Selected/.test((await count.innerText().catch(() => '')).trim());
    }, 'isu2 picked', 20_000, 500);
    await page.keyboard.press('Enter');
    // the access log asked once, with the usual place proposed: a path that is not on the box; no slow log
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await waitUntil(async () => (await input.inputValue()) === '/var/log/nginx/access.log', 'the access log path proposed');
    await input.fill(join(scratch!, 'gone-access.log'));
    await page.keyboard.press('Enter');
    await waitUntil(async () => (await input.inputValue()) === '/var/log/mysql/mysql-slow.log', 'the slow log path proposed');
    await input.fill('');
    await page.keyboard.press('Enter');
    const settingsFile = join(session!.dir, '.vscode', 'settings.json');
    await waitUntil(() => { try { return /"isu2"/.test(readFileSync(settingsFile, 'utf8')); } catch { return false; } }, 'the box in the workspace settings', 30_000);
    const written = JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
    assert.deepEqual(written['queryInsight.boxes'], [{ name: 'isu2', ssh: 'isu2', accessLog: join(scratch!, 'gone-access.log') }]);
    await screenshot(page, 'boxes-set-up');

    // the only box fails: the warning names it and says nothing was imported, not "the other boxes were imported"
    await runCommand(page, 'Query Insight: Import from boxes');
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: /gone-access\.log/ }).first();
    await toast.waitFor({ timeout: 90_000 });
    const warning = (await toast.innerText()).replace(/\u00a0/g, ' ');
    assert.match(warning, /isu2: cannot read .*gone-access\.log/);
    assert.match(warning, /No box could be read: nothing was imported\./);
    assert.doesNotMatch(warning, /other boxes/);
    await screenshot(page, 'boxes-all-failed');
  });
});
