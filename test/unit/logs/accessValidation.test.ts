import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeAccessLog, type AccessReport } from '../../../src/core/logs/accessAnalysis';
import { createAccessParser } from '../../../src/core/logs/accessParsers';
import { compileLogFormat } from '../../../src/core/logs/nginxLogFormat';

const enc = (s: string) => new TextEncoder().encode(s);

/** Every line is counted once: a request, a blank line or a malformed line of one reason. */
function assertCounted(r: AccessReport): void {
  const byReason = Object.values(r.malformedByReason).reduce((a, b) => a + b, 0);
  assert.equal(byReason, r.malformed, 'reasons add up to malformed');
  assert.equal(r.requests + r.blank + r.malformed, r.lines, 'requests + blank + malformed = lines');
}

const ltsv = (fields: Record<string, string>) => Object.entries(fields).map(([k, v]) => `${k}:${v}`).join('\t');
const base = { time: '25/Nov/2026:10:00:00 +0900', method: 'GET', uri: '/items/1', status: '200', size: '12', reqtime: '0.010', apptime: '0.008' };

void test('times that cannot be measurements make their line malformed, by reason; the report goes on', () => {
  const lines = [
    ltsv(base),
    ltsv({ ...base, reqtime: '1e309', apptime: '-' }),
    ltsv({ ...base, reqtime: '-0.5', apptime: '-' }),
    ltsv({ ...base, reqtime: '90000', apptime: '-' }),
    ltsv({ ...base, reqtime: `${'9'.repeat(300_000)}x`, apptime: '-' }),
    ltsv({ ...base, apptime: '0.1, 1e400' }),
    ltsv({ ...base, apptime: '50000 : 50000' }),
    ltsv({ ...base, method: 'PO99999999999999ST' }),
    ltsv({ ...base, method: '<script>' }),
    ltsv({ ...base, status: '2000' }),
    ltsv({ ...base, size: '12abc' }),
    ltsv({ ...base, uri: `/${'a'.repeat(20_000)}` }),
    '',
    ltsv({ ...base, method: 'PROPFIND', apptime: '0.010, 0.004 : -' }),
  ];
  const r = analyzeAccessLog(enc(lines.join('\n')), { format: 'ltsv' });
  assertCounted(r);
  assert.equal(r.requests, 2);
  assert.deepEqual(r.malformedByReason, {
    'request time not finite': 1, 'request time negative': 1, 'request time over 1 day': 1, 'request time not a number': 1,
    'upstream time not a list of times': 1, 'upstream time over 1 day': 1, 'bad method': 2, 'bad status': 1, 'bad body size': 1, 'uri too long': 1,
  });
  for (const e of r.endpoints) for (const v of [e.sum, e.max, e.avg, e.p99, e.stddev]) assert.ok(Number.isFinite(v));
  assert.deepEqual(r.endpoints.map((e) => `${e.method} ${e.sum.toFixed(3)}`).sort(), ['GET 0.008', 'PROPFIND 0.014']);
});

