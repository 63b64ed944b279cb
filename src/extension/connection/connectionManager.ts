/**
 * Owns the one database connection of the window: built lazily from the connection settings and
 * the password in SecretStorage the first time a feature needs it, reconnected after a failure (on
 * the next need after a short pause, or at once by "Connect to database"), rebuilt when the
 * settings or the password change. Everything tied to a connection (the ExplainService and its
 * plan cache, per-connection caches of features) lives in a session whose disposables are cleared
 * together when the connection goes away.
 */
import type { WorkloadStatement } from '../../core/analysis/workloadAdvice';
import * as vscode from 'vscode';
import { DbConnection, DbError, type DbErrorKind, type ServerInfo } from '../../db/connection';
import { ExplainService, type ExplainResult } from '../../db/explainService';
import { sshOptionsFromSettings, type HostKeyInfo, type SshOptions, type SshSettings } from '../../db/sshTunnel';
import { knownHostsVerifier } from '../../node/ssh/knownHostsStore';
import { resolveSshLogin } from '../../node/ssh/sshLogin';
import { loadTls } from '../../node/tlsCa';
import type { TlsOptions } from '../../db/tls';
import type { Schema } from '../../core/model';
import type { SchemaFileTables } from '../../core/plan/explainFailure';
import type { Logger } from '../logger';
import { isConfigured, secretKey, targetLabel, viaSshLabel, type ConnectionSettings } from './connectionProfile';

export type ConnectionState =
  | { kind: 'unconfigured' }
  | { kind: 'untrusted' }
  | { kind: 'idle'; target: string }
  | { kind: 'connecting'; target: string }
  | { kind: 'connected'; target: string; server: ServerInfo }
  | { kind: 'failing'; target: string; reason: string; errorKind: DbErrorKind | 'other' };

/** Errors that say the connection, not the statement, is the problem. */
const CONNECTION_KINDS: ReadonlySet<string> = new Set(['unreachable', 'auth', 'unknown-database', 'connection-lost', 'tls']);

/** After a connection failure, automatic attempts pause this long (an explicit connect does not wait). */
const RETRY_AFTER_MS = 15_000;

/** The globalState key where earlier versions kept the host key trusted for `host:port` (moved to known_hosts on use). */
function hostKeyMemo(endpoint: string): string {
  return `queryInsight.sshHostKey:${endpoint}`;
}

/** The workspaceState key that records the user allowed EXPLAIN to call a stored function (`schema.name`). */
function allowedFunctionMemo(name: string): string {
  return `queryInsight.allowFunction:${name}`;
}

/** One live connection and what hangs on it. */
export class ConnectionSession implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  /** Per-connection values of features (advice per statement …), dropped with the session. */
  readonly memo = new Map<string, unknown>();

  constructor(readonly service: ExplainService, readonly settings: ConnectionSettings) {}

  /** Ties a disposable to this connection: disposed when the connection goes away. */
  track<T extends vscode.Disposable>(d: T): T { this.disposables.push(d); return d; }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
    this.memo.clear();
    void this.service.close().catch(() => undefined);
  }
}

export class ConnectionManager implements vscode.Disposable {
  private settings: ConnectionSettings | undefined;
  private ssh: SshSettings | undefined;
  private session: ConnectionSession | undefined;
  private connecting: Promise<ConnectionSession | undefined> | undefined;
  private failedAt = 0;
  /** Why the last host-key check refused (a changed key), for the failing state's reason. */
  private refusal: string | undefined;
  private readonly warnedKeys = new Set<string>();
  /** Stored functions the user declined in this window (asked again after a reload). */
  private readonly declinedFunctions = new Set<string>();
  private readonly askingFunction = new Map<string, Promise<boolean>>();
  private current: ConnectionState = { kind: 'unconfigured' };
  private readonly stateEmitter = new vscode.EventEmitter<ConnectionState>();
  private readonly schemaEmitter = new vscode.EventEmitter<number>();
  private readonly subscriptions: vscode.Disposable[] = [this.stateEmitter, this.schemaEmitter];

