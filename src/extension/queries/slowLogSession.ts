/**
 * One imported slow query log kept open for watch mode (node fs only, no vscode: unit-tested). The
 * first load reads the whole file (plain or gzip); a refresh after the file grew feeds only the
 * appended lines to the same parser and statistics, and a file that shrank or was replaced
 * (truncation, FLUSH SLOW LOGS after a rename, logrotate) is read again from the start.
 */
import { SlowLogParser, type SlowLogParseSummary } from '../../core/logs/slowLogParser';
import { SlowStatsCollector, type QueryStats, type SlowStatsOptions } from '../../core/logs/slowStats';
import { readLines } from '../../node/lineReader';
import { LogTail, type TailState } from '../logs/logTail';

export interface SlowLogSnapshot {
  stats: QueryStats[];
  /** Statements read (entries), lines, malformed entries (with a few samples). */
  summary: SlowLogParseSummary;
  /** Entries not counted because too many distinct fingerprints were already kept. */
  overflowEntries: number;
  gzip: boolean;
}

export interface SlowLoadOptions {
  signal?: AbortSignal;
  onProgress?: (bytesRead: number, bytesTotal: number) => void;
}

const decode = (b: Uint8Array, s: number, e: number): string =>
  (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength)).toString('utf8', s, e);

export class SlowLogSession {
  private parser: SlowLogParser | undefined;
  private collector: SlowStatsCollector | undefined;
  private tail: LogTail;
  private gzip = false;
  private longLines = 0;
  private snapshot: SlowLogSnapshot | undefined;

  constructor(readonly path: string, private readonly options: SlowStatsOptions = {}) {
    this.tail = new LogTail(path);
  }

  /** The figures of the last load or refresh. */
  get current(): SlowLogSnapshot | undefined { return this.snapshot; }

  /** Reads the whole file from the start. */
  async load(opts: SlowLoadOptions = {}): Promise<SlowLogSnapshot> {
    const collector = new SlowStatsCollector(this.options);
    const parser = new SlowLogParser((e) => collector.add(e), { decode });
    const tail = new LogTail(this.path);
    const before = tail.beginFull();
    let longLines = 0;
    const read = await readLines(this.path, (b, s, e, n) => parser.line(b, s, e, n), {
      maxLineBytes: 16 << 20, signal: opts.signal, onProgress: opts.onProgress,
      onLongLine: (line, length) => {
        longLines++;
        if (parser.summary.problems.length < 10) parser.summary.problems.push({ line, reason: `line too long (${length} bytes), skipped`, text: '' });
      },
    });
    tail.endFull(before, read);
    this.parser = parser;
    this.collector = collector;
    this.tail = tail;
    this.gzip = read.gzip;
    this.longLines = longLines;
    return this.finish(read.lines);
  }

  /** Brings the figures up to date with the file: only the appended lines when it just grew. */
  async refresh(opts: SlowLoadOptions = {}): Promise<{ mode: TailState; snapshot: SlowLogSnapshot }> {
    const mode = this.parser ? this.tail.state() : 'full';
    if (mode === 'full') return { mode, snapshot: await this.load(opts) };
    if (mode === 'unchanged') return { mode, snapshot: this.snapshot! };
    const parser = this.parser!;
    this.tail.readAppended((b, s, e, n) => parser.line(b, s, e, n));
    return { mode, snapshot: this.finish(this.tail.lines) };
  }

  private finish(lines: number): SlowLogSnapshot {
    // why: end() completes the entry read last; the server writes an entry at once, so the next
    // appended line starts a new entry and the parser may go on after end().
    const summary = { ...this.parser!.end() };
    summary.lines = lines;
    summary.malformed += this.longLines;
    this.snapshot = { stats: this.collector!.result(), summary, overflowEntries: this.collector!.overflowEntries, gzip: this.gzip };
    return this.snapshot;
  }
}
