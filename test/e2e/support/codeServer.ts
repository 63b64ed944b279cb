/**
 * Starts code-server (VS Code 1.100 served to a browser, with a real Node extension host) for one
 * test file: a free loopback port, fresh user-data and extensions dirs, settings that keep first-run
 * UI away. Installed by scripts/setup-test-env.sh; found through QI_CODE_SERVER or its default prefix.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntil } from './wait';

export const CODE_SERVER_VERSION = '4.100.3';

/** Where scripts/setup-test-env.sh installs code-server unless QI_CODE_SERVER_PREFIX says otherwise. */
export function defaultCodeServer(): string {
  const prefix = process.env.QI_CODE_SERVER_PREFIX ?? join(homedir(), '.cache', 'query-insight', `code-server-${CODE_SERVER_VERSION}`);
  return join(prefix, 'node_modules', '.bin', 'code-server');
}

/** The code-server binary, or an error that says how to install it. */
export function findCodeServer(): string {
  const bin = process.env.QI_CODE_SERVER ?? defaultCodeServer();
  if (!existsSync(bin)) {
    throw new Error(`code-server not found at ${bin}: run \`bash scripts/setup-test-env.sh\` (or set QI_CODE_SERVER to the binary)`);
  }
  return bin;
}

/** Settings that keep the welcome page, trust prompt, tips and recommendations out of the tests. */
export const QUIET_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.ignoreRecommendations': true,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  'git.enabled': false,
  'chat.commandCenter.enabled': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

export interface CodeServer {
  port: number;
  /** The workbench URL; `devPath` loads an extension from a folder, `testsPath` runs an extension-host test module. */
  url(opts?: { devPath?: string; testsPath?: string }): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  workspace: string;
  /** Install this .vsix before starting (the packaged extension, as a user gets it). */
  vsix?: string;
  settings?: Record<string, unknown>;
  /** code-server's stdout/stderr go here. */
  logFile?: string;
  /** On stop, VS Code's own logs (the extension's log channel among them) are copied here. */
  logsTo?: string;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export async function startCodeServer(opts: StartOptions): Promise<CodeServer> {
  const bin = findCodeServer();
  const root = mkdtempSync(join(tmpdir(), 'qi-code-server-'));
  const userData = join(root, 'user-data');
  const extensions = join(root, 'extensions');
  // why: without --config, code-server writes ~/.config/code-server/config.yaml (even for --version).
  const config = join(root, 'config.yaml');
  mkdirSync(join(userData, 'User'), { recursive: true });
  writeFileSync(config, '');
  writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify({ ...QUIET_SETTINGS, ...opts.settings }, null, 2));
  const common = ['--config', config, '--user-data-dir', userData, '--extensions-dir', extensions];
  if (opts.vsix) execFileSync(bin, [...common, '--install-extension', opts.vsix], { stdio: 'pipe' });
  const port = await freePort();
  const log = opts.logFile ? openSync(opts.logFile, 'w') : 'ignore';
  const proc = spawn(bin, [...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', opts.workspace],
  { stdio: ['ignore', log, log] });
  if (typeof log === 'number') closeSync(log);
  const stop = async (): Promise<void> => {
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      // why: SIGTERM takes the extension hosts, file watchers and pty host down with the server.
      proc.kill('SIGTERM');
      await Promise.race([exited, new Promise<void>((r) => setTimeout(r, 10_000).unref())]);
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    }
    if (opts.logsTo && existsSync(join(userData, 'logs'))) {
      rmSync(opts.logsTo, { recursive: true, force: true });
      cpSync(join(userData, 'logs'), opts.logsTo, { recursive: true });
    }
    rmSync(root, { recursive: true, force: true });
  };
  try {
    await waitUntil(async () => {
      if (proc.exitCode !== null) throw new Error(`code-server exited with code ${proc.exitCode}${opts.logFile ? ` (log: ${opts.logFile})` : ''}`);
      try { return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok; } catch { return false; }
    }, 'code-server to answer /healthz', 60_000);
  } catch (err) {
    await stop();
    throw err;
  }
  const url = ({ devPath, testsPath }: { devPath?: string; testsPath?: string } = {}): string => {
    let u = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(opts.workspace)}`;
    // why: code-server's CLI rejects --extensionDevelopmentPath/--extensionTestsPath, but the web
    // workbench reads both from the URL's `payload` parameter (a JSON list of [key, value] pairs).
    const payload: [string, string][] = [];
    if (devPath) payload.push(['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${port}${devPath}`]);
    if (testsPath) payload.push(['extensionTestsPath', `vscode-remote://127.0.0.1:${port}${testsPath}`]);
    if (payload.length) u += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    return u;
  };
  return { port, url, stop };
}
