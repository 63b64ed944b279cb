/**
 * The logs of every box read into one run, and kept up to date by polling (node only, no vscode:
 * tested against real sshd servers). A load streams every source into one analysis, counted per
 * box; a refresh stats each file over SSH (size and inode) and, as the local watcher does,
 *   - reads only the bytes appended since, when every changed access log just grew;
 *   - reads everything again when a file shrank (truncated) or has another inode (rotated), or a
 *     gzip file changed at all (a gzip stream is not appended to);
 *   - does nothing when no file changed.
 * Slow logs are read again whole when they change: an entry can straddle two polls, and the slow
 * logs of a contest are small next to its access logs.
 */
import type { AccessAnalysisOptions, AccessAnalyzer } from '../../core/logs/accessAnalysis';
import { accessAnalyzer, analyzeAccessSources, analyzeSlowSources, type AccessSourcesResult, type SlowSourcesResult, type SourceRead } from '../../node/logSources';
import type { RemoteLogReader, RemoteStat } from '../../node/remoteLog';
import type { BoxSource } from './boxesConfig';

export interface BoxesReadOptions {
  signal?: AbortSignal;
  /** Bytes read from the source being read (its box is `source.label`). */
  onProgress?: (source: BoxSource, bytesRead: number) => void;
}

export type RefreshMode = 'full' | 'appended' | 'unchanged';

/** Where reading one file stopped. */
interface Tail {
  /** Identity when the read began (-1: unknown, the stat failed). */
  inode: number;
  /** Size when the read began. */
  size: number;
  /** Bytes read up to (a line boundary after an appended read). */
  offset: number;
  gzip: boolean;
  /** Set when the file could not be read. */
  failed: boolean;
}

async function statAll(reader: RemoteLogReader, sources: readonly BoxSource[], signal?: AbortSignal): Promise<(RemoteStat | undefined)[]> {
  return Promise.all(sources.map((s) => (signal?.aborted ? undefined : reader.stat(s).catch(() => undefined))));
}

function tailsAfter(before: readonly (RemoteStat | undefined)[], reads: readonly SourceRead[]): Tail[] {
  return reads.map((r, i) => {
    const st = before[i];
    // why: a plain file may have grown while it streamed: everything `cat` delivered is read.
    return { inode: st?.inode ?? -1, size: st?.size ?? 0, offset: r.gzip ? st?.size ?? 0 : Math.max(r.bytes, 0), gzip: r.gzip, failed: !!r.error || !st };
  });
}

/** What a poll found for one file. */
function change(t: Tail, st: RemoteStat | undefined): 'same' | 'grown' | 'restart' {
  if (!st) return 'same'; // still unreadable, or gone for a moment during a rotation: the next poll sees it
  // why: a file that failed to read is tried again only once it changed (a lasting failure, such as a
  // permission denied, must not make every poll read every box again).
  if (t.failed) return st.inode !== t.inode || st.size !== t.size ? 'restart' : 'same';
  if (st.inode !== t.inode) return 'restart';
  if (t.gzip) return st.size === t.size ? 'same' : 'restart';
  if (st.size < t.offset) return 'restart';
  return st.size === t.offset ? 'same' : 'grown';
}

/** The access logs of the boxes as one endpoint report. */
export class BoxesAccessRun {
  private analyzer: AccessAnalyzer | undefined;
  private tails: Tail[] = [];
  private lines = 0;
  result: AccessSourcesResult | undefined;

  constructor(readonly sources: readonly BoxSource[], private readonly analysis: AccessAnalysisOptions, private readonly reader: RemoteLogReader) {}

  /** Reads every source from the start. Throws on bad analysis options; a failing box is in `sources[i].error`. */
  async load(opts: BoxesReadOptions = {}): Promise<AccessSourcesResult> {
    const before = await statAll(this.reader, this.sources, opts.signal);
    const analyzer = accessAnalyzer(this.analysis);
    const r = await analyzeAccessSources(this.sources, analyzer, {
      remote: this.reader, byHost: true, signal: opts.signal,
      onProgress: opts.onProgress ? (s, done) => opts.onProgress!(s as BoxSource, done) : undefined,
    });
    this.analyzer = analyzer;
    this.tails = tailsAfter(before, r.sources);
    this.lines = r.lines;
    this.result = r;
    return r;
  }

  /** Polls the files once and brings the report up to date. */
  async refresh(opts: BoxesReadOptions = {}): Promise<{ mode: RefreshMode; result: AccessSourcesResult }> {
    if (!this.analyzer || !this.result) return { mode: 'full', result: await this.load(opts) };
    const stats = await statAll(this.reader, this.sources, opts.signal);
    const changes = this.tails.map((t, i) => change(t, stats[i]));
    if (changes.includes('restart')) return { mode: 'full', result: await this.load(opts) };
    if (!changes.includes('grown')) return { mode: 'unchanged', result: this.result };
    const analyzer = this.analyzer;
    const reads = this.result.sources.map((r) => ({ ...r }));
    for (let i = 0; i < this.sources.length; i++) {
      if (changes[i] !== 'grown') continue;
      const source = this.sources[i];
      const tail = this.tails[i];
      analyzer.setHost(reads[i].host);
      const size = stats[i]!.size;
      try {
        const got = await this.reader.readAppended(source, tail.offset, size, analyzer.line, {
          firstLineNo: this.lines, signal: opts.signal, onLongLine: (n, length) => analyzer.tooLong(n, length),
        });
        this.lines += got.lines;
        reads[i].lines += got.lines;
        reads[i].bytes += got.end - tail.offset;
        tail.offset = got.end;
        tail.size = size;
        opts.onProgress?.(source, got.end);
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        reads[i].error = (err as Error).message;
      }
    }
    this.result = { ...analyzer.finish(), lines: this.lines, sources: reads };
    return { mode: 'appended', result: this.result };
  }
}

/** The slow logs of the boxes as one per-fingerprint report. */
export class BoxesSlowRun {
  private tails: Tail[] = [];
  result: SlowSourcesResult | undefined;

  constructor(readonly sources: readonly BoxSource[], private readonly reader: RemoteLogReader) {}

  async load(opts: BoxesReadOptions = {}): Promise<SlowSourcesResult> {
    const before = await statAll(this.reader, this.sources, opts.signal);
    const r = await analyzeSlowSources(this.sources, {}, {
      remote: this.reader, byHost: true, signal: opts.signal,
      onProgress: opts.onProgress ? (s, done) => opts.onProgress!(s as BoxSource, done) : undefined,
    });
    this.tails = tailsAfter(before, r.sources);
    this.result = r;
    return r;
  }

  async refresh(opts: BoxesReadOptions = {}): Promise<{ mode: RefreshMode; result: SlowSourcesResult }> {
    if (!this.result) return { mode: 'full', result: await this.load(opts) };
    const stats = await statAll(this.reader, this.sources, opts.signal);
    if (this.tails.every((t, i) => change(t, stats[i]) === 'same')) return { mode: 'unchanged', result: this.result };
    return { mode: 'full', result: await this.load(opts) };
  }
}
