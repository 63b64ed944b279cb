import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Function as PFunction, Line, Location, Profile, Sample, StringTable, ValueType } from 'pprof-format';
import type { Route } from '../../../src/core/model';
import { CpuAttribution, type ProfileReport } from '../../../src/core/profile/cpuAttribution';
import { FoldedReader, parseFrameText, readCpuProfile, readPprof, sniffProfile } from '../../../src/core/profile/profileReaders';
import { discoverRoutesInDir } from '../../../src/node/routesDir';
import { FIXTURES } from '../../support/paths';

const APPS = join(FIXTURES, 'profile');

async function routesOf(app: string): Promise<Route[]> {
  return (await discoverRoutesInDir(join(APPS, app))).routes;
}

function folded(routes: readonly Route[], text: string, hz = 100): { report: ProfileReport; reader: FoldedReader } {
  const cpu = new CpuAttribution(routes);
  const reader = new FoldedReader(cpu, hz);
  for (const line of text.split('\n')) reader.line(line);
  return { report: cpu.report({ flame: true }), reader };
}

function byHandler(r: ProfileReport): Record<string, number> {
  return Object.fromEntries(r.endpoints.map((e) => [e.handler.name, Math.round(e.cpuSeconds * 1000) / 1000]));
}

function bucket(r: ProfileReport, name: string): number {
  return Math.round((r.buckets.find((b) => b.bucket === name)?.cpuSeconds ?? NaN) * 1000) / 1000;
}

void test('frame texts: py-spy, rbspy, file:line:column and bare names', () => {
  assert.deepEqual(parseFrameText('get_item (/srv/app/app.py:19)'), { name: 'get_item', file: '/srv/app/app.py', line: 19 });
  assert.deepEqual(parseFrameText('block in <class:App> - /srv/app/app.rb:16'), { name: 'block in <class:App>', file: '/srv/app/app.rb', line: 16 });
  assert.deepEqual(parseFrameText('getItem /srv/app/app.js:7:24'), { name: 'getItem', file: '/srv/app/app.js', line: 7 });
  assert.deepEqual(parseFrameText('main.(*Handler).getItem'), { name: 'main.(*Handler).getItem' });
  assert.deepEqual(parseFrameText('do_syscall_64_[k]'), { name: 'do_syscall_64' });
});

void test('Go (perf, stackcollapse): main.getItem gets its samples, the driver and the runtime their buckets', async () => {
  const routes = await routesOf('go');
  const { report, reader } = folded(routes, [
    'runtime.goexit;net/http.(*conn).serve;net/http.HandlerFunc.ServeHTTP;main.getItem;encoding/json.(*Encoder).Encode;encoding/json.mapEncode.encode 60',
    'runtime.goexit;net/http.(*conn).serve;net/http.HandlerFunc.ServeHTTP;main.getItem;database/sql.(*Row).Scan;github.com/go-sql-driver/mysql.(*mysqlConn).readPacket 20',
    'runtime.goexit;net/http.(*conn).serve;net/http.HandlerFunc.ServeHTTP;main.getIndex;net/http.(*response).Write 10',
    'runtime.goexit;net/http.(*conn).serve;net/http.HandlerFunc.ServeHTTP;main.postRecount;main.getItem;encoding/json.Marshal 10',
    'runtime.gcBgMarkWorker;runtime.gcDrain;runtime.scanobject 30',
    'runtime.goexit;database/sql.(*DB).connectionOpener;github.com/go-sql-driver/mysql.(*connector).Connect 5',
    'runtime.goexit;net/http.(*conn).serve;net/http.(*conn).readRequest;bufio.(*Reader).ReadLine 5',
    '',
    'main.main;main.getItem',
    'runtime.goexit;main.main x',
  ].join('\n'));
  // why: postRecount calls getItem; the innermost handler frame takes the sample.
  assert.deepEqual(byHandler(report), { getItem: 0.9, getIndex: 0.1 });
  const item = report.endpoints[0];
  assert.equal(item.endpoint, 'ANY /items');
  assert.deepEqual(item.handler, { name: 'getItem', file: 'main.go', line: 17 });
  assert.equal(Math.round(item.share * 100), 90);
  assert.equal(Math.round(item.driverSeconds * 100), 20);
  assert.equal(item.top[0].name, 'encoding/json.mapEncode.encode');
  assert.equal(item.top.find((f) => f.name === 'main.getItem')!.totalSeconds.toFixed(2), '0.90');
  assert.equal(item.flame!.name, 'main.getItem');
  assert.equal(item.flame!.seconds.toFixed(2), '0.90');
  assert.deepEqual(item.flame!.children.map((c) => c.name), ['encoding/json.(*Encoder).Encode', 'database/sql.(*Row).Scan', 'encoding/json.Marshal']);
  assert.equal(bucket(report, 'runtime'), 0.3);
  assert.equal(bucket(report, 'driver'), 0.05);
  assert.equal(bucket(report, 'other'), 0.05);
  assert.equal(report.totalSeconds.toFixed(2), '1.40');
  assert.equal(reader.lines, 10);
  assert.equal(reader.malformed, 2);
  assert.deepEqual(reader.malformedByReason, { 'no sample count after the stack': 1, 'sample count is not a number': 1 });
});

