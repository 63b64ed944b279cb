/** The pure part of the Endpoints view and the route CodeLens: order, labels, CodeLens text, which lens goes where. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeAccessLog, type EndpointStats } from '../../../src/core/logs/accessAnalysis';
import type { Route } from '../../../src/core/model';
import {
  codeLensTitle, endpointDescription, parseFieldMapping, endpointTooltip, formatDuration, lensesForFile, sortEndpoints, ENDPOINT_SORTS,
} from '../../../src/extension/endpoints/endpointRows';

const at = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 40 } });
const ROUTES: Route[] = [
  { method: 'GET', pattern: '/items/:id', framework: 'echo', file: 'main.go', range: at(20), handler: { name: 'getItem', file: 'main.go', range: at(40) } },
  { method: 'POST', pattern: '/items', framework: 'echo', file: 'main.go', range: at(21), handler: { name: 'postItem', file: 'items.go', range: at(5) } },
  { method: 'GET', pattern: '/health', framework: 'echo', file: 'main.go', range: at(22), handler: { name: 'GET /health', file: 'main.go', range: at(22) } },
  { method: 'GET', pattern: '/unused', framework: 'echo', file: 'main.go', range: at(23) },
];

/** A log whose figures are known: per endpoint, [method, path, status, seconds] repeated. */
function report(): EndpointStats[] {
  const lines: string[] = [];
  const add = (method: string, uri: string, status: number, t: number, n: number) => {
    for (let i = 0; i < n; i++) lines.push(`method:${method}\turi:${uri.replace('N', String(i))}\tstatus:${status}\tsize:100\treqtime:${t.toFixed(3)}`);
  };
  add('GET', '/items/N', 200, 0.05, 1234);   // total 61.7 s, many requests
  add('GET', '/items/N', 500, 0.1, 3);       // + 3 errors
  add('POST', '/items', 200, 0.4, 100);      // total 40 s, mean 0.4 s
  add('GET', '/health', 200, 0.001, 2000);   // total 2 s, most requests
  add('GET', '/slow', 404, 2.5, 2);          // total 5 s, max 2.5 s, 4xx
  return analyzeAccessLog(new TextEncoder().encode(lines.join('\n')), { format: 'ltsv', routes: ROUTES }).endpoints;
}

void test('sorting: each order ranks by its figure, largest first', () => {
  const es = report();
  const order = (s: (typeof ENDPOINT_SORTS)[number]) => sortEndpoints(es, s).map((e) => `${e.method} ${e.uri}`);
  assert.deepEqual(order('total'), ['GET /items/:id', 'POST /items', 'GET /slow', 'GET /health']);
  assert.deepEqual(order('count'), ['GET /health', 'GET /items/:id', 'POST /items', 'GET /slow']);
  assert.deepEqual(order('mean'), ['GET /slow', 'POST /items', 'GET /items/:id', 'GET /health']);
  assert.deepEqual(order('max'), ['GET /slow', 'POST /items', 'GET /items/:id', 'GET /health']);
  assert.deepEqual(order('p99'), ['GET /slow', 'POST /items', 'GET /items/:id', 'GET /health']);
  assert.deepEqual(order('errors'), ['GET /items/:id', 'GET /slow', 'POST /items', 'GET /health']);
  assert.notStrictEqual(sortEndpoints(es, 'total'), es);
});

void test('labels: durations, counts, the CodeLens title of the issue', () => {
  assert.equal(formatDuration(0.32), '320 ms');
  assert.equal(formatDuration(56.7), '56.7 s');
  assert.equal(formatDuration(0.0012), '1.2 ms');
  assert.equal(formatDuration(3.25), '3.25 s');
  assert.equal(formatDuration(900), '15 min');
  const items = report().find((e) => e.uri === '/items/:id')!;
  assert.equal(items.count, 1237);
  assert.equal(codeLensTitle(items), 'GET /items/:id · 1,237 req · 62.0 s total · p99 50.0 ms · 5xx 3');
  assert.equal(endpointDescription(items), '1,237 req · 62.0 s total · p99 50.0 ms · 5xx 3');
  const health = report().find((e) => e.uri === '/health')!;
  assert.equal(codeLensTitle(health), 'GET /health · 2,000 req · 2.00 s total · p99 1.0 ms');
  assert.match(endpointDescription(report().find((e) => e.uri === '/slow')!, 'errors'), /4xx 2$/);
  // a 499 is named for what it is: the client gave up before the answer
  assert.equal(codeLensTitle({ ...health, s499: 1 }), 'GET /health · 2,000 req · 2.00 s total · p99 1.0 ms · 1 client abort (499)');
  assert.match(codeLensTitle({ ...health, s499: 12 }), / · 12 client aborts \(499\)$/);
});

void test('tooltip: full figures, share of the total, and the handler or why there is none', () => {
  const es = report();
  const total = es.reduce((s, e) => s + e.sum, 0);
  const t = endpointTooltip(es.find((e) => e.uri === '/items/:id')!, total);
  assert.match(t, /\| requests \| 1,237 \|/);
  assert.match(t, /% of all time/);
  assert.match(t, /Handler: `getItem` in main\\\.go:41/);
  assert.match(endpointTooltip(es.find((e) => e.uri === '/slow')!), /no handler known/);
});

void test('tooltip: method and URI from the log are escaped Markdown (no image, link or HTML renders)', () => {
  const e = { ...report()[0], method: 'GET', uri: '/![x](https://evil.example/x.png)<img src=x onerror=alert(1)>[a](command:x)', route: undefined };
  const t = endpointTooltip(e);
  const head = t.split('\n')[0];
  assert.equal(head, '**GET /\\!\\[x\\]\\(https://evil\\.example/x\\.png\\)\\<img src=x onerror=alert\\(1\\)\\>\\[a\\]\\(command:x\\)**');
});

void test('CodeLens placement: above the handler in its own file, above the route when the handler is elsewhere', () => {
  const es = report();
  const main = lensesForFile('main.go', ROUTES, es).map((l) => [l.line, codeLensTitle(l.endpoint).split(' · ')[0]]);
  assert.deepEqual(main, [[21, 'POST /items'], [22, 'GET /health'], [40, 'GET /items/:id']]);
  const items = lensesForFile('items.go', ROUTES, es).map((l) => [l.line, l.endpoint.uri]);
  assert.deepEqual(items, [[5, '/items']]);
  assert.deepEqual(lensesForFile('other.go', ROUTES, es), []);
});

void test('field mapping setting: NAME=LABEL entries, a bad entry named in the error', () => {
  assert.deepEqual(parseFieldMapping(['uri=request_uri', ' reqtime = rt ']), { uri: 'request_uri', reqtime: 'rt' });
  assert.deepEqual(parseFieldMapping([]), {});
  assert.throws(() => parseFieldMapping(['url=request_uri']), /"url=request_uri" is not NAME=LABEL/);
  assert.throws(() => parseFieldMapping(['uri=']), /"uri="/);
});
