/**
 * OpenSSH client configuration (`~/.ssh/config`, `/etc/ssh/ssh_config`, ssh_config(5)) read the way
 * `ssh` reads it, for the options a tunnel or a remote log needs: HostName, User, Port,
 * IdentityFile, ProxyJump, IdentityAgent, UserKnownHostsFile. `Host` blocks match the name given
 * (the alias) with `*` / `?` patterns and `!` negation; for each option the first value found wins,
 * except IdentityFile, whose values add up. `Match` blocks other than `Match all` are skipped (their
 * conditions are not evaluated). `Include` is followed through a caller-supplied reader.
 *
 * Pure: text in, plain data out; the caller reads the files (sshLogin.ts).
 */

/** One `keyword args…` line with where it came from; `Host`/`Match` lines open blocks. */
export interface SshConfigLine {
  keyword: string;
  args: string[];
  path: string;
  line: number;
}

/** What the config says about one host name, after `%` tokens and `~` are expanded. */
export interface SshHostConfig {
  /** The name matched against the Host patterns, as given. */
  alias: string;
  /** Where to connect: HostName, else the alias. */
  hostname: string;
  user?: string;
  port?: number;
  /** IdentityFile values in order (expanded). */
  identityFiles: string[];
  /** ProxyJump hops in order (`[user@]host[:port]` each); absent for none. */
  proxyJump?: string[];
  /** IdentityAgent: a socket path, or 'none'. */
  identityAgent?: string;
  /** UserKnownHostsFile values (expanded). */
  userKnownHostsFiles?: string[];
  /** Lines that were not followed, each with a reason (a Match block, an unreadable Include). */
  notes: string[];
}

/** Splits a line's arguments: whitespace-separated, double quotes group. */
function splitArgs(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  let has = false;
  for (const ch of text) {
    if (ch === '"') { quoted = !quoted; has = true; continue; }
    if (!quoted && (ch === ' ' || ch === '\t')) {
      if (has) { out.push(cur); cur = ''; has = false; }
      continue;
    }
    cur += ch;
    has = true;
  }
  if (has) out.push(cur);
  return out;
}

/** Reads config text into lines (comments and blank lines dropped; `keyword=value` allowed). */
export function parseSshConfig(text: string, path: string): SshConfigLine[] {
  const out: SshConfigLine[] = [];
  let n = 0;
  for (const raw of text.split('\n')) {
    n++;
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^([A-Za-z][A-Za-z0-9]*)(?:\s*=\s*|\s+)(.*)$/.exec(line);
    if (!m) continue;
    out.push({ keyword: m[1].toLowerCase(), args: splitArgs(m[2]), path, line: n });
  }
  return out;
}

/**
 * The host names the config's `Host` lines name outright (no `*`, `?` or `!` pattern), in order,
 * each once: what a person would type after `ssh`, to offer as boxes.
 */
export function sshConfigHosts(files: readonly (readonly SshConfigLine[])[]): string[] {
  const out: string[] = [];
  for (const lines of files) {
    for (const l of lines) {
      if (l.keyword !== 'host') continue;
      for (const name of l.args) if (!/[*?!]/.test(name) && !out.includes(name)) out.push(name);
    }
  }
  return out;
}

function globMatch(pattern: string, name: string): boolean {
  // why: iterative `*` matching with one backtrack point is linear enough for host names and never throws.
  const p = pattern.toLowerCase();
  const s = name.toLowerCase();
  let i = 0, j = 0, star = -1, mark = 0;
  while (j < s.length) {
    if (i < p.length && (p[i] === '?' || p[i] === s[j])) { i++; j++; continue; }
    if (i < p.length && p[i] === '*') { star = i++; mark = j; continue; }
    if (star >= 0) { i = star + 1; j = ++mark; continue; }
    return false;
  }
  while (p[i] === '*') i++;
  return i === p.length;
}

/** True when the Host patterns match `name`: one positive pattern matches and no negated one does. */
export function hostPatternsMatch(patterns: readonly string[], name: string): boolean {
  let hit = false;
  for (const raw of patterns) {
    for (const p of raw.split(',')) {
      if (!p) continue;
      if (p.startsWith('!')) { if (globMatch(p.slice(1), name)) return false; }
      else if (globMatch(p, name)) hit = true;
    }
  }
  return hit;
}

export interface ExpandContext {
  home: string;
  localUser: string;
}

