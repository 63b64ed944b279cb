/**
 * One imported access log kept open for watch mode (node fs only, no vscode: unit-tested). The first
 * load reads the whole file; a refresh after the file grew reads only the bytes appended since
 * (the analyzer keeps its state), and a file that shrank or was replaced (truncation, logrotate:
 * a size drop or another inode) is read again from the start. gzip files are always read whole.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { AccessLogFormat } from '../../core/logs/accessParsers';
import { AccessAnalyzer, type AccessAnalysisOptions, type AccessReport } from '../../core/logs/accessAnalysis';
import { bufferDecoder } from '../../node/accessLogFile';
import { readLines, type ReadLinesResult } from '../../node/lineReader';

export interface LoadOptions {
  signal?: AbortSignal;
  onProgress?: (bytesRead: number, bytesTotal: number) => void;
}

export type RefreshMode = 'full' | 'appended' | 'unchanged';

export class AccessLogSession {
  private analyzer: AccessAnalyzer | undefined;
  private offset = 0;
  private ino = -1;
  private gzip = false;
  /** Bytes of an unterminated last line seen during an append read, kept until its newline comes. */
  private partial: Buffer = Buffer.alloc(0);
  private report: AccessReport | undefined;

  constructor(readonly path: string, private readonly options: AccessAnalysisOptions) {}

  /** The figures of the last load or refresh. */
  get current(): AccessReport | undefined { return this.report; }

  /** Reads the whole file from the start. */
  async load(opts: LoadOptions = {}): Promise<AccessReport> {
    const analyzer = new AccessAnalyzer({ decode: bufferDecoder, ...this.options });
    const before = statSync(this.path);
    const read: ReadLinesResult = await readLines(this.path, analyzer.line as (b: Buffer, s: number, e: number, n: number) => void, {
      signal: opts.signal, onProgress: opts.onProgress,
      onLongLine: (lineNo, length) => {
        analyzer.malformed++;
        analyzer.lines = lineNo;
        if (analyzer.malformedExamples.length < 10) analyzer.malformedExamples.push({ line: lineNo, reason: `line too long (${length} bytes)`, text: '' });
      },
    });
    analyzer.lines = read.lines;
    this.analyzer = analyzer;
    this.gzip = read.gzip;
    this.ino = before.ino;
    // why: for a plain file the bytes read are exactly where the next refresh starts (lines written meanwhile included).
    this.offset = read.gzip ? before.size : read.bytes;
    this.partial = Buffer.alloc(0);
    this.report = analyzer.finish();
    return this.report;
  }

  /** Brings the figures up to date with the file: only the appended bytes when it just grew. */
  async refresh(opts: LoadOptions = {}): Promise<{ mode: RefreshMode; report: AccessReport }> {
    const st = statSync(this.path);
    if (!this.analyzer || this.gzip || st.ino !== this.ino || st.size < this.offset) return { mode: 'full', report: await this.load(opts) };
    if (st.size === this.offset) return { mode: 'unchanged', report: this.report! };
    this.readAppended(st.size);
    this.report = this.analyzer.finish();
    return { mode: 'appended', report: this.report };
  }

  private readAppended(size: number): void {
    const analyzer = this.analyzer!;
    const fd = openSync(this.path, 'r');
    try {
      if (fstatSync(fd).ino !== this.ino) throw new Error('the log file was replaced while reading');
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
          analyzer.line(buf, start, end, analyzer.lines + 1);
          start = nl + 1;
        }
        carry = Buffer.from(buf.subarray(start));
      }
      this.partial = carry;
      this.offset = pos;
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * Guesses a log's layout from its first non-blank line (gzip looked into): `json` for an object,
 * `ltsv` for label:value fields separated by tabs, `combined` otherwise.
 */
export function guessAccessLogFormat(path: string): AccessLogFormat {
  const fd = openSync(path, 'r');
  let head = Buffer.alloc(64 * 1024);
  try {
    head = head.subarray(0, readSync(fd, head, 0, head.length, 0));
  } finally {
    closeSync(fd);
  }
  if (head[0] === 0x1f && head[1] === 0x8b) {
    // why: a cut-off gzip stream is fine with a sync flush: we only want its first lines.
    try { head = gunzipSync(head, { finishFlush: 2 }); } catch { return 'ltsv'; }
  }
  const line = head.toString('utf8').split('\n').find((l) => l.trim() !== '') ?? '';
  if (line.trimStart().startsWith('{')) return 'json';
  if (/(^|\t)[\w-]+:[^\t]*\t[\w-]+:/.test(line)) return 'ltsv';
  return 'combined';
}
