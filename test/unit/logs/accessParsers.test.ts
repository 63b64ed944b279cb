import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeAccessLog, type AccessReport } from '../../../src/core/logs/accessAnalysis';
import { AccessRecord, createAccessParser } from '../../../src/core/logs/accessParsers';
import { parseSeconds, parseSecondsList } from '../../../src/core/logs/accessBytes';
import { FIXTURES } from '../../support/paths';

const fixture = (name: string) => readFileSync(join(FIXTURES, 'logs', 'access', name));
const enc = (s: string) => new TextEncoder().encode(s);

function rows(r: AccessReport): string[] {
  return r.endpoints.map((e) => `${e.method} ${e.uri} n=${e.count} sum=${e.sum.toFixed(3)}`).sort();
}

void test('parseSeconds reads decimals exactly like parseFloat and rejects non-numbers', () => {
  for (const s of ['0', '0.001', '12.345', '.5', '3.', '0.1234567', '123456789.123456']) {
    assert.equal(parseSeconds(enc(s), 0, s.length), parseFloat(s), s);
  }
  assert.equal(parseSeconds(enc('1e-3'), 0, 4), 0.001);
  for (const s of ['-', '', 'abc', '1.2.3', '0x10']) assert.ok(Number.isNaN(parseSeconds(enc(s), 0, s.length)), s);
  const list = '0.010, 0.009 : 0.001';
  assert.equal(parseSecondsList(enc(list), 0, list.length), 0.010 + 0.009 + 0.001);
  assert.ok(Number.isNaN(parseSecondsList(enc('-'), 0, 1)));
});

void test('LTSV: alp labels, query dropped, apptime falling back to reqtime, req line fallback, CRLF, malformed and truncated lines', () => {
  const r = analyzeAccessLog(fixture('sample.ltsv'), { format: 'ltsv' });
  assert.equal(r.lines, 8);
  assert.equal(r.blank, 1);
  assert.equal(r.requests, 5);
  assert.equal(r.malformed, 2);
  assert.deepEqual(r.malformedExamples.map((m) => [m.line, m.reason]), [[3, 'not LTSV (none of the expected labels)'], [8, 'no response time']]);
  assert.equal(r.malformedExamples[0].text, 'this line is not ltsv at all');
  assert.deepEqual(rows(r), [
    'GET /api/isu/:uuid/graph n=1 sum=1.499',
    'GET /assets/*.js n=1 sum=0.001',
    'GET /items/:id.json n=2 sum=0.310',
    'POST /login n=1 sum=0.019',
  ]);
  const items = r.endpoints.find((e) => e.uri === '/items/:id.json')!;
  assert.deepEqual(items.status, { 200: 1, 499: 1 });
  assert.equal(items.s499, 1);
  assert.equal(items.s4xx, 1);
  assert.deepEqual(items.bytes, { sum: 1200, min: 0, max: 1200, avg: 600 });
  assert.equal(r.endpoints.find((e) => e.uri === '/api/isu/:uuid/graph')!.s5xx, 1);
});

void test('LTSV: time field choice and a custom label mapping', () => {
  const text = 'rt:0.5\tut:0.25\tm:PUT\tpath:/x?y=1\tcode:201\tbytes:7\n';
  const r = analyzeAccessLog(enc(text), { format: 'ltsv', fields: { reqtime: 'rt', apptime: 'ut', method: 'm', uri: 'path', status: 'code', size: 'bytes' }, time: 'reqtime', keepQuery: true });
  assert.equal(r.requests, 1);
  assert.equal(r.endpoints[0].uri, '/x?y=1');
  assert.equal(r.endpoints[0].sum, 0.5);
  assert.equal(r.endpoints[0].bytes.sum, 7);
  assert.equal(r.endpoints[0].method, 'PUT');
});