  /** Fires on every state change (connecting, connected, failing …). */
  readonly onDidChangeState = this.stateEmitter.event;
  /** Fires with the new schema generation after a connect or a schema refresh (cached plans are stale). */
  readonly onDidChangeSchema = this.schemaEmitter.event;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly logger: Logger,
    /** Where earlier versions remembered accepted SSH host keys; read once per key to move it to known_hosts. */
    private readonly hostKeys: vscode.Memento,
    /** Remembers, per workspace, the stored functions EXPLAIN may call. */
    private readonly allowedFunctions?: vscode.Memento,
    /** What the workspace's schema files define: an EXPLAIN failure on a table of another database is judged by it. */
    private readonly workspaceTables?: () => Promise<readonly SchemaFileTables[]>,
    /** Every statement of the workspace: the advice of each is its share of the workload's index set. */
    private readonly workload?: () => readonly WorkloadStatement[],
  ) {
    this.subscriptions.push(
      secrets.onDidChange((e) => {
        if (this.settings && e.key === secretKey(this.settings)) { this.logger.info('database password changed'); this.reset(); }
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => { if (this.settings) this.configure(this.settings, true); }),
    );
  }

  get state(): ConnectionState { return this.current; }

  /** The open session, without connecting. */
  get live(): ConnectionSession | undefined { return this.current.kind === 'connected' ? this.session : undefined; }

  /** New connection settings (from the config change handler, which also runs at start-up). */
  configure(settings: ConnectionSettings, force = false): void {
    const same = JSON.stringify(settings) === JSON.stringify(this.settings);
    this.settings = settings;
    if (same && !force) return;
    this.reset();
  }

  /** New SSH tunnel settings (`connection.ssh.*`); an empty host means a direct connection. */
  configureSsh(ssh: SshSettings): void {
    const same = JSON.stringify(ssh) === JSON.stringify(this.ssh);
    this.ssh = ssh;
    if (!same) this.reset();
  }

  /**
   * The SSH login of the settings, through ~/.ssh/config (the host may be a Host alias), with host
   * keys checked against ~/.ssh/known_hosts, the store `ssh` and the CLI use: an unlisted key is shown
   * to the user and added there when accepted; a changed or revoked key is refused.
   */
  private sshLogin(): SshOptions | undefined {
    const s = this.ssh ? sshOptionsFromSettings(this.ssh, process.env) : undefined;
    if (!s || !this.ssh) return undefined;
    const login = resolveSshLogin({
      host: s.host,
      // why: the settings' defaults (port 22, no user, no key) must not hide the config's Port, User, IdentityFile.
      ...(this.ssh.user.trim() ? { user: s.username } : {}), ...(s.port !== 22 ? { port: s.port } : {}),
      ...(s.privateKeyPath ? { privateKeyPath: s.privateKeyPath } : {}), useAgent: this.ssh.useAgent,
    }, process.env, (host, port, knownHosts) => knownHostsVerifier(host, port, {
      paths: knownHosts,
      confirmNew: (key, name) => this.confirmHostKey(key, name),
      tell: (message, what) => { if (what === 'added') this.logger.info(message); else this.refuseHostKey(message, `${host}:${port}`); },
    }));
    for (const note of login.notes) this.logger.info(`ssh config: ${note}`);
    return login.options;
  }

  private refuseHostKey(message: string, endpoint: string): void {
    this.refusal = `${message}; Query Insight does not connect.`;
    // why: automatic retries (hover, diagnostics) would repeat the notification; once per refusal.
    if (this.warnedKeys.has(`${endpoint} ${message}`)) this.logger.error(this.refusal);
    else {
      this.warnedKeys.add(`${endpoint} ${message}`);
      this.logger.showError('Query Insight: SSH host key refused', new Error(this.refusal));
    }
  }

  /** A host key known_hosts does not list: asked in a modal (or trusted already in the old per-extension store). */
  private async confirmHostKey(key: HostKeyInfo, name: string): Promise<boolean> {
    this.refusal = undefined;
    // why: earlier versions kept accepted keys in globalState; such a key moves to known_hosts without a second question.
    const legacy = this.hostKeys.get<string>(hostKeyMemo(key.endpoint));
    if (legacy !== undefined) await this.hostKeys.update(hostKeyMemo(key.endpoint), undefined);
    if (legacy === key.fingerprint) {
      this.logger.info(`the SSH host key ${key.fingerprint} of ${name}, trusted earlier in Query Insight, moves to ~/.ssh/known_hosts`);
      return true;
    }
    const trust = 'Trust and connect';
    const answer = await vscode.window.showWarningMessage(
      `Query Insight: first connection to the SSH host ${name}. Its ${key.type} key fingerprint is ${key.fingerprint}. `
      + 'Trust it? It is added to ~/.ssh/known_hosts, as ssh does.',
      { modal: true }, trust);
    return answer === trust;
  }

  /**
   * Whether an EXPLAIN may call these stored functions: asked once per function in a modal (the
   * optimizer may run a stored function while it makes the plan); "allow" is kept in workspace
   * state, a refusal for this window.
   */
  private async allowFunctions(names: string[]): Promise<boolean> {
    for (const name of names) {
      if (this.allowedFunctions?.get<boolean>(allowedFunctionMemo(name)) === true) continue;
      if (this.declinedFunctions.has(name)) return false;
      let asking = this.askingFunction.get(name);
      if (!asking) {
        asking = this.askFunction(name).finally(() => this.askingFunction.delete(name));
        this.askingFunction.set(name, asking);
      }
      if (!await asking) return false;
    }
    return true;
  }

  private async askFunction(name: string): Promise<boolean> {
    const allow = 'Allow EXPLAIN to call it';
    const answer = await vscode.window.showWarningMessage(
      `Query Insight: this statement calls the stored function ${name}. The optimizer may run it while it makes the plan, `
      + `with whatever it does (locks, waits, changes to session state). Explain statements that call ${name}?`,
      { modal: true }, allow);
    if (answer !== allow) {
      this.declinedFunctions.add(name);
      this.logger.info(`stored function ${name}: EXPLAIN not allowed to call it (asked again after a reload)`);
      return false;
    }
    await this.allowedFunctions?.update(allowedFunctionMemo(name), true);
    this.logger.info(`stored function ${name}: EXPLAIN allowed to call it in this workspace`);
    return true;
  }

  /** Drops the connection and everything tied to it; the next need connects again. */
  private reset(): void {
    this.session?.dispose();
    this.session = undefined;
    this.connecting = undefined;
    this.failedAt = 0;
    const s = this.settings;
    if (!vscode.workspace.isTrusted) this.setState({ kind: 'untrusted' });
    else if (!s || !isConfigured(s)) this.setState({ kind: 'unconfigured' });
    else this.setState({ kind: 'idle', target: this.label(s) });
  }

  /** `user@host:port/db`, plus ` via SSH user@host` when tunnelled. */
  private label(settings: ConnectionSettings): string {
    return targetLabel(settings) + viaSshLabel(this.ssh ? sshOptionsFromSettings(this.ssh, process.env) : undefined);
  }

  private setState(s: ConnectionState): void {
    this.current = s;
    this.stateEmitter.fire(s);
  }

  /**
   * The live session, connecting first when needed. Undefined when not configured, untrusted, or
   * failing within the retry pause (unless `force`, as an explicit connect does).
   */
  async ensure(force = false): Promise<ConnectionSession | undefined> {
    if (this.current.kind === 'connected' && this.session) return this.session;
    if (this.current.kind === 'unconfigured' || this.current.kind === 'untrusted') return undefined;
    if (this.current.kind === 'failing' && !force && Date.now() - this.failedAt < RETRY_AFTER_MS) return undefined;
    this.connecting ??= this.open().finally(() => { this.connecting = undefined; });
    return this.connecting;
  }

  /**
   * Connects anew now, as "Connect to database" asks: the current connection is dropped first, so a
   * tunnel that died quietly, or a server that changed (its SSH host key), shows now rather than on
   * the next uncached statement. Resolves with the state reached.
   */
  async reconnect(): Promise<ConnectionState> {
    this.reset();
    await this.ensure(true);
    return this.current;
  }

  private async open(): Promise<ConnectionSession | undefined> {
    const settings = this.settings!;
    const target = this.label(settings);
    this.setState({ kind: 'connecting', target });
    const password = await this.secrets.get(secretKey(settings));
    // why: no passphrase prompt here; an encrypted key is used through ssh-agent (connection.ssh.useAgent).
    const ssh = this.sshLogin();
    if (ssh) this.logger.info(`connecting through an SSH tunnel to ${ssh.username}@${ssh.host}:${ssh.port ?? 22}`);
    let tls: TlsOptions | undefined;
    try {
      tls = await loadTls({
        mode: settings.sslMode, ca: settings.sslCa, cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd(),
        modeName: 'queryInsight.connection.sslMode', caName: 'queryInsight.connection.sslCa',
      });
    } catch (err) {
      if (this.settings === settings) this.fail(target, new DbError('tls', (err as Error).message));
      return undefined;
    }
    const db = new DbConnection({
      ...(settings.socket ? { socket: settings.socket } : { host: settings.host, port: settings.port }),
      ...(tls ? { tls } : {}),
      user: settings.user, password, database: settings.database,
      allowFunctions: (names: string[]) => this.allowFunctions(names),
      ...(ssh ? { ssh } : {}),
    });
    const service = new ExplainService(db, { ...(this.workspaceTables ? { workspaceTables: this.workspaceTables } : {}), ...(this.workload ? { workload: this.workload } : {}) });
    try {
      const server = await db.connect();
      const schema = await service.schema();
      // why: settings may have changed while connecting; the newer configure() owns the state then.
      if (this.settings !== settings) { void service.close(); return undefined; }
      this.session = new ConnectionSession(service, settings);
      this.logger.info(`connected to ${target}: ${server.flavor} ${server.version}, ${Object.keys(schema.tables).length} tables`);
      this.setState({ kind: 'connected', target, server });
      this.schemaEmitter.fire(schema.generation);
      return this.session;
    } catch (err) {
      void service.close().catch(() => undefined);
      if (this.settings !== settings) return undefined;
      this.fail(target, err);
      return undefined;
    }
  }

  private fail(target: string, err: unknown): void {
    const kind = err instanceof DbError ? err.kind : 'other';
    // why: the tunnel only knows the verifier said no; a changed key deserves the manager's own words.
    const message = err instanceof Error ? err.message : String(err);
    const reason = this.refusal && /host key/.test(message) ? this.refusal : message;
    this.failedAt = Date.now();
    this.logger.error(`connection to ${target} failed (${kind})`, err);
    this.setState({ kind: 'failing', target, reason, errorKind: kind });
  }

  /**
   * Explains a statement over the live connection (connecting first when needed), its `LIMIT ?` at `limit` when the code's value is known. Undefined when
   * there is no connection to use; a connection-level error in the result turns the state to failing.
   */
  async explain(sql: string, limit?: number): Promise<{ result: ExplainResult; session: ConnectionSession } | undefined> {
    const session = await this.ensure();
    if (!session) return undefined;
    const result = await session.service.explainSql(sql, limit);
    if (result.error && CONNECTION_KINDS.has(result.error.kind) && this.session === session) {
      this.session = undefined;
      session.dispose();
      this.fail(this.label(session.settings), new DbError(result.error.kind as DbErrorKind, result.error.message));
    }
    return { result, session };
  }

  /**
   * Re-reads the schema (after DDL): cached plans of the old generation miss from now on. `force`
   * connects even within the retry pause after a failure (an explicit command).
   */
  async refreshSchema(force = false): Promise<Schema | undefined> {
    const session = await this.ensure(force);
    if (!session) return undefined;
    let schema: Schema;
    try {
      schema = await session.service.refreshSchema();
    } catch (err) {
      // why: reading the schema is the first thing to notice a dead connection (a dropped tunnel).
      if (!(err instanceof DbError) || !CONNECTION_KINDS.has(err.kind) || this.session !== session) throw err;
      this.session = undefined;
      session.dispose();
      this.fail(this.label(session.settings), err);
      return undefined;
    }
    session.memo.clear();
    this.schemaEmitter.fire(schema.generation);
    return schema;
  }

  /** Stores the password for the configured user and server (settings never hold it). */
  async setPassword(settings: ConnectionSettings, password: string): Promise<void> {
    await this.secrets.store(secretKey(settings), password);
  }

  dispose(): void {
    this.session?.dispose();
    this.session = undefined;
    for (const d of this.subscriptions) d.dispose();
  }
}
