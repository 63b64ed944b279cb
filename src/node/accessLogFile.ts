/**
 * Reads an access-log file (plain or gzip) into endpoint statistics: the file side of
 * src/core/logs/accessAnalysis.ts, shared by the CLI and the extension.
 */
import { AccessAnalyzer, type AccessAnalysisOptions, type AccessReport } from '../core/logs/accessAnalysis';
import type { ByteDecoder } from '../core/logs/lineSource';
import { readLines, type ReadLinesOptions, type ReadLinesResult } from './lineReader';

interface FastSlices { latin1Slice?(start: number, end: number): string; utf8Slice?(start: number, end: number): string }
const proto = Buffer.prototype as unknown as FastSlices;

/** Node's own decoders: much faster than TextDecoder for the short ASCII strings of the hot path. */
export const bufferDecoder: ByteDecoder = typeof proto.latin1Slice === 'function' && typeof proto.utf8Slice === 'function'
  // why: latin1Slice/utf8Slice are what Buffer#toString calls after argument checks; calling them directly saves a third of the decode time.
  ? (bytes, start, end, ascii) => (ascii ? (bytes as unknown as Required<FastSlices>).latin1Slice(start, end) : (bytes as unknown as Required<FastSlices>).utf8Slice(start, end))
  : (bytes, start, end, ascii) => (bytes as Buffer).toString(ascii ? 'latin1' : 'utf8', start, end);

/** UTF-8 text of bytes[start, end), a Buffer or not (the slow-log parser hands out its own copies too). */
export function utf8Of(b: Uint8Array, s: number, e: number): string {
  return (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength)).toString('utf8', s, e);
}

export interface AccessLogFileResult extends AccessReport {
  read: ReadLinesResult;
}

/**
 * Analyses one access-log file. Lines longer than `maxLineBytes` are counted as malformed; a last
 * line without a newline is parsed like the others (and reported malformed if it was cut short).
 */
export async function analyzeAccessLogFile(path: string, options: AccessAnalysisOptions, read: Omit<ReadLinesOptions, 'onLongLine'> = {}): Promise<AccessLogFileResult> {
  const analyzer = new AccessAnalyzer({ decode: bufferDecoder, ...options });
  const result = await readLines(path, analyzer.line as (b: Buffer, s: number, e: number, n: number) => void, {
    ...read,
    onLongLine: (lineNo, length) => analyzer.tooLong(lineNo, length),
  });
  return { ...analyzer.finish(), lines: result.lines, read: result };
}
