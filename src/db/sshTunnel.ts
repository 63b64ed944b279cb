/**
 * An SSH tunnel to a database that only the contest box can reach: one ssh2 session (private key
 * file and/or agent), and a local forward — a listener on 127.0.0.1:<free port> whose connections
 * are each carried over a `direct-tcpip` channel to host:port as seen from the box, or over a
 * `direct-streamlocal@openssh.com` channel to a unix socket on the box.
 *
 * The session is opened on first use and again on the next use after it dropped (keepalives notice
 * a dead peer). Failures become SshTunnelError with a kind and a message a person can act on. The
 * host key is shown to a caller-supplied verifier as an OpenSSH-style SHA256 fingerprint; whether
 * to trust it (and to remember it) is the caller's decision.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { homedir, userInfo } from 'node:os';
import type { Duplex } from 'node:stream';
import { Client, utils as sshUtils, type ClientChannel, type ConnectConfig } from 'ssh2';

/** How to log in to the SSH server. */
export interface SshOptions {
  host: string;
  /** Default 22. */
  port?: number;
  username: string;
  /** A private key file (OpenSSH or PEM format). */
  privateKeyPath?: string;
  /** Passphrase of an encrypted key; comes from SecretStorage or the environment, never from settings. */
  passphrase?: string;
  /** Path of an ssh-agent socket (the value of SSH_AUTH_SOCK). Tried after the key file when both are given. */
  agent?: string;
  /**
   * Sees the server's host key before anything is sent; resolve true to go on. Without a verifier
   * every host key is accepted (the key is still available as `hostKey` afterwards).
   */
  verifyHostKey?: (key: HostKeyInfo) => boolean | Promise<boolean>;
  /**
   * Default 10000 ms: TCP connect plus SSH handshake plus authentication. The time the verifier
   * takes (a person reading a fingerprint) does not count; the budget starts again after it.
   */
  readyTimeoutMs?: number;
  /** SSH-level keepalive interval; default 10000 ms, 0 turns keepalives off. */
  keepaliveIntervalMs?: number;
  /** Unanswered keepalives before the session counts as dropped; default 3. */
  keepaliveCountMax?: number;
  /**
   * Reach `host:port` through this SSH server first (OpenSSH's ProxyJump): the session to the
   * jump host carries the TCP connection to this one. The jump host may itself have a `jump`.
   */
  jump?: SshOptions;
}

/** Where the database is, as seen from the SSH server. */
export type SshTarget = { host: string; port: number } | { socketPath: string };

export interface SshTunnelOptions extends SshOptions {
  /** Where forwarded connections go; a session used only to run commands (`exec`) has none. */
  target?: SshTarget;
}

/** The server's host key as a verifier sees it. */
export interface HostKeyInfo {
  /** `SHA256:` and the unpadded base64 digest, as `ssh-keygen -lf` and `ssh` print it. */
  fingerprint: string;
  /** Key algorithm named in the key blob: `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa` … */
  type: string;
  /** The raw public key blob (what known_hosts holds in base64). */
  key: Buffer;
  /** `host:port` it was presented for. */
  endpoint: string;
}

export type SshErrorKind = 'auth' | 'key' | 'host-key' | 'unreachable' | 'timeout' | 'forward' | 'lost';

/** A tunnel failure: the kind a front end can act on, and a message naming what to check. */
export class SshTunnelError extends Error {
  constructor(readonly kind: SshErrorKind, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'SshTunnelError';
  }
}

