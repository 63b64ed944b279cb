/**
 * What a file is, for the editor's pickers and imports: the one log sniffer (core/logs/logKind.ts)
 * over the file's head (decompressed when gzip): a log kind and layout, a saved run, or empty.
 */
import { sniffLog } from '../core/logs/logKind';
import type { FileKind } from '../core/logs/nothingRead';
import { readLogHead } from './logHead';

/** The kind of the file at `path`; a file that cannot be read throws. */
export function sniffLogFile(path: string): { kind: FileKind; format?: 'ltsv' | 'json' | 'combined' } {
  return sniffLog(readLogHead(path));
}
