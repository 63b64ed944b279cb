/**
 * Why an import read no entry, in one line: the file is empty, it is another kind of log, or none of
 * its lines could be read (with the first reason). Imports that read nothing create no run.
 */
import { formatCount } from '../format/numbers';
import type { LogKind } from './logKind';

/** A file as the editor's pickers tell it: a log kind, a saved run, or an empty file. */
/** What a file sniffed as (the sniffer's kinds, runs and empty files included). */
export type FileKind = LogKind;

/** How a kind of file is named to a person ("a slow query log", "an empty file"). */
export function describeLogKind(kind: FileKind): string {
  switch (kind) {
    case 'run': return 'a saved run';
    case 'slow': return 'a slow query log';
    case 'access': return 'an access log';
    case 'empty': return 'an empty file';
    default: return 'not a log Query Insight reads';
  }
}

export interface NothingRead {
  /** The file as the user knows it (`logs/slow.log`). */
  name: string;
  /** What the import expected. */
  expected: 'access' | 'slow';
  /** What the file sniffs as. */
  sniffed: FileKind;
  lines: number;
  /** The first unreadable line's reason, when there is one. */
  firstProblem?: { line: number; reason: string };
}

/** One line: `nothing imported from logs/slow.log: it is a slow query log, not an access log.` */
export function nothingReadMessage(n: NothingRead): string {
  let why: string;
  if (n.lines === 0 || n.sniffed === 'empty') why = 'the file is empty';
  else if (n.sniffed !== n.expected && n.sniffed !== 'unknown') why = `it is ${describeLogKind(n.sniffed)}, not ${describeLogKind(n.expected)}`;
  else {
    const first = n.firstProblem ? `; line ${n.firstProblem.line}: ${n.firstProblem.reason}` : '';
    why = `none of its ${formatCount(n.lines)} lines is ${n.expected === 'access' ? 'a request' : 'a statement'}${first}`;
  }
  return `nothing imported from ${n.name}: ${why}.`;
}
