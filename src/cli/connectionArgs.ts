/** The plain connection options every database command reads the same way: --port and --timeout. */
import { UsageError } from './output';

/** --port as a number (undefined when not given); throws UsageError unless it is 1–65535. */
export function portFromArgs(value: string | undefined): number | undefined {
  const port = value === undefined ? undefined : Number(value);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) throw new UsageError(`--port must be a port number (got "${value}")`);
  return port;
}

/** --timeout in milliseconds (5000 when not given); throws UsageError unless it is a positive number. */
export function timeoutFromArgs(value: string | undefined): number {
  const timeout = value === undefined ? 5000 : Number(value);
  if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError(`--timeout must be milliseconds (got "${value}")`);
  return timeout;
}
