import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeAccessLog } from '../../../src/core/logs/accessAnalysis';
import { runFromAccessReport, validateRun } from '../../../src/core/report/runs';
import { statusSegments } from '../../../src/webview/views';

const LOG = [
  'method:GET\turi:/items/1\tstatus:200\treqtime:0.100\tsize:10',
  'method:GET\turi:/items/2\tstatus:200\treqtime:0.300\tsize:10',
  'method:GET\turi:/items/3\tstatus:500\treqtime:2.000\tsize:10',
  'method:GET\turi:/items/4\tstatus:404\treqtime:0.050\tsize:10',
].join('\n') + '\n';

void test('time is summed per status class, not split by request count', () => {
  const report = analyzeAccessLog(Buffer.from(LOG), { format: 'ltsv' });
  const e = report.endpoints.find((x) => x.uri.startsWith('/items'));
  assert.ok(e, JSON.stringify(report.endpoints.map((x) => x.uri)));
  assert.equal(e.count, 4);
  assert.ok(Math.abs(e.time2xx - 0.4) < 1e-9);
  assert.equal(e.time5xx, 2);
  assert.equal(e.time4xx, 0.05);
  assert.equal(e.time3xx, 0);
  const run = validateRun(JSON.parse(JSON.stringify(runFromAccessReport(report, { id: 'r1', source: 'access.log' }))));
  const segs = statusSegments(run.endpoints![0]);
  const byName = Object.fromEntries(segs.map((s) => [s.name, s.value]));
  assert.ok(Math.abs(byName['2xx'] - 0.4) < 1e-9);
  assert.equal(byName['5xx'], 2);
  assert.equal(byName.other, undefined);
});