void test('LTSV labels: ones that share a start, a label cut short or run on, two fields on one label, a label holding a colon', () => {
  const parse = createAccessParser({ format: 'ltsv' });
  const rec = new AccessRecord();
  // `req`, `reqtime` and `reqsize` share a start; `re`, `requ` and `reqtimes` are other labels.
  const full = enc('re:9\trequ:9\treqtimes:9\treq:POST /a?q HTTP/1.1\treqsize:120\tstatus:201\treqtime:0.250\tsize:5\t:x');
  assert.equal(parse(full, 0, full.length, rec), '');
  assert.deepEqual([rec.method, rec.path, rec.status, rec.reqTime, rec.size, rec.reqSize], ['POST', '/a', 201, 0.25, 5, 120]);
  // A label seen twice on a line is a line cut short and glued to the next.
  const twice = enc('reqtime:0.1\turi:/a\tmethod:GET\tstatus:200\treqtime:0.2');
  assert.equal(parse(twice, 0, twice.length, rec), 'cut-and-joined line');
  // Two fields given one label: the first (in the order method, uri, status, size, reqtime, apptime, …) takes it.
  const shared = createAccessParser({ format: 'ltsv', fields: { reqtime: 't', apptime: 't' } });
  const t = enc('method:GET\turi:/b\tstatus:200\tt:0.5');
  assert.equal(shared(t, 0, t.length, rec), '');
  assert.deepEqual([rec.reqTime, rec.appTime], [0.5, NaN]);
  // A label is what comes before a field's first colon: one holding a colon never matches.
  const colon = createAccessParser({ format: 'ltsv', fields: { reqtime: 'req:time' } });
  const c = enc('method:GET\turi:/c\tstatus:200\treq:time:0.5');
  assert.equal(colon(c, 0, c.length, rec), 'no response time');
});

void test('JSON lines: alp keys, escapes, nested values, numbers or strings, malformed and truncated lines', () => {
  const r = analyzeAccessLog(fixture('sample.jsonl'), { format: 'json' });
  assert.equal(r.requests, 4);
  assert.equal(r.malformed, 3);
  assert.deepEqual(r.malformedExamples.map((m) => [m.line, m.reason]), [[5, 'no response time'], [6, 'not a JSON object'], [7, 'truncated JSON']]);
  assert.deepEqual(rows(r), [
    'GET /café/menu n=1 sum=0.004',
    'GET /items/:id.json n=2 sum=0.310',
    'POST /search n=1 sum=0.049',
  ]);
});

void test('combined + $request_time [+ $upstream_response_time]: escaped quotes, upstream lists, bad request lines', () => {
  const r = analyzeAccessLog(fixture('sample.combined'), { format: 'combined' });
  assert.equal(r.requests, 3);
  assert.deepEqual(r.malformedExamples.map((m) => [m.line, m.reason]), [
    [4, 'bad request line'],
    [5, 'does not match the log format after $http_user_agent'],
    [6, 'does not match the log format after $remote_addr'],
  ]);
  assert.deepEqual(rows(r), ['GET /items/:id.json n=2 sum=0.310', 'POST /login n=1 sum=0.019']);
  const r2 = analyzeAccessLog(fixture('sample.combined'), { format: 'combined', time: 'reqtime' });
  assert.deepEqual(rows(r2), ['GET /items/:id.json n=2 sum=0.312', 'POST /login n=1 sum=0.020']);
});

void test('a regular expression with named groups replaces the built-in parser', () => {
  const pattern = String.raw`^(?<status>\d{3}) (?<reqtime>[\d.]+) "(?<request>[^"]*)"`;
  const r = analyzeAccessLog(enc('200 0.125 "GET /a/1 HTTP/1.1"\n503 0.5 "DELETE /é/2 HTTP/2.0"\nnope\n'), { format: 'combined', pattern });
  assert.deepEqual(rows(r), ['DELETE /é/:id n=1 sum=0.500', 'GET /a/:id n=1 sum=0.125']);
  assert.equal(r.malformedExamples[0].reason, 'does not match the log pattern');
  assert.throws(() => createAccessParser({ format: 'ltsv', pattern: '(?<status>\\d+)' }), /needs a named group/);
  assert.throws(() => createAccessParser({ format: 'ltsv', pattern: '(' }), /log pattern: "\(" is not a valid regular expression/);
});

void test('parsers leave nothing behind from the previous line', () => {
  const parse = createAccessParser({ format: 'ltsv' });
  const rec = new AccessRecord();
  const a = enc('method:GET\turi:/a\tstatus:200\treqtime:0.1\tsize:9');
  assert.equal(parse(a, 0, a.length, rec), '');
  const b = enc('method:GET\turi:/b\tstatus:200\treqtime:0.2');
  assert.equal(parse(b, 0, b.length, rec), '');
  assert.equal(rec.size, 0);
  assert.equal(rec.path, '/b');
});

