/**
 * The SSH tunnel options shared by the commands that connect to a database (`explain`, `advise`,
 * `server-stats`): `--ssh [USER@]HOST[:PORT]` where HOST may be a Host alias of ~/.ssh/config
 * (HostName, User, Port, IdentityFile, ProxyJump … as `ssh` reads them), `--ssh-key FILE`,
 * `--ssh-host-key SHA256:…`, `--accept-new-host-key`; the agent is used when SSH_AUTH_SOCK is set,
 * a key passphrase comes from QI_SSH_PASSPHRASE. Without a pinned fingerprint the host key is
 * checked against ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts as `ssh` would: a listed key is
 * accepted, a changed or revoked one refused, and an unlisted one refused unless
 * --accept-new-host-key is given, which adds it to ~/.ssh/known_hosts.
 */
import { resolve } from 'node:path';
import type { CommandIo } from './command';
import { UsageError } from './output';
import type { HostKeyInfo, SshOptions } from '../db/sshTunnel';
import { knownHostsVerifier, type KnownHostsPaths } from '../node/ssh/knownHostsStore';
import { parseJumpHop } from '../node/ssh/sshConfig';
import { resolveSshLogin } from '../node/ssh/sshLogin';

/** Spread into a parseArgs `options` table. */
export const SSH_ARG_OPTIONS = {
  ssh: { type: 'string' },
  'ssh-key': { type: 'string' },
  'ssh-host-key': { type: 'string' },
  'accept-new-host-key': { type: 'boolean' },
} as const;

/** Help lines for the options above (indented as the commands' option lists are). */
export const SSH_HELP = `  --ssh [USER@]HOST[:PORT] reach the database through an SSH tunnel to this box; --host/--port
                           or --socket then name the database as seen from the box
                           (default 127.0.0.1:3306). HOST may be a Host alias of ~/.ssh/config
                           (HostName, User, Port, IdentityFile, IdentityAgent, ProxyJump are used)
  --ssh-key FILE           private key for the tunnel (default: the config's IdentityFile, else
                           ~/.ssh/id_ed25519, id_ecdsa, id_rsa); the ssh-agent at SSH_AUTH_SOCK is
                           also tried; an encrypted key's passphrase comes from QI_SSH_PASSPHRASE
  --ssh-host-key SHA256:…  the box's host key fingerprint (ssh-keygen -lf); without it the key is
                           checked against ~/.ssh/known_hosts (a changed key is refused)
  --accept-new-host-key    trust a host key that known_hosts does not list yet, and add it to
                           ~/.ssh/known_hosts (as ssh -o StrictHostKeyChecking=accept-new);
                           without it such a key is refused and its fingerprint printed`;

export interface SshArgValues {
  ssh?: string;
  'ssh-key'?: string;
  'ssh-host-key'?: string;
  'accept-new-host-key'?: boolean;
}

