import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareRuns } from '../../../src/core/report/compare';
import { comparisonMarkdown } from '../../../src/core/report/markdown';
import { hostsMismatch, parseRun, runFromSlowStats, serializeRun, type RunRead } from '../../../src/core/report/runs';
import { forEachLine } from '../../../src/core/logs/lineSource';
import { SlowLogParser } from '../../../src/core/logs/slowLogParser';
import { SlowStatsCollector, type QueryStats } from '../../../src/core/logs/slowStats';

function analyzeSlowLog(text: string): QueryStats[] {
  const c = new SlowStatsCollector();
  const p = new SlowLogParser((e) => c.add(e));
  forEachLine(new TextEncoder().encode(text), (b, s, e, n) => p.line(b, s, e, n));
  p.end();
  return c.result();
}

const read = (host: string, file = '/var/log/mysql/slow.log'): RunRead => ({ host, file, from: 0, to: 100, lines: 10 });

void test('hostsMismatch says which side read which host; equal sets and runs without reads say nothing', () => {
  assert.equal(hostsMismatch({ reads: [read('isu1'), read('isu2')] }, { reads: [read('isu2'), read('isu1', '/other')] }), undefined);
  assert.equal(hostsMismatch({}, { reads: [read('isu1')] }), undefined);
  assert.equal(hostsMismatch({ reads: [read('isu1'), read('isu2')] }, { reads: [read('isu1'), read('isu3')] }),
    'the runs did not read the same hosts: only the before run read isu2; only the after run read isu3');
});

void test('a slow run keeps its reads and time window through save and load; the comparison carries the note', () => {
  const stats = analyzeSlowLog([
    '# Time: 2024-05-01T10:00:00.000000Z', '# User@Host: isu[isu] @ localhost []  Id: 1', '# Query_time: 0.5  Lock_time: 0.0 Rows_sent: 1  Rows_examined: 10',
    'SET timestamp=1714557600;', 'SELECT * FROM users WHERE id = 1;',
    '# Time: 2024-05-01T10:05:00.000000Z', '# User@Host: isu[isu] @ localhost []  Id: 1', '# Query_time: 0.25  Lock_time: 0.0 Rows_sent: 1  Rows_examined: 10',
    'SET timestamp=1714557900;', 'SELECT * FROM users WHERE id = 2;', '',
  ].join('\n'));
  const before = runFromSlowStats({ stats, lines: 11, malformed: 0 }, { id: 'b', source: 'isu1:/s.log,isu2:/s.log', reads: [read('isu1'), read('isu2')] });
  assert.deepEqual(before.window, { from: '2024-05-01T10:00:00.000Z', to: '2024-05-01T10:05:00.000Z' });
  const again = parseRun(serializeRun(before));
  assert.deepEqual(again.reads, before.reads);
  assert.deepEqual(again.window, before.window);
  const after = runFromSlowStats({ stats, lines: 11, malformed: 0 }, { id: 'a', source: 'isu1:/s.log', reads: [read('isu1')] });
  const c = compareRuns(again, after);
  assert.equal(c.hostsNote, 'the runs did not read the same hosts: only the before run read isu2');
  assert.match(comparisonMarkdown(c), /\*\*note:\*\* the runs did not read the same hosts/);
  assert.equal(compareRuns(after, after).hostsNote, undefined);
  assert.throws(() => parseRun(serializeRun(before).replace('"lines":10', '"lines":"x"')), /reads\[0\]\.lines/);
});
