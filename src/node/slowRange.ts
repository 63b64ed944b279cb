/** One range of a slow log read into a part (logRanges.ts), on whichever thread calls it. */
import { SlowLogParser, type SlowLogParseSummary } from '../core/logs/slowLogParser';
import { SlowStatsCollector, type SlowStatsPart } from '../core/logs/slowStats';
import { utf8Of } from './accessLogFile';
import { readRange } from './lineReader';
import { chunkFor, type RangeJob, type RangeRead } from './rangeJobs';

export interface SlowRangeResult extends RangeRead {
  part: SlowStatsPart;
  summary: SlowLogParseSummary;
  /** The last `use db;` of the range (INHERITED when none), the legacy `# Time` in force at its end (NaN: none), entries that took the one before the range. */
  lastSchema: string;
  legacyTime: number;
  inheritedTimes: number;
}

/** The schema a range's parser starts with, replaced at the merge by the last `use db;` before the range. */
export const INHERITED_SCHEMA = '\u0000inherited';

/** The start of the lines a slow-log range may start at. */
export const TIME_HEADER = Buffer.from('# Time: ');

class HandOver extends Error {}

function isTimeHeader(b: Buffer, s: number, e: number): boolean {
  if (e - s < 8) return false;
  for (let i = 0; i < 8; i++) if (b[s + i] !== TIME_HEADER[i]) return false;
  return true;
}

/** Reads one slow-log range: its entries up to the first one its parser starts at a `# Time:` line at or past `end`. */
export function readSlowRange(job: Extract<RangeJob, { kind: 'slow' }>): SlowRangeResult {
  const collector = new SlowStatsCollector({ ...job.options, partial: true });
  const end = job.end;
  /** The line being fed when it is a `# Time:` line at or past the end (an entry starting there ends the range). */
  let handOverLine = -1;
  const parser = new SlowLogParser((e) => collector.add(e), {
    decode: utf8Of, initialSchema: INHERITED_SCHEMA,
    onEntryStart: (lineNo, rereading) => { if (lineNo === handOverLine && !rereading) throw new HandOver(); },
  });
  let stoppedAt = -1;
  const r = readRange(job.path, job.start, (b, s, e, n, at) => {
    if (at >= end && isTimeHeader(b, s, e)) {
      handOverLine = n;
      try {
        parser.line(b, s, e, n);
      } catch (err) {
        if (!(err instanceof HandOver)) throw err;
        stoppedAt = at;
        return false;
      }
      handOverLine = -1;
      return;
    }
    parser.line(b, s, e, n);
  }, { maxLineBytes: job.maxLineBytes, chunkBytes: chunkFor(job), onLongLine: (n, length) => parser.skippedLine(n, length) });
  const summary = stoppedAt >= 0 ? parser.handOver() : parser.end();
  summary.lines = 0; // why: lines are counted by the reads
  return {
    part: collector.toPart(), summary, start: job.start, lines: r.lines, longLines: r.longLines, next: stoppedAt, unterminated: r.unterminatedLastLine,
    lastSchema: parser.lastSchema, legacyTime: parser.legacyTimeNow, inheritedTimes: parser.inheritedLegacyTime,
  };
}
