/**
 * A guarded, read-only mysql2 connection: one statement per call (multipleStatements off),
 * connect and per-query timeouts, reconnect on the next call after a failure, flavor/version
 * detection, and a session that cannot write (SET SESSION TRANSACTION READ ONLY plus the server's
 * statement time limit). Every statement passes guardStatement() with its purpose first.
 */
import * as mysql from 'mysql2/promise';
import type { Flavor } from '../core/model';
import { guardStatement, GuardError, type Purpose } from './guard';
import { SshTunnel, SshTunnelError, describeTarget, type SshErrorKind, type SshOptions } from './sshTunnel';

export interface ConnectionOptions {
  host?: string;
  port?: number;
  /** Unix socket path; used instead of host/port when set. */
  socket?: string;
  user: string;
  /** Supplied by the caller (SecretStorage, MYSQL_PWD, a prompt); never read from settings. */
  password?: string;
  database: string;
  /** Default 5000 ms. */
  connectTimeoutMs?: number;
  /** Client-side limit per statement; also sent as the server's statement time limit. Default 5000 ms. */
  queryTimeoutMs?: number;
  /**
   * Reach the server through an SSH tunnel to this box. host/port (or socket) then name the
   * database as seen from the box: typically 127.0.0.1:3306 or /var/run/mysqld/mysqld.sock.
   */
  ssh?: SshOptions;
}

export type DbErrorKind = 'unreachable' | 'auth' | 'unknown-database' | 'unknown-table' | 'unknown-column' | 'syntax'
  | 'timeout' | 'connection-lost' | 'refused' | 'other';

/** A failure with a kind a front end can act on and a message a person can read. */
export class DbError extends Error {
  constructor(readonly kind: DbErrorKind, message: string, readonly code?: string) { super(message); this.name = 'DbError'; }
}

export interface ServerInfo {
  flavor: Flavor;
  /** As VERSION() prints it: `10.11.6-MariaDB-0+deb12u1`, `8.0.36`. */
  version: string;
  major: number;
  minor: number;
}

/** Reads flavor and version from VERSION() text. */
export function parseServerVersion(v: string): ServerInfo {
  const m = /^(\d+)\.(\d+)/.exec(v);
  const flavor: Flavor = /mariadb/i.test(v) ? 'mariadb' : 'mysql';
  return { flavor, version: v, major: m ? Number(m[1]) : 0, minor: m ? Number(m[2]) : 0 };
}

/** How tunnel failures read to front ends (DbError.code is `SSH_<KIND>` to tell them apart). */
const SSH_KINDS: Record<SshErrorKind, DbErrorKind> = {
  auth: 'auth', key: 'auth', 'host-key': 'auth', unreachable: 'unreachable', timeout: 'unreachable', forward: 'unreachable', lost: 'connection-lost',
};

type Sql = { code?: string; errno?: number; sqlMessage?: string; message?: string; fatal?: boolean };

/** Turns a driver error into a DbError with a clear message. */
export function classifyError(err: unknown, opts: Pick<ConnectionOptions, 'host' | 'port' | 'socket' | 'user' | 'database'>): DbError {
  if (err instanceof DbError) return err;
  if (err instanceof GuardError) return new DbError('refused', err.message);
  if (err instanceof SshTunnelError) return new DbError(SSH_KINDS[err.kind], err.message, `SSH_${err.kind.toUpperCase().replace('-', '_')}`);
  const e = (err ?? {}) as Sql;
  const code = e.code ?? '';
  const where = opts.socket ? `socket ${opts.socket}` : `${opts.host ?? 'localhost'}:${opts.port ?? 3306}`;
  const msg = e.sqlMessage ?? e.message ?? String(err);
  switch (code) {
    case 'ECONNREFUSED': case 'ENOENT': case 'EHOSTUNREACH': case 'ENOTFOUND': case 'EAI_AGAIN':
      return new DbError('unreachable', `cannot reach the database at ${where} (${code})`, code);
    case 'ETIMEDOUT':
      return new DbError('unreachable', `connecting to ${where} timed out`, code);
    case 'ER_ACCESS_DENIED_ERROR': case 'ER_DBACCESS_DENIED_ERROR': case 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR':
      return new DbError('auth', `access denied for user ${opts.user}: check the password (${msg})`, code);
    case 'ER_BAD_DB_ERROR':
      return new DbError('unknown-database', `database "${opts.database}" does not exist on ${where}`, code);
    case 'ER_NO_SUCH_TABLE':
      return new DbError('unknown-table', msg, code);
    case 'ER_BAD_FIELD_ERROR':
      return new DbError('unknown-column', msg, code);
    case 'ER_PARSE_ERROR':
      return new DbError('syntax', `the server cannot parse the statement: ${msg}`, code);
    case 'PROTOCOL_SEQUENCE_TIMEOUT': case 'ER_QUERY_TIMEOUT': case 'ER_STATEMENT_TIMEOUT': case 'ER_LOCK_WAIT_TIMEOUT':
      return new DbError('timeout', `the server did not answer in time (${msg})`, code);
    case 'PROTOCOL_CONNECTION_LOST': case 'ECONNRESET': case 'EPIPE': case 'ER_CONNECTION_KILLED': case 'ER_SERVER_SHUTDOWN':
    case 'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR': case 'ER_CLIENT_INTERACTION_TIMEOUT':
      return new DbError('connection-lost', `the connection to ${where} was lost (${code}); it is reopened on the next request`, code);
  }
  if (e.errno === 1969 || e.errno === 3024 || /max_statement_time|maximum statement execution time/i.test(msg)) return new DbError('timeout', `the server stopped the statement at its time limit (${msg})`, code);
  if (e.fatal) return new DbError('connection-lost', `the connection failed (${msg}); it is reopened on the next request`, code);
  return new DbError('other', msg, code);
}

