/**
 * Starts code-server (VS Code 1.100 served to a browser, with a real Node extension host) for one
 * e2e test file or the demo: a free loopback port, fresh user-data and extensions dirs, settings that
 * keep first-run UI away. Installed by scripts/setup-test-env.sh; found through QI_CODE_SERVER or its
 * default prefix.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './freePort';

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
  /** The code-server process id (the leader of its own process group). */
  pid: number;
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
  /** Directory for user-data, extensions and config (kept on stop); default a temp dir, removed on stop. */
  root?: string;
  /** Loopback port to listen on (default: a free one). */
  port?: number;
  /** Environment of code-server and its extension hosts, over this process's (e.g. a HOME of the test's own). */
  env?: NodeJS.ProcessEnv;
}


export async function startCodeServer(opts: StartOptions): Promise<CodeServer> {
  const bin = findCodeServer();
  const root = opts.root ?? mkdtempSync(join(tmpdir(), 'qi-code-server-'));
  mkdirSync(root, { recursive: true });
  const userData = join(root, 'user-data');
  const extensions = join(root, 'extensions');
  // why: without --config, code-server writes ~/.config/code-server/config.yaml (even for --version).
  const config = join(root, 'config.yaml');
  mkdirSync(join(userData, 'User'), { recursive: true });
  writeFileSync(config, '');
  writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify({ ...QUIET_SETTINGS, ...opts.settings }, null, 2));
  const common = ['--config', config, '--user-data-dir', userData, '--extensions-dir', extensions];
  if (opts.vsix) execFileSync(bin, [...common, '--install-extension', opts.vsix], { stdio: 'pipe' });
  const port = opts.port ?? await freePort();
  const log = opts.logFile ? openSync(opts.logFile, 'w') : 'ignore';
  const proc = spawn(bin, [...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', opts.workspace],
  // why: a process group of its own (code-server starts extension hosts, a pty host and watchers),
  // so stop() can end the whole group and a Ctrl+C in the demo's terminal reaches only the demo.
  { stdio: ['ignore', log, log], detached: true, ...(opts.env ? { env: { ...process.env, ...opts.env } } : {}) });
  if (typeof log === 'number') closeSync(log);
  const stop = async (): Promise<void> => {
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      // why: SIGTERM takes the extension hosts, file watchers and pty host down with the server.
      killGroup(proc.pid, 'SIGTERM');
      await Promise.race([exited, new Promise<void>((r) => setTimeout(r, 10_000).unref())]);
      if (proc.exitCode === null && proc.signalCode === null) killGroup(proc.pid, 'SIGKILL');
    }
    // why: a helper that outlived the server (e.g. a watcher) still belongs to the group.
    killGroup(proc.pid, 'SIGKILL');
    if (opts.logsTo && existsSync(join(userData, 'logs'))) {
      rmSync(opts.logsTo, { recursive: true, force: true });
      cpSync(join(userData, 'logs'), opts.logsTo, { recursive: true });
    }
    if (!opts.root) rmSync(root, { recursive: true, force: true });
  };
  try {
    const end = Date.now() + 60_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`code-server exited with code ${proc.exitCode}${opts.logFile ? ` (log: ${opts.logFile})` : ''}`);
      try { if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break; } catch { /* not listening yet */ }
      if (Date.now() > end) throw new Error('timed out after 60000 ms waiting for code-server to answer /healthz');
      await new Promise((r) => setTimeout(r, 100));
    }
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
  return { port, pid: proc.pid ?? 0, url, stop };
}

/** Sends `signal` to the process group led by `pid`; a group that is gone already is no error. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try { process.kill(-pid, signal); } catch { /* the group has exited */ }
}
