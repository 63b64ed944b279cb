/**
 * `npm run demo` as a new user runs it (scripts/demo.mjs, into a temp --dir, with short rounds):
 * the editor mode prints a code-server URL that answers, leaves the logs and the workspace settings
 * it names, and Ctrl+C (SIGINT) stops everything it started — checked with ps, by command line and
 * by process group. The --cli mode prints the reports and exits with nothing left running.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/paths';
import { waitUntil } from './support/wait';
import { shootUrl } from './support/failureShot';
import { launchBrowser, openWorkbench, pickByLabel, quickOpen, quickPickRows, RESULTS_DIR, runCommand, screenshot } from './support/workbench';

interface Proc { pid: number; pgid: number; args: string }

/** The live processes: a zombie (state Z, `<defunct>`) has exited and only waits for init to collect its status. */
function processes(): Proc[] {
  const out = spawnSync('ps', ['-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' }).stdout;
  return out.split('\n').filter(Boolean).flatMap((l) => {
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(l)!;
    return m[3].startsWith('Z') ? [] : [{ pid: Number(m[1]), pgid: Number(m[2]), args: m[4] }];
  });
}

/** The processes that belong to a demo in `dir`: named by it, or in a process group one of those leads. */
function demoProcesses(dir: string, groups = new Set<number>()): Proc[] {
  const all = processes().filter((p) => p.pid !== process.pid);
  for (const p of all) if (p.args.includes(dir) && p.pid === p.pgid) groups.add(p.pgid);
  return all.filter((p) => p.args.includes(dir) || groups.has(p.pgid));
}

function startDemo(args: string[]): { proc: ChildProcess; out: () => string; exited: Promise<number | null> } {
  let out = '';
  const proc = spawn(process.execPath, [join(REPO_ROOT, 'scripts', 'demo.mjs'), ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  proc.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  return { proc, out: () => out, exited };
}

/** After a failure: what the demo printed, and (editor mode, once it printed its URL) the workbench it served. */
async function keepFailure(name: string, out: string, url?: string): Promise<void> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, `${name}.out.log`), out);
  if (url) await shootUrl(url, name);
}

/**
 * Step 8 of the demo's list: the app keeps serving at the URL the demo prints, and the workspace task
 * "Query Insight demo: load the app", run from the editor's Run Task, sends the benchmark's request mix
 * to it (its access log grows); the test waits for the task to end, as the Ctrl+C check that follows
 * expects nothing of the demo to be busy.
 */
async function loadFromTheEditor(url: string, out: string, app: string): Promise<void> {
  const appUrl = /The app keeps serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
  assert.ok(appUrl, `the demo prints the app's URL:\n${out}`);
  assert.equal((await fetch(`${appUrl}/`)).status, 200, 'the app answers its index page');
  assert.match(out, /Run Task…\s+> "Query Insight demo: load the app"/);
  const liveLog = join(app, 'logs', 'access-live.ltsv');
  const requests = (): number => (existsSync(liveLog) ? readFileSync(liveLog, 'utf8').split('\n').filter(Boolean).length : 0);
  const before = requests();
  const loading = (): boolean => processes().some((p) => p.args.includes('demo-load.mjs') && p.args.includes(appUrl));
  const browser = await launchBrowser();
  try {
    const page = browser.page;
    await openWorkbench(page, url);
    // as step 8 says: measuring is on, with main.go open and the extension connected, when the load starts
    await quickOpen(page, 'main.go');
    await page.locator('.statusbar-item', { hasText: /MariaDB 10\.\d+/ }).first().waitFor({ timeout: 60_000 });
    await waitUntil(async () => {
      await runCommand(page, 'Tasks: Run Task');
      const listed = await quickPickRows(page).filter({ hasText: 'Query Insight demo: load the app' }).first()
        .waitFor({ timeout: 15_000 }).then(() => true, () => false);
      if (!listed) await page.keyboard.press('Escape');
      return listed;
    }, 'the task in the Run Task picker', 90_000);
    await pickByLabel(page, 'Query Insight demo: load the app');
    // why: the app is the slow one of the demo (no indexes), some 40 requests in 20 s on a busy 2-core machine
    await waitUntil(() => requests() >= before + 10, 'the task to load the app (10 requests in its access log)', 120_000);
    assert.ok(loading(), 'the load runs as the workspace task');
    await screenshot(page, 'demo-load-task');
  } catch (err) {
    await screenshot(browser.page, 'demo-load-task-failure');
    throw err;
  } finally {
    await browser.close();
  }
  await waitUntil(() => !loading(), 'the load task to end', 90_000);
  assert.ok(readFileSync(liveLog, 'utf8').includes('\tstatus:200\t'), 'the load got pages');
}

