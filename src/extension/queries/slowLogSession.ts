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
  /** Set when gzip data was damaged: the message naming the file and the lines read before the damage. */
  damage?: string;
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
  private damage: string | undefined;
  private snapshot: SlowLogSnapshot | undefined;
  /** Whether the last line fed could end an entry (a statement's closing `;`, or a blank line). */
  private lastEndsEntry = true;

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
    this.lastEndsEntry = true;
    const read = await readLines(this.path, (b, s, e, n) => this.feed(parser, b, s, e, n), {
      maxLineBytes: 16 << 20, signal: opts.signal, onProgress: opts.onProgress,
      onLongLine: (line, length) => parser.skippedLine(line, length),
    });
    tail.endFull(before, read);
    this.parser = parser;
    this.collector = collector;
    this.tail = tail;
    this.gzip = read.gzip;
    this.damage = read.damaged?.message;
    return this.finish(read.lines);
  }

  /** Brings the figures up to date with the file: only the appended lines when it just grew. */
  async refresh(opts: SlowLoadOptions = {}): Promise<{ mode: TailState; snapshot: SlowLogSnapshot }> {
    const mode = this.parser ? this.tail.state() : 'full';
    if (mode === 'full') return { mode, snapshot: await this.load(opts) };
    if (mode === 'unchanged') return { mode, snapshot: this.snapshot! };
    const parser = this.parser!;
    this.tail.readAppended((b, s, e, n) => this.feed(parser, b, s, e, n));
    return { mode, snapshot: this.finish(this.tail.lines) };
  }

  private feed(parser: SlowLogParser, b: Uint8Array, s: number, e: number, n: number): void {
    parser.line(b, s, e, n);
    let k = e - 1;
    while (k >= s && (b[k] === 32 || b[k] === 9)) k--;
    // `SET timestamp=…;` and `use db;` end with `;` too but come before the statement
    this.lastEndsEntry = k < s || (b[k] === 59 /* ; */ && !startsWithAscii(b, s, e, 'SET timestamp=') && !startsWithAscii(b, s, e, 'use '));
  }

  private finish(lines: number): SlowLogSnapshot {
    // why: end() completes the entry read last and the parser may go on after it, since the next
    // entry starts with its own header. But a log still being written can stop in the middle of an
    // entry (header written, statement not yet): then the entry stays open until its rest arrives.
    const summary = { ...(this.lastEndsEntry ? this.parser!.end() : this.parser!.summary) };
    summary.lines = lines;
    this.snapshot = { stats: this.collector!.result(), summary, overflowEntries: this.collector!.overflowEntries, gzip: this.gzip, ...(this.damage ? { damage: this.damage } : {}) };
    return this.snapshot;
  }
}

function startsWithAscii(b: Uint8Array, s: number, e: number, prefix: string): boolean {
  if (e - s < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (b[s + i] !== prefix.charCodeAt(i)) return false;
  return true;
}
