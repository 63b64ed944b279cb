/**
 * Owns the one database connection of the window: built lazily from the connection settings and
 * the password in SecretStorage the first time a feature needs it, reconnected after a failure (on
 * the next need after a short pause, or at once by "Connect to database"), rebuilt when the
 * settings or the password change. Everything tied to a connection (the ExplainService and its
 * plan cache, per-connection caches of features) lives in a session whose disposables are cleared
 * together when the connection goes away.
 */
import * as vscode from 'vscode';
import { DbConnection, DbError, type DbErrorKind, type ServerInfo } from '../../db/connection';
import { ExplainService, type ExplainResult } from '../../db/explainService';
import { sshOptionsFromSettings, type HostKeyInfo, type SshSettings } from '../../db/sshTunnel';
import type { Schema } from '../../core/model';
import type { Logger } from '../logger';
import { isConfigured, secretKey, targetLabel, type ConnectionSettings } from './connectionProfile';

export type ConnectionState =
  | { kind: 'unconfigured' }
  | { kind: 'untrusted' }
  | { kind: 'idle'; target: string }
  | { kind: 'connecting'; target: string }
  | { kind: 'connected'; target: string; server: ServerInfo }
  | { kind: 'failing'; target: string; reason: string; errorKind: DbErrorKind | 'other' };

/** Errors that say the connection, not the statement, is the problem. */
const CONNECTION_KINDS: ReadonlySet<string> = new Set(['unreachable', 'auth', 'unknown-database', 'connection-lost']);

/** After a connection failure, automatic attempts pause this long (an explicit connect does not wait). */
const RETRY_AFTER_MS = 15_000;

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
    /** Remembers the SSH host keys the user accepted (trust on first use), per `host:port`. */
    private readonly hostKeys: vscode.Memento,
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
   * Trust on first use, as ssh does with known_hosts: an unknown host key is shown to the user and
   * remembered when accepted; a key that differs from the remembered one is refused.
   */
  private async verifyHostKey(key: HostKeyInfo): Promise<boolean> {
    const memoKey = `queryInsight.sshHostKey:${key.endpoint}`;
    const known = this.hostKeys.get<string>(memoKey);
    if (known === key.fingerprint) return true;
    if (known) {
      this.logger.error(`SSH host key of ${key.endpoint} changed: remembered ${known}, offered ${key.fingerprint} (${key.type}); refusing`);
      return false;
    }
    const trust = 'Trust and connect';
    const answer = await vscode.window.showWarningMessage(
      `Query Insight: first connection to the SSH host ${key.endpoint}. Its ${key.type} key fingerprint is ${key.fingerprint}. Trust it?`,
      { modal: true }, trust);
    if (answer !== trust) return false;
    await this.hostKeys.update(memoKey, key.fingerprint);
    this.logger.info(`remembered SSH host key ${key.fingerprint} of ${key.endpoint}`);
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
    else this.setState({ kind: 'idle', target: targetLabel(s) });
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

  /** Connects now (dropping a failing connection first); resolves with the state reached. */
  async reconnect(): Promise<ConnectionState> {
    if (this.current.kind !== 'connected') this.reset();
    await this.ensure(true);
    return this.current;
  }

  private async open(): Promise<ConnectionSession | undefined> {
    const settings = this.settings!;
    const target = targetLabel(settings);
    this.setState({ kind: 'connecting', target });
    const password = await this.secrets.get(secretKey(settings));
    // why: no passphrase prompt here; an encrypted key is used through ssh-agent (connection.ssh.useAgent).
    const ssh = this.ssh ? sshOptionsFromSettings(this.ssh, process.env) : undefined;
    if (ssh) this.logger.info(`connecting through an SSH tunnel to ${ssh.username}@${ssh.host}:${ssh.port ?? 22}`);
    const db = new DbConnection({
      ...(settings.socket ? { socket: settings.socket } : { host: settings.host, port: settings.port }),
      user: settings.user, password, database: settings.database,
      ...(ssh ? { ssh: { ...ssh, verifyHostKey: (key: HostKeyInfo) => this.verifyHostKey(key) } } : {}),
    });
    const service = new ExplainService(db);
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
    const reason = err instanceof Error ? err.message : String(err);
    this.failedAt = Date.now();
    this.logger.error(`connection to ${target} failed (${kind})`, err);
    this.setState({ kind: 'failing', target, reason, errorKind: kind });
  }

  /**
   * Explains a statement over the live connection (connecting first when needed). Undefined when
   * there is no connection to use; a connection-level error in the result turns the state to failing.
   */
  async explain(sql: string): Promise<{ result: ExplainResult; session: ConnectionSession } | undefined> {
    const session = await this.ensure();
    if (!session) return undefined;
    const result = await session.service.explainSql(sql);
    if (result.error && CONNECTION_KINDS.has(result.error.kind) && this.session === session) {
      this.session = undefined;
      session.dispose();
      this.fail(targetLabel(session.settings), new DbError(result.error.kind as DbErrorKind, result.error.message));
    }
    return { result, session };
  }

  /** Re-reads the schema (after DDL): cached plans of the old generation miss from now on. */
  async refreshSchema(): Promise<Schema | undefined> {
    const session = await this.ensure();
    if (!session) return undefined;
    const schema = await session.service.refreshSchema();
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
