/**
 * From what a person typed (`isu1`, `isucon@isu1`, `isucon@10.0.0.1:2222`, or the editor's ssh
 * settings) to ssh2 login options, as `ssh` would log in: ~/.ssh/config and /etc/ssh/ssh_config
 * supply HostName, User, Port, IdentityFile, IdentityAgent, ProxyJump and UserKnownHostsFile for
 * the name typed (what is typed explicitly wins); the key is the one given, else the first
 * IdentityFile that exists, else ~/.ssh/id_ed25519, id_ecdsa, id_rsa; the agent is SSH_AUTH_SOCK
 * unless IdentityAgent says otherwise. Shared by the CLI and the extension (and remote log reads).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import type { HostKeyInfo, SshOptions } from '../../db/sshTunnel';
import { knownHostsPaths, type KnownHostsPaths } from './knownHostsStore';
import { parseJumpHop, parseSshConfig, resolveSshHost, type SshConfigLine, type SshHostConfig } from './sshConfig';

export interface SshLoginRequest {
  /** The name typed: an alias from ~/.ssh/config, a host name or an address. */
  host: string;
  /** Given explicitly (`user@`, a setting): wins over the config's User. */
  user?: string;
  /** Given explicitly (`:port`, a setting other than the default): wins over the config's Port. */
  port?: number;
  /** Given explicitly (--ssh-key, a setting): wins over IdentityFile. */
  privateKeyPath?: string;
  /** Use an ssh-agent (SSH_AUTH_SOCK or IdentityAgent); default true. */
  useAgent?: boolean;
  passphrase?: string;
}

export interface SshLoginEnv {
  HOME?: string;
  USER?: string;
  SSH_AUTH_SOCK?: string;
}

export interface ResolvedSshLogin {
  /** Login options without a host-key verifier (the front end adds its own, per hop). */
  options: SshOptions;
  config: SshHostConfig;
  knownHosts: KnownHostsPaths;
  /** Things in the config that were not followed. */
  notes: string[];
}

const DEFAULT_KEYS = ['id_ed25519', 'id_ecdsa', 'id_rsa'];

/** Reads the config files ssh reads (absent ones are empty), following Include (a `*` in the last part too). */
export function readSshConfigFiles(home: string, files = [join(home, '.ssh', 'config'), '/etc/ssh/ssh_config']): {
  files: SshConfigLine[][]; include: (pattern: string, from: SshConfigLine) => SshConfigLine[] | undefined;
} {
  const read = (path: string): SshConfigLine[] | undefined => {
    try { return parseSshConfig(readFileSync(path, 'utf8'), path); } catch { return undefined; }
  };
  const include = (pattern: string, from: SshConfigLine): SshConfigLine[] | undefined => {
    const expanded = pattern.startsWith('~/') ? home + pattern.slice(1) : pattern;
    // why: ssh takes relative Include paths from ~/.ssh in the user's config and /etc/ssh in the system's.
    const base = from.path.startsWith(join(home, '.ssh')) ? join(home, '.ssh') : dirname(from.path);
    const full = isAbsolute(expanded) ? expanded : join(base, expanded);
    const name = full.slice(full.lastIndexOf('/') + 1);
    if (!name.includes('*') && !name.includes('?')) return read(full);
    const dir = dirname(full);
    const re = new RegExp(`^${name.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
    let names: string[];
    try { names = readdirSync(dir).filter((n) => re.test(n)).sort(); } catch { return undefined; }
    return names.flatMap((n) => read(join(dir, n)) ?? []);
  };
  return { files: files.map((f) => read(f) ?? []), include };
}

/**
 * Resolves a login through the ssh config. `verifierFor` makes the host-key check of each hop
 * (the target, then every ProxyJump host), given its host, port, known_hosts files and whether it
 * is the target.
 */
export function resolveSshLogin(req: SshLoginRequest, env: SshLoginEnv,
  verifierFor?: (host: string, port: number, knownHosts: KnownHostsPaths, target: boolean) => (key: HostKeyInfo) => boolean | Promise<boolean>,
  configFiles?: string[]): ResolvedSshLogin {
  const home = env.HOME || homedir();
  const localUser = env.USER || userInfo().username;
  const cfg = readSshConfigFiles(home, configFiles);
  const notes: string[] = [];
  const one = (r: SshLoginRequest, depth: number): { options: SshOptions; config: SshHostConfig; knownHosts: KnownHostsPaths } => {
    const config = resolveSshHost(cfg.files, r.host, { home, localUser }, cfg.include);
    notes.push(...config.notes);
    const port = r.port ?? config.port ?? 22;
    const username = r.user ?? config.user ?? localUser;
    const keyPath = r.privateKeyPath
      ?? config.identityFiles.find((f) => existsSync(f))
      ?? (config.identityFiles.length ? undefined : DEFAULT_KEYS.map((k) => join(home, '.ssh', k)).find((p) => existsSync(p)));
    if (!r.privateKeyPath && config.identityFiles.length > 1) notes.push(`${r.host}: only the first IdentityFile that exists is offered (${keyPath ?? 'none exists'})`);
    const agentSetting = config.identityAgent;
    const agent = r.useAgent === false || agentSetting === 'none' ? undefined
      : agentSetting && agentSetting !== 'SSH_AUTH_SOCK' ? agentSetting : env.SSH_AUTH_SOCK || undefined;
    const knownHosts = knownHostsPaths(home, config.userKnownHostsFiles);
    const options: SshOptions = {
      host: config.hostname, port, username,
      ...(keyPath ? { privateKeyPath: keyPath } : {}), ...(agent ? { agent } : {}), ...(r.passphrase ? { passphrase: r.passphrase } : {}),
      ...(verifierFor ? { verifyHostKey: verifierFor(config.hostname, port, knownHosts, depth === 0) } : {}),
    };
    if (config.proxyJump && depth < 4) {
      // why: ssh connects to the hops in order, each through the previous one; the last one carries the target.
      let via: SshOptions | undefined;
      for (const hopText of config.proxyJump) {
        const hop = parseJumpHop(hopText);
        if (!hop) { notes.push(`ProxyJump ${hopText} is not [user@]host[:port]; it is skipped`); continue; }
        const h = one({ host: hop.host, user: hop.user, port: hop.port, useAgent: r.useAgent, passphrase: r.passphrase }, depth + 1).options;
        via = via ? { ...h, jump: via } : h;
      }
      if (via) options.jump = via;
    } else if (config.proxyJump) notes.push(`ProxyJump of ${r.host} nested too deep; not followed`);
    return { options, config, knownHosts };
  };
  const top = one(req, 0);
  return { ...top, notes };
}