/** Computes the OpenSSH SHA256 fingerprint and type of a public key blob. */
export function hostKeyInfo(key: Buffer, endpoint: string): HostKeyInfo {
  const fingerprint = `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
  let type = 'unknown';
  if (key.length >= 4) {
    const n = key.readUInt32BE(0);
    if (n > 0 && n < 64 && key.length >= 4 + n) type = key.subarray(4, 4 + n).toString('latin1');
  }
  return { fingerprint, type, key, endpoint };
}

/**
 * Parses `user@host[:port]` (also `user@[v6addr]:port`). Returns undefined when the text has no
 * user, no host, or a port outside 1–65535.
 */
export function parseSshDestination(text: string): { username: string; host: string; port?: number } | undefined {
  const m = /^([^@\s]+)@(?:\[([^\]]+)\]|([^:@\s[\]]+))(?::(\d+))?$/.exec(text.trim());
  if (!m) return undefined;
  const port = m[4] === undefined ? undefined : Number(m[4]);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  return { username: m[1], host: m[2] ?? m[3], ...(port !== undefined ? { port } : {}) };
}

/** The editor's `queryInsight.connection.ssh.*` settings. */
export interface SshSettings {
  host: string;
  port: number;
  user: string;
  privateKeyPath: string;
  useAgent: boolean;
}

/**
 * The tunnel options the settings describe, or undefined when no SSH host is set. `~/` in the key
 * path is the home directory; an empty user is the local user name (as `ssh` does); the agent is
 * SSH_AUTH_SOCK when `useAgent` is on and the variable is set. The key passphrase comes from the
 * caller (SecretStorage), never from settings.
 */
export function sshOptionsFromSettings(s: SshSettings, env: NodeJS.ProcessEnv, passphrase?: string): SshOptions | undefined {
  const host = s.host.trim();
  if (!host) return undefined;
  const keyPath = s.privateKeyPath.trim();
  const home = env.HOME || homedir();
  const privateKeyPath = keyPath === '' ? undefined : keyPath === '~' || keyPath.startsWith('~/') ? home + keyPath.slice(1) : keyPath;
  const agent = s.useAgent && env.SSH_AUTH_SOCK ? env.SSH_AUTH_SOCK : undefined;
  return {
    host, port: s.port, username: s.user.trim() || env.USER || userInfo().username,
    ...(privateKeyPath ? { privateKeyPath } : {}), ...(agent ? { agent } : {}), ...(passphrase ? { passphrase } : {}),
  };
}

/** `host:port` or `unix:/path` of a target, for messages. */
export function describeTarget(t: SshTarget | undefined): string {
  if (!t) return 'no forward target';
  return 'socketPath' in t ? `unix:${t.socketPath}` : `${t.host}:${t.port}`;
}

type SshErr = Error & { level?: string; code?: string | number; reason?: number };

// RFC 4254 §5.1 channel open failure reason codes.
const OPEN_PROHIBITED = 1;
const OPEN_CONNECT_FAILED = 2;

export class SshTunnel {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private server: Server | undefined;
  private listening: Promise<number> | undefined;
  private readonly sockets = new Set<Socket>();
  private lastError: SshTunnelError | undefined;
  private seenKey: HostKeyInfo | undefined;
  private closed = false;
  private jumpTunnel: SshTunnel | undefined;
  /** SSH sessions opened so far (1 + reconnects), for status displays and tests. */
  sshConnects = 0;
  /** Forwarded connections opened so far. */
  forwards = 0;

  constructor(readonly options: SshTunnelOptions) {}

  /** `user@host:port` of the SSH server. */
  get endpoint(): string { return `${this.options.username}@${this.options.host}:${this.options.port ?? 22}`; }

  /** The host key the server last presented (set even when the verifier refused it). */
  get hostKey(): HostKeyInfo | undefined { return this.seenKey; }

  /** True while an SSH session is up. */
  get connected(): boolean { return this.client !== undefined; }

  /**
   * Makes sure the SSH session is up (logging in again after a drop) and the local listener
   * exists; resolves with the loopback address to connect to. Rejects with SshTunnelError.
   */
  async open(): Promise<{ host: '127.0.0.1'; port: number }> {
    this.closed = false;
    await this.session();
    return { host: '127.0.0.1', port: await this.listen() };
  }

  /** Logs in now unless a session is up or being set up, so a later command starts at once. Rejects with SshTunnelError. */
  async connect(): Promise<void> {
    await this.session();
  }

  /** Returns the last failure the tunnel saw since the previous call, and forgets it. */
  takeError(): SshTunnelError | undefined {
    const e = this.lastError;
    this.lastError = undefined;
    return e;
  }

  /** Opens one channel to the target (for callers that want a stream rather than the local port). */
  async channel(origin: { address: string; port: number } = { address: '127.0.0.1', port: 0 }): Promise<Duplex> {
    const t = this.options.target;
    if (!t) throw new SshTunnelError('forward', `the SSH session to ${this.endpoint} has no forward target`);
    const c = await this.session();
    return new Promise<Duplex>((resolve, reject) => {
      const done = (err: Error | undefined, ch: ClientChannel): void => {
        if (err) { reject(this.forwardError(err as SshErr)); return; }
        this.forwards++;
        resolve(ch);
      };
      try {
        if ('socketPath' in t) c.openssh_forwardOutStreamLocal(t.socketPath, done);
        else c.forwardOut(origin.address, origin.port, t.host, t.port, done);
      } catch (err) {
        // why: ssh2 throws synchronously when the session closed between session() and here.
        reject(new SshTunnelError('lost', `the SSH connection to ${this.endpoint} closed before the forward opened; it is reopened on the next request`, err));
      }
    });
  }

  /**
   * Runs `command` on the box over this session (the caller quotes it for the remote shell) and
   * resolves with its channel: stdout is the channel itself, stderr `channel.stderr`, the exit
   * status comes with the channel's 'exit' event.
   */
  async exec(command: string): Promise<ClientChannel> {
    const c = await this.session();
    return new Promise<ClientChannel>((resolve, reject) => {
      try {
        c.exec(command, (err, ch) => (err
          ? reject(new SshTunnelError('forward', `${this.endpoint} refused to run a command: ${err.message}`, err))
          : resolve(ch)));
      } catch (err) {
        // why: as in channel(), ssh2 throws synchronously when the session closed in between.
        reject(new SshTunnelError('lost', `the SSH connection to ${this.endpoint} closed before the command started`, err));
      }
    });
  }

  /** Opens a direct-tcpip channel from the box to `host:port` (a jump host carrying the next hop's connection). */
  async forwardTo(host: string, port: number): Promise<Duplex> {
    const c = await this.session();
    return new Promise<Duplex>((resolve, reject) => {
      try {
        c.forwardOut('127.0.0.1', 0, host, port, (err, ch) => {
          if (err) { reject(new SshTunnelError('unreachable', `the jump host ${this.endpoint} cannot reach ${host}:${port} (${err.message})`, err)); return; }
          this.forwards++;
          resolve(ch);
        });
      } catch (err) {
        reject(new SshTunnelError('lost', `the SSH connection to ${this.endpoint} closed before the forward opened`, err));
      }
    });
  }

  /** Closes the listener, every forwarded connection and the SSH session (and the jump host's). */
  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    const srv = this.server;
    this.server = undefined;
    this.listening = undefined;
    const c = this.client;
    this.client = undefined;
    const pending = this.connecting;
    if (c) {
      await new Promise<void>((resolve) => {
        c.once('close', () => resolve());
        c.end();
        setTimeout(resolve, 2000).unref();
      });
    }
    if (pending) await pending.then((late) => late.end(), () => undefined);
    if (srv) await new Promise<void>((resolve) => srv.close(() => resolve()));
    const jump = this.jumpTunnel;
    this.jumpTunnel = undefined;
    if (jump) await jump.close();
  }

  private listen(): Promise<number> {
    this.listening ??= new Promise<number>((resolve, reject) => {
      const srv = createServer((sock) => this.accept(sock));
      srv.once('error', (err) => {
        this.listening = undefined;
        reject(new SshTunnelError('forward', `cannot open the local end of the tunnel on 127.0.0.1: ${err.message}`, err));
      });
      srv.listen(0, '127.0.0.1', () => {
        this.server = srv;
        resolve((srv.address() as AddressInfo).port);
      });
    });
    return this.listening;
  }

  private accept(sock: Socket): void {
    this.sockets.add(sock);
    sock.setNoDelay(true);
    sock.on('error', () => sock.destroy());
    sock.on('close', () => this.sockets.delete(sock));
    if (this.closed) { sock.destroy(); return; }
    this.channel({ address: sock.remoteAddress ?? '127.0.0.1', port: sock.remotePort ?? 0 }).then((ch) => {
      if (sock.destroyed) { ch.destroy(); return; }
      ch.on('error', () => sock.destroy());
      ch.on('close', () => sock.destroy());
      sock.on('close', () => ch.destroy());
      sock.pipe(ch).pipe(sock);
    }, (err: unknown) => {
      // why: the local client only sees its socket close; the reason waits in takeError().
      this.lastError = err instanceof SshTunnelError ? err : new SshTunnelError('forward', String(err), err);
      sock.destroy();
    });
  }

  private session(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.login().finally(() => { this.connecting = undefined; });
    return this.connecting;
  }

  private async login(): Promise<Client> {
    const o = this.options;
    const port = o.port ?? 22;
    const endpoint = `${o.host}:${port}`;
    const cfg: ConnectConfig = {
      host: o.host, port, username: o.username,
      // why: ssh2's ready timer keeps running while the host-key verifier waits for a person to read
      // a fingerprint; the login's own timer below stops for that wait.
      readyTimeout: 0,
      keepaliveInterval: o.keepaliveIntervalMs ?? 10_000,
      keepaliveCountMax: o.keepaliveCountMax ?? 3,
    };
    if (!o.privateKeyPath && !o.agent) {
      throw this.fail(new SshTunnelError('key', `no way to log in to ${this.endpoint}: give a private key file or an ssh-agent socket (SSH_AUTH_SOCK)`));
    }
    if (o.privateKeyPath) {
      let text: Buffer;
      try {
        text = await readFile(o.privateKeyPath);
      } catch (err) {
        throw this.fail(new SshTunnelError('key', `cannot read the SSH private key ${o.privateKeyPath}: ${(err as Error).message}`, err));
      }
      const parsed = sshUtils.parseKey(text, o.passphrase);
      if (parsed instanceof Error) {
        const encrypted = /encrypted|passphrase/i.test(parsed.message);
        throw this.fail(new SshTunnelError('key', encrypted
          ? `the SSH private key ${o.privateKeyPath} is encrypted and ${o.passphrase ? 'the passphrase does not open it' : 'no passphrase was given'} (or use an ssh-agent that holds it)`
          : `${o.privateKeyPath} is not a private key ssh2 can read: ${parsed.message}`, parsed));
      }
      cfg.privateKey = text;
      if (o.passphrase) cfg.passphrase = o.passphrase;
    }
    if (o.agent) cfg.agent = o.agent;
    if (o.jump) {
      this.jumpTunnel ??= new SshTunnel({ ...o.jump });
      try {
        cfg.sock = await this.jumpTunnel.forwardTo(o.host, port) as ConnectConfig['sock'];
      } catch (err) {
        const e = err instanceof SshTunnelError ? err : new SshTunnelError('unreachable', String(err), err);
        throw this.fail(new SshTunnelError(e.kind, `through the jump host ${this.jumpTunnel.endpoint}: ${e.message}`, err));
      }
    }
    let refusedKey = false;
    const budget = o.readyTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const c = new Client();
    /** (Re)starts the login timer with the whole budget; `false` stops it. */
    const loginTimer = (run: boolean): void => {
      clearTimeout(timer);
      timer = undefined;
      if (!run || budget <= 0) return;
      timer = setTimeout(() => {
        const err: SshErr = new Error('Timed out while waiting for handshake');
        err.level = 'client-timeout';
        c.emit('error', err);
        c.destroy();
      }, budget);
    };
    cfg.hostVerifier = (key: Buffer, verify: (ok: boolean) => void): void => {
      const info = hostKeyInfo(key, endpoint);
      this.seenKey = info;
      if (!o.verifyHostKey) { verify(true); return; }
      loginTimer(false);
      Promise.resolve().then(() => o.verifyHostKey!(info)).then((ok) => {
        refusedKey = ok !== true;
        if (ok === true) loginTimer(true);
        verify(ok === true);
      }, () => { refusedKey = true; verify(false); });
    };

    return new Promise<Client>((resolve, reject) => {
      let ready = false;
      let failed = false;
      c.on('ready', () => {
        loginTimer(false);
        if (this.closed) { c.end(); reject(new SshTunnelError('lost', `the tunnel to ${this.endpoint} was closed while logging in`)); return; }
        ready = true;
        this.client = c;
        this.sshConnects++;
        resolve(c);
      });
      // why: ssh2 leaves Nagle on, so a small packet written right after another waits for the
      // peer's delayed ACK, about 40 ms on Linux: in the login itself (the service request after the
      // key exchange: measured 40 ms of a 85 ms login on loopback), and per round trip afterwards
      // (a MySQL query and its result). Set as soon as the TCP connection is up.
      c.on('connect', () => c.setNoDelay(true));
      c.on('error', (err: SshErr) => {
        if (!ready) {
          loginTimer(false);
          failed = true;
          reject(this.fail(refusedKey ? this.hostKeyError() : this.loginError(err)));
          return;
        }
        this.fail(new SshTunnelError('lost', `the SSH connection to ${this.endpoint} was lost (${err.message}); it is reopened on the next request`, err));
      });
      c.on('close', () => {
        loginTimer(false);
        if (this.client === c) this.client = undefined;
        if (!ready && !failed) reject(this.fail(new SshTunnelError('unreachable', `the SSH server ${endpoint} closed the connection during login`)));
      });
      try {
        loginTimer(true);
        c.connect(cfg);
      } catch (err) {
        reject(this.fail(new SshTunnelError('key', `cannot start the SSH login to ${this.endpoint}: ${(err as Error).message}`, err)));
      }
    });
  }

  private fail(e: SshTunnelError): SshTunnelError {
    this.lastError = e;
    return e;
  }

  private hostKeyError(): SshTunnelError {
    // why: a verifier that explained its refusal in its own words (the CLI's) is quoted, not repeated in other words.
    const told = (this.options.verifyHostKey as { refusal?: string } | undefined)?.refusal;
    if (told) return new SshTunnelError('host-key', told);
    const k = this.seenKey;
    return new SshTunnelError('host-key', `the host key of ${this.options.host}:${this.options.port ?? 22} was not accepted`
      + (k ? ` (${k.type} ${k.fingerprint})` : '') + ': check that it is the contest box, then trust that fingerprint');
  }

  private loginError(err: SshErr): SshTunnelError {
    const where = `${this.options.host}:${this.options.port ?? 22}`;
    switch (err.level) {
      case 'client-authentication': {
        const tried = [this.options.privateKeyPath ? `key ${this.options.privateKeyPath}` : '', this.options.agent ? 'the ssh-agent keys' : ''].filter(Boolean).join(' and ');
        return new SshTunnelError('auth', `SSH authentication as ${this.options.username} on ${where} failed: the server accepted none of ${tried}`
          + ' (is the public key in that user\'s authorized_keys?)', err);
      }
      case 'agent':
        return new SshTunnelError('key', `the ssh-agent at ${this.options.agent} cannot be used: ${err.message}`, err);
      case 'client-timeout':
        return new SshTunnelError('timeout', `the SSH server ${where} did not complete the login within ${this.options.readyTimeoutMs ?? 10_000} ms`, err);
      case 'client-dns':
        return new SshTunnelError('unreachable', `cannot resolve the SSH host ${this.options.host} (${err.code ?? err.message})`, err);
      case 'client-socket':
        return new SshTunnelError('unreachable', `cannot reach the SSH server ${where} (${err.code ?? err.message})`, err);
    }
    return new SshTunnelError('unreachable', `the SSH login to ${where} failed: ${err.message}`, err);
  }

  private forwardError(err: SshErr): SshTunnelError {
    const target = describeTarget(this.options.target);
    const detail = err.message.replace(/^\(SSH\) Channel open failure:\s*/, '') || 'no reason given';
    if (err.reason === OPEN_PROHIBITED) {
      return new SshTunnelError('forward', `the SSH server ${this.endpoint} refused to forward to ${target} (${detail}): `
        + `its sshd_config must allow ${this.options.target && 'socketPath' in this.options.target ? 'AllowStreamLocalForwarding' : 'AllowTcpForwarding'} for this user`, err);
    }
    if (err.reason === OPEN_CONNECT_FAILED) {
      return new SshTunnelError('forward', `the box ${this.options.host} cannot reach the database at ${target} (${detail}): `
        + 'is the server running and listening there, as seen from the box?', err);
    }
    return new SshTunnelError('forward', `forwarding to ${target} through ${this.endpoint} failed: ${detail}`, err);
  }
}
