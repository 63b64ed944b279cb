/**
 * Log arguments of `endpoints`, `slow` and `diff`: local paths and files on other boxes
 * (`ssh://[USER@]HOST[:PORT]/PATH` or `[USER@]HOST:/PATH`), and how the CLI logs in to those boxes:
 * the user and port given in the argument, the key by --ssh-key, else what ~/.ssh/config and `ssh`'s
 * defaults say, and the host key checked against ~/.ssh/known_hosts (see sshArgs.ts).
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { isatty } from 'node:tty';
import { LogSourceError, parseLogSource, type LogSource } from '../core/logs/logSource';
import type { SshOptions } from '../db/sshTunnel';
import { RemoteLogReader, type RemoteLogSource } from '../node/remoteLog';
import type { RangePlan } from '../node/logRanges';
import type { SourceRead } from '../node/logSources';
import { isPiped, STDIN } from '../node/pipedLog';
import type { CommandIo } from './command';
import { UsageError } from './output';

/** Spread into a parseArgs `options` table. */
export const LOG_SOURCE_OPTIONS = {
  'by-host': { type: 'boolean' },
  'ssh-key': { type: 'string' },
  'accept-new-host-key': { type: 'boolean' },
  threads: { type: 'string' },
} as const;

/** Help lines for the log arguments and the options above. */
export const LOG_SOURCE_HELP = `LOG is a local file, - for standard input (a pipe, <(...) too), or a file on another box
read over SSH as it streams (gzip too):
  ssh://[USER@]HOST[:PORT]/ABSOLUTE/PATH   or   [USER@]HOST:/ABSOLUTE/PATH
Several logs, local and remote mixed, are merged into one report.

  --by-host                 a HOST column (JSON: "hosts": {"name": count}) splitting each row by box
  --ssh-key FILE            private key for the boxes (default: the agent at SSH_AUTH_SOCK and
                            ~/.ssh/id_ed25519, id_ecdsa, id_rsa); host keys are checked against
                            ~/.ssh/known_hosts
  --accept-new-host-key     trust a box whose host key known_hosts does not list yet, and add the
                            key to ~/.ssh/known_hosts (without it such a box is refused)
  --threads N               threads that read one large plain local log (default: one per core;
                            1 reads it on one thread; the report is the same either way)`;

export interface LogSourceArgValues {
  'by-host'?: boolean;
  'ssh-key'?: string;
  'accept-new-host-key'?: boolean;
  threads?: string;
}

/** How one large local log is read (--threads): on that many threads (this one among them), or on one. */
export function rangesOf(values: LogSourceArgValues): RangePlan | false {
  if (values.threads === undefined) return { here: true };
  const n = Number(values.threads);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--threads takes a positive integer (got "${values.threads}")`);
  return n === 1 ? false : { threads: n, here: true };
}

/**
 * Reads the positional log arguments; local paths are resolved against the working directory, and
 * `-` stays `-`: standard input (`ssh isu1 cat /var/log/nginx/access.log | query-insight endpoints -`).
 */
export function parseLogArgs(positionals: readonly string[], cwd: string): LogSource[] {
  if (positionals.includes(STDIN)) {
    stdinOnce(positionals);
    // why: a terminal as input would wait for typing that never comes; say what - is for instead.
    if (isatty(0)) throw new UsageError('- reads the log from standard input, which is a terminal here: pipe a log in, e.g. ssh isu1 cat /var/log/nginx/access.log | query-insight endpoints -');
  }
  return positionals.map((p) => {
    if (p === STDIN) return { kind: 'local', path: STDIN };
    let s: LogSource;
    try {
      s = parseLogSource(p);
    } catch (err) {
      if (err instanceof LogSourceError) throw new UsageError(err.message);
      throw err;
    }
    return s.kind === 'local' ? { kind: 'local', path: resolve(cwd, s.path) } : s;
  });
}

/** Standard input can be read once: `-` named twice is a usage error. */
function stdinOnce(paths: readonly string[]): void {
  if (paths.filter((p) => p === STDIN).length > 1) throw new UsageError('- (standard input) can be given once');
}

/**
 * Refuses, before anything is read, a local file that does not exist and `-` named more than once
 * (on the two sides of `diff`, say): standard input can be read once.
 */
export async function checkLocalSources(sources: readonly LogSource[]): Promise<void> {
  stdinOnce(sources.map((s) => (s.kind === 'local' ? s.path : '')));
  for (const s of sources) {
    if (s.kind !== 'local' || isPiped(s.path)) continue;
    // why: a stat on this thread; fs/promises would start libuv's four pool threads for it, memory the read never needs.
    if (!isFile(s.path)) throw new Error(`cannot read ${s.path}: no such file`);
  }
}

function isFile(path: string): boolean {
  try { return statSync(path).isFile(); } catch { return false; }
}

/** The SSH login the CLI uses for a box a log is on (the rules of --ssh: ~/.ssh/config, agent, known_hosts). */
export function cliSshLogin(values: LogSourceArgValues, io: CommandIo): (s: RemoteLogSource) => Promise<SshOptions> {
  const keyPath = values['ssh-key'] === undefined ? undefined : resolve(io.cwd, values['ssh-key']);
  // why: loaded on the first login, so a local read does not load the SSH modules (crypto and their parsers).
  return async (s) => (await import('./sshArgs')).cliBoxLogin(s, keyPath, values['accept-new-host-key'] === true, io);
}

/** A reader for the remote sources, or undefined when every source is local. Close it when done. */
export function remoteReaderFor(sources: readonly LogSource[], values: LogSourceArgValues, io: CommandIo): RemoteLogReader | undefined {
  return sources.some((s) => s.kind === 'ssh') ? new RemoteLogReader(cliSshLogin(values, io)) : undefined;
}

/** Prints one stderr line per source that failed; returns true when any did. */
export function reportSourceErrors(reads: readonly SourceRead[], io: CommandIo): boolean {
  let failed = false;
  for (const r of reads) {
    if (!r.error) continue;
    failed = true;
    io.stderr.write(`query-insight: ${r.error}\n`);
  }
  return failed;
}

/**
 * Prints one stderr line per source whose gzip data ended early or was corrupt, naming the file and
 * the lines read before the damage; returns true when any was. Called after the report, which covers
 * those lines.
 */
export function reportDamagedSources(reads: readonly SourceRead[], io: CommandIo, command: string): boolean {
  const damaged = reads.filter((r) => r.result?.damaged);
  for (const r of damaged) io.stderr.write(`query-insight ${command}: ${r.result!.damaged!.message}\n`);
  return damaged.length > 0;
}

/** `{ host: count }` as one table cell: `isu1 120, isu2 80`. */
export function hostsCell(hosts: Record<string, number> | undefined): string {
  return hosts ? Object.entries(hosts).map(([h, n]) => `${h} ${n}`).join(', ') : '';
}
