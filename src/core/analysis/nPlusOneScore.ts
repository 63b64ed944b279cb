/**
 * Scoring N+1 findings against a fixture's expectations: recall (expected loops found) and
 * precision (reported findings that were expected). Hints (a loop over a small constant list)
 * are not counted as reported: VS Code leaves hints out of the Problems panel, and so do we.
 */
import type { NPlusOneFinding } from './nPlusOne';

export interface ExpectedNPlusOne {
  /** Name of the case (`one-call`, `closure` …), for reports. */
  case: string;
  /** File of the inner statement, relative to the fixture app. */
  file: string;
  /** 1-based line of the inner statement. */
  line: number;
  /** File of the loop, when not the statement's own. */
  loopFile?: string;
  /** 1-based line of the loop. */
  loopLine: number;
}

export interface NotNPlusOne { case: string; file: string; line: number }

export interface NPlusOneExpectations { positives: ExpectedNPlusOne[]; negatives: NotNPlusOne[] }

export interface NPlusOneScore {
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  recall: number;
  precision: number;
  missed: ExpectedNPlusOne[];
  /** Reported findings no positive expects (with the negative case they hit, when one does). */
  unexpected: { file: string; line: number; loopFile: string; loopLine: number; negative?: string }[];
}

/** Compares findings (severity above hint) with the expected positives; every other finding is a false positive. */
export function scoreNPlusOne(findings: readonly NPlusOneFinding[], expect: NPlusOneExpectations): NPlusOneScore {
  const reported = findings.filter((f) => f.severity !== 'hint');
  const key = (file: string, line: number, loopFile: string, loopLine: number) => `${file}:${line}@${loopFile}:${loopLine}`;
  const want = new Map(expect.positives.map((p) => [key(p.file, p.line, p.loopFile ?? p.file, p.loopLine), p]));
  const got = new Set<string>();
  const unexpected: NPlusOneScore['unexpected'] = [];
  for (const f of reported) {
    const line = f.range.start.line + 1;
    const k = key(f.file, line, f.data.loopFile, f.data.loopLine);
    if (want.has(k)) { got.add(k); continue; }
    const neg = expect.negatives.find((n) => n.file === f.file && n.line === line);
    unexpected.push({ file: f.file, line, loopFile: f.data.loopFile, loopLine: f.data.loopLine, ...(neg ? { negative: neg.case } : {}) });
  }
  const missed = [...want.entries()].filter(([k]) => !got.has(k)).map(([, p]) => p);
  const tp = got.size, fp = unexpected.length, fn = missed.length;
  return {
    truePositives: tp, falsePositives: fp, falseNegatives: fn,
    recall: tp + fn === 0 ? 1 : tp / (tp + fn),
    precision: tp + fp === 0 ? 1 : tp / (tp + fp),
    missed, unexpected,
  };
}
