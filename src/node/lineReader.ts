/**
 * Streams the lines of a plain or gzip-compressed file as byte ranges, in bounded memory.
 *
 * Generic on purpose: the access-log and the slow-log readers both sit on it. The handler gets the
 * shared buffer and the [start, end) range of each line (without the `\n` and without a trailing
 * `\r`), so the hot path never builds a string it does not need. The buffer is reused: copy what
 * you keep.
 */
import { closeSync, createReadStream, fstatSync, openSync, readSync } from 'node:fs';
import { createGunzip } from 'node:zlib';

/** Called once per line; `lineNo` is 1-based. */
export type LineHandler = (bytes: Buffer, start: number, end: number, lineNo: number) => void;

/**
 * A line of readRange: `offset` is where the line starts in the file; the handler may return false
 * to stop the read before this line.
 */
export type RangeLineHandler = (bytes: Buffer, start: number, end: number, lineNo: number, offset: number) => void | boolean;
/** A line readRange skipped as too long; false stops the read before it, as for RangeLineHandler. */
export type RangeLongLineHandler = (lineNo: number, length: number, offset: number) => void | boolean;

export interface ReadLinesOptions {
  /** Lines longer than this are skipped and reported through `onLongLine` (default 1 MiB). */
  maxLineBytes?: number;
  /** Size of each read (default 256 KiB). */
  chunkBytes?: number;
  /** A plain file is read in slices of about this many milliseconds, yielding to the event loop between them (default 12). */
  sliceMs?: number;
  /** Checked between chunks; an aborted read rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called after each chunk with the bytes consumed from the file so far and its size on disk. */
  onProgress?: (fileBytesRead: number, fileBytesTotal: number) => void;
  /** A line longer than maxLineBytes: its number and length in bytes. */
  onLongLine?: (lineNo: number, length: number) => void;
  /** Forces (true) or forbids (false) gzip decoding; by default the magic bytes decide. */
  gzip?: boolean;
  /** Byte of a plain file to start at (a run reads what was appended since the last one); gzip files are always read whole. */
  offset?: number;
}

export interface ReadLinesResult {
  lines: number;
  /** Bytes of (decompressed) text read. */
  bytes: number;
  longLines: number;
  gzip: boolean;
  /** The file did not end with a newline (a log still being written, or cut short); its last line was delivered anyway. */
  unterminatedLastLine: boolean;
  /**
   * Set when gzip data ends early or is corrupt: every line before the damage was delivered (the
   * last one possibly cut), nothing after it. `message` names the file and the line count.
   */
  damaged?: { truncated: boolean; message: string };
}

/** The message for gzip data that stops early or goes bad after `lines` lines. */
export function gzipDamageMessage(path: string, lines: number, truncated: boolean, detail: string): string {
  return truncated
    ? `${path}: gzip data ends early after ${lines} lines (truncated?)`
    : `${path}: gzip data is damaged after ${lines} lines (${detail})`;
}

/** A stream that failed part way: `partial` counts the complete lines delivered before the failure. */
export class LineReadError extends Error {
  constructor(override readonly cause: unknown, readonly partial: ReadLinesResult) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'LineReadError';
  }
}

/** Splits a stream of chunks into lines over one reusable buffer. */
class LineSplitter {
  buf: Buffer;
  len = 0;
  lineNo = 0;
  bytes = 0;
  longLines = 0;
  /** Inside a line that is too long: skip until the next newline. */
  private skipping = false;
  private skippedLength = 0;
  /** Where buf[0] is in the input (a range read starts past 0), and where a handler stopped the read (-1: it did not). */
  origin = 0;
  stoppedAt = -1;
  /** Where the long line being skipped started. */
  private skippedFrom = 0;

  constructor(private readonly maxLine: number, size: number, private readonly onLine: RangeLineHandler, private readonly onLong?: RangeLongLineHandler, buf?: Buffer) {
    this.buf = buf?.length === size ? buf : Buffer.allocUnsafe(size);
  }

  /** Room left for the next read. */
  get free(): number { return this.buf.length - this.len; }

  /** Copies a chunk in (for decompressed input), draining as it fills. */
  push(chunk: Buffer): void {
    let off = 0;
    while (off < chunk.length) {
      const n = Math.min(this.free, chunk.length - off);
      chunk.copy(this.buf, this.len, off, off + n);
      off += n;
      this.added(n);
    }
  }

