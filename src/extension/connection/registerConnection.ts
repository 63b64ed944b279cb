/**
 * Wires the connection: the manager (configured from the settings by the one config change handler,
 * which also runs at start-up), the status bar item, "Connect to database", "Set database password"
 * and "Refresh database schema".
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import { watchConfig } from '../config';
import type { Logger } from '../logger';
import type { StatementPresence } from '../statementPresence';
import { connectDatabaseCommand, refreshSchemaCommand, setPasswordCommand } from './connectCommands';
import { ConnectionManager } from './connectionManager';
import { createStatusBar } from './statusBar';

export function registerConnection(context: vscode.ExtensionContext, logger: Logger, presence: StatementPresence): ConnectionManager {
  const manager = new ConnectionManager(context.secrets, logger, context.globalState, context.workspaceState);
  context.subscriptions.push(
    manager,
    watchConfig(logger, (config, affects) => {
      if (!affects('connection')) return;
      manager.configureSsh(config.ssh);
      manager.configure(config.connection);
    }),
    createStatusBar(manager, presence),
    vscode.commands.registerCommand(COMMANDS.connectDatabase, connectDatabaseCommand(manager, logger, (s) => manager.configure(s))),
    vscode.commands.registerCommand(COMMANDS.setDatabasePassword, setPasswordCommand(manager, logger)),
    vscode.commands.registerCommand(COMMANDS.refreshSchema, refreshSchemaCommand(manager, logger)),
  );
  return manager;
}
