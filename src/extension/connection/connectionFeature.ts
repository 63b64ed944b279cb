/**
 * Wires the connection (services.connection, built in extension.ts): the manager configured from the
 * settings by the one config change handler, which also runs at start-up; the status bar item;
 * "Connect to database", "Set database password" and "Refresh database schema".
 */
import { COMMANDS } from '../commands';
import { watchConfig } from '../config';
import { command, type Feature } from '../feature';
import { connectDatabaseCommand, refreshSchemaCommand, setPasswordCommand } from './connectCommands';
import { createStatusBar } from './statusBar';

export const connectionFeature: Feature = ({ context, services }) => {
  const { connection: manager, logger, presence } = services;
  context.subscriptions.push(
    watchConfig(logger, (config, affects) => {
      if (!affects('connection')) return;
      manager.configureSsh(config.ssh);
      manager.configure(config.connection);
    }),
    createStatusBar(manager, presence),
    command(logger, COMMANDS.connectDatabase, 'connecting failed', connectDatabaseCommand(manager, logger, (s) => manager.configure(s))),
    command(logger, COMMANDS.setDatabasePassword, 'could not set the password', setPasswordCommand(manager, logger)),
    command(logger, COMMANDS.refreshSchema, 'refreshing the schema failed', refreshSchemaCommand(manager, logger)),
  );
};
