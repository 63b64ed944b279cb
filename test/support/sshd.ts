/**
 * A private OpenSSH server for integration tests: Debian's /usr/sbin/sshd (package
 * `openssh-server`) run in the foreground with a temp config on 127.0.0.1:<free port>, a temp
 * host key, and an authorized_keys file holding a fresh client key, for the user running the tests
 * (root: PermitRootLogin prohibit-password). Also a private ssh-agent holding chosen keys.
 * Nothing touches the system's sshd configuration, keys or ~/.ssh.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/node/freePort';

const SSHD_CANDIDATES = ['/usr/sbin/sshd', '/usr/bin/sshd'];

/** The sshd binary, or undefined when openssh-server is not installed. */
export function sshdAvailable(): string | undefined {
  return SSHD_CANDIDATES.find((p) => existsSync(p));
}

export interface SshKeyPair {
  /** Private key file (no passphrase unless one was given). */
  path: string;
  publicKey: string;
  /** As `ssh-keygen -lf` prints it: `SHA256:…`. */
  fingerprint: string;
}

export interface SshdServer {
  dir: string;
  host: '127.0.0.1';
  port: number;
  user: string;
  /** A key listed in authorized_keys. */
  clientKey: SshKeyPair;
  /** The server's host key fingerprint (`SHA256:…`). */
  hostKeyFingerprint: string;
  /** What sshd logged so far (LogLevel DEBUG1, so forwards show up as direct-tcpip / streamlocal lines). */
  log(): string;
  /** Kills the per-connection sshd processes (the listener stays): every open session drops at once. */
  dropSessions(): number;
  stop(): Promise<void>;
}


/** Generates an ed25519 key pair with ssh-keygen in `dir`. */
export function makeKey(dir: string, name: string, passphrase = ''): SshKeyPair {
  const path = join(dir, name);
  const r = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', `qi-test-${name}`, '-f', path], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
  return { path, publicKey: readFileSync(`${path}.pub`, 'utf8').trim(), fingerprint: fingerprintOf(`${path}.pub`) };
}

function fingerprintOf(pubPath: string): string {
  const r = spawnSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', pubPath], { encoding: 'utf8' });
  const m = /(SHA256:\S+)/.exec(r.stdout);
  if (!m) throw new Error(`ssh-keygen -l failed: ${r.stderr}`);
  return m[1];
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.setTimeout(1000);
    s.once('data', (d) => { s.destroy(); resolve(d.toString('latin1').startsWith('SSH-')); });
    s.once('error', () => resolve(false));
    s.once('timeout', () => { s.destroy(); resolve(false); });
  });
}

export interface SshdOptions {
  /** Listen on this loopback port (e.g. the port of a stopped server, to present a new host key there). */
  port?: number;
  /** More public keys for authorized_keys, besides the fresh client key. */
  authorizedKeys?: string[];
}

/** Starts a private sshd. Throws with a clear message when openssh-server is not installed. */
export async function startSshd(opts: SshdOptions = {}): Promise<SshdServer> {
  const bin = sshdAvailable();
  if (!bin) throw new Error('sshd not found: install it with `apt-get install -y openssh-server` (scripts/setup-test-env.sh does)');
  const dir = mkdtempSync(join(tmpdir(), 'qi-sshd-'));
  const user = userInfo().username;
  const hostKey = join(dir, 'host_ed25519');
  const gen = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey], { encoding: 'utf8' });
  if (gen.status !== 0) throw new Error(`ssh-keygen (host key) failed: ${gen.stderr}`);
  const clientKey = makeKey(dir, 'client_ed25519');
  writeFileSync(join(dir, 'authorized_keys'), [clientKey.publicKey, ...opts.authorizedKeys ?? []].join('\n') + '\n', { mode: 0o600 });
  const port = opts.port ?? await freePort();
  const config = join(dir, 'sshd_config');
  writeFileSync(config, [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${hostKey}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    'PermitRootLogin prohibit-password',
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    // why: the temp dir's owner and modes are not what StrictModes wants for a home directory.
    'StrictModes no',
    'AllowTcpForwarding yes',
    'AllowStreamLocalForwarding yes',
    'X11Forwarding no',
    'PrintMotd no',
    'LogLevel DEBUG1',
    '',
  ].join('\n'));
  // why: sshd refuses to start without its privilege-separation directory (normally made by systemd).
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const check = spawnSync(bin, ['-t', '-f', config], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`sshd rejects the test config: ${check.stderr}`);
  // why: the log goes to a file, not a pipe. A pipe fills up (about 16 KB, two logins at DEBUG1)
  // whenever the process that started sshd does not drain it, e.g. while it waits in spawnSync for
  // a client: sshd then blocks writing its log in the middle of a login, and the client times out.
  const logPath = join(dir, 'sshd.log');
  const logFd = openSync(logPath, 'a');
  const proc: ChildProcess = spawn(bin, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', logFd] });
  closeSync(logFd);
  const readLog = (): string => { try { return readFileSync(logPath, 'utf8'); } catch { return ''; } };
  const end = Date.now() + 15_000;
  while (!(await portAnswers(port))) {
    if (proc.exitCode !== null || Date.now() > end) {
      proc.kill('SIGKILL');
      const tail = readLog().split('\n').slice(-20).join('\n');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`sshd did not start on 127.0.0.1:${port}\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const children = (): number[] => {
    const r = spawnSync('pgrep', ['-P', String(proc.pid)], { encoding: 'utf8' });
    return r.stdout.split('\n').filter(Boolean).map(Number);
  };
  return {
    dir, host: '127.0.0.1', port, user, clientKey, hostKeyFingerprint: fingerprintOf(`${hostKey}.pub`),
    log: readLog,
    dropSessions: () => {
      const pids = children();
      for (const pid of pids) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
      return pids.length;
    },
    stop: async () => {
      for (const pid of children()) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
      if (proc.exitCode === null) {
        const exited = new Promise<void>((r) => proc.once('exit', () => r()));
        proc.kill('SIGTERM');
        await Promise.race([exited, new Promise<void>((r) => { setTimeout(r, 5000).unref(); })]);
        if (proc.exitCode === null) proc.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface SshAgent {
  /** The agent's socket (what SSH_AUTH_SOCK would hold). */
  socket: string;
  stop(): Promise<void>;
}

/** Starts a private ssh-agent in the foreground on a temp socket and adds `keys` to it. */
export async function startSshAgent(keys: string[]): Promise<SshAgent> {
  const dir = mkdtempSync(join(tmpdir(), 'qi-agent-'));
  const socket = join(dir, 'agent.sock');
  const proc = spawn('ssh-agent', ['-D', '-a', socket], { stdio: 'ignore' });
  const end = Date.now() + 10_000;
  while (!existsSync(socket)) {
    if (proc.exitCode !== null || Date.now() > end) throw new Error('ssh-agent did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  for (const k of keys) {
    const r = spawnSync('ssh-add', ['-q', k], { encoding: 'utf8', env: { ...process.env, SSH_AUTH_SOCK: socket } });
    if (r.status !== 0) throw new Error(`ssh-add ${k} failed: ${r.stderr}`);
  }
  return {
    socket,
    stop: async () => {
      if (proc.exitCode === null) {
        const exited = new Promise<void>((r) => proc.once('exit', () => r()));
        proc.kill('SIGTERM');
        await Promise.race([exited, new Promise<void>((r) => { setTimeout(r, 5000).unref(); })]);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
