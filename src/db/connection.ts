/**
 * A guarded, read-only mysql2 connection: one statement per call (multipleStatements off),
 * connect and per-query timeouts, reconnect on the next call after a failure, flavor/version
 * detection, and a session that cannot write (SET SESSION TRANSACTION READ ONLY plus the server's
 * statement time limit). Every statement passes guardStatement() with its purpose first.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { checkServerIdentity, type TLSSocket } from 'node:tls';
import * as mysql from 'mysql2/promise';
import type { Flavor } from '../core/model';
import { guardStatement, GuardError, type Purpose } from './guard';
import { SshTunnel, SshTunnelError, describeTarget, type SshErrorKind, type SshOptions } from './sshTunnel';
import { relationKey, storedFunctionCalls } from './statementHazards';
import { checkViews, viewLookupSql, type ViewDefinition, type ViewLookup } from './viewGuard';
import { mysql2Ssl, type TlsOptions } from './tls';
import { describeWait, processStateSql, type ProcessState } from './lockWait';

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
  /** TLS as the mysql client's --ssl-mode / --ssl-ca name it (tls.ts); none when absent. */
  tls?: TlsOptions;
  /**
   * Asked before an EXPLAIN that calls stored functions (lower-case `schema.name` each): the
   * optimizer may run them while it makes the plan. Resolve true to send it. Without this option
   * such statements are refused.
   */
  allowFunctions?: (names: string[]) => boolean | Promise<boolean>;
}

