/**
 * The command line of the MCP server the extension registers for the editor's MCP clients: the
 * workspace folder and the connection settings as `query-insight mcp`'s flags (never the password,
 * which goes into the server's environment when it starts). Pure: unit-tested under plain Node.
 */
import type { ConnectionSettings } from '../connection/connectionProfile';

/** `['mcp', folder, …connection flags]`; without `settings` the server works from source, logs and schema files. */
export function mcpServerArgs(folder: string, settings: ConnectionSettings | undefined): string[] {
  const args = ['mcp', folder];
  if (!settings) return args;
  if (settings.socket) args.push('--socket', settings.socket);
  else args.push('--host', settings.host || '127.0.0.1', '--port', String(settings.port || 3306));
  if (settings.user) args.push('--user', settings.user);
  args.push('--database', settings.database);
  if (settings.sslMode && settings.sslMode !== 'DISABLED') args.push('--ssl-mode', settings.sslMode);
  if (settings.sslCa) args.push('--ssl-ca', settings.sslCa);
  return args;
}
