/**
 * "Connect to database" and "Set database password". Connect offers, for one-click confirmation,
 * the values the app already declares in the workspace (env.sh, .env, docker-compose.yml, read by
 * core's connectionHints); picking one writes host/port/socket/user/database to the workspace
 * settings and the password (if the file has one) to SecretStorage, then connects.
 */
import * as vscode from 'vscode';
import { connectionHints, type ConnectionHint } from '../../core/sql/connectionHints';
import { COMMANDS } from '../commands';
import { readConfig } from '../config';
import type { Logger } from '../logger';
import { SECTION } from '../settings';
import { relativePath } from '../siteIndex';
import type { ConnectionManager, ConnectionState } from './connectionManager';
import {
  applyCandidate, candidatesFromHints, describeCandidate, isConfigured, targetLabel,
  type ConnectionCandidate, type ConnectionSettings,
} from './connectionProfile';

/** Files that commonly declare an app's database settings in contest repositories. */
const HINT_GLOB = '**/{env.sh,.env,*.env,env,docker-compose*.yml,docker-compose*.yaml,compose*.yml,compose*.yaml}';
const HINT_EXCLUDE = '**/{node_modules,vendor,.git}/**';

/** Reads the connection hints of the workspace's env and compose files. */
export async function workspaceHints(logger: Logger): Promise<ConnectionHint[]> {
  const uris = await vscode.workspace.findFiles(HINT_GLOB, HINT_EXCLUDE, 50);
  const out: ConnectionHint[] = [];
  for (const uri of uris.sort((a, b) => a.path.length - b.path.length || a.path.localeCompare(b.path))) {
    try {
      const bytes = await vscode.workspace.fs.readFile(uri);
      if (bytes.byteLength > 256 * 1024) continue;
      out.push(...connectionHints(Buffer.from(bytes).toString('utf8'), relativePath(uri)));
    } catch (err) {
      logger.debug(`cannot read ${uri.fsPath}: ${String(err)}`);
    }
  }
  return out;
}

type Item = vscode.QuickPickItem & { run: () => Promise<void> };

async function writeSettings(s: ConnectionSettings): Promise<void> {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  for (const key of ['host', 'port', 'socket', 'user', 'database'] as const) {
    if (cfg.get(`connection.${key}`) !== s[key]) await cfg.update(`connection.${key}`, s[key], target);
  }
}

/** Connects and tells the outcome (with "Show Log" on failure). */
export async function connectAndReport(manager: ConnectionManager, logger: Logger, configure?: (s: ConnectionSettings) => void, settings?: ConnectionSettings): Promise<ConnectionState> {
  // why: the config change event arrives after update() resolves; configure now so the connect uses the new values.
  if (configure && settings) configure(settings);
  const state = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'Query Insight: connecting to the database' },
    () => manager.reconnect());
  if (state.kind === 'connected') {
    void vscode.window.showInformationMessage(`Query Insight: connected to ${state.server.flavor === 'mariadb' ? 'MariaDB' : 'MySQL'} ${state.server.version} (${state.target})`);
  } else if (state.kind === 'failing') {
    logger.showError(`Query Insight: cannot connect to ${state.target}`, new Error(state.reason));
  }
  return state;
}

