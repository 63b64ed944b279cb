/**
 * TLS to the database, named as the mysql client names it (`--ssl-mode`, `--ssl-ca`):
 *   DISABLED        no TLS (the default here, as before: most contest boxes serve the app on loopback)
 *   PREFERRED       TLS when the server offers it, else a plain connection
 *   REQUIRED        TLS or no connection; the certificate is not checked
 *   VERIFY_CA       TLS, and the certificate must be signed by the CA (--ssl-ca, else the system's CAs)
 *   VERIFY_IDENTITY VERIFY_CA, and the certificate must name the host connected to
 * A CA given without a mode means VERIFY_CA, as for the mysql client.
 */
import type { SslOptions } from 'mysql2';

export const SSL_MODES = ['DISABLED', 'PREFERRED', 'REQUIRED', 'VERIFY_CA', 'VERIFY_IDENTITY'] as const;
export type SslMode = (typeof SSL_MODES)[number];

export interface TlsOptions {
  mode: SslMode;
  /** PEM text of the CA certificate(s) that must have signed the server's certificate. */
  ca?: string;
  /** Where `ca` was read from, for messages. */
  caFile?: string;
}

/** The mode named by `text` (any case, `-` or `_`), or undefined. */
export function parseSslMode(text: string): SslMode | undefined {
  const t = text.trim().toUpperCase().replace(/-/g, '_');
  return (SSL_MODES as readonly string[]).includes(t) ? t as SslMode : undefined;
}

/**
 * The effective TLS options from a mode as given (undefined or '' when not given) and a CA file name
 * (undefined or '' when none): the CA alone means VERIFY_CA. Returns a message when the two disagree
 * (a CA with a mode that checks no certificate), so that a CA is never silently unused.
 */
export function resolveTls(mode: string | undefined, caFile: string | undefined, caOption = '--ssl-ca', modeOption = '--ssl-mode'): { mode: SslMode } | { error: string } {
  const ca = caFile?.trim() ? caFile.trim() : undefined;
  if (!mode?.trim()) return { mode: ca ? 'VERIFY_CA' : 'DISABLED' };
  const m = parseSslMode(mode);
  if (!m) return { error: `${modeOption} must be one of ${SSL_MODES.join(', ')} (got "${mode}")` };
  if (ca && m !== 'VERIFY_CA' && m !== 'VERIFY_IDENTITY') {
    return { error: `${caOption} is used only to check the server's certificate: give ${modeOption} VERIFY_CA or VERIFY_IDENTITY with it (${modeOption} is ${m})` };
  }
  return { mode: m };
}

/**
 * mysql2's `ssl` option for the mode; undefined for a plain connection. The name in the certificate
 * (VERIFY_IDENTITY) is checked by the caller once connected: mysql2 checks it only for a host given
 * by name, and through a tunnel it connects to the tunnel's local end.
 */
export function mysql2Ssl(tls: TlsOptions | undefined): SslOptions | undefined {
  if (!tls || tls.mode === 'DISABLED') return undefined;
  if (tls.mode === 'PREFERRED' || tls.mode === 'REQUIRED') return { rejectUnauthorized: false };
  return {
    ...(tls.ca ? { ca: tls.ca } : {}),
    rejectUnauthorized: true,
    verifyIdentity: false,
  };
}
