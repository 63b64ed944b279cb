/**
 * Naming what a statement that ran out of time was waiting for. While a statement is still running
 * near its limit, a second session reads that thread's row of the process list (what
 * `SHOW PROCESSLIST` shows, read from information_schema.PROCESSLIST so that only that row comes
 * back); a state like "Waiting for table metadata lock" then goes into the timeout message.
 */

/** One thread's row of the process list, as far as the message needs it. */
export interface ProcessState {
  state: string;
  /** Seconds the statement has been in that state, as the server counts them. */
  time?: number;
}

/** The process-list read for one thread (a schema read the guard accepts). */
export function processStateSql(threadId: number): string {
  return `SELECT STATE, TIME FROM information_schema.PROCESSLIST WHERE ID = ${Math.trunc(threadId)}`;
}

/** True for states that wait for a lock held by another session. */
export function isLockWait(state: string): boolean {
  return /\block\b|waiting for (?:table|row|metadata|backup|global read)/i.test(state);
}

/** The message of a statement that ran out of its `ms` budget, naming the wait when one was seen. */
export function describeWait(ms: number, seen: ProcessState | undefined, detail: string): string {
  if (!seen?.state) return `the server did not answer within ${ms} ms (${detail})`;
  if (isLockWait(seen.state)) {
    return `waited ${ms} ms for a lock and gave up: the server showed "${seen.state}" (SHOW PROCESSLIST state). `
      + 'Another session holds a lock on a table this statement reads (LOCK TABLES, an open transaction, an ALTER TABLE); '
      + 'it is explained again once the lock is released';
  }
  return `the server did not finish within ${ms} ms (SHOW PROCESSLIST state: "${seen.state}")`;
}