/** The handler of "Connect to database". `configure` applies settings to the manager at once. */
export function connectDatabaseCommand(manager: ConnectionManager, logger: Logger, configure: (s: ConnectionSettings) => void): () => Promise<ConnectionState | undefined> {
  return async () => {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('Query Insight connects to a database only in a trusted workspace.', 'Manage Workspace Trust').then((c) => {
        if (c) void vscode.commands.executeCommand('workbench.trust.manage');
      });
      return undefined;
    }
    const current = readConfig(logger).connection;
    const candidates: ConnectionCandidate[] = candidatesFromHints(await workspaceHints(logger));
    const items: Item[] = [];
    if (isConfigured(current)) {
      items.push({ label: '$(plug) Connect with the current settings', detail: targetLabel(current), run: async () => { await connectAndReport(manager, logger); } });
    }
    for (const c of candidates) {
      const d = describeCandidate(current, c);
      items.push({
        label: `$(file) ${d.label}`, detail: d.detail,
        run: async () => {
          const s = applyCandidate(current, c);
          await writeSettings(s);
          if (c.password !== undefined) await manager.setPassword(s, c.password);
          logger.info(`connection settings taken from ${c.file}: ${targetLabel(s)}`);
          await connectAndReport(manager, logger, configure, s);
        },
      });
    }
    items.push(
      { label: '$(edit) Enter the connection settings…', run: async () => { const s = await askSettings(current); if (s) { await writeSettings(s); await connectAndReport(manager, logger, configure, s); } } },
      { label: '$(key) Set database password…', run: async () => { await vscode.commands.executeCommand(COMMANDS.setDatabasePassword); } },
      { label: '$(output) Show log', run: async () => { logger.show(); } },
    );
    const pick = await vscode.window.showQuickPick(items, {
      title: 'Query Insight: connect to database',
      placeHolder: candidates.length ? 'Values found in the workspace: pick one to use it' : 'No connection values found in env.sh, .env or docker-compose.yml',
      matchOnDetail: true,
    });
    if (!pick) return undefined;
    // why: a failure goes to the command guard (feature.ts), which shows it with Show Log.
    await pick.run();
    return manager.state;
  };
}

async function askSettings(current: ConnectionSettings): Promise<ConnectionSettings | undefined> {
  const where = await vscode.window.showInputBox({ title: 'Host[:port] or Unix socket path', value: current.socket || `${current.host}:${current.port}` });
  if (where === undefined) return undefined;
  const user = await vscode.window.showInputBox({ title: 'User', value: current.user });
  if (user === undefined) return undefined;
  const database = await vscode.window.showInputBox({ title: 'Database', value: current.database });
  if (database === undefined) return undefined;
  const w = where.trim();
  if (w.startsWith('/')) return { ...current, socket: w, user, database };
  const m = /^(.*?)(?::(\d+))?$/.exec(w)!;
  return { ...current, host: m[1] || '127.0.0.1', port: m[2] ? Number(m[2]) : 3306, socket: '', user, database };
}

/** The handler of "Set database password": stores it for the configured user and server. */
export function setPasswordCommand(manager: ConnectionManager, logger: Logger): () => Promise<void> {
  return async () => {
    const current = readConfig(logger).connection;
    const password = await vscode.window.showInputBox({
      title: `Password for ${targetLabel(current)}`, password: true, ignoreFocusOut: true,
      prompt: 'Kept in VS Code\'s secret storage, never in settings or logs.',
    });
    if (password === undefined) return;
    await manager.setPassword(current, password);
    await connectAndReport(manager, logger);
  };
}

/**
 * The handler of "Refresh database schema": re-reads the schema over the connection (connecting
 * first when needed); the manager's schema event then makes the plan diagnostics, hovers and N+1
 * estimates explain again. Resolves with the number of tables read, undefined without a connection.
 */
export function refreshSchemaCommand(manager: ConnectionManager, logger: Logger): () => Promise<number | undefined> {
  return async () => {
    const schema = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Query Insight: reading the database schema' },
      () => manager.refreshSchema(true));
    if (!schema) {
      const s = manager.state;
      const why = s.kind === 'failing' ? `${s.target}: ${s.reason}` : s.kind === 'unconfigured' ? 'no database is configured' : `the connection is ${s.kind}`;
      void vscode.window.showWarningMessage(`Query Insight: cannot refresh the schema (${why}).`, 'Connect to database').then((c) => {
        if (c) void vscode.commands.executeCommand(COMMANDS.connectDatabase);
      });
      return undefined;
    }
    const tables = Object.keys(schema.tables).length;
    logger.info(`schema refreshed: ${tables} tables (generation ${schema.generation})`);
    void vscode.window.showInformationMessage(`Query Insight: schema refreshed (${tables} tables); open files are explained again.`);
    return tables;
  };
}
