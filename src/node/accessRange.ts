/** One range of an access log read into a part (logRanges.ts), on whichever thread calls it. */
import { AccessAnalyzer, type AccessAnalysisOptions, type AccessPart } from '../core/logs/accessAnalysis';
import { bufferDecoder } from './accessLogFile';
import { readRange } from './lineReader';
import { chunkFor, type RangeJob, type RangeRead } from './rangeJobs';

export interface AccessRangeResult extends RangeRead { part: AccessPart }

/** The analyzer of the ranges this thread reads, for the options of the read they belong to (one object for all its jobs). */
let reading: { options: AccessAnalysisOptions; analyzer: AccessAnalyzer } | undefined;

/**
 * The ranges of the read whose jobs carry `options` are read on this thread by `analyzer` (one that
 * read nothing yet, built with those options); undefined: forgets it after the read.
 */
export function readHereWith(options: AccessAnalysisOptions, analyzer: AccessAnalyzer): void;
export function readHereWith(options: undefined): void;
export function readHereWith(options: AccessAnalysisOptions | undefined, analyzer?: AccessAnalyzer): void {
  reading = options && analyzer ? { options, analyzer } : undefined;
}

/** Reads one access-log range. */
export function readAccessRange(job: Extract<RangeJob, { kind: 'access' }>): AccessRangeResult {
  // why: one analyzer per thread and read, started over for each range: its expressions are compiled
  // once (ms each time before the JIT warms up) and its endpoints' arrays reused.
  if (reading?.options !== job.options) reading = { options: job.options, analyzer: new AccessAnalyzer({ ...job.options, decode: bufferDecoder }) };
  const analyzer = reading.analyzer;
  analyzer.startOver();
  const end = job.end;
  const r = readRange(job.path, job.start, (b, s, e, n, at) => {
    if (at >= end) return false;
    analyzer.line(b, s, e, n);
  }, {
    maxLineBytes: job.maxLineBytes, chunkBytes: chunkFor(job),
    onLongLine: (n, length, at) => {
      if (at >= end) return false;
      analyzer.tooLong(n, length);
    },
  });
  const part = analyzer.toPart();
  part.lines = r.lines;
  return { part, start: job.start, lines: r.lines, longLines: r.longLines, next: r.stoppedAt, unterminated: r.unterminatedLastLine };
}
