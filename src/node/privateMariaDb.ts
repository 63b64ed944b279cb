/**
 * A private MariaDB server for the integration and e2e tests and the demo: a fresh datadir and socket
 * under a temp dir, started with the system's `mariadbd` (Debian package `mariadb-server`), stopped
 * by `stop()`. Networking is on loopback only, on a free port, so both socket and TCP connections work.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './freePort';

export interface MariaDbOptions {
  /** Extra server options, e.g. ['--slow-query-log=1', '--long-query-time=0']. */
  args?: string[];
  /** Where the server's own directory is created (default: the OS temp dir). */
  parentDir?: string;
  /** Start with performance_schema = ON (MariaDB's default is OFF), for server-stats measurements. */
  performanceSchema?: boolean;
}

export interface MariaDbServer {
  dir: string;
  /** The mariadbd process id. */
  pid: number;
  socket: string;
  port: number;
  /** Root over the socket (unix_socket auth as the OS user running the test, plus a password-less root). */
  user: string;
  /** Path of the general log when enabled with --general-log=1 (written to dir/general.log). */
  generalLog: string;
  /** Path of the slow log when enabled with --slow-query-log=1 (written to dir/slow.log). */
  slowLog: string;
  /** Runs SQL through the `mariadb` client as root (for setup: schemas, data, users). */
  sql(statements: string, database?: string): string;
  stop(): Promise<void>;
}

const BIN_CANDIDATES = ['/usr/sbin/mariadbd', '/usr/bin/mariadbd', '/usr/sbin/mysqld'];

export function mariadbAvailable(): string | undefined {
  return BIN_CANDIDATES.find((p) => existsSync(p));
}


async function waitFor(check: () => boolean, ms: number, what: string, proc: ChildProcess, logFile: string): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    if (proc.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  let tail = '';
  try { tail = readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n'); } catch { /* no log */ }
  throw new Error(`MariaDB did not become ${what} within ${ms} ms\n${tail}`);
}

/** Starts a private server. Throws with a clear message when mariadb-server is not installed. */
export async function startMariaDb(opts: MariaDbOptions = {}): Promise<MariaDbServer> {
  const bin = mariadbAvailable();
  if (!bin) throw new Error('mariadbd not found: install it with `apt-get install -y mariadb-server` (scripts/setup-test-env.sh does)');
  const dir = mkdtempSync(join(opts.parentDir ?? tmpdir(), 'qi-mariadb-'));
  const datadir = join(dir, 'data');
  const socket = join(dir, 'mysqld.sock');
  const errLog = join(dir, 'error.log');
  const user = process.getuid?.() === 0 ? 'root' : (process.env.USER ?? 'root');
  const init = spawnSync('mariadb-install-db', [
    '--no-defaults', `--datadir=${datadir}`, '--auth-root-authentication-method=normal',
    '--skip-test-db', `--user=${user}`,
  ], { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`mariadb-install-db failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  const cnf = join(dir, 'my.cnf');
  writeFileSync(cnf, '[mysqld]\n');
  const proc = spawn(bin, [
    `--defaults-file=${cnf}`, `--datadir=${datadir}`, `--socket=${socket}`, `--port=${port}`,
    '--bind-address=127.0.0.1', `--pid-file=${join(dir, 'mysqld.pid')}`, `--log-error=${errLog}`,
    `--general-log-file=${join(dir, 'general.log')}`, `--slow-query-log-file=${join(dir, 'slow.log')}`,
    `--user=${user}`, '--innodb-buffer-pool-size=256M', '--innodb-log-file-size=64M',
    '--innodb-flush-log-at-trx-commit=0', '--skip-log-bin', '--character-set-server=utf8mb4',
    ...(opts.performanceSchema ? ['--performance-schema=ON'] : []),
    ...(opts.args ?? []),
    // why: a process group of its own, so a Ctrl+C in the demo's terminal reaches only the demo,
    // which then shuts the server down in order (stop()) instead of racing it.
  ], { stdio: 'ignore', detached: true });
  const sql = (statements: string, database?: string): string => {
    const r = spawnSync('mariadb', ['--no-defaults', `--socket=${socket}`, '-uroot', '--batch', '--skip-column-names', ...(database ? [database] : [])],
      { input: statements, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    if (r.status !== 0) throw new Error(`mariadb client failed: ${r.stderr}`);
    return r.stdout;
  };
  await waitFor(() => existsSync(socket), 30_000, 'ready (socket)', proc, errLog);
  // why: the socket file appears slightly before the server accepts connections.
  await waitFor(() => spawnSync('mariadb', ['--no-defaults', `--socket=${socket}`, '-uroot', '-e', 'SELECT 1']).status === 0, 30_000, 'ready (query)', proc, errLog);
  const stop = async (): Promise<void> => {
    if (proc.exitCode === null) {
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.kill('SIGTERM');
      const timer = new Promise<void>((r) => { setTimeout(r, 20_000).unref(); });
      await Promise.race([exited, timer]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return { dir, pid: proc.pid ?? 0, socket, port, user: 'root', generalLog: join(dir, 'general.log'), slowLog: join(dir, 'slow.log'), sql, stop };
}
