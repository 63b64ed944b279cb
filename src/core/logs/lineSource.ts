/**
 * The byte-level line interface between log parsers (pure) and whatever reads the bytes
 * (src/node/lineReader.ts for files, `forEachLine` below for text already in memory).
 */

/** One line as a byte range of a shared buffer (no `\n`, no trailing `\r`); `lineNo` is 1-based. */
export type LineSink = (bytes: Uint8Array, start: number, end: number, lineNo: number) => void;

/** Turns bytes into text; front ends may pass a faster one (Node's Buffer#latin1Slice). */
export type ByteDecoder = (bytes: Uint8Array, start: number, end: number, ascii: boolean) => string;

const utf8 = new TextDecoder('utf-8');

/** Decodes ASCII by char codes and anything else as UTF-8. */
export const defaultDecoder: ByteDecoder = (bytes, start, end, ascii) => {
  if (!ascii) return utf8.decode(bytes.subarray(start, end));
  let s = '';
  for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i]);
  return s;
};

/** Feeds each line of an in-memory buffer to `sink` (CRLF and a missing final newline handled). Returns the line count. */
export function forEachLine(bytes: Uint8Array, sink: LineSink): number {
  let pos = 0;
  let lineNo = 0;
  while (pos < bytes.length) {
    let nl = bytes.indexOf(10, pos);
    if (nl < 0) nl = bytes.length;
    const end = nl > pos && bytes[nl - 1] === 13 ? nl - 1 : nl;
    sink(bytes, pos, end, ++lineNo);
    pos = nl + 1;
  }
  return lineNo;
}
