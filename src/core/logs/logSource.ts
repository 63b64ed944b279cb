/**
 * Where a log is: a local path, or a file on another box reached over SSH. One syntax for the CLI's
 * log arguments and the editor's settings:
 *
 *   /var/log/nginx/access.log                  local
 *   ssh://isucon@isu2:2222/var/log/nginx/a.log  URL form (user and port optional)
 *   isucon@isu2:/var/log/mysql/slow.log         scp form (user optional; the port comes from ~/.ssh/config)
 *
 * As scp decides it, a colon before the first slash makes the text remote; `./a:b` and `/x/a:b` stay
 * local. A remote path must be absolute: the box's working directory is not known.
 */

export type LogSource =
  | { kind: 'local'; path: string }
  | {
      kind: 'ssh';
      /** The host as written: a name, an address or a `~/.ssh/config` Host alias. */
      host: string;
      user?: string;
      port?: number;
      /** Absolute path on the box. */
      path: string;
      /** The box's name in reports (the editor's `boxes` setting names them); default: the host as written. */
      label?: string;
    };

/** Thrown for text that looks remote but cannot be read as a log source. */
export class LogSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogSourceError';
  }
}

const URL_FORM = /^ssh:\/\/(?:([^@/\s]+)@)?(\[[0-9A-Fa-f:.]+\]|[^/:@\s[\]]+)(?::(\d*))?(\/.*)?$/;
const SCP_FORM = /^(?:([^@/:\s]+)@)?(\[[0-9A-Fa-f:.]+\]|[^/:@\s[\]]+):(.*)$/;

/**
 * Reads one log argument. Local paths are returned unchanged (resolving them is the caller's
 * business); remote ones are split into user, host, port and path. Throws LogSourceError when the
 * text is remote but incomplete (no path, a relative path, a bad port).
 */
export function parseLogSource(text: string): LogSource {
  if (text.startsWith('ssh://')) {
    const m = URL_FORM.exec(text);
    if (!m) throw new LogSourceError(`"${text}" is not ssh://[USER@]HOST[:PORT]/ABSOLUTE/PATH`);
    const [, user, rawHost, rawPort, rawPath] = m;
    if (!rawPath || rawPath === '/') throw new LogSourceError(`"${text}" names no file: give its absolute path after the host, ssh://HOST/var/log/nginx/access.log`);
    return remote(text, user, rawHost, rawPort === '' ? undefined : rawPort, decodePath(text, rawPath));
  }
  const slash = text.indexOf('/');
  const colon = text.indexOf(':');
  if (colon <= 0 || (slash >= 0 && slash < colon)) return { kind: 'local', path: text };
  const m = SCP_FORM.exec(text);
  // why: "C:" style or other oddities with a colon first are not hosts; scp would treat them as
  // remote too, but a name with spaces or brackets cannot be a host, so such text stays a local path.
  if (!m) return { kind: 'local', path: text };
  const [, user, rawHost, path] = m;
  if (!path.startsWith('/')) {
    throw new LogSourceError(`"${text}" is remote (HOST:PATH) but its path is not absolute: write ${rawHost}:/full/path/to/the.log`);
  }
  return remote(text, user, rawHost, undefined, path);
}

function remote(text: string, user: string | undefined, rawHost: string, rawPort: string | undefined, path: string): LogSource {
  const host = rawHost.startsWith('[') ? rawHost.slice(1, -1) : rawHost;
  let port: number | undefined;
  if (rawPort !== undefined) {
    port = Number(rawPort);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new LogSourceError(`"${text}": the port must be 1–65535`);
  }
  return { kind: 'ssh', host, path, ...(user ? { user } : {}), ...(port !== undefined ? { port } : {}) };
}

function decodePath(text: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new LogSourceError(`"${text}": the path has a broken %-escape`);
  }
}

/** The source as a person would write it again (scp form for remote files). */
export function describeLogSource(s: LogSource): string {
  if (s.kind === 'local') return s.path;
  const host = s.host.includes(':') ? `[${s.host}]` : s.host;
  return s.port !== undefined
    ? `ssh://${s.user ? `${s.user}@` : ''}${host}:${s.port}${s.path}`
    : `${s.user ? `${s.user}@` : ''}${host}:${s.path}`;
}

/** The name a report gives the box a source is on: its label, else the host as written (with the port when one is written), or `local`. */
export function hostLabel(s: LogSource): string {
  if (s.kind === 'local') return 'local';
  if (s.label) return s.label;
  return s.port !== undefined ? `${s.host.includes(':') ? `[${s.host}]` : s.host}:${s.port}` : s.host;
}
