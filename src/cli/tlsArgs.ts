/**
 * The TLS options shared by the commands that connect to a database (`explain`, `advise`,
 * `server-stats`, `mcp`), as the mysql client names them: `--ssl-mode` and `--ssl-ca FILE`.
 */
import type { CommandIo } from './command';
import { UsageError } from './output';
import type { TlsOptions } from '../db/tls';
import { loadTls } from '../node/tlsCa';

/** Spread into a parseArgs `options` table. */
export const TLS_ARG_OPTIONS = {
  'ssl-mode': { type: 'string' },
  'ssl-ca': { type: 'string' },
} as const;

/** Help lines for the options above (indented as the commands' option lists are). */
export const TLS_HELP = `  --ssl-mode MODE          TLS to the database, as the mysql client: DISABLED (default: no TLS),
                           PREFERRED (TLS when the server offers it), REQUIRED (TLS, certificate
                           not checked), VERIFY_CA (the certificate must be signed by --ssl-ca, else
                           by a CA the system trusts), VERIFY_IDENTITY (VERIFY_CA, and it must name
                           --host)
  --ssl-ca FILE            the CA certificate (PEM) that signed the server's certificate; alone it
                           means --ssl-mode VERIFY_CA`;

export interface TlsArgValues {
  'ssl-mode'?: string;
  'ssl-ca'?: string;
}

/** The TLS options from parsed arguments; undefined for a plain connection. Throws UsageError on bad values or an unreadable CA file. */
export async function tlsFromArgs(values: TlsArgValues, io: CommandIo): Promise<TlsOptions | undefined> {
  try {
    return await loadTls({ mode: values['ssl-mode'], ca: values['ssl-ca'], cwd: io.cwd, home: io.env.HOME, modeName: '--ssl-mode', caName: '--ssl-ca' });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
