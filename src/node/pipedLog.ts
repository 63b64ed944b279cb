/**
 * Logs that arrive on a pipe rather than sit in a file: `-` (standard input), `/dev/stdin`, a named
 * FIFO, or bash's `<(ssh isu1 cat /var/log/nginx/access.log)`. Today's habit is
 * `ssh isu1 cat access.log | alp …`; the same pipe into `query-insight endpoints -` must work.
 *
 * A pipe can be read once and not rewound, yet a command first sniffs a log's head (its kind and
 * layout) and then reads it whole. So the first look opens the pipe and keeps the chunks it took;
 * the read then starts with those chunks and goes on with the rest of the pipe. One process reads
 * each pipe once: a second read of the same pipe is refused with a message.
 */
import { createReadStream, statSync, type ReadStream } from 'node:fs';
import { SNIFF_BYTES } from '../core/logs/logKind';
import { readLineStream, type LineHandler, type ReadLinesOptions, type ReadLinesResult } from './lineReader';
import { logHeadText, readLogHead } from './logHead';

/** The log argument that means standard input. */
export const STDIN = '-';

/**
 * True when `path` is read as a pipe: `-` (even when the shell gave a file as standard input: it is
 * read from where the shell left it), or a FIFO, socket or character device (/dev/stdin on a pipe).
 */
export function isPiped(path: string): boolean {
  if (path === STDIN || open.has(path)) return true;
  let info;
  try { info = statSync(path); } catch { return false; }
  return info.isFIFO() || info.isSocket() || info.isCharacterDevice();
}

/** What a message calls the pipe. */
function nameOf(path: string): string {
  return path === STDIN ? 'standard input' : path;
}

class PipedLog {
  private readonly stream: ReadStream;
  private readonly it: AsyncIterator<Buffer>;
  /** Chunks the head took, given again at the start of the read. */
  private held: Buffer[] = [];
  private heldBytes = 0;
  private ended = false;
  private read = false;

  constructor(readonly path: string) {
    // why: `-` is this process's fd 0, whatever /dev/stdin resolves to; a path is opened (a FIFO waits for its writer).
    this.stream = path === STDIN
      ? createReadStream('', { fd: 0, autoClose: false, highWaterMark: 1 << 18 })
      : createReadStream(path, { highWaterMark: 1 << 18 });
    this.it = this.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  }

  /** The first `bytes` (or fewer, at the end of the pipe), as they came. */
  async head(bytes: number): Promise<Buffer> {
    if (this.read) throw new Error(`${nameOf(this.path)} was already read (a pipe can be read once)`);
    while (this.heldBytes < bytes && !this.ended) {
      const n = await this.it.next();
      if (n.done) { this.ended = true; break; }
      this.held.push(n.value);
      this.heldBytes += n.value.length;
    }
    return Buffer.concat(this.held).subarray(0, bytes);
  }

  /** Every chunk once: those the head took, then the rest of the pipe. */
  async *chunks(): AsyncGenerator<Buffer> {
    if (this.read) throw new Error(`${nameOf(this.path)} was already read (a pipe can be read once)`);
    this.read = true;
    const held = this.held;
    this.held = [];
    try {
      yield* held;
      while (!this.ended) {
        const n = await this.it.next();
        if (n.done) break;
        yield n.value;
      }
    } finally {
      this.ended = true;
      this.stream.destroy();
    }
  }
}

const open = new Map<string, PipedLog>();

function pipedLog(path: string): PipedLog {
  let log = open.get(path);
  if (!log) open.set(path, log = new PipedLog(path));
  return log;
}

/** The head of a piped log for the sniffer (decompressed when gzip); the read that follows gets these bytes again. */
export async function pipedHead(path: string): Promise<Uint8Array> {
  return logHeadText(await pipedLog(path).head(SNIFF_BYTES));
}

/** The whole of a piped log as text (a saved run arriving on a pipe). */
export async function readPipedText(path: string): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of pipedLog(path).chunks()) parts.push(c);
  return Buffer.concat(parts).toString('utf8');
}

/** The head of a local log for the sniffer: from the file, or from the pipe (kept for the read). */
export async function localLogHead(path: string): Promise<Uint8Array> {
  return isPiped(path) ? pipedHead(path) : readLogHead(path);
}

/** Reads a piped log line by line (gzip recognised by its magic bytes), from the first byte the pipe gave. */
export function readPipedLines(path: string, onLine: LineHandler, options: ReadLinesOptions): Promise<ReadLinesResult> {
  return readLineStream(pipedLog(path).chunks(), onLine, { ...options, name: nameOf(path) });
}