  /** Marks `n` bytes written at `len` and delivers the complete lines. */
  added(n: number): void {
    this.len += n;
    this.bytes += n;
    const buf = this.buf;
    let pos = 0;
    const len = this.len;
    if (this.skipping) {
      const nl = buf.indexOf(10, 0);
      if (nl < 0 || nl >= len) { this.skippedLength += len; this.origin += len; this.len = 0; return; }
      this.skippedLength += nl;
      if (!this.endLongLine()) return;
      pos = nl + 1;
    }
    const onLine = this.onLine;
    const origin = this.origin;
    for (;;) {
      const nl = buf.indexOf(10, pos);
      if (nl < 0 || nl >= len) break;
      const lineNo = ++this.lineNo;
      if (nl - pos > this.maxLine) {
        this.longLines++;
        if (this.onLong?.(lineNo, nl - pos, origin + pos) === false) { this.longLines--; this.lineNo--; this.stoppedAt = origin + pos; return; }
      } else if (onLine(buf, pos, nl > pos && buf[nl - 1] === 13 ? nl - 1 : nl, lineNo, origin + pos) === false) {
        this.lineNo--;
        this.stoppedAt = origin + pos;
        return;
      }
      pos = nl + 1;
    }
    const rest = len - pos;
    if (rest > this.maxLine) {
      // why: a line longer than the limit would otherwise make the buffer grow without bound.
      this.skipping = true;
      this.skippedLength = rest;
      this.skippedFrom = origin + pos;
      this.origin += len;
      this.len = 0;
      return;
    }
    if (pos > 0) buf.copyWithin(0, pos, len);
    this.origin += pos;
    this.len = rest;
  }

  /** Reports the long line just skipped; false when the handler stopped the read there. */
  private endLongLine(): boolean {
    this.skipping = false;
    if (this.onLong?.(this.lineNo + 1, this.skippedLength, this.skippedFrom) === false) { this.stoppedAt = this.skippedFrom; return false; }
    this.lineNo++;
    this.longLines++;
    this.skippedLength = 0;
    return true;
  }

  /** End of input: delivers a last line that has no newline. Returns true when there was one. */
  finish(): boolean {
    if (this.skipping) { this.endLongLine(); return this.stoppedAt < 0; }
    if (this.len === 0) return false;
    const lineNo = ++this.lineNo;
    const end = this.buf[this.len - 1] === 13 ? this.len - 1 : this.len;
    if (this.onLine(this.buf, 0, end, lineNo, this.origin) === false) {
      this.lineNo--;
      this.stoppedAt = this.origin;
      return false;
    }
    this.len = 0;
    return true;
  }
}

/**
 * Decompresses gzip chunks in order into `sink`, writing each chunk only after the one before it is
 * decoded. Resolves with undefined at the end of the data, or with zlib's error when the data is cut
 * short or corrupt: every byte decoded before the damage has reached the sink by then. Errors of
 * the chunks' source and of the sink reject.
 */
async function gunzipInto(chunks: AsyncIterable<Buffer>, sink: (part: Buffer) => void): Promise<Error | undefined> {
  const gunzip = createGunzip({ chunkSize: 1 << 16 });
  let zlibError: Error | undefined;
  let sinkError: unknown;
  let sinkFailed = false;
  gunzip.on('data', (part: Buffer) => {
    if (sinkFailed) return;
    try { sink(part); } catch (err) { sinkFailed = true; sinkError = err; }
  });
  gunzip.on('error', (err) => { zlibError ??= err; });
  // why: piping instead loses the text of the last writes still queued when zlib fails at the end
  // (measured: up to a few hundred lines of a cut file); one write at a time keeps all of it.
  const written = (chunk?: Buffer): Promise<void> => new Promise((resolve) => {
    // why: a write that fails may never call back; its error event settles the wait instead.
    const failed = (): void => resolve();
    gunzip.once('error', failed);
    const done = (): void => { gunzip.off('error', failed); resolve(); };
    if (chunk) gunzip.write(chunk, done);
    else { gunzip.once('end', done); gunzip.end(); }
  });
  try {
    for await (const chunk of chunks) {
      await written(chunk);
      if (sinkFailed) throw sinkError;
      if (zlibError) return zlibError;
    }
    await written();
    if (sinkFailed) throw sinkError;
    return zlibError;
  } finally {
    gunzip.destroy();
  }
}

/** zlib's own errors (its codes start with Z_) are the data's: Z_BUF_ERROR is data cut short, any other corrupt data. */
function gzipDamage(err: Error): { truncated: boolean; detail: string } | undefined {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('Z_')) return undefined;
  return { truncated: code === 'Z_BUF_ERROR', detail: err.message };
}

/**
 * Reads `path` line by line. gzip files (detected by their magic bytes) are decompressed on the fly;
 * concatenated gzip members are read in turn. Memory stays bounded by the chunk and line limits.
 */