void test('a line cut short and glued to the next: detected, counted, the glued request read (LTSV, JSON, combined)', () => {
  const l1 = ltsv({ ...base, uri: '/a' });
  const l2 = ltsv({ ...base, uri: '/b', reqtime: '0.200', apptime: '0.150' });
  // cut inside the first line (its times lost), and cut late (the first line complete up to its last field)
  const r = analyzeAccessLog(enc(`${l1.slice(0, 40)}${l2}\n${l1}\tvhost:exam${l2}\n${l1}\n`), { format: 'ltsv' });
  assertCounted(r);
  assert.equal(r.joined, 2);
  assert.equal(r.requests, 3);
  assert.deepEqual(r.endpoints.map((e) => `${e.uri} ${e.count} ${e.sum.toFixed(3)}`).sort(), ['/a 1 0.008', '/b 2 0.300']);

  const j1 = '{"time":"t","method":"GET","uri":"/a","status":"200","body_bytes":"1","request_time":"0.010","response_time":"0.008"}';
  const j2 = '{"time":"t","method":"POST","uri":"/b","status":"201","body_bytes":"1","request_time":"0.300","response_time":"0.250"}';
  const rj = analyzeAccessLog(enc(`${j1.slice(0, 50)}${j2}\n${j1}${j2}\n${j1}\n`), { format: 'json' });
  assertCounted(rj);
  assert.equal(rj.joined, 2);
  assert.deepEqual(rj.endpoints.map((e) => `${e.method} ${e.uri} ${e.count}`).sort(), ['GET /a 1', 'POST /b 2']);

  // The case that read a timestamp as an upstream time list (a 41 s request) and lost the glued request.
  const c1 = '10.0.0.1 - - [25/Nov/2026:10:00:40 +0900] "GET /a HTTP/1.1" 200 5 "-" "curl/8" 0.012 ';
  const c2 = '10.0.0.2 - - [25/Nov/2026:10:00:41 +0900] "GET /b HTTP/1.1" 200 5 "-" "curl/8" 0.030 0.020';
  const rc = analyzeAccessLog(enc(`${c1}${c2}\n${c1.slice(0, 60)}${c2}\n${c2}\n`), { format: 'combined' });
  assertCounted(rc);
  assert.equal(rc.joined, 2);
  assert.deepEqual(rc.endpoints.map((e) => `${e.uri} ${e.count} ${e.max.toFixed(3)}`), ['/b 3 0.020']);
});

void test('combined with two times follows the declared log_format: combined, combined-alp, or the string itself', () => {
  const line = '10.0.0.1 - - [25/Nov/2026:10:00:40 +0900] "GET /a HTTP/1.1" 200 5 "-" "curl/8" 0.300 0.100\n';
  const ours = analyzeAccessLog(enc(line), { format: 'combined' });
  const alps = analyzeAccessLog(enc(line), { format: 'combined-alp' });
  assert.equal(ours.endpoints[0].sum, 0.1); // $request_time $upstream_response_time: the upstream time is used
  assert.equal(alps.endpoints[0].sum, 0.3); // alp's order: $upstream_response_time $request_time
  assert.deepEqual(ours.timeFrom, [{ field: '$upstream_response_time', requests: 1 }]);
  const own = '$remote_addr [$time_local] "$request" $status rt=$request_time ut=$upstream_response_time';
  const r = analyzeAccessLog(enc('1.2.3.4 [x y] "PUT /c/9 HTTP/2.0" 204 rt=0.050 ut=-\n1.2.3.4 [x y] "PUT /c/8 HTTP/2.0" 204 rt=0.070 ut=0.010, 0.020\n'), { format: own });
  assertCounted(r);
  assert.deepEqual(r.endpoints.map((e) => `${e.method} ${e.uri} ${e.count} ${e.sum.toFixed(3)}`), ['PUT /c/:id 2 0.080']);
  assert.deepEqual(r.timeFrom, [{ field: '$upstream_response_time', requests: 1 }, { field: '$request_time', requests: 1 }]);
  assert.throws(() => compileLogFormat('$remote_addr$remote_user "$request" $status $request_time'), /nothing between them/);
  assert.throws(() => compileLogFormat('$remote_addr "$request" $request_time'), /needs \$status/);
  assert.throws(() => createAccessParser({ format: '$status $body_bytes_sent' }), /needs \$request or \$request_uri/);
});

void test('every field is capped: one long line of any shape is read in one pass', () => {
  const shapes = [
    `time:${'1'.repeat(500_000)}a\treqtime:${'9'.repeat(500_000)}`,
    `reqtime:${'1.'.repeat(250_000)}\tmethod:GET\turi:/x\tstatus:200`,
    `{"request_time":"${'7'.repeat(500_000)}e","uri":"/x"}`,
    `1.1.1.1 - - [x] "${'G'.repeat(500_000)} /x HTTP/1.1" 200 1 "-" "-" 0.1 0.1`,
  ];
  for (const s of shapes) {
    for (const format of ['ltsv', 'json', 'combined'] as const) {
      const r = analyzeAccessLog(enc(s), { format });
      assertCounted(r);
      assert.equal(r.lines, 1);
    }
  }
});
