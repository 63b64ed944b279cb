/**
 * The pure parts of run records: the score in a benchmarker's output, the window's `POST
 * /initialize` and line times in each layout, git's diff mapped to handlers and statements, the
 * noise band a "within noise" verdict shows, errors deciding before latency, "faster but the score
 * fell", and a record that does not parse named for what is wrong.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBenchOutput } from '../../../src/core/runs/benchScore';
import { changedCode, parseUnifiedDiff } from '../../../src/core/runs/codeChanges';
import { initializeTest, lineTime } from '../../../src/core/runs/window';
import { noiseBand } from '../../../src/core/report/compareNoise';
import { bandText } from '../../../src/core/report/compare';
import { diffRecords } from '../../../src/core/runs/recordDiff';
import { parseRecord, RECORD_FORMAT, RECORD_VERSION, RecordFormatError, type RunRecord } from '../../../src/core/runs/record';
import type { Run, RunEndpoint } from '../../../src/core/report/runs';
import type { Route, SqlSite } from '../../../src/core/model';

const bytes = (s: string) => Buffer.from(s, 'utf8');

void test('the score: a JSON score field, score: N / SCORE: N lines (the last wins), a JSON pass:false with its reason', () => {
  assert.deepEqual(parseBenchOutput('{"pass":true,"score":4210,"messages":[]}'), { score: 4210 });
  assert.deepEqual(parseBenchOutput('start\nscore: 100\nload...\nSCORE: 3051\n'), { score: 3051 });
  assert.deepEqual(parseBenchOutput('{"level":"info","msg":"go"}\n{"score": 77, "pass": false, "reason": "GET /api/x: 500"}\n'), { score: 77, failed: 'GET /api/x: 500' });
  assert.deepEqual(parseBenchOutput('nothing here'), { score: null });
  assert.equal(parseBenchOutput('FAIL: initialize timed out\nscore: 0').failed, 'initialize timed out');
});

void test('the window: POST /initialize (also under /api) in LTSV, JSON and combined; GET /initialize and other paths are not it; times of each layout', () => {
  const ltsv = 'time:01/May/2024:12:00:00 +0900\tmethod:POST\turi:/initialize\tstatus:200\treqtime:0.512';
  const t = initializeTest({ format: 'ltsv' });
  assert.deepEqual(t(bytes(ltsv), 0, ltsv.length), { seconds: 0.512 });
  const get = ltsv.replace('POST', 'GET');
  assert.equal(t(bytes(get), 0, get.length), undefined);
  const other = ltsv.replace('/initialize', '/initialize_cache');
  assert.equal(t(bytes(other), 0, other.length), undefined);
  const json = '{"time":"2024-05-01T12:00:00+09:00","method":"POST","uri":"/api/initialize","status":200,"request_time":1.5}';
  assert.deepEqual(initializeTest({ format: 'json' })(bytes(json), 0, json.length), { seconds: 1.5 });
  const combined = '10.0.0.1 - - [01/May/2024:12:00:00 +0900] "POST /initialize HTTP/1.1" 200 31 "-" "isucandar" 0.250 0.249';
  assert.deepEqual(initializeTest({ format: 'combined' })(bytes(combined), 0, combined.length), { seconds: 0.25 });
  const at = Date.UTC(2024, 4, 1, 3, 0, 0);
  assert.equal(lineTime(bytes(ltsv), 0, ltsv.length), at);
  assert.equal(lineTime(bytes(json), 0, json.length), at);
  assert.equal(lineTime(bytes(combined), 0, combined.length), at);
  assert.ok(Number.isNaN(lineTime(bytes('method:GET\turi:/'), 0, 16)));
});

void test('what changed: -U0 hunks of the new side, mapped to the handler and the statement they touch, credited to the newest commit', () => {
  const diff = parseUnifiedDiff([
    'diff --git a/app.go b/app.go', '--- a/app.go', '+++ b/app.go', '@@ -40,2 +41,3 @@ func getItem', '+x', '+y', '+z',
    '@@ -90 +92,0 @@', '-gone', 'diff --git a/new.go b/new.go', '--- /dev/null', '+++ b/new.go', '@@ -0,0 +1,2 @@', '+a', '+b',
  ].join('\n'));
  assert.deepEqual(diff.get('app.go'), [[41, 43], [92, 93]]);
  assert.deepEqual(diff.get('new.go'), [[1, 2]]);
  const range = (a: number, b: number) => ({ start: { line: a - 1, character: 0 }, end: { line: b - 1, character: 0 } });
  const routes = [
    { method: 'GET', pattern: '/items/:id', framework: 'echo', file: 'main.go', range: range(10, 10), handler: { name: 'getItem', file: 'app.go', range: range(38, 50) } },
    { method: 'GET', pattern: '/users/:id', framework: 'echo', file: 'main.go', range: range(11, 11), handler: { name: 'getUser', file: 'app.go', range: range(60, 70) } },
  ] as Route[];
  const sites = [{ file: 'app.go', range: range(42, 42), sql: 'SELECT * FROM items WHERE id = ?' }, { file: 'app.go', range: range(65, 65), sql: 'SELECT 1' }] as SqlSite[];
  const changes = changedCode(diff, routes, sites, [{ commit: 'c2', files: ['app.go'] }, { commit: 'c1', files: ['app.go', 'main.go'] }]);
  assert.deepEqual(changes.map((c) => [c.kind, c.key, c.commit]), [['handler', 'GET /items/:id', 'c2'], ['statement', 'select * from items where id = ?', 'c2']]);
  assert.equal(changedCode(diff, routes, sites, [])[0].commit, 'working tree');
});

void test('the noise band says why: both counts, the change and its interval (16.3 → 6.7 ms on 3 and 4 requests holds 0)', () => {
  const band = noiseBand({ n: 3, mean: 0.0163, sd: 0.012 }, { n: 4, mean: 0.0067, sd: 0.004 }, 0.001)!;
  assert.equal(band.nBefore, 3);
  assert.equal(band.nAfter, 4);
  assert.ok(band.low < 0 && band.high > 0, `${band.low} … ${band.high}`);
  assert.match(bandText(band), /^n 3 → 4, mean −9\.60 ms, 99 % interval −\d+\.?\d* ms … \+\d+\.?\d* ms \(holds 0\)$/);
  assert.equal(noiseBand({ n: 1, mean: 1, sd: 0 }, { n: 5, mean: 1, sd: 0 }, 0.001), undefined);
});

function endpoint(method: string, uri: string, count: number, avg: number, s5xx = 0): RunEndpoint {
  return { method, uri, count, sum: avg * count, avg, min: avg * 0.9, max: avg * 1.1, p50: avg, p90: avg * 1.05, p95: avg * 1.08, p99: avg * 1.1, stddev: avg * 0.05, s1xx: 0, s2xx: count - s5xx, s3xx: 0, s4xx: 0, s5xx, bytes: 0 };
}

function rec(id: string, score: number | null, endpoints: RunEndpoint[]): RunRecord {
  const access: Run = {
    format: 'query-insight-run', version: 1, id: `${id}-a`, label: id, kind: 'access', createdAt: '2024-05-01T00:00:00Z', source: 'a.log',
    summary: { count: endpoints.reduce((s, e) => s + e.count, 0), totalTime: endpoints.reduce((s, e) => s + e.sum, 0), rows: endpoints.length, lines: 0, malformed: 0 },
    omitted: { rows: 0, time: 0 }, endpoints,
  };
  return { format: RECORD_FORMAT, version: RECORD_VERSION, id, createdAt: `2024-05-01T00:0${id.length}:00Z`, window: { origin: 'initialize' }, sources: [], access, score, health: [] };
}

void test('verdicts: errors decide before latency, and "faster but the score fell" is said plainly', () => {
  const before = rec('a', 5000, [endpoint('GET', '/items/:id', 400, 0.05), endpoint('POST', '/buy', 200, 0.1)]);
  const after = rec('bb', 3000, [endpoint('GET', '/items/:id', 400, 0.01), endpoint('POST', '/buy', 200, 0.05, 40)]);
  const d = diffRecords(before, after);
  assert.match(d.headline, /^Score 5000 → 3000 \(−40 %\)\. Faster but the score fell/);
  const buy = d.rows.find((r) => r.key === 'POST /buy')!;
  assert.equal(buy.verdict, 'slower', 'its latency halved, but 40 of 200 answers are 5xx');
  assert.match(buy.reason, /errors \(5xx, 499\) 0 → 40/);
  assert.equal(d.rows.find((r) => r.key === 'GET /items/:id')!.verdict, 'faster');
});

void test('a record that does not parse is named for what is wrong', () => {
  assert.throws(() => parseRecord('{"format":"query-insight-record","version":1,"id":"../x"}'), (e: unknown) => e instanceof RecordFormatError && /"id" is not a plain name/.test((e as Error).message));
  assert.throws(() => parseRecord('nope'), /invalid JSON/);
});