/** Expands `~` and the `%` tokens ssh allows in paths: %d %u %h %r %p %n %%. */
function expandPath(v: string, ctx: ExpandContext, host: { alias: string; hostname: string; user: string; port: number }): string {
  let s = v === '~' ? ctx.home : v.startsWith('~/') ? ctx.home + v.slice(1) : v;
  s = s.replace(/%([%duhrpn])/g, (_, t: string) => ({ '%': '%', d: ctx.home, u: ctx.localUser, h: host.hostname, r: host.user, p: String(host.port), n: host.alias })[t] ?? '');
  return s;
}

/**
 * What the config files (each parsed; the user's first, then the system one, as ssh reads them) say
 * about `alias`. `include` returns the lines of the files an `Include` names (already parsed), or
 * undefined when they cannot be read.
 */
export function resolveSshHost(files: readonly (readonly SshConfigLine[])[], alias: string, ctx: ExpandContext,
  include?: (pattern: string, from: SshConfigLine) => SshConfigLine[] | undefined): SshHostConfig {
  const first = new Map<string, string[]>();
  const identityFiles: string[] = [];
  const notes: string[] = [];
  let active = true;
  const visit = (ls: readonly SshConfigLine[], depth: number): void => {
    for (const l of ls) {
      if (l.keyword === 'host') { active = hostPatternsMatch(l.args, alias); continue; }
      if (l.keyword === 'match') {
        active = l.args.length === 1 && l.args[0].toLowerCase() === 'all';
        if (!active) notes.push(`${l.path}:${l.line}: Match ${l.args.join(' ')} is not evaluated; its options are not used`);
        continue;
      }
      if (!active) continue;
      if (l.keyword === 'include') {
        for (const pattern of l.args) {
          const sub = depth < 8 && include ? include(pattern, l) : undefined;
          if (sub) {
            const outer: boolean = active;
            visit(sub, depth + 1);
            active = outer;
          } else notes.push(`${l.path}:${l.line}: Include ${pattern} could not be read`);
        }
        continue;
      }
      if (l.keyword === 'identityfile') { if (l.args[0]) identityFiles.push(l.args[0]); continue; }
      if (!first.has(l.keyword)) first.set(l.keyword, l.args);
    }
  };
  for (const lines of files) {
    // why: lines before a file's first Host apply to every host, whatever the previous file ended with.
    active = true;
    visit(lines, 0);
  }
  const one = (k: string): string | undefined => first.get(k)?.[0];
  const rawHost = one('hostname');
  const hostname = rawHost ? rawHost.replace(/%([%h])/g, (_, t: string) => (t === '%' ? '%' : alias)) : alias;
  const portText = one('port');
  const port = portText !== undefined && /^\d{1,5}$/.test(portText) && Number(portText) > 0 && Number(portText) < 65536 ? Number(portText) : undefined;
  if (portText !== undefined && port === undefined) notes.push(`Port ${portText} is not a port number; 22 is used`);
  const user = one('user');
  const host = { alias, hostname, user: user ?? ctx.localUser, port: port ?? 22 };
  const jump = first.get('proxyjump');
  const proxyJump = jump && jump[0] && jump[0].toLowerCase() !== 'none' ? jump.join(',').split(',').map((h) => h.trim()).filter(Boolean) : undefined;
  const agent = one('identityagent');
  const known = first.get('userknownhostsfile');
  return {
    alias, hostname, ...(user !== undefined ? { user } : {}), ...(port !== undefined ? { port } : {}),
    identityFiles: identityFiles.map((f) => expandPath(f, ctx, host)),
    ...(proxyJump ? { proxyJump } : {}),
    ...(agent !== undefined ? { identityAgent: agent.toLowerCase() === 'none' ? 'none' : agent === 'SSH_AUTH_SOCK' ? agent : expandPath(agent, ctx, host) } : {}),
    ...(known ? { userKnownHostsFiles: known.filter((k) => k.toLowerCase() !== 'none').map((k) => expandPath(k, ctx, host)) } : {}),
    notes,
  };
}

/** Parses one ProxyJump hop `[user@]host[:port]` (also `ssh://[user@]host[:port]`, `[v6]:port`). */
export function parseJumpHop(text: string): { user?: string; host: string; port?: number } | undefined {
  const t = text.trim().replace(/^ssh:\/\//, '');
  const m = /^(?:([^@\s]+)@)?(?:\[([^\]]+)\]|([^:@\s[\]/]+))(?::(\d{1,5}))?\/?$/.exec(t);
  if (!m) return undefined;
  const port = m[4] === undefined ? undefined : Number(m[4]);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  return { ...(m[1] ? { user: m[1] } : {}), host: m[2] ?? m[3], ...(port !== undefined ? { port } : {}) };
}