export async function readLines(path: string, onLine: LineHandler, options: ReadLinesOptions = {}): Promise<ReadLinesResult> {
  const maxLine = options.maxLineBytes ?? 1 << 20;
  const chunk = options.chunkBytes ?? 1 << 18;
  const sliceMs = options.sliceMs ?? 12;
  const splitter = new LineSplitter(maxLine, Math.max(chunk, maxLine + 1) + chunk, onLine, options.onLongLine);
  const fd = openSync(path, 'r');
  let gzip = false;
  try {
    const total = fstatSync(fd).size;
    const head = Buffer.alloc(2);
    const headRead = readSync(fd, head, 0, 2, 0);
    gzip = options.gzip ?? (headRead === 2 && head[0] === 0x1f && head[1] === 0x8b);
    if (gzip) {
      // why: small compressed reads, so a corrupt block loses little of the text decoded before it.
      const raw = createReadStream(path, { highWaterMark: 1 << 16 });
      const signal = options.signal;
      let zlibError: Error | undefined;
      try {
        zlibError = await gunzipInto(raw, (part) => {
          if (signal?.aborted) throw signal.reason ?? new Error('aborted');
          splitter.push(part);
          options.onProgress?.(raw.bytesRead, total);
        });
      } finally {
        raw.destroy();
      }
      const damage = zlibError && gzipDamage(zlibError);
      if (zlibError && !damage) throw zlibError;
      if (damage) {
        const partial = splitter.finish();
        const damaged = { truncated: damage.truncated, message: gzipDamageMessage(path, splitter.lineNo - (partial ? 1 : 0), damage.truncated, damage.detail) };
        return { lines: splitter.lineNo, bytes: splitter.bytes, longLines: splitter.longLines, gzip, unterminatedLastLine: partial, damaged };
      }
    } else {
      // why: synchronous reads of a local file avoid the thread pool and a promise per chunk (the
      // hot loop is CPU-bound anyway); yielding whenever a slice has run sliceMs keeps the thread's
      // other work (an editor's commands, each a few IPC round trips) answering, and cancel and progress live.
      let position = Math.min(options.offset ?? 0, total);
      let sliceStart = performance.now();
      let lastProgress = 0;
      for (;;) {
        const want = Math.min(chunk, splitter.free);
        const bytesRead = readSync(fd, splitter.buf, splitter.len, want, position);
        if (bytesRead === 0) break;
        position += bytesRead;
        splitter.added(bytesRead);
        // why: checked per chunk, not only after a yield: an abort from the line handler in a read that ends within
        // one slice (a small file, a fast machine) must still reject rather than report the file as read whole.
        if (options.signal?.aborted) throw options.signal.reason ?? new Error('aborted');
        const now = performance.now();
        if (now - sliceStart >= sliceMs) {
          // why: progress goes to the UI (an IPC message each): a few a second are enough.
          if (now - lastProgress >= 250) { options.onProgress?.(position, total); lastProgress = now; }
          await new Promise<void>((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
          if (options.signal?.aborted) throw options.signal.reason ?? new Error('aborted');
        }
      }
      options.onProgress?.(position, total);
    }
    const unterminated = splitter.finish();
    return { lines: splitter.lineNo, bytes: splitter.bytes, longLines: splitter.longLines, gzip, unterminatedLastLine: unterminated };
  } finally {
    closeSync(fd);
  }
}

/** What readRange read. */
export interface ReadRangeResult {
  /** Lines delivered (the line a handler stopped at not counted). */
  lines: number;
  longLines: number;
  /** Where the handler stopped the read, or -1 at the end of the file. */
  stoppedAt: number;
  unterminatedLastLine: boolean;
}

/** The buffer of the last range read on this thread, for the next one. */
let rangeBuffer: Buffer | undefined;

/**
 * Reads the lines of a plain file from byte `start` (a line's first byte) until the handler
 * returns false (it gets each line's offset in the file, so it can stop at a range's end) or the
 * file ends. Synchronous: it runs on a reading thread of its own (src/node/logRanges.ts).
 */
export function readRange(path: string, start: number, onLine: RangeLineHandler, options: { maxLineBytes?: number; chunkBytes?: number; onLongLine?: RangeLongLineHandler } = {}): ReadRangeResult {
  const maxLine = options.maxLineBytes ?? 1 << 20;
  const chunk = options.chunkBytes ?? 1 << 18;
  // why: a thread reads one range after another; one buffer for all (taken while in use, should a handler read a range too).
  const splitter = new LineSplitter(maxLine, Math.max(chunk, maxLine + 1) + chunk, onLine, options.onLongLine, rangeBuffer);
  rangeBuffer = undefined;
  splitter.origin = start;
  const fd = openSync(path, 'r');
  try {
    let position = start;
    for (;;) {
      const bytesRead = readSync(fd, splitter.buf, splitter.len, Math.min(chunk, splitter.free), position);
      if (bytesRead === 0) break;
      position += bytesRead;
      splitter.added(bytesRead);
      if (splitter.stoppedAt >= 0) break;
    }
    const unterminated = splitter.stoppedAt < 0 && splitter.finish();
    return { lines: splitter.lineNo, longLines: splitter.longLines, stoppedAt: splitter.stoppedAt, unterminatedLastLine: unterminated };
  } finally {
    closeSync(fd);
    rangeBuffer = splitter.buf;
  }
}

/** Options of readLineStream: those of readLines, plus what the stream is. */
export interface ReadStreamOptions extends ReadLinesOptions {
  /** The stream's size in bytes when the caller knows it (for progress), else 0. */
  totalBytes?: number;
  /** What messages call the stream (a file on another box, say `box:/var/log/nginx/access.log.gz`). */
  name?: string;
}

/**
 * Reads lines from a stream of chunks (a file on another box arriving over SSH, say), as
 * readLines does from a path: gzip is recognised by its magic bytes in the first chunk and decoded
 * on the fly, memory stays bounded by the chunk and line limits, and damaged gzip data ends the read
 * with `damaged` set (the lines before it delivered), as for a file. `onProgress` gets the raw
 * (compressed) bytes consumed so far and `totalBytes` when the caller knows it, else 0. A failing
 * source rejects with LineReadError, which carries the lines delivered before the failure. A chunk
 * is not used after the next one is asked for.
 */
export async function readLineStream(source: AsyncIterable<Uint8Array>, onLine: LineHandler, options: ReadStreamOptions = {}): Promise<ReadLinesResult> {
  const maxLine = options.maxLineBytes ?? 1 << 20;
  const chunk = options.chunkBytes ?? 1 << 18;
  const splitter = new LineSplitter(maxLine, Math.max(chunk, maxLine + 1) + chunk, onLine, options.onLongLine);
  const total = options.totalBytes ?? 0;
  const it = source[Symbol.asyncIterator]();
  // why: the gzip magic is two bytes; a stream may deliver fewer than that in its first chunk.
  const head: Buffer[] = [];
  let headBytes = 0;
  let ended = false;
  while (headBytes < 2) {
    const n = await it.next();
    if (n.done) { ended = true; break; }
    const b = Buffer.from(n.value.buffer, n.value.byteOffset, n.value.byteLength);
    // why: a source may take a chunk's memory back once the next is asked for (the SSH worker does).
    head.push(b.length < 2 ? Buffer.from(b) : b);
    headBytes += b.length;
  }
  const first = Buffer.concat(head);
  const gzip = options.gzip ?? (first.length >= 2 && first[0] === 0x1f && first[1] === 0x8b);
  let raw = 0;
  const check = (): void => {
    if (options.signal?.aborted) throw options.signal.reason ?? new Error('aborted');
  };
  async function* rawChunks(): AsyncGenerator<Buffer> {
    if (first.length) { raw += first.length; yield first; }
    if (ended) return;
    for (;;) {
      const n = await it.next();
      if (n.done) return;
      raw += n.value.byteLength;
      yield Buffer.from(n.value.buffer, n.value.byteOffset, n.value.byteLength);
    }
  }
  const partial = (): ReadLinesResult => ({ lines: splitter.lineNo, bytes: splitter.bytes, longLines: splitter.longLines, gzip, unterminatedLastLine: false });
  let damage: { truncated: boolean; detail: string } | undefined;
  try {
    if (gzip) {
      const zlibError = await gunzipInto(rawChunks(), (part) => {
        check();
        splitter.push(part);
        options.onProgress?.(raw, total);
      });
      damage = zlibError && gzipDamage(zlibError);
      if (zlibError && !damage) throw zlibError;
    } else {
      for await (const part of rawChunks()) {
        check();
        splitter.push(part);
        options.onProgress?.(raw, total);
      }
    }
  } catch (err) {
    // why: the lines before the failure were delivered; the caller reports them and says where it stopped.
    throw new LineReadError(err, partial());
  } finally {
    await it.return?.();
  }
  if (damage) {
    const cut = splitter.finish();
    const message = gzipDamageMessage(options.name ?? 'the stream', splitter.lineNo - (cut ? 1 : 0), damage.truncated, damage.detail);
    return { ...partial(), unterminatedLastLine: cut, damaged: { truncated: damage.truncated, message } };
  }
  const unterminated = splitter.finish();
  return { lines: splitter.lineNo, bytes: splitter.bytes, longLines: splitter.longLines, gzip, unterminatedLastLine: unterminated };
}