void test('Go: the same name in another package or file is not the handler', async () => {
  const routes = await routesOf('go');
  const { report } = folded(routes, [
    'runtime.goexit;main.getItem 10',
    'runtime.goexit;github.com/acme/admin.getItem (/srv/admin/items.go:3) 7',
    'runtime.goexit;getItem (/srv/webapp/go/main.go:18) 3',
  ].join('\n'));
  assert.deepEqual(byHandler(report), { getItem: 0.13 });
  assert.equal(bucket(report, 'other'), 0.07);
});

void test('Ruby: App#get_item by name, and a Sinatra block by its file and line (rbspy)', async () => {
  const sinatra = await routesOf('ruby');
  const method: Route = {
    method: 'GET', pattern: '/api/items/:id', framework: 'rails', file: 'config/routes.rb',
    range: { start: { line: 2, character: 2 }, end: { line: 2, character: 40 } },
    handler: { name: 'get_item', file: 'app.rb', range: { start: { line: 20, character: 2 }, end: { line: 24, character: 5 } } },
  };
  const { report } = folded([...sinatra, method], [
    '<main> - /srv/app/config.ru:3;Puma::Server#process_client - /gems/puma-6.4.0/lib/puma/server.rb:400;block in <class:App> - /srv/app/app.rb:16;Mysql2::Statement#execute - /gems/mysql2-0.5.6/lib/mysql2/statement.rb:5 25',
    '<main> - /srv/app/config.ru:3;Puma::Server#process_client - /gems/puma-6.4.0/lib/puma/server.rb:400;block in <class:App> - /srv/app/app.rb:17;ERB#result - /usr/lib/ruby/3.2.0/erb.rb:905 50',
    '<main> - /srv/app/config.ru:3;block in <class:App> - /srv/app/app.rb:12 5',
    '<main> - /srv/app/config.ru:3;App#get_item - /srv/app/app.rb:22;JSON.generate - /gems/json/lib/json.rb:300 20',
    '<main> - /srv/app/config.ru:3;(garbage collection) 10',
  ].join('\n'));
  const rows = Object.fromEntries(report.endpoints.map((e) => [e.endpoint, Math.round(e.cpuSeconds * 100)]));
  assert.deepEqual(rows, { 'GET /items/:id': 75, 'GET /api/items/:id': 20, 'GET /': 5 });
  assert.equal(report.endpoints[0].driverSeconds.toFixed(2), '0.25');
  assert.equal(bucket(report, 'runtime'), 0.1);
});

void test('Python: get_item from py-spy and app.get_item by its module', async () => {
  const routes = await routesOf('python');
  const { report } = folded(routes, [
    'process 812:"python app.py";thread (0x7f01);wsgi_app (flask/app.py:1478);get_item (/srv/app/app.py:19);execute (pymysql/cursors.py:153);_read_packet (pymysql/connections.py:729) 40',
    'process 812:"python app.py";thread (0x7f01);wsgi_app (flask/app.py:1478);get_item (/srv/app/app.py:21);jsonify (flask/json/__init__.py:170) 20',
    'werkzeug.serving.run_wsgi;app.get_item;json.dumps 30',
    'werkzeug.serving.run_wsgi;admin.get_item;json.dumps 5',
    'process 812:"python app.py";thread (0x7f01);wsgi_app (flask/app.py:1478);get_index (/srv/app/app.py:13) 10',
  ].join('\n'));
  // why: `admin.get_item` names no file, and the only get_item handler is in app.py, so its name
  // alone decides; a second handler of that name would be told apart by the module.
  assert.deepEqual(byHandler(report), { get_item: 0.95, get_index: 0.1 });
  assert.equal(report.endpoints[0].driverSeconds.toFixed(2), '0.40');
  assert.equal(report.endpoints[0].endpoint, 'GET /items/<int:item_id>');
});

