/**
 * The TLS options of a connection from a mode and a CA file as the user gave them (the CLI's
 * --ssl-mode / --ssl-ca, the extension's connection.sslMode / connection.sslCa): the CA file is read
 * here, so that src/db gets its PEM text.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { resolveTls, type TlsOptions } from '../db/tls';

export interface TlsSource {
  mode?: string;
  ca?: string;
  /** Where a relative CA path starts. */
  cwd: string;
  home?: string;
  /** How the two are named in messages (`--ssl-mode`, `queryInsight.connection.sslMode`). */
  modeName: string;
  caName: string;
}

/** The TLS options, or undefined for a plain connection. Throws an Error with a message for a bad mode or an unreadable CA file. */
export async function loadTls(src: TlsSource): Promise<TlsOptions | undefined> {
  const r = resolveTls(src.mode, src.ca, src.caName, src.modeName);
  if ('error' in r) throw new Error(r.error);
  if (r.mode === 'DISABLED') return undefined;
  const given = src.ca?.trim();
  if (!given) return { mode: r.mode };
  const file = given.startsWith('~/') ? join(src.home || homedir(), given.slice(2)) : isAbsolute(given) ? given : resolve(src.cwd, given);
  let ca: string;
  try {
    ca = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`${src.caName} ${given}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`${src.caName} ${given}: not a PEM certificate (no BEGIN CERTIFICATE line)`);
  return { mode: r.mode, ca, caFile: given };
}
