/**
 * What a file is, for the editor's pickers and imports: the log kinds of core/logs/logKind.ts (the one
 * log sniffer) over the file's head, plus the two answers a picker needs beyond them: a saved run,
 * and an empty file (the 0-byte nginx default before any request).
 */
import { sniffLog } from '../core/logs/logKind';
import { looksLikeRun } from '../core/report/runs';
import type { FileKind } from '../core/logs/nothingRead';
import { readLogHead } from './logHead';

/** The kind of the file at `path`; a file that cannot be read throws. */
export function sniffLogFile(path: string): { kind: FileKind; format?: 'ltsv' | 'json' | 'combined' } {
  const head = readLogHead(path);
  let blank = true;
  for (let i = 0; i < head.length && blank; i++) blank = head[i] === 32 || head[i] === 9 || head[i] === 10 || head[i] === 13;
  if (blank) return { kind: 'empty' };
  if (looksLikeRun(Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, 256)).toString('utf8'))) return { kind: 'run' };
  return sniffLog(head);
}
