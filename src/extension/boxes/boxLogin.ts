/**
 * How the editor logs in to a box, by the rules of the database tunnel: the target through
 * ~/.ssh/config (a Host alias, its HostName, User, Port, IdentityFile, ProxyJump); for a box whose
 * config names no IdentityFile, the key of `queryInsight.connection.ssh.privateKeyPath` when set
 * (the team's key, as for the tunnel), else ~/.ssh/id_ed25519, id_ecdsa, id_rsa; the agent at
 * SSH_AUTH_SOCK, host keys checked against ~/.ssh/known_hosts (an unlisted key is shown in a modal
 * and added when trusted; a changed or revoked key is refused). An encrypted key file's passphrase is
 * asked once and kept in SecretStorage, never in settings; with an agent and no stored passphrase,
 * the agent's keys are offered instead of the file.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { utils as sshUtils } from 'ssh2';
import type { HostKeyInfo, SshOptions } from '../../db/sshTunnel';
import { knownHostsVerifier } from '../../node/ssh/knownHostsStore';
import { resolveSshLogin } from '../../node/ssh/sshLogin';
import type { SshLogin } from '../../node/remoteLog';
import type { Logger } from '../logger';

/** `~/x` as a path under the home directory. */
function expandHome(path: string): string {
  return path.startsWith('~/') ? join(process.env.HOME || homedir(), path.slice(2)) : path;
}

/** The SecretStorage key of the passphrase of a private key file. */
export function passphraseKey(keyPath: string): string {
  return `queryInsight.ssh.passphrase:${keyPath}`;
}

function isEncrypted(keyPath: string): boolean {
  try {
    const parsed = sshUtils.parseKey(readFileSync(keyPath));
    return parsed instanceof Error && /encrypted|passphrase/i.test(parsed.message);
  } catch {
    return false; // unreadable: the login says so with the path
  }
}

/** A login function for RemoteLogReader; host-key questions are asked once per key while it lives. */
export function editorBoxLogin(secrets: vscode.SecretStorage, logger: Logger): SshLogin {
  const asking = new Map<string, Promise<boolean>>();
  const confirm = (key: HostKeyInfo, name: string): Promise<boolean> => {
    let answer = asking.get(key.fingerprint + name);
    if (!answer) {
      const trust = 'Trust and connect';
      answer = Promise.resolve(vscode.window.showWarningMessage(
        `Query Insight: first connection to the SSH host ${name} (a box of queryInsight.boxes). Its ${key.type} key fingerprint is ${key.fingerprint}. `
        + 'Trust it? It is added to ~/.ssh/known_hosts, as ssh does.', { modal: true }, trust)).then((a) => a === trust);
      asking.set(key.fingerprint + name, answer);
    }
    return answer;
  };
  return async (source): Promise<SshOptions> => {
    const resolve = (privateKeyPath?: string) => resolveSshLogin({
      host: source.host, ...(source.user ? { user: source.user } : {}), ...(source.port ? { port: source.port } : {}), useAgent: true,
      ...(privateKeyPath ? { privateKeyPath } : {}),
    }, process.env, (host, port, knownHosts) => knownHostsVerifier(host, port, {
      paths: knownHosts, confirmNew: confirm,
      tell: (message, what) => { if (what === 'added') logger.info(message); else logger.error(`SSH host key refused: ${message}`); },
    }));
    let login = resolve();
    // why: the key setting of the tunnel is the team's key; a box's own IdentityFile in ~/.ssh/config still wins.
    const teamKey = expandHome(vscode.workspace.getConfiguration('queryInsight.connection.ssh').get<string>('privateKeyPath', '').trim());
    if (teamKey && !login.config.identityFiles.length) login = resolve(teamKey);
    for (const note of login.notes) logger.info(`ssh config: ${note}`);
    const o = login.options;
    if (o.privateKeyPath && isEncrypted(o.privateKeyPath)) {
      const stored = await secrets.get(passphraseKey(o.privateKeyPath));
      if (stored) return { ...o, passphrase: stored };
      if (o.agent) {
        // why: the agent usually holds the key a passphrase protects; the file would only fail first.
        const agentOnly: SshOptions = { ...o };
        delete agentOnly.privateKeyPath;
        return agentOnly;
      }
      const typed = await vscode.window.showInputBox({
        title: `Passphrase of ${o.privateKeyPath}`, password: true, ignoreFocusOut: true,
        prompt: `To log in to ${source.label ?? source.host}. Kept in VS Code's secret storage, never in settings or logs.`,
      });
      if (!typed) throw new Error(`the SSH key ${o.privateKeyPath} is encrypted and no passphrase was given`);
      await secrets.store(passphraseKey(o.privateKeyPath), typed);
      return { ...o, passphrase: typed };
    }
    if (!o.privateKeyPath && !o.agent) {
      throw new Error(`no way to log in to ${source.host}: no ssh-agent (SSH_AUTH_SOCK) and no IdentityFile or ~/.ssh/id_* key`);
    }
    return o;
  };
}
