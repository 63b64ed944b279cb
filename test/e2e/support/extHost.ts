/**
 * Runs an extension-host test module (the `extensionTestsPath` contract: a module exporting
 * `run(): Promise<void>`) inside code-server's Node extension host. code-server's CLI has no
 * --extensionTestsPath, so the path goes in the workbench URL's payload; when run() settles the
 * workbench calls window.codeAutomationExit(code), which the page exposes back to us.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startCodeServer } from './codeServer';
import { launchBrowser, RESULTS_DIR, screenshot } from './workbench';
import { REPO_ROOT } from '../../support/paths';
import { copySampleApp } from '../sampleApp';

export interface ExtHostRun {
  /** 0 when run() resolved; 'timeout' when it never reported. */
  code: number | 'timeout';
  /** What the extension host printed (mirrored to the browser console), noise removed. */
  output: string[];
}

// why: offline, the workbench logs gallery lookups, missing vsda files and web-worker notices.
const NOISE = /Failed to load resource|open-vsx|ENOTFOUND|Creating a socket|connection token|sandbox attribute|Service Worker|vsda|webWorkerExtensionHost|^\s+at /;

export async function runExtensionHostTests(opts: {
  workspace: string; extensionPath: string; testsPath: string; name: string; timeoutMs?: number;
}): Promise<ExtHostRun> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const server = await startCodeServer({ workspace: opts.workspace, logFile: join(RESULTS_DIR, `${opts.name}.code-server.log`), logsTo: join(RESULTS_DIR, `${opts.name}.logs`) });
  const output: string[] = [];
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  try {
    browser = await launchBrowser();
    let report: (code: number) => void = () => {};
    const exited = new Promise<number>((r) => { report = r; });
    await browser.page.exposeFunction('codeAutomationExit', (code: number) => report(code));
    browser.page.on('console', (m) => {
      const text = m.text().replace(/%c\s*|color: #[0-9a-f]+\s*/gi, '').trim();
      if (text && !NOISE.test(text)) output.push(text);
    });
    await browser.page.goto(server.url({ devPath: opts.extensionPath, testsPath: opts.testsPath }));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => { timer = setTimeout(() => r('timeout'), opts.timeoutMs ?? 180_000); });
    const code = await Promise.race([exited, timeout]);
    clearTimeout(timer);
    // what the workbench showed when the suite failed or never reported (the page closes below)
    if (code !== 0) await screenshot(browser.page, `${opts.name}-failure`).catch(() => undefined);
    return { code, output };
  } finally {
    writeFileSync(join(RESULTS_DIR, `${opts.name}.console.log`), output.join('\n') + '\n');
    await browser?.close();
    await server.stop();
  }
}

/**
 * Runs the extension-host suite built from test/e2e/<suite>/ (its index.js under out/) on a copy of
 * the sample app, with the extension loaded from this checkout.
 */
export async function runSuiteOnSampleApp(suite: string, name: string): Promise<ExtHostRun> {
  const ws = copySampleApp();
  try {
    return await runExtensionHostTests({ name, workspace: ws.dir, extensionPath: REPO_ROOT, testsPath: join(REPO_ROOT, 'out', 'test', 'e2e', suite, 'index.js') });
  } finally {
    ws.remove();
  }
}
