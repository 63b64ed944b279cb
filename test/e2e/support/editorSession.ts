/**
 * What every editor test starts from: a copy of the sample app, the packaged extension installed in
 * code-server serving that copy, and headless Chromium; `close()` undoes all of it.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';
import { packageVsix } from '../../support/vsix';
import { copySampleApp } from '../sampleApp';
import { startCodeServer, type CodeServer } from './codeServer';
import { shootOnFailure } from './failureShot';
import { launchBrowser, RESULTS_DIR, screenshot, type Browser } from './workbench';

export interface EditorSession {
  /** The workspace: a copy of the sample app. */
  dir: string;
  server: CodeServer;
  page: Page;
  close(): Promise<void>;
}

export interface EditorSessionOptions {
  /** Names code-server's log file and logs folder in RESULTS_DIR. */
  name: string;
  /** User settings for code-server (a connection, …). */
  settings?: Record<string, unknown>;
  /** Environment of code-server over the test's (HOME for an ~/.ssh of the test's own …). */
  env?: NodeJS.ProcessEnv;
  /** code-server's directory (user data with its live logs, extensions); kept on close, the caller removes it. Default: a temp dir. */
  serverRoot?: string;
  /** Runs on the workspace before code-server opens it (logs to import, a benchmark round …). */
  prepare?(dir: string): Promise<void> | void;
}

/**
 * Opens a session; anything started before a failure is stopped again before the error is rethrown.
 * Its page is shot after every test of the file that fails (failureShot.ts), until close().
 */
export async function openEditorSession(options: EditorSessionOptions): Promise<EditorSession> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const ws = copySampleApp();
  let vsix: string | undefined;
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let unwatch = (): void => {};
  const close = async (): Promise<void> => {
    unwatch();
    await browser?.close();
    await server?.stop();
    ws.remove();
    if (vsix) rmSync(dirname(vsix), { recursive: true, force: true });
  };
  try {
    await options.prepare?.(ws.dir);
    vsix = packageVsix();
    server = await startCodeServer({
      // why: sticky scroll's header (the enclosing function's first line) overlays the top lines of the
      // editor and takes the clicks meant for a statement there; the tests click statements by their text.
      workspace: ws.dir, vsix, settings: { 'editor.stickyScroll.enabled': false, ...options.settings }, ...(options.env ? { env: options.env } : {}),
      ...(options.serverRoot ? { root: options.serverRoot } : {}),
      logFile: join(RESULTS_DIR, `${options.name}.code-server.log`), logsTo: join(RESULTS_DIR, `${options.name}.logs`),
    });
    browser = await launchBrowser();
    unwatch = shootOnFailure(options.name, browser.page);
  } catch (err) {
    await close();
    throw err;
  }
  return { dir: ws.dir, server, page: browser.page, close };
}

/**
 * Runs `body` on the page; when it fails, keeps a screenshot named `shot` before rethrowing. A
 * session's page is shot on failure anyway (failureShot.ts); this names one more picture.
 */
export async function withFailureShot(page: Page, shot: string, body: (page: Page) => Promise<void>): Promise<void> {
  try {
    await body(page);
  } catch (err) {
    await screenshot(page, shot).catch(() => undefined);
    throw err;
  }
}
