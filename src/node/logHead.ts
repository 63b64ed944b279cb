/**
 * The first bytes of a log file, decompressed when it is gzip: what src/core/logs/logKind.ts sniffs.
 * Shared by the CLI (`endpoints`, `slow`) and the editor's import commands.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { SNIFF_BYTES } from '../core/logs/logKind';

/** Reads the head of `path` (at most SNIFF_BYTES of text); an unreadable gzip head gives no bytes. */
export function readLogHead(path: string): Uint8Array {
  const fd = openSync(path, 'r');
  let head = Buffer.alloc(SNIFF_BYTES);
  try {
    head = head.subarray(0, readSync(fd, head, 0, head.length, 0));
  } finally {
    closeSync(fd);
  }
  return logHeadText(head);
}

/** The text of a log's first bytes: gunzipped as far as they go when they are gzip; an unreadable gzip head gives no bytes. */
export function logHeadText(head: Buffer): Uint8Array {
  if (head[0] === 0x1f && head[1] === 0x8b) {
    // why: the head is a cut-off gzip stream; a sync flush returns what it holds instead of failing.
    try { return gunzipSync(head, { finishFlush: 2 }).subarray(0, SNIFF_BYTES); } catch { return new Uint8Array(0); }
  }
  return head;
}
