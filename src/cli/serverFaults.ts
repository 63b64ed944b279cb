/**
 * How the commands that explain statements behave when the server fails them: a run stops at once
 * when the server went away (the rest is reported "not explained"), and stored functions are
 * explained only when named with --allow-function.
 */
import type { DbConnection } from '../db/connection';
import { UsageError } from './output';

/** Exit code of a run that stopped before every statement was explained: the server went away or refused the login. */
export const EXIT_SERVER_GONE = 3;

/** Spread into a parseArgs `options` table. */
export const GUARD_ARG_OPTIONS = {
  'allow-function': { type: 'string', multiple: true },
} as const;

/** Help lines for the options above. */
export const GUARD_HELP = `  --allow-function NAME    explain statements that call the stored function NAME (name or db.name;
                           repeatable, or comma-separated). The optimizer may run a stored function
                           while it makes the plan, so without this such statements are not sent`;

/**
 * The `allowFunctions` callback for DbConnection from --allow-function values: true when every
 * function called is named (a bare name means the connection's database).
 */
export function allowFunctionsFromArgs(values: { 'allow-function'?: string[] }, database: string): ((names: string[]) => boolean) | undefined {
  const given = (values['allow-function'] ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  if (given.length === 0) return undefined;
  const allowed = new Set<string>();
  for (const g of given) {
    const parts = g.replace(/`/g, '').split('.');
    if (parts.length > 2 || parts.some((p) => p === '')) throw new UsageError(`--allow-function takes a function name or db.name (got "${g}")`);
    allowed.add((parts.length === 2 ? parts.join('.') : `${database}.${parts[0]}`).toLowerCase());
  }
  return (names) => names.every((n) => allowed.has(n.toLowerCase()));
}

/**
 * After a statement failed with `kind`: undefined when the run can go on (the connection was lost
 * but opens again, or the failure was the statement's own), else why the run stops.
 */
export async function stopReason(db: DbConnection, kind: string, message: string): Promise<string | undefined> {
  if (kind === 'auth') return `the server refused the login (${message})`;
  if (kind === 'tls') return `TLS to the server failed (${message})`;
  if (kind !== 'connection-lost' && kind !== 'unreachable') return undefined;
  try {
    await db.connect();
    return undefined;
  } catch (err) {
    return `the server went away (${(err as Error).message})`;
  }
}