void test('npm run demo: URL answers, logs and settings in place, Ctrl+C leaves nothing running', { timeout: 600_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-demo-'));
  const demo = startDemo(['--dir', dir, '--requests', '150', '--seconds', '5']);
  const groups = new Set<number>();
  let url = '';
  try {
    await waitUntil(() => {
      if (demo.proc.exitCode !== null) throw new Error(`the demo exited early (${demo.proc.exitCode}):\n${demo.out()}`);
      url = /http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+/.exec(demo.out())?.[0] ?? '';
      return !!url && /Press Ctrl\+C/.test(demo.out());
    }, 'the demo to print its URL', 480_000, 500);
    const out = demo.out();
    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /<html/i);
    const app = join(dir, 'sample-app');
    assert.equal(decodeURIComponent(new URL(url).searchParams.get('folder') ?? ''), app);
    const settings = JSON.parse(readFileSync(join(app, '.vscode', 'settings.json'), 'utf8')) as Record<string, string>;
    assert.ok(existsSync(settings['queryInsight.connection.socket']), 'the settings name the running server\'s socket');
    // each round leaves its logs and its server-stats run (performance_schema) for "Add a run from a log file"
    for (const log of ['access-before.ltsv', 'slow-before.log', 'server-before.run.json', 'access-after.ltsv', 'slow-after.log', 'server-after.run.json']) {
      assert.ok(statSync(join(app, 'logs', log)).size > 0, `${log} is written`);
      assert.ok(out.includes(join('logs', log)), `the demo prints ${log}`);
    }
    assert.match(out, /Import access log/);
    await loadFromTheEditor(url, out, app);
    const running = demoProcesses(dir, groups);
    assert.ok(running.some((p) => /mariadbd/.test(p.args)), `MariaDB runs: ${JSON.stringify(running)}`);
    assert.ok(running.some((p) => /code-server/.test(p.args)), `code-server runs: ${JSON.stringify(running)}`);

    demo.proc.kill('SIGINT');
    const code = await Promise.race([demo.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 60_000).unref())]);
    assert.equal(code, 130, `the demo exits on Ctrl+C:\n${demo.out().slice(-2000)}`);
    assert.match(demo.out(), /nothing of the demo is running/);
    assert.deepEqual(demoProcesses(dir, groups), [], 'no process of the demo is left');
  } catch (err) {
    await keepFailure('demo-editor-failure', demo.out(), demo.proc.exitCode === null ? url : undefined);
    throw err;
  } finally {
    // why: after a failure the demo's children (MariaDB, code-server) are still there; find their groups first
    demoProcesses(dir, groups);
    if (demo.proc.exitCode === null) demo.proc.kill('SIGKILL');
    for (const g of groups) { try { process.kill(-g, 'SIGKILL'); } catch { /* gone */ } }
    // why: a process killed just now may still be writing into the dir; retry rather than hide the test's own error
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 500 });
  }
});

void test('npm run demo -- --cli: the reports, then exits leaving nothing running', { timeout: 600_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-demo-cli-'));
  const demo = startDemo(['--cli', '--dir', dir, '--requests', '100', '--seconds', '4']);
  try {
    const code = await Promise.race([demo.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 480_000).unref())]);
    const out = demo.out();
    assert.equal(code, 0, out.slice(-3000));
    for (const cmd of ['scan', 'explain', 'advise', 'endpoints', 'slow', 'diff']) assert.match(out, new RegExp(`\\$ query-insight ${cmd} `), `runs ${cmd}`);
    assert.match(out, /full-table-scan/);
    assert.match(out, /ALTER TABLE `posts` ADD INDEX/);
    assert.match(out, /GET\s+\|\s+\/posts\/\{id\}/);
    assert.match(out, /# access runs: requests \d+ -> \d+/);
    // each round's server-stats window is printed with its sites, and the two windows are compared
    assert.equal(out.match(/\$ query-insight server-stats .*--since \S*server-(?:before|after)\.snapshot\.json --run /g)?.length, 2, 'server-stats after each round');
    assert.equal(out.match(/# window of [\d.]+ s on .+: [\d,]+ statements, \d+ shapes/g)?.length, 2, 'a window summary per round');
    assert.match(out, /\| COUNT \| SUM\(s\) \|.*\| SITE +\| FINGERPRINT +\|/, 'the window\'s table');
    assert.match(out, /\| webapp\/go\/main\.go:89 webapp\/go\/main\.go:94 \| select \* from users where id = \? +\|/, 'the N+1 lookup with both its sites');
    assert.match(out, /\$ query-insight diff \S*server-before\.run\.json \S*server-after\.run\.json/);
    assert.equal(out.match(/# slow runs: statements \d+ -> \d+/g)?.length, 2, 'the slow logs and the server-stats runs compared');
    assert.match(out, /nothing left running/);
    assert.deepEqual(demoProcesses(dir), [], 'no process of the demo is left');
  } catch (err) {
    await keepFailure('demo-cli-failure', demo.out());
    throw err;
  } finally {
    if (demo.proc.exitCode === null) demo.proc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
