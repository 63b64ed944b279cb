/**
 * The SSH tunnel options shared by the commands that connect to a database (`explain`, `advise`):
 * `--ssh user@host[:port]`, `--ssh-key FILE`, `--ssh-host-key SHA256:…`; the agent is used when
 * SSH_AUTH_SOCK is set, a key passphrase comes from QI_SSH_PASSPHRASE. Without a pinned fingerprint
 * the host key is checked against ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts as `ssh` would:
 * a listed key is accepted, a changed or revoked one refused, an unlisted one accepted and printed.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkKnownHosts, knownHostName } from '../db/knownHosts';
import type { CommandIo } from './command';
import { UsageError } from './output';
import { parseSshDestination, type HostKeyInfo, type SshOptions } from '../db/sshTunnel';

/** Spread into a parseArgs `options` table. */
export const SSH_ARG_OPTIONS = {
  ssh: { type: 'string' },
  'ssh-key': { type: 'string' },
  'ssh-host-key': { type: 'string' },
} as const;

/** Help lines for the options above (indented as the commands' option lists are). */
export const SSH_HELP = `  --ssh USER@HOST[:PORT]   reach the database through an SSH tunnel to this box; --host/--port
                           or --socket then name the database as seen from the box
                           (default 127.0.0.1:3306)
  --ssh-key FILE           private key for the tunnel; the ssh-agent at SSH_AUTH_SOCK is also
                           tried when set; an encrypted key's passphrase comes from QI_SSH_PASSPHRASE
  --ssh-host-key SHA256:…  the box's host key fingerprint (ssh-keygen -lf); without it the key is
                           checked against ~/.ssh/known_hosts (a changed key is refused; an
                           unlisted one is accepted and its fingerprint printed)`;

export interface SshArgValues {
  ssh?: string;
  'ssh-key'?: string;
  'ssh-host-key'?: string;
}

/** Builds the tunnel options from parsed arguments; undefined without --ssh. Throws UsageError on bad values. */
export function sshFromArgs(values: SshArgValues, io: CommandIo): SshOptions | undefined {
  if (values.ssh === undefined) {
    if (values['ssh-key'] !== undefined || values['ssh-host-key'] !== undefined) throw new UsageError('--ssh-key and --ssh-host-key need --ssh USER@HOST');
    return undefined;
  }
  const dest = parseSshDestination(values.ssh);
  if (!dest) throw new UsageError(`--ssh must be USER@HOST or USER@HOST:PORT (got "${values.ssh}")`);
  const agent = io.env.SSH_AUTH_SOCK || undefined;
  const keyPath = values['ssh-key'] === undefined ? undefined : resolve(io.cwd, values['ssh-key']);
  if (!keyPath && !agent) throw new UsageError('--ssh needs --ssh-key FILE or a running ssh-agent (SSH_AUTH_SOCK is not set)');
  const pin = values['ssh-host-key'];
  if (pin !== undefined && !/^SHA256:[A-Za-z0-9+/]{43}$/.test(pin)) {
    throw new UsageError(`--ssh-host-key must be a SHA256 fingerprint as ssh-keygen -lf prints it (got "${pin}")`);
  }
  const passphrase = io.env.QI_SSH_PASSPHRASE || undefined;
  return {
    host: dest.host, port: dest.port, username: dest.username,
    ...(keyPath ? { privateKeyPath: keyPath } : {}), ...(agent ? { agent } : {}), ...(passphrase ? { passphrase } : {}),
    verifyHostKey: (key) => (pin !== undefined ? key.fingerprint === pin : verifyKnownHost(key, dest.host, dest.port ?? 22, io)),
  };
}

/** Checks a host key against ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts, printing why a key is refused or new. */
export async function verifyKnownHost(key: HostKeyInfo, host: string, port: number, io: CommandIo): Promise<boolean> {
  const paths = [join(io.env.HOME || homedir(), '.ssh', 'known_hosts'), '/etc/ssh/ssh_known_hosts'];
  const files: { path: string; text: string }[] = [];
  for (const path of paths) {
    try { files.push({ path, text: await readFile(path, 'utf8') }); } catch { /* absent or unreadable: nothing known from it */ }
  }
  const v = checkKnownHosts(files, host, port, key.type, key.key);
  const name = knownHostName(host, port);
  switch (v.status) {
    case 'match':
      return true;
    case 'revoked':
      io.stderr.write(`ssh: the host key ${key.type} ${key.fingerprint} of ${name} is marked @revoked in ${v.path}:${v.line}\n`);
      return false;
    case 'mismatch':
      io.stderr.write(`ssh: the host key of ${name} (${key.type} ${key.fingerprint}) differs from the one in ${v.path}:${v.line}: `
        + `the box was reinstalled, or someone is in between. If you trust the new key, remove the old one (ssh-keygen -R '${name}') or pin it with --ssh-host-key\n`);
      return false;
    case 'unknown':
      io.stderr.write(`ssh: ${name} has host key ${key.type} ${key.fingerprint} (not in known_hosts; pin it with --ssh-host-key)\n`);
      return true;
  }
}
