/**
 * Checks a server's host key against OpenSSH known_hosts text: plain and hashed (`|1|salt|hash`)
 * host names, `[host]:port` for ports other than 22, comma-separated patterns with `*`/`?` and `!`
 * negation, and `@revoked` lines (`@cert-authority` lines are skipped: certificates are not offered).
 * Pure: the caller reads and writes the files (knownHostsStore.ts).
 */
import { createHmac, randomBytes } from 'node:crypto';

/** Where an entry is: the file's path as given and the 1-based line. */
export interface KnownHostEntry { path: string; line: number }

export type KnownHostVerdict =
  | ({ status: 'match' } & KnownHostEntry)
  /** The host is listed with another key of the same type: the key changed, or someone is in between. */
  | ({ status: 'mismatch'; listedKey: string } & KnownHostEntry)
  | ({ status: 'revoked' } & KnownHostEntry)
  | { status: 'unknown' };

function globToRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}

/** True when the host-pattern field (`a,b,!c` or a hashed `|1|salt|hash`) names `name`. */
function hostFieldMatches(field: string, name: string): boolean {
  if (field.startsWith('|1|')) {
    const [, , salt, hash] = field.split('|');
    if (!salt || !hash) return false;
    return createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64') === hash;
  }
  let hit = false;
  for (const p of field.split(',')) {
    if (p.startsWith('!')) { if (globToRegExp(p.slice(1)).test(name)) return false; }
    else if (globToRegExp(p).test(name)) hit = true;
  }
  return hit;
}

/** The name known_hosts uses for a host and port: `host`, or `[host]:port` when the port is not 22. */
export function knownHostName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

/**
 * Looks the key (type and raw blob) up for host:port in the given known_hosts files' texts (e.g.
 * ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts). A revoked key wins, then a matching entry,
 * then an entry of the same type with a different key.
 */
export function checkKnownHosts(files: readonly { path: string; text: string }[], host: string, port: number, keyType: string, key: Buffer): KnownHostVerdict {
  const name = knownHostName(host, port);
  const keyB64 = key.toString('base64');
  let match: KnownHostVerdict | undefined;
  let mismatch: KnownHostVerdict | undefined;
  for (const { path, text } of files) {
    let line = 0;
    for (const raw of text.split('\n')) {
      line++;
      const entry = raw.trim();
      if (!entry || entry.startsWith('#')) continue;
      const fields = entry.split(/\s+/);
      let marker: string | undefined;
      if (fields[0].startsWith('@')) marker = fields.shift();
      if (marker === '@cert-authority' || fields.length < 3) continue;
      const [hosts, type, b64] = fields;
      if (!hostFieldMatches(hosts, name)) continue;
      const same = b64 === keyB64;
      if (marker === '@revoked') { if (same) return { status: 'revoked', path, line }; continue; }
      if (same) match ??= { status: 'match', path, line };
      else if (type === keyType) mismatch ??= { status: 'mismatch', path, line, listedKey: b64 };
    }
  }
  return match ?? mismatch ?? { status: 'unknown' };
}

/**
 * The known_hosts line for a key, as ssh writes it: `name type base64`, the name hashed
 * (`|1|salt|HMAC-SHA1`) when `hash` is set, as with HashKnownHosts yes. `salt` is for tests.
 */
export function knownHostLine(host: string, port: number, keyType: string, key: Buffer, hash = false, salt = randomBytes(20)): string {
  const name = knownHostName(host, port);
  const field = hash ? `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}` : name;
  return `${field} ${keyType} ${key.toString('base64')}`;
}
