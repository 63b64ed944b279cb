/**
 * A large access log for the sample app, written quickly and always the same: the sample log
 * (endpointsLog.ts) repeated as benchmark rounds a minute apart until the file reaches the size asked
 * for. Each round holds the sample's known requests, so the figures of the whole file are known too:
 * every endpoint's count and total are the sample's times the number of rounds.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { sampleAccessLog } from './endpointsLog';

export interface BigAccessLog {
  path: string;
  bytes: number;
  lines: number;
  /** How many times the sample's requests are in the file. */
  rounds: number;
}

const ROUND_MS = 60_000;
/** Rounds gathered before one write: a few MB per write keeps generation at disk speed. */
const WRITE_BYTES = 8 << 20;

/** Writes at least `minBytes` of access log to `path` (whole rounds only). */
export function writeBigAccessLog(path: string, minBytes: number): BigAccessLog {
  const start = Date.UTC(2024, 4, 1, 12, 0, 0);
  const fd = openSync(path, 'w');
  let bytes = 0;
  let lines = 0;
  let rounds = 0;
  try {
    let pending: string[] = [];
    let pendingBytes = 0;
    while (bytes + pendingBytes < minBytes) {
      const text = sampleAccessLog(start + rounds * ROUND_MS);
      rounds++;
      lines += countLines(text);
      pending.push(text);
      pendingBytes += Buffer.byteLength(text);
      if (pendingBytes >= WRITE_BYTES) {
        bytes += writeSync(fd, pending.join(''));
        pending = [];
        pendingBytes = 0;
      }
    }
    if (pending.length) bytes += writeSync(fd, pending.join(''));
  } finally {
    closeSync(fd);
  }
  return { path, bytes, lines, rounds };
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
