/**
 * One imported access log kept open for watch mode (node fs only, no vscode: unit-tested). The first
 * load reads the whole file; a refresh after the file grew reads only the bytes appended since
 * (the analyzer keeps its state), and a file that shrank or was replaced (truncation, logrotate:
 * a size drop or another inode) is read again from the start. gzip files are always read whole.
 * Where reading stopped is kept by the same LogTail the slow-log session uses.
 */
import type { AccessLogFormat } from '../../core/logs/accessParsers';
import { AccessAnalyzer, type AccessAnalysisOptions, type AccessReport } from '../../core/logs/accessAnalysis';
import { guessAccessFormat } from '../../core/logs/logKind';
import { bufferDecoder } from '../../node/accessLogFile';
import { readLogHead } from '../../node/logHead';
import { readLines } from '../../node/lineReader';
import { LogTail, type TailState } from '../logs/logTail';

export interface LoadOptions {
  signal?: AbortSignal;
  onProgress?: (bytesRead: number, bytesTotal: number) => void;
}

export type RefreshMode = TailState;

export class AccessLogSession {
  private analyzer: AccessAnalyzer | undefined;
  private tail: LogTail;
  private report: AccessReport | undefined;
  /** Set by a load that met damaged gzip data: the message naming the file and the lines read before it. */
  damage: string | undefined;

  constructor(readonly path: string, private readonly options: AccessAnalysisOptions) {
    this.tail = new LogTail(path);
  }

  /** The figures of the last load or refresh. */
  get current(): AccessReport | undefined { return this.report; }

  /** Reads the whole file from the start. */
  async load(opts: LoadOptions = {}): Promise<AccessReport> {
    const analyzer = new AccessAnalyzer({ decode: bufferDecoder, ...this.options });
    const tail = new LogTail(this.path);
    const before = tail.beginFull();
    const read = await readLines(this.path, analyzer.line as (b: Buffer, s: number, e: number, n: number) => void, {
      signal: opts.signal, onProgress: opts.onProgress,
      onLongLine: (lineNo, length) => analyzer.tooLong(lineNo, length),
    });
    analyzer.lines = read.lines;
    this.damage = read.damaged?.message;
    tail.endFull(before, read);
    this.analyzer = analyzer;
    this.tail = tail;
    this.report = analyzer.finish();
    return this.report;
  }

  /** Brings the figures up to date with the file: only the appended bytes when it just grew. */
  async refresh(opts: LoadOptions = {}): Promise<{ mode: RefreshMode; report: AccessReport }> {
    const mode = this.analyzer ? this.tail.state() : 'full';
    if (mode === 'full') return { mode, report: await this.load(opts) };
    if (mode === 'unchanged') return { mode, report: this.report! };
    const analyzer = this.analyzer!;
    this.tail.readAppended(analyzer.line);
    this.report = analyzer.finish();
    return { mode, report: this.report };
  }
}

/**
 * Guesses a log's layout from its first non-blank line (gzip looked into): `json` for an object,
 * `ltsv` for label:value fields separated by tabs, `combined` otherwise.
 */
export function guessAccessLogFormat(path: string): AccessLogFormat {
  return guessAccessFormat(readLogHead(path));
}
