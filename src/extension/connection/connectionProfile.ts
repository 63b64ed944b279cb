/**
 * Connection profiles as the extension shows and stores them: the typed connection settings plus
 * where they came from, the candidates an app's env.sh / .env / docker-compose.yml declare (one per
 * file), and the SecretStorage key of a profile's password. Pure: unit-tested under plain Node.
 */
import type { ConnectionHint } from '../../core/sql/connectionHints';
import type { QueryInsightConfig } from '../settings';

export type ConnectionSettings = QueryInsightConfig['connection'];

/** A set of values found in one workspace file, ready to be confirmed with one click. */
export interface ConnectionCandidate {
  /** Workspace-relative file the values came from. */
  file: string;
  host?: string;
  port?: number;
  socket?: string;
  user?: string;
  database?: string;
  /** Found in the file; goes to SecretStorage only, never to settings. */
  password?: string;
  /** The variable names used, for the quick pick's detail line. */
  keys: string[];
}

/** True when the settings name enough to try a connection (a database and a user or socket). */
export function isConfigured(c: ConnectionSettings): boolean {
  return c.database.trim() !== '' && (c.user.trim() !== '' || c.socket.trim() !== '');
}

/** `user@host:port/db` or `user@unix:/path/db`, for the status bar and messages. */
export function targetLabel(c: Pick<ConnectionSettings, 'host' | 'port' | 'socket' | 'user' | 'database'>): string {
  const where = c.socket ? `unix:${c.socket}` : `${c.host || '127.0.0.1'}:${c.port || 3306}`;
  return `${c.user || '(default user)'}@${where}/${c.database}`;
}

/**
 * ` via SSH user@host` (`:port` when not 22) for a connection through an SSH tunnel, '' for a direct
 * one: appended to targetLabel in the status bar and messages, so a tunnelled target says so.
 */
export function viaSshLabel(ssh: { username: string; host: string; port?: number } | undefined): string {
  if (!ssh) return '';
  const host = ssh.host.includes(':') ? `[${ssh.host}]` : ssh.host;
  return ` via SSH ${ssh.username}@${host}${ssh.port && ssh.port !== 22 ? `:${ssh.port}` : ''}`;
}

/** The SecretStorage key of the password for this user on this server (not per database). */
export function secretKey(c: Pick<ConnectionSettings, 'host' | 'port' | 'socket' | 'user'>): string {
  const where = c.socket ? `unix:${c.socket}` : `${c.host || '127.0.0.1'}:${c.port || 3306}`;
  return `queryInsight.connection.password:${c.user}@${where}`;
}

/**
 * Groups connection hints by the file they came from into one candidate per file (the first value
 * of each field wins: env files repeat keys rarely, and the earlier one is the one a shell exports
 * first). Files that declare neither a database nor a user are dropped; candidates come in file order.
 */
export function candidatesFromHints(hints: readonly ConnectionHint[]): ConnectionCandidate[] {
  const byFile = new Map<string, ConnectionCandidate>();
  for (const h of hints) {
    let c = byFile.get(h.file);
    if (!c) { c = { file: h.file, keys: [] }; byFile.set(h.file, c); }
    if (h.field === 'port') {
      const n = Number(h.value);
      if (c.port !== undefined || !Number.isInteger(n) || n < 1 || n > 65535) continue;
      c.port = n;
    } else {
      if (c[h.field] !== undefined) continue;
      c[h.field] = h.value;
    }
    c.keys.push(h.key);
  }
  return [...byFile.values()].filter((c) => c.database !== undefined || c.user !== undefined);
}

/** The settings a candidate leads to: its values over the current ones (a socket clears nothing). */
export function applyCandidate(current: ConnectionSettings, c: ConnectionCandidate): ConnectionSettings {
  return {
    // why: settings other than these five (added later, e.g. a tunnel) keep their current values.
    ...current,
    host: c.host ?? current.host,
    port: c.port ?? (c.host !== undefined ? 3306 : current.port),
    socket: c.socket ?? (c.host !== undefined ? '' : current.socket),
    user: c.user ?? current.user,
    database: c.database ?? current.database,
  };
}

/** Label and detail of a candidate in the quick pick; never shows the password itself. */
export function describeCandidate(current: ConnectionSettings, c: ConnectionCandidate): { label: string; detail: string } {
  const s = applyCandidate(current, c);
  return {
    label: `${targetLabel(s)}`,
    detail: `from ${c.file} (${c.keys.join(', ')})${c.password !== undefined ? ' · password stored in secret storage' : ''}`,
  };
}
