/**
 * The position a log import has reached in its file, for watch mode: after a full read it remembers
 * the file's identity (inode) and the offset read up to; a refresh then reads only the bytes appended
 * since, or says the file must be read again from the start (it shrank: truncated; another inode:
 * rotated; gzip: never appended to). A line still being written (no newline yet) is held back until
 * its newline arrives. Shared by the access-log and slow-log imports; node fs only, unit-tested.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';

/** What a refresh has to do. */
export type TailState = 'full' | 'appended' | 'unchanged';

export class LogTail {
  private offset = 0;
  private ino = -1;
  private gzip = false;
  private known = false;
  private partial: Buffer = Buffer.alloc(0);
  /** Lines delivered by `readAppended` so far (continues the full read's numbering). */
  lines = 0;

  constructor(readonly path: string) {}

  /** Stat before a full read: the size seen then is where appended reading starts afterwards. */
  beginFull(): { size: number; ino: number } {
    const st = statSync(this.path);
    return { size: st.size, ino: st.ino };
  }

  /**
   * Records a finished full read: `before` from beginFull, whether it was gzip, how many lines and
   * (decompressed) bytes it delivered.
   */
  endFull(before: { size: number; ino: number }, read: { gzip: boolean; lines: number; bytes: number }): void {
    this.ino = before.ino;
    this.gzip = read.gzip;
    this.lines = read.lines;
    // why: the reader saw at least the size stat'ed before it started; what was written while it read
    // (and it may have read part of that) is re-read from `size` onwards only when it read no more.
    this.offset = read.gzip ? before.size : Math.max(before.size, Math.min(read.bytes, statSync(this.path).size));
    this.partial = Buffer.alloc(0);
    this.known = true;
  }

  /** Whether the file must be read whole, only its appended bytes, or not at all. Throws when it is gone. */
  state(): TailState {
    if (!this.known || this.gzip) return 'full';
    const st = statSync(this.path);
    if (st.ino !== this.ino || st.size < this.offset) return 'full';
    return st.size === this.offset ? 'unchanged' : 'appended';
  }

  /** Reads the bytes appended since the last read and delivers their complete lines (`\r\n` trimmed). Returns the count. */
  readAppended(onLine: (bytes: Buffer, start: number, end: number, lineNo: number) => void): number {
    const fd = openSync(this.path, 'r');
    let count = 0;
    try {
      const st = fstatSync(fd);
      if (st.ino !== this.ino) throw new Error(`${this.path} was replaced while reading`);
      const size = st.size;
      const chunk = Buffer.allocUnsafe(1 << 18);
      let pos = this.offset;
      let carry = this.partial;
      while (pos < size) {
        const n = readSync(fd, chunk, 0, Math.min(chunk.length, size - pos), pos);
        if (n === 0) break;
        pos += n;
        const buf = carry.length ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
        let start = 0;
        for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
          const end = nl > start && buf[nl - 1] === 13 ? nl - 1 : nl;
          onLine(buf, start, end, ++this.lines);
          count++;
          start = nl + 1;
        }
        carry = Buffer.from(buf.subarray(start));
      }
      this.partial = carry;
      this.offset = pos;
    } finally {
      closeSync(fd);
    }
    return count;
  }
}
