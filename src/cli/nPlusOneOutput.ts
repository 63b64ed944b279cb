/** The N+1 part of `query-insight scan`: findings after the statements, in the same format. */
import type { CommandIo } from './command';
import { JsonLinesBytes, oneLine, renderRows, type Column, type Format } from './output';
import type { FileFacts } from '../core/model';
import { nPlusOnePathText, nPlusOneReport, type NPlusOneRecord } from '../core/analysis/nPlusOneReport';

/**
 * Writes the N+1 findings of a scan: JSON Lines records (`code: "n-plus-one"`, `file`/`line` of the
 * statement, `loopFile`/`loopLine` of the loop, `path`) appended to the statement lines, or a second
 * table headed "N+1 queries"; a count goes to stderr. Returns the number of findings above hint.
 */
export function writeNPlusOne(facts: readonly FileFacts[], format: Format, io: CommandIo, width = 100): number {
  const records = nPlusOneReport(facts);
  if (format === 'json') {
    const out = new JsonLinesBytes();
    for (const r of records) out.add(r);
    io.stdout.write(out.bytes());
  } else if (records.length) {
    const cut = (s: string) => (format === 'table' && width > 0 && s.length > width ? s.slice(0, width - 1) + '…' : s);
    const columns: Column<NPlusOneRecord>[] = [
      { header: 'severity', value: (r) => r.severity },
      { header: 'statement', value: (r) => `${r.file}:${r.line}` },
      { header: 'runs once per iteration of', value: (r) => nPlusOnePathText(r) },
      { header: 'sql', value: (r) => cut(oneLine(r.sql)) },
    ];
    io.stdout.write(`${format === 'md' ? '\n## N+1 queries\n\n' : format === 'table' ? '\nN+1 queries\n' : '\n'}${renderRows(records, columns, format)}`);
  }
  const counted = records.filter((r) => r.severity !== 'hint');
  const by = (s: string) => counted.filter((r) => r.severity === s).length;
  io.stderr.write(`N+1: ${counted.length} statements run once per loop iteration (${by('error')} over another query's rows)`
    + `${records.length > counted.length ? `, ${records.length - counted.length} more over small constant lists` : ''}\n`);
  return counted.length;
}
