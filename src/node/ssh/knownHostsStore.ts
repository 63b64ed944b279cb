/**
 * The one host-key store of the CLI and the extension: OpenSSH's own known_hosts files. Keys are
 * looked up in the user's files (~/.ssh/known_hosts and known_hosts2, or UserKnownHostsFile) and
 * the system's (/etc/ssh/ssh_known_hosts, ssh_known_hosts2); a key trusted on first use is added to
 * the user's first file, as `ssh` does with StrictHostKeyChecking accept-new. A changed or revoked
 * key is refused with the file and line to look at.
 */
import { createHash } from 'node:crypto';
import { appendFile, chmod, mkdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { HostKeyInfo } from '../../db/sshTunnel';
import { checkKnownHosts, knownHostLine, knownHostName } from './knownHosts';

export interface KnownHostsPaths {
  /** The user's files; new keys go to the first. */
  user: string[];
  system: string[];
}

/** The files ssh reads for a host: UserKnownHostsFile when the config sets it, else ~/.ssh/known_hosts{,2}. */
export function knownHostsPaths(home: string, userKnownHostsFiles?: readonly string[]): KnownHostsPaths {
  return {
    user: userKnownHostsFiles?.length ? [...userKnownHostsFiles] : [join(home, '.ssh', 'known_hosts'), join(home, '.ssh', 'known_hosts2')],
    system: ['/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2'],
  };
}

/** Adds a known_hosts line for the key to `path` (creating the file 0600 and its directory 0700 when missing). */
export async function addKnownHost(path: string, host: string, port: number, key: HostKeyInfo, hash = false): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  let prefix = '';
  try {
    const text = await readFile(path, 'utf8');
    // why: a file whose last line has no newline would have our entry glued to it.
    if (text.length > 0 && !text.endsWith('\n')) prefix = '\n';
  } catch { /* a new file */ }
  const existed = await stat(path).then(() => true, () => false);
  await appendFile(path, `${prefix}${knownHostLine(host, port, key.type, key.key, hash)}\n`, { mode: 0o600 });
  if (!existed) await chmod(path, 0o600);
}

/** The SHA256 fingerprint of a base64 key blob, as ssh-keygen -lf prints it. */
function fingerprintOf(b64: string): string {
  return `SHA256:${createHash('sha256').update(Buffer.from(b64, 'base64')).digest('base64').replace(/=+$/, '')}`;
}

/** How a front end decides about keys known_hosts does not settle. */
export interface HostKeyPolicy {
  paths: KnownHostsPaths;
  /** A key listed nowhere: resolve true to trust it; it is then added to the user's first file. */
  confirmNew(key: HostKeyInfo, name: string): boolean | Promise<boolean>;
  /** Why a key was refused, or which file a trusted key was added to. */
  tell(message: string, what: 'refused' | 'added'): void;
  /** Write new entries hashed (HashKnownHosts yes). */
  hash?: boolean;
}

/** The `verifyHostKey` of SshOptions for `host:port` under a policy. */
export function knownHostsVerifier(host: string, port: number, policy: HostKeyPolicy): (key: HostKeyInfo) => Promise<boolean> {
  return async (key) => {
    const files: { path: string; text: string }[] = [];
    for (const path of [...policy.paths.user, ...policy.paths.system]) {
      try { files.push({ path, text: await readFile(path, 'utf8') }); } catch { /* absent or unreadable: nothing known from it */ }
    }
    const v = checkKnownHosts(files, host, port, key.type, key.key);
    const name = knownHostName(host, port);
    switch (v.status) {
      case 'match':
        return true;
      case 'revoked':
        policy.tell(`the host key ${key.type} ${key.fingerprint} of ${name} is marked @revoked in ${v.path}:${v.line}`, 'refused');
        return false;
      case 'mismatch':
        policy.tell(`the host key of ${name} (${key.type} ${key.fingerprint}) differs from the one in ${v.path}:${v.line} (${fingerprintOf(v.listedKey)}): `
          + `the box was reinstalled, or someone is in between. If you trust the new key, remove the old one (ssh-keygen -R '${name}' -f ${v.path}) and connect again`, 'refused');
        return false;
      case 'unknown': {
        if (!await policy.confirmNew(key, name)) return false;
        const target = policy.paths.user[0];
        try {
          await addKnownHost(target, host, port, key, policy.hash);
          policy.tell(`added the host key ${key.type} ${key.fingerprint} of ${name} to ${target}`, 'added');
        } catch (err) {
          policy.tell(`trusted the host key ${key.type} ${key.fingerprint} of ${name} for now, but could not add it to ${target}: ${(err as Error).message}`, 'added');
        }
        return true;
      }
    }
  };
}
