/** Runs: built from access-log and slow-log statistics, bounded, serialised and read back, bad files rejected. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import { analyzeAccessLog } from '../../../src/core/logs/accessAnalysis';
import { looksLikeRun, parseRun, RunFormatError, runFromAccessReport, runFromSlowStats, serializeRun, defaultLabel } from '../../../src/core/report/runs';
import type { QueryStats } from '../../../src/core/logs/slowStats';
import { loadRunFromFile } from '../../../src/node/runFile';
import { sniffLog } from '../../../src/core/logs/logKind';

const dir = join(FIXTURES, 'report');
const when = new Date(2024, 4, 1, 12, 34, 56);

function accessRun(file: string, maxRows?: number) {
  const report = analyzeAccessLog(readFileSync(join(dir, file)), { format: 'ltsv' });
  return runFromAccessReport(report, { id: 'r1', source: `logs/${file}`, createdAt: when }, { maxRows });
}

function qs(fingerprint: string, count: number, total: number): QueryStats {
  const f = { total, mean: total / count, max: total };
  return {
    fingerprint, count, queryTime: { ...f, min: 0, p95: total / count }, lockTime: f, rowsSent: f, rowsExamined: f,
    examinedPerSent: 1, example: 'x'.repeat(5000), exampleQueryTime: 0, exampleSchema: '', admin: false,
    peakPerSecond: 1, activeSeconds: 1, repeats: 0, fullScan: 0, filesort: 0, tmpTableOnDisk: 0,
  };
}

void test('an access run keeps per-endpoint figures (hand-computed) and the whole-run summary', () => {
  const run = accessRun('before.ltsv');
  assert.equal(run.kind, 'access');
  assert.equal(run.label, 'before.ltsv 2024-05-01 12:34');
  assert.equal(run.createdAt, when.toISOString());
  assert.deepEqual(run.summary, { count: 7, totalTime: 2.05, rows: 3, lines: 7, malformed: 0 });
  const items = run.endpoints!.find((e) => e.uri === '/items/:id')!;
  assert.equal(items.method, 'GET');
  assert.equal(items.count, 4);
  assert.ok(Math.abs(items.sum - 1.0) < 1e-12);
  assert.equal(items.avg, items.sum / 4);
  assert.equal(items.p99, 0.4);
  assert.equal(items.p50, 0.2);
  assert.deepEqual([items.s2xx, items.s4xx, items.s5xx], [3, 1, 0]);
  const login = run.endpoints!.find((e) => e.uri === '/login')!;
  assert.deepEqual([login.method, login.count, login.s2xx, login.s5xx, login.sum], ['POST', 2, 1, 1, 1]);
  assert.deepEqual(run.omitted, { rows: 0, time: 0 });
});

void test('runs are bounded: the largest rows are kept, the rest counted; long text is cut', () => {
  const run = accessRun('before.ltsv', 2);
  assert.equal(run.endpoints!.length, 2);
  assert.deepEqual(run.endpoints!.map((e) => e.uri).sort(), ['/items/:id', '/login']);
  assert.deepEqual(run.omitted, { rows: 1, time: 0.05 });
  assert.equal(run.summary.rows, 3, 'the summary still counts every endpoint');

  const slow = runFromSlowStats({ stats: [qs('select a', 2, 0.5), qs('select b', 1, 0.1), qs('s'.repeat(3000), 1, 0.9)], lines: 30, malformed: 1 },
    { id: 's1', source: 'slow.log', createdAt: when }, { maxRows: 2, maxFingerprintChars: 100, maxExampleChars: 50 });
  assert.deepEqual(slow.queries!.map((q) => q.fingerprint.length), [100, 8]);
  assert.ok(slow.queries![0].fingerprint.endsWith('…'));
  assert.equal(slow.queries![0].example.length, 50);
  assert.deepEqual(slow.omitted, { rows: 1, time: 0.1 });
  assert.deepEqual(slow.summary, { count: 4, totalTime: 1.5, rows: 3, lines: 30, malformed: 1 });
  // nothing unbounded is kept: no samples, no raw lines
  assert.ok(serializeRun(slow).length < 2000);
});

void test('serialise → parse gives the same run; the file is recognised by its start', () => {
  const run = accessRun('after.ltsv');
  const text = serializeRun(run);
  assert.ok(looksLikeRun(text));
  assert.deepEqual(parseRun(text), run);
  assert.equal(sniffLog(Buffer.from(text)).kind, 'run');
  assert.equal(looksLikeRun('{"method":"GET","uri":"/"}'), false);
});

void test('parseRun rejects what is not a run, saying why', () => {
  const good = JSON.parse(serializeRun(accessRun('before.ltsv')));
  const cases: [unknown, RegExp][] = [
    ['not json', /invalid JSON/],
    [[], /not a JSON object/],
    [{ ...good, format: 'other' }, /"format"/],
    [{ ...good, version: 2 }, /version 2 is not supported/],
    [{ ...good, kind: 'bogus' }, /"kind"/],
    [{ ...good, id: 7 }, /"id" is not a string/],
    [{ ...good, endpoints: undefined }, /no "endpoints"/],
    [{ ...good, endpoints: [{ ...good.endpoints[0], p99: 'slow' }] }, /endpoints\[0\]\.p99 is not a number/],
    [{ ...good, summary: { ...good.summary, totalTime: null } }, /summary\.totalTime/],
    [{ ...good, kind: 'slow' }, /no "queries"/],
  ];
  for (const [v, re] of cases) {
    assert.throws(() => parseRun(typeof v === 'string' ? v : JSON.stringify(v)), (err: Error) => err instanceof RunFormatError && re.test(err.message), String(re));
  }
});

void test('files: access log, slow log and saved run are told apart and read into runs', async () => {
  const meta = { id: 'x', source: 's', createdAt: when };
  const a = await loadRunFromFile(join(dir, 'before.ltsv'), { meta });
  assert.equal(a.kind, 'access');
  assert.equal(a.summary.count, 7);
  const s = await loadRunFromFile(join(dir, 'before.slow.log'), { meta });
  assert.equal(s.kind, 'slow');
  assert.equal(s.summary.count, 4);
  assert.deepEqual(s.queries!.map((q) => [q.fingerprint, q.count]), [
    ['select * from posts order by created_at desc limit ?', 1],
    ['select * from users where id = ?', 2],
    ['select count(*) from comments where post_id = ?', 1],
  ]);
  assert.equal(defaultLabel('/var/log/nginx/access.log', when), 'access.log 2024-05-01 12:34');
});