void test('JavaScript .cpuprofile: getItem by name, the anonymous arrow handler by its line; idle left out', async () => {
  const routes = await routesOf('js');
  const url = 'file:///srv/app/app.js';
  const frame = (id: number, functionName: string, children: number[], u = '', lineNumber = -1) =>
    ({ id, callFrame: { functionName, scriptId: '1', url: u, lineNumber, columnNumber: 0 }, hitCount: 0, children });
  const profile = {
    nodes: [
      frame(1, '(root)', [2, 3, 4, 5, 9]),
      frame(2, '(idle)', []),
      frame(3, '(garbage collector)', []),
      frame(4, 'handle', [6, 8], 'file:///srv/app/node_modules/express/lib/router/layer.js', 85),
      frame(5, '(program)', []),
      frame(6, 'getItem', [7], url, 6),
      frame(7, 'query', [], 'file:///srv/app/node_modules/mysql2/lib/pool.js', 40),
      frame(8, '', [10], url, 13),
      frame(9, 'processTicksAndRejections', [], 'node:internal/process/task_queues', 60),
      frame(10, 'stringify', [], '', -1),
    ],
    startTime: 0, endTime: 100_000,
    // why: each sample stands for the time until the next one (10 ms here).
    samples: [2, 2, 3, 6, 7, 7, 8, 10, 10, 10, 9, 5],
    timeDeltas: [0, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000],
  };
  const cpu = new CpuAttribution(routes);
  readCpuProfile(profile, cpu);
  const report = cpu.report();
  assert.deepEqual(byHandler(report), { 'GET /': 0.04, getItem: 0.03 });
  assert.equal(report.idleSeconds.toFixed(2), '0.02');
  assert.equal(report.endpoints[1].driverSeconds.toFixed(2), '0.02');
  assert.equal(bucket(report, 'runtime'), 0.03);
  assert.equal(report.totalSeconds.toFixed(2), '0.10');
});

void test('pprof: Go CPU profile with inlined frames, values in nanoseconds', async () => {
  const routes = await routesOf('go');
  const strings = new StringTable();
  const s = (x: string) => strings.dedup(x);
  const fns = [
    ['runtime.goexit', '/usr/lib/go-1.22/src/runtime/asm_amd64.s'],
    ['net/http.HandlerFunc.ServeHTTP', '/usr/lib/go-1.22/src/net/http/server.go'],
    ['main.getItem', '/home/isucon/webapp/go/main.go'],
    ['crypto/sha256.Sum256', '/usr/lib/go-1.22/src/crypto/sha256/sha256.go'],
    ['main.getIndex', '/home/isucon/webapp/go/main.go'],
    ['runtime.mallocgc', '/usr/lib/go-1.22/src/runtime/malloc.go'],
  ].map(([name, file], i) => new PFunction({ id: i + 1, name: s(name), systemName: s(name), filename: s(file) }));
  const loc = (id: number, ...lines: [number, number][]) => new Location({ id, line: lines.map(([functionId, line]) => new Line({ functionId, line })) });
  const profile = new Profile({
    sampleType: [new ValueType({ type: s('samples'), unit: s('count') }), new ValueType({ type: s('cpu'), unit: s('nanoseconds') })],
    periodType: new ValueType({ type: s('cpu'), unit: s('nanoseconds') }),
    period: 10_000_000,
    function: fns,
    // why: location 3 is sha256 inlined into getItem: innermost line first.
    location: [loc(1, [1, 1]), loc(2, [2, 2136]), loc(3, [4, 50], [3, 19]), loc(4, [5, 14]), loc(5, [6, 900])],
    sample: [
      new Sample({ locationId: [3, 2, 1], value: [80, 800_000_000] }),
      new Sample({ locationId: [4, 2, 1], value: [15, 150_000_000] }),
      new Sample({ locationId: [5], value: [5, 50_000_000] }),
    ],
    stringTable: strings,
  });
  const cpu = new CpuAttribution(routes);
  const read = readPprof(profile.encode(), cpu);
  assert.equal(read.samples, 100);
  const report = cpu.report();
  assert.deepEqual(byHandler(report), { getItem: 0.8, getIndex: 0.15 });
  assert.equal(report.endpoints[0].top[0].name, 'crypto/sha256.Sum256');
  assert.equal(report.endpoints[0].handler.line, 17);
  assert.equal(bucket(report, 'runtime'), 0.05);
  assert.equal(sniffProfile(profile.encode()), 'pprof');
  assert.equal(sniffProfile(Buffer.from('main.a;main.b 3\n')), 'folded');
  assert.equal(sniffProfile(Buffer.from(' {"nodes": []}')), 'cpuprofile');
});

void test('a broken .cpuprofile or pprof says what it is not', () => {
  const cpu = new CpuAttribution([]);
  assert.throws(() => readCpuProfile({ hello: 1 }, cpu), /not a V8 \.cpuprofile/);
  assert.throws(() => readPprof(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 1]), cpu), /not a pprof profile/);
});