export type DbErrorKind = 'unreachable' | 'auth' | 'unknown-database' | 'unknown-table' | 'unknown-column' | 'syntax'
  | 'timeout' | 'connection-lost' | 'refused' | 'denied' | 'tls' | 'other';

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
export function classifyError(err: unknown, opts: Pick<ConnectionOptions, 'host' | 'port' | 'socket' | 'user' | 'database' | 'tls'>): DbError {
  if (err instanceof DbError) return err;
  if (err instanceof GuardError) return new DbError('refused', err.message);
  if (err instanceof SshTunnelError) return new DbError(SSH_KINDS[err.kind], err.message, `SSH_${err.kind.toUpperCase().replace('-', '_')}`);
  const e = (err ?? {}) as Sql;
  const code = e.code ?? '';
  const where = opts.socket ? `socket ${opts.socket}` : `${opts.host ?? '127.0.0.1'}:${opts.port ?? 3306}`;
  const msg = e.sqlMessage ?? e.message ?? String(err);
  switch (code) {
    case 'ECONNREFUSED': case 'ENOENT': case 'EHOSTUNREACH': case 'ENOTFOUND': case 'EAI_AGAIN':
      return new DbError('unreachable', `cannot reach the database at ${where} (${code})`, code);
    case 'ETIMEDOUT':
      return new DbError('unreachable', `connecting to ${where} timed out`, code);
    case 'HANDSHAKE_NO_SSL_SUPPORT':
      return new DbError('tls', `the server at ${where} does not offer TLS, and ssl-mode ${opts.tls?.mode ?? 'REQUIRED'} needs it `
        + '(PREFERRED falls back to a plain connection, DISABLED never tries TLS)', code);
    case 'HANDSHAKE_SSL_ERROR':
      return new DbError('tls', certificateMessage(msg, where, opts), code);
    case 'ER_SECURE_TRANSPORT_REQUIRED':
      return new DbError('tls', tlsRequiredMessage(where, msg), code);
    case 'ER_ACCESS_DENIED_ERROR': case 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR':
      return new DbError('auth', `access denied for user ${opts.user}: check the password (${msg})`, code);
    case 'ER_DBACCESS_DENIED_ERROR':
      // why: the password was accepted; to a user without privileges on it the server does not say
      // whether the database exists, so both causes are named.
      return new DbError('unknown-database', `user ${opts.user} logged in, but may not use database "${opts.database}" on ${where}: `
        + 'it does not exist, or the user has no privileges on it (the server does not tell which to such a user). '
        + `Check the database name, or GRANT SELECT ON \`${opts.database}\`.* to the user (${msg})`, code);
    case 'ER_BAD_DB_ERROR':
      return new DbError('unknown-database', `database "${opts.database}" does not exist on ${where}`, code);
    case 'ER_TABLEACCESS_DENIED_ERROR': case 'ER_COLUMNACCESS_DENIED_ERROR': case 'ER_SPECIFIC_ACCESS_DENIED_ERROR': case 'ER_VIEW_NO_EXPLAIN':
      // why: the login is in, the statement may be fine; a grant is missing for what it reads (the app's own login may have it).
      return new DbError('denied', `${msg} (GRANT SELECT on it to ${opts.user} to explain it)`, code);
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
  if (e.errno === 3159) return new DbError('tls', tlsRequiredMessage(where, msg), code);
  if (e.errno === 1969 || e.errno === 3024 || /max_statement_time|maximum statement execution time/i.test(msg)) return new DbError('timeout', `the server stopped the statement at its time limit (${msg})`, code);
  if (e.fatal) return new DbError('connection-lost', `the connection failed (${msg}); it is reopened on the next request`, code);
  return new DbError('other', msg, code);
}

/** The server refuses connections without TLS (require_secure_transport=ON). */
export function tlsRequiredMessage(where: string, detail?: string): string {
  return `the server at ${where} accepts only TLS connections (require_secure_transport=ON): connect with ssl-mode REQUIRED, `
    + `or VERIFY_CA with ssl-ca set to the CA that signed the server's certificate${detail ? ` (${detail})` : ''}`;
}

/** Why the server's certificate was not accepted, and what to change. */
function certificateMessage(msg: string, where: string, opts: Pick<ConnectionOptions, 'host' | 'tls'>): string {
  const head = `TLS to ${where}: the server's certificate was not accepted (${msg})`;
  if (/altnames|does not match|Hostname\/IP/i.test(msg)) {
    return `${head}: it does not name ${opts.host ?? '127.0.0.1'}, the host connected to (VERIFY_IDENTITY checks the name, VERIFY_CA does not)`;
  }
  if (/self[- ]signed|unable to (?:get|verify)|certificate chain|issuer/i.test(msg)) {
    return opts.tls?.caFile
      ? `${head}: it is not signed by the CA in ${opts.tls.caFile}; give the CA that signed it as ssl-ca`
      : `${head}: no CA that signed it is known; give it as ssl-ca (without one, the system's CAs are used)`;
  }
  return head;
}

/** One time limit shared by the statements sent for one piece of work (withBudget). */
interface Budget {
  deadline: number;
  ms: number;
  /** The timeout that spent it: later statements of the same work fail with it at once. */
  spent?: DbError;
  /** Views looked up for this work (relationKey → definition, null: not a view), so its EXPLAINs and samples read them once. */
  views?: Map<string, ViewDefinition | null>;
}

/** Share of a statement's time limit after which the process list is read, should it still run. */
const PROBE_AT = 0.6;

export class DbConnection {
  private conn: mysql.Connection | undefined;
  private opening: Promise<mysql.Connection> | undefined;
  /** A second session, opened only to read the process list while a statement waits (lockWait.ts). */
  private side: Promise<mysql.Connection> | undefined;
  private info: ServerInfo | undefined;
  private sshTunnel: SshTunnel | undefined;
  /** Lower-case `schema.name` of the stored functions the user can see, read once per connection. */
  private functions: Promise<Set<string>> | undefined;
  private readonly budgets = new AsyncLocalStorage<Budget>();
  /** Counts reconnects, for status displays and tests. */
  connects = 0;

  constructor(readonly options: ConnectionOptions) {}

  get server(): ServerInfo | undefined { return this.info; }

  /** The SSH tunnel when `options.ssh` is set (its host key, local port, session count), once used. */
  get tunnel(): SshTunnel | undefined { return this.sshTunnel; }

  private get queryTimeout(): number { return this.options.queryTimeoutMs ?? 5000; }

  /** Opens one read-only session (through the tunnel when there is one), not yet adopted as `conn`. */
  private async session(): Promise<mysql.Connection> {
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
    const c = await this.login(where);
    c.on('error', () => {
      if (this.conn === c) this.conn = undefined;
    });
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
      try { c.destroy(); } catch { /* already gone */ }
      throw this.classify(err);
    }
    return c;
  }

  /**
   * Logs in with the TLS the options ask for. PREFERRED falls back to a plain connection only when the
   * server offers no TLS. A plain login refused as "access denied" is tried once more over TLS, only
   * to tell a wrong password from a server that accepts TLS connections only: MariaDB refuses both
   * with the same error.
   */
  private async login(where: { socketPath: string } | { host: string; port: number }): Promise<mysql.Connection> {
    const o = this.options;
    const base: mysql.ConnectionOptions = {
      ...where,
      user: o.user, password: o.password ?? '', database: o.database,
      connectTimeout: o.connectTimeoutMs ?? 5000,
      multipleStatements: false,
      // why: dates as text keep sampled values exactly as the server prints them for re-use in SQL.
      dateStrings: true, supportBigNumbers: true, bigNumberStrings: true,
    };
    const ssl = mysql2Ssl(o.tls);
    let c: mysql.Connection;
    try {
      c = await mysql.createConnection(ssl ? { ...base, ssl } : base);
    } catch (err) {
      const code = (err as Sql).code;
      if (o.tls?.mode === 'PREFERRED' && code === 'HANDSHAKE_NO_SSL_SUPPORT') return this.plainLogin(base);
      if (!ssl && !('socketPath' in where) && code === 'ER_ACCESS_DENIED_ERROR' && await this.tlsOnly(base)) {
        throw new DbError('tls', tlsRequiredMessage(this.where(), 'the plain login was refused as "access denied"'), 'QI_TLS_REQUIRED');
      }
      throw this.classify(err);
    }
    // why: the name is that of the host as given (as seen from the box, through a tunnel); mysql2 checks
    // none for an IP address, and through a tunnel it connects to the tunnel's local end.
    if (ssl && o.tls?.mode === 'VERIFY_IDENTITY') {
      const stream = (c as unknown as { connection?: { stream?: TLSSocket } }).connection?.stream;
      const cert = stream?.getPeerCertificate?.();
      const bad = cert ? checkServerIdentity(o.socket ? 'localhost' : o.host ?? '127.0.0.1', cert) : new Error('no certificate');
      if (bad) {
        c.destroy();
        throw new DbError('tls', certificateMessage(bad.message, this.where(), o), 'HANDSHAKE_SSL_ERROR');
      }
    }
    return c;
  }

  private async plainLogin(base: mysql.ConnectionOptions): Promise<mysql.Connection> {
    try {
      return await mysql.createConnection(base);
    } catch (err) {
      throw this.classify(err);
    }
  }

  /** True when the same login succeeds over TLS (certificate unchecked: only the server's rule is in question). */
  private async tlsOnly(base: mysql.ConnectionOptions): Promise<boolean> {
    try {
      const c = await mysql.createConnection({ ...base, ssl: { rejectUnauthorized: false } });
      await c.end().catch(() => c.destroy());
      return true;
    } catch {
      return false;
    }
  }

  /** The server as the options name it (`127.0.0.1:3306`, `socket /path`), for messages. */
  private where(): string {
    const o = this.options;
    return o.socket ? `socket ${o.socket}` : `${o.host ?? '127.0.0.1'}:${o.port ?? 3306}`;
  }

  private async open(): Promise<mysql.Connection> {
    const c = await this.session();
    this.conn = c;
    this.connects++;
    this.functions = undefined;
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

  private async raw(c: mysql.Connection, purpose: Purpose, sql: string, confirmed = false, timeout = this.queryTimeout): Promise<[unknown, unknown]> {
    guardStatement(sql, purpose, { confirmed });
    return await c.query({ sql, timeout }) as [unknown, unknown];
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
   * Runs `fn` with one time limit (queryTimeoutMs) for every statement it sends, as the explanation
   * of one statement needs: its sampling reads and its EXPLAINs together wait at most that long,
   * and once one of them ran out of time (a lock) the others fail at once with the same error.
   */
  withBudget<T>(fn: () => Promise<T>): Promise<T> {
    if (this.budgets.getStore()) return fn();
    const ms = this.queryTimeout;
    return this.budgets.run({ deadline: Date.now() + ms, ms }, fn);
  }

  /**
   * Sends one statement after the guard has accepted it for `purpose`; returns the rows.
   * On a lost connection or a timeout the connection is dropped and the next call reconnects.
   * An EXPLAIN that calls stored functions is sent only when `options.allowFunctions` allows them.
   */
  async query<T = Record<string, unknown>>(purpose: Purpose, sql: string, opts: { confirmed?: boolean } = {}): Promise<T[]> {
    try {
      guardStatement(sql, purpose, opts);
    } catch (err) {
      throw classifyError(err, this.options);
    }
    const budget = this.budgets.getStore();
    if (budget?.spent) throw budget.spent;
    // why: a view's text is code the server runs for a statement over it; its calls are judged like the statement's.
    if (purpose === 'explain' || purpose === 'analyze' || purpose === 'sample') await this.checkViews(sql);
    if (purpose === 'explain') await this.checkFunctions(sql);
    const c = await this.connection();
    const timeout = budget ? budget.deadline - Date.now() : this.queryTimeout;
    if (budget && timeout <= 0) {
      budget.spent = new DbError('timeout', `the time limit of ${budget.ms} ms was spent before this statement`);
      throw budget.spent;
    }
    // why: a statement still running near its limit is usually waiting for a lock; the process list
    // says which, and only while it waits.
    let probing: Promise<ProcessState | undefined> | undefined;
    const thread = c.threadId;
    const timer = setTimeout(() => { probing = this.probe(thread); }, Math.max(50, Math.floor(timeout * PROBE_AT)));
    try {
      const [rows] = await this.raw(c, purpose, sql, opts.confirmed, timeout);
      return rows as T[];
    } catch (err) {
      let e = this.classify(err);
      if (e.kind === 'timeout' || e.kind === 'connection-lost' || (err as Sql).fatal) this.drop(c);
      if (e.kind === 'timeout') {
        const seen = await probing;
        e = new DbError('timeout', describeWait(budget?.ms ?? this.queryTimeout, seen, e.message), e.code);
        if (budget) budget.spent = e;
      }
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The process-list state of `thread`, read over the side session; undefined when it cannot be read. */
  private async probe(thread: number | null): Promise<ProcessState | undefined> {
    if (!thread) return undefined;
    try {
      this.side ??= this.session();
      const s = await this.side;
      const [rows] = await this.raw(s, 'schema', processStateSql(thread), false, 2000);
      const r = (rows as Record<string, unknown>[])[0];
      if (!r) return undefined;
      const time = Number(r.TIME ?? r.time);
      return { state: String(r.STATE ?? r.state ?? ''), ...(Number.isFinite(time) ? { time } : {}) };
    } catch {
      const s = this.side;
      this.side = undefined;
      void s?.then((x) => x.destroy(), () => undefined);
      return undefined;
    }
  }

  /** Lower-case `schema.name` of the stored functions the user can see, read once per connection. */
  private async knownFunctions(): Promise<Set<string>> {
    const p = this.functions ??= this.query<Record<string, unknown>>('schema',
      "SELECT ROUTINE_SCHEMA, ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_TYPE = 'FUNCTION'")
      .then((rows) => new Set(rows.map((r) => `${String(r.ROUTINE_SCHEMA)}.${String(r.ROUTINE_NAME)}`.toLowerCase())));
    try {
      return await p;
    } catch (err) {
      if (this.functions === p) this.functions = undefined;
      throw err;
    }
  }

  /** Refuses an EXPLAIN calling stored functions unless `allowFunctions` allows each of them. */
  private async checkFunctions(sql: string): Promise<void> {
    if (!sql.includes('(')) return;
    const calls = storedFunctionCalls(sql, await this.knownFunctions(), this.options.database);
    if (calls.length === 0) return;
    if (await this.allowed(calls)) return;
    const many = calls.length > 1;
    throw new DbError('refused', `calls the stored function${many ? 's' : ''} ${calls.join(', ')}: the optimizer may run ${many ? 'them' : 'it'} `
      + `while it makes the plan, with whatever ${many ? 'they do' : 'it does'} (locks, waits, writes to other sessions' state), `
      + `so the statement is explained only once you allow ${many ? 'each of them' : 'it'}`, 'QI_STORED_FUNCTION');
  }

  private async allowed(functions: string[]): Promise<boolean> {
    const allow = this.options.allowFunctions;
    return !!allow && await allow(functions) === true;
  }

  /**
   * Refuses a statement over views whose definitions call a side-effect function or cannot be read,
   * and one over views calling stored functions unless `allowFunctions` allows each (viewGuard.ts).
   */
  private async checkViews(sql: string): Promise<void> {
    const budget = this.budgets.getStore();
    const cache = budget ? budget.views ??= new Map() : undefined;
    const lookup: ViewLookup = async (names) => {
      const ask = cache ? names.filter((n) => !cache.has(relationKey(n))) : names;
      const rows = ask.length ? await this.query<Record<string, unknown>>('schema', viewLookupSql(ask)) : [];
      const found: ViewDefinition[] = rows.map((r) => ({ schema: String(r.TABLE_SCHEMA), name: String(r.TABLE_NAME), definition: String(r.VIEW_DEFINITION ?? '') }));
      if (!cache) return found;
      for (const n of ask) cache.set(relationKey(n), null);
      for (const v of found) cache.set(relationKey({ schema: v.schema.toLowerCase(), name: v.name.toLowerCase() }), v);
      return names.map((n) => cache.get(relationKey(n))).filter((v): v is ViewDefinition => !!v);
    };
    const r = await checkViews(sql, this.options.database, lookup, () => this.knownFunctions());
    if (r.refusal) throw new DbError('refused', r.refusal, 'QI_VIEW');
    if (r.functions.length === 0) return;
    const names = [...new Set(r.functions.map((f) => f.name))];
    if (await this.allowed(names)) return;
    const calls = r.functions.map((f) => `the view ${f.view} calls the stored function ${f.name}`).join('; ');
    const many = names.length > 1;
    throw new DbError('refused', `${calls}: the optimizer may run ${many ? 'them' : 'it'} while it makes the plan of a statement over the view, `
      + `with whatever ${many ? 'they do' : 'it does'} (locks, waits, writes), so the statement is explained only once you allow ${many ? 'each of them' : 'it'}`, 'QI_STORED_FUNCTION');
  }

  /** The server's thread id of the open connection (for tests that kill it), undefined when closed. */
  get threadId(): number | undefined { return this.conn?.threadId ?? undefined; }

  async close(): Promise<void> {
    const c = this.conn;
    this.conn = undefined;
    if (c) await c.end().catch(() => c.destroy());
    const side = this.side;
    this.side = undefined;
    if (side) await side.then((x) => x.end().catch(() => x.destroy()), () => undefined);
    const t = this.sshTunnel;
    this.sshTunnel = undefined;
    if (t) await t.close();
  }
}