/** Builds the tunnel options from parsed arguments; undefined without --ssh. Throws UsageError on bad values. */
export function sshFromArgs(values: SshArgValues, io: CommandIo): SshOptions | undefined {
  if (values.ssh === undefined) {
    if (values['ssh-key'] !== undefined || values['ssh-host-key'] !== undefined || values['accept-new-host-key']) {
      throw new UsageError('--ssh-key, --ssh-host-key and --accept-new-host-key need --ssh [USER@]HOST');
    }
    return undefined;
  }
  const dest = parseJumpHop(values.ssh);
  if (!dest || values.ssh.includes('/')) throw new UsageError(`--ssh must be HOST, USER@HOST or USER@HOST:PORT (got "${values.ssh}")`);
  const pin = values['ssh-host-key'];
  if (pin !== undefined && !/^SHA256:[A-Za-z0-9+/]{43}$/.test(pin)) {
    throw new UsageError(`--ssh-host-key must be a SHA256 fingerprint as ssh-keygen -lf prints it (got "${pin}")`);
  }
  const acceptNew = values['accept-new-host-key'] === true;
  const passphrase = io.env.QI_SSH_PASSPHRASE || undefined;
  const login = resolveSshLogin({
    host: dest.host, ...(dest.user ? { user: dest.user } : {}), ...(dest.port ? { port: dest.port } : {}),
    ...(values['ssh-key'] !== undefined ? { privateKeyPath: resolve(io.cwd, values['ssh-key']) } : {}),
    ...(passphrase ? { passphrase } : {}),
  }, io.env, (host, port, knownHosts, target) => (pin !== undefined && target
    // why: the pin names the box's key; jump hosts on the way are still checked against known_hosts.
    ? (key: HostKeyInfo) => key.fingerprint === pin
    : cliHostKeyCheck(host, port, knownHosts, io, acceptNew, false)));
  for (const note of login.notes) io.stderr.write(`ssh config: ${note}\n`);
  if (!login.options.privateKeyPath && !login.options.agent) {
    throw new UsageError('--ssh needs --ssh-key FILE or a running ssh-agent (SSH_AUTH_SOCK is not set, and no IdentityFile or ~/.ssh/id_* key exists)');
  }
  return login.options;
}

/**
 * The login to a box a log is on (`endpoints`, `slow`, `diff` with HOST:/PATH arguments): the same
 * rules as --ssh — ~/.ssh/config (HostName, User, Port, IdentityFile, ProxyJump), the agent, and
 * host keys against ~/.ssh/known_hosts, an unlisted one refused unless `acceptNew`.
 */
export function cliBoxLogin(box: { host: string; user?: string; port?: number }, keyPath: string | undefined, acceptNew: boolean, io: CommandIo): SshOptions {
  const passphrase = io.env.QI_SSH_PASSPHRASE || undefined;
  const login = resolveSshLogin({
    host: box.host, ...(box.user ? { user: box.user } : {}), ...(box.port ? { port: box.port } : {}),
    ...(keyPath !== undefined ? { privateKeyPath: keyPath } : {}), ...(passphrase ? { passphrase } : {}),
  }, io.env, (host, port, knownHosts) => cliHostKeyCheck(host, port, knownHosts, io, acceptNew));
  for (const note of login.notes) io.stderr.write(`ssh config: ${note}\n`);
  if (!login.options.privateKeyPath && !login.options.agent) {
    throw new Error(`no way to log in to ${box.host}: give --ssh-key FILE or run an ssh-agent (SSH_AUTH_SOCK is not set, and no IdentityFile or ~/.ssh/id_* key exists)`);
  }
  return login.options;
}

/**
 * The CLI's host key check. `print`: write the refusal of an unlisted key to stderr (log reads); else
 * it is kept on the verifier as `refusal`, and the tunnel's error quotes it, so that it is printed once.
 */
function cliHostKeyCheck(host: string, port: number, knownHosts: KnownHostsPaths, io: CommandIo, acceptNew: boolean, print = true): (key: HostKeyInfo) => Promise<boolean> {
  const check: ((key: HostKeyInfo) => Promise<boolean>) & { refusal?: string } = knownHostsVerifier(host, port, {
    paths: knownHosts,
    confirmNew: (key, name) => {
      if (acceptNew) return true;
      const refusal = `ssh: ${name} has host key ${key.type} ${key.fingerprint}, which ${knownHosts.user[0]} does not list: refused. `
        + 'Check the fingerprint on the box (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub), then run again with '
        + '--accept-new-host-key to add it, or pin it with --ssh-host-key';
      if (print) io.stderr.write(`${refusal}\n`);
      else wrapper.refusal = refusal;
      return false;
    },
    tell: (message) => { io.stderr.write(`ssh: ${message}\n`); },
  });
  const wrapper: ((key: HostKeyInfo) => Promise<boolean>) & { refusal?: string } = (key) => check(key);
  return wrapper;
}