export class DbConnection {
  private conn: mysql.Connection | undefined;
  private opening: Promise<mysql.Connection> | undefined;
  private info: ServerInfo | undefined;
  private sshTunnel: SshTunnel | undefined;
  /** Counts reconnects, for status displays and tests. */
  connects = 0;

  constructor(readonly options: ConnectionOptions) {}

  get server(): ServerInfo | undefined { return this.info; }

  /** The SSH tunnel when `options.ssh` is set (its host key, local port, session count), once used. */
  get tunnel(): SshTunnel | undefined { return this.sshTunnel; }

  private get queryTimeout(): number { return this.options.queryTimeoutMs ?? 5000; }

  private async open(): Promise<mysql.Connection> {
    const o = this.options;
    let where: { socketPath: string } | { host: string; port: number } = o.socket ? { socketPath: o.socket } : { host: o.host ?? '127.0.0.1', port: o.port ?? 3306 };
    if (o.ssh) {
      this.sshTunnel ??= new SshTunnel({ ...o.ssh, target: 'socketPath' in where ? { socketPath: where.socketPath } : where });
      this.sshTunnel.takeError();
      try {
        where = await this.sshTunnel.open();
      } catch (err) {
        throw classifyError(err, o);
      }
    }
    let c: mysql.Connection;
    try {
      c = await mysql.createConnection({
        ...where,
        user: o.user, password: o.password ?? '', database: o.database,
        connectTimeout: o.connectTimeoutMs ?? 5000,
        multipleStatements: false,
        // why: dates as text keep sampled values exactly as the server prints them for re-use in SQL.
        dateStrings: true, supportBigNumbers: true, bigNumberStrings: true,
      });
    } catch (err) {
      throw this.classify(err);
    }
    c.on('error', () => { if (this.conn === c) this.conn = undefined; });
    this.conn = c;
    this.connects++;
    try {
      const [rows] = await this.raw(c, 'schema', 'SELECT VERSION()');
      const v = String(Object.values((rows as Record<string, unknown>[])[0])[0]);
      this.info = parseServerVersion(v);
      await this.raw(c, 'set', 'SET SESSION TRANSACTION READ ONLY');
      const secs = Math.max(1, Math.ceil(this.queryTimeout / 1000));
      // why: the client-side timeout leaves the server thread running; the server's own limits end it.
      if (this.info.flavor === 'mariadb' && (this.info.major > 10 || this.info.minor >= 1)) {
        await this.raw(c, 'set', `SET SESSION max_statement_time = ${secs}`);
      } else if (this.info.flavor === 'mysql' && (this.info.major > 5 || this.info.minor >= 7)) {
        await this.raw(c, 'set', `SET SESSION max_execution_time = ${secs * 1000}`);
      }
      await this.raw(c, 'set', `SET SESSION lock_wait_timeout = ${secs}`);
    } catch (err) {
      this.drop(c);
      throw this.classify(err);
    }
    return c;
  }

  /** A driver error, or the tunnel's reason when the tunnel is why the connection failed. */
  private classify(err: unknown): DbError {
    const e = classifyError(err, this.options);
    if (!this.sshTunnel || (e.kind !== 'connection-lost' && e.kind !== 'unreachable' && e.kind !== 'timeout')) return e;
    const t = this.sshTunnel.takeError();
    if (t) return classifyError(t, this.options);
    if (e.kind === 'connection-lost' || e.kind === 'unreachable') {
      return new DbError(e.kind, `${e.message} (through the SSH tunnel ${this.sshTunnel.endpoint} to ${describeTarget(this.sshTunnel.options.target)})`, e.code);
    }
    return e;
  }

  private drop(c: mysql.Connection): void {
    if (this.conn === c) this.conn = undefined;
    try { c.destroy(); } catch { /* already gone */ }
  }

  private async raw(c: mysql.Connection, purpose: Purpose, sql: string, confirmed = false): Promise<[unknown, unknown]> {
    guardStatement(sql, purpose, { confirmed });
    return await c.query({ sql, timeout: this.queryTimeout }) as [unknown, unknown];
  }

  /** Opens the connection if needed (reconnecting after a failure). Returns the server's flavor and version. */
  async connect(): Promise<ServerInfo> {
    await this.connection();
    return this.info!;
  }

  private async connection(): Promise<mysql.Connection> {
    if (this.conn) return this.conn;
    this.opening ??= this.open().finally(() => { this.opening = undefined; });
    return this.opening;
  }

  /**
   * Sends one statement after the guard has accepted it for `purpose`; returns the rows.
   * On a lost connection or a timeout the connection is dropped and the next call reconnects.
   */
  async query<T = Record<string, unknown>>(purpose: Purpose, sql: string, opts: { confirmed?: boolean } = {}): Promise<T[]> {
    try {
      guardStatement(sql, purpose, opts);
    } catch (err) {
      throw classifyError(err, this.options);
    }
    const c = await this.connection();
    try {
      const [rows] = await this.raw(c, purpose, sql, opts.confirmed);
      return rows as T[];
    } catch (err) {
      const e = this.classify(err);
      if (e.kind === 'timeout' || e.kind === 'connection-lost' || (err as Sql).fatal) this.drop(c);
      throw e;
    }
  }

  /** The server's thread id of the open connection (for tests that kill it), undefined when closed. */
  get threadId(): number | undefined { return this.conn?.threadId ?? undefined; }

  async close(): Promise<void> {
    const c = this.conn;
    this.conn = undefined;
    if (c) await c.end().catch(() => c.destroy());
    const t = this.sshTunnel;
    this.sshTunnel = undefined;
    if (t) await t.close();
  }
}
