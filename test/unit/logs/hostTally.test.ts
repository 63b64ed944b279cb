import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeAccessLog, AccessAnalyzer } from '../../../src/core/logs/accessAnalysis';
import { forEachLine } from '../../../src/core/logs/lineSource';
import { SlowLogParser } from '../../../src/core/logs/slowLogParser';
import { SlowStatsCollector } from '../../../src/core/logs/slowStats';

const ltsv = (uri: string, t: string) => `time:2024-01-01T00:00:00+09:00\tmethod:GET\turi:${uri}\tstatus:200\tsize:10\treqtime:${t}`;
const enc = (s: string) => new TextEncoder().encode(s);

void test('endpoints count their requests per host once hosts are named, and equal the plain totals', () => {
  const a = enc([ltsv('/items/1', '0.1'), ltsv('/items/2', '0.2'), ltsv('/', '0.3')].join('\n'));
  const b = enc([ltsv('/items/3', '0.4'), ltsv('/', '0.5')].join('\n'));
  const merged = new AccessAnalyzer({ format: 'ltsv' });
  merged.setHost('isu1');
  forEachLine(a, merged.line);
  merged.setHost('isu2');
  forEachLine(b, merged.line);
  const report = merged.finish();
  const items = report.endpoints.find((e) => e.uri.startsWith('/items'))!;
  const root = report.endpoints.find((e) => e.uri === '/')!;
  assert.deepEqual(items.hosts, { isu1: 2, isu2: 1 });
  assert.deepEqual(root.hosts, { isu1: 1, isu2: 1 });
  assert.equal(items.count, 3);
  assert.equal(analyzeAccessLog(a, { format: 'ltsv' }).endpoints.every((e) => e.hosts === undefined), true);
});

void test('fingerprints count their executions per host', () => {
  const log = (q: string) => `# Time: 2024-01-01T00:00:00.000000Z\n# User@Host: isu[isu] @ localhost []  Id: 1\n# Query_time: 0.5  Lock_time: 0.0 Rows_sent: 1  Rows_examined: 10\nSET timestamp=1704067200;\n${q};\n`;
  const c = new SlowStatsCollector();
  for (const [host, text] of [['db1', log('SELECT * FROM users WHERE id = 1') + log('SELECT * FROM users WHERE id = 2')], ['db2', log('SELECT * FROM users WHERE id = 3')]] as const) {
    c.setHost(host);
    const p = new SlowLogParser((e) => c.add(e));
    forEachLine(enc(text), (bytes, s, e, n) => p.line(bytes, s, e, n));
    p.end();
  }
  const [q] = c.result();
  assert.equal(q.count, 3);
  assert.deepEqual(q.hosts, { db1: 2, db2: 1 });
});
