// A real nginx (Debian package) on 127.0.0.1 with the log formats documented in
// docs/nginx-log-formats.md, in front of a tiny node upstream; the logs it writes must parse to the
// expected endpoints, through the library and through the CLI.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { analyzeAccessLogFile } from '../../src/node/accessLogFile';
import { endpointsCommand } from '../../src/cli/commands/endpoints';
import { nginxConfig } from '../../src/node/nginxConfig';
import type { Route } from '../../src/core/model';
import { REPO_ROOT } from '../support/paths';
import { freePort } from '../../src/node/freePort';

const NGINX = '/usr/sbin/nginx';

/** Pulls the `log_format` blocks out of the docs, so the test checks exactly what users paste. */
function documentedLogFormats(): string {
  const md = readFileSync(join(REPO_ROOT, 'docs', 'nginx-log-formats.md'), 'utf8');
  const blocks = [...md.matchAll(/```nginx\n([\s\S]*?)```/g)].map((m) => m[1]);
  const formats = blocks.map((b) => b.split('\n').filter((l) => !l.startsWith('access_log')).join('\n'));
  assert.equal(formats.length, 3, 'three nginx blocks in docs/nginx-log-formats.md');
  return formats.join('\n');
}


let dir = '';
let nginx: ChildProcess | undefined;
let upstream: Server | undefined;
let port = 0;

before(async () => {
  if (!existsSync(NGINX)) throw new Error(`${NGINX} is missing: apt-get install nginx (see scripts/setup-test-env.sh)`);
  dir = mkdtempSync(join(tmpdir(), 'qi-nginx-'));
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'html', 'assets'), { recursive: true });
  mkdirSync(join(dir, 'logs'));
  writeFileSync(join(dir, 'html', 'assets', 'app.3f2a.js'), 'console.log(1)\n');
  writeFileSync(join(dir, 'html', 'assets', 'site.css'), 'body{}\n');
  upstream = createServer((req, res) => {
    const url = req.url ?? '/';
    if (req.method === 'POST' && url === '/login') { res.writeHead(302, { location: '/' }); res.end(); return; }
    const m = /^\/items\/(\d+)\.json/.exec(url);
    if (m) {
      const body = JSON.stringify({ id: Number(m[1]) });
      setTimeout(() => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }); res.end(body); }, 20);
      return;
    }
    if (url.startsWith('/boom')) { res.writeHead(500); res.end('boom'); return; }
    res.writeHead(404); res.end('nope');
  });
  await new Promise<void>((r) => upstream!.listen(0, '127.0.0.1', r));
  const upPort = (upstream.address() as AddressInfo).port;
  port = await freePort();
  const conf = nginxConfig({ dir, workerConnections: 64, http: `${documentedLogFormats()}
  server {
    listen 127.0.0.1:${port};
    access_log ${dir}/logs/access.ltsv ltsv;
    access_log ${dir}/logs/access.json json;
    access_log ${dir}/logs/access.timed timed;
    location /assets/ { root ${dir}/html; }
    location / { proxy_pass http://127.0.0.1:${upPort}; }
  }` });
  writeFileSync(join(dir, 'nginx.conf'), conf);
  nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  nginx.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  // Wait (polling, bounded) until nginx answers.
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (nginx.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
    try { await fetch(`http://127.0.0.1:${port}/assets/site.css`); break; } catch { /* not up yet */ }
    if (Date.now() > deadline) throw new Error(`nginx did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const base = `http://127.0.0.1:${port}`;
  const requests: [string, string][] = [
    ['GET', '/items/12345.json'], ['GET', '/items/7.json?fields=name'], ['GET', '/items/42.json'],
    ['POST', '/login'], ['POST', '/login'],
    ['GET', '/assets/app.3f2a.js'], ['GET', '/assets/site.css'],
    ['GET', '/boom/1'], ['GET', '/missing'],
  ];
  for (const [method, path] of requests) {
    const res = await fetch(base + path, { method, redirect: 'manual', body: method === 'POST' ? 'user=a&pass=b' : undefined });
    await res.arrayBuffer();
  }
  // why: master_process off + SIGQUIT lets nginx finish and close its logs before we read them.
  nginx.kill('SIGQUIT');
  await new Promise((r) => nginx!.once('exit', r));
});

after(async () => {
  if (nginx && nginx.exitCode === null) nginx.kill('SIGKILL');
  await new Promise<void>((r) => (upstream ? upstream.close(() => r()) : r()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const routes: Route[] = [{
  method: 'GET', pattern: '/items/:id', framework: 'express', file: 'app.js',
  range: { start: { line: 11, character: 0 }, end: { line: 11, character: 40 } },
  handler: { name: 'getItem', file: 'app.js', range: { start: { line: 12, character: 2 }, end: { line: 20, character: 3 } } },
}];

const expected = [
  ['GET', '/items/:id', 3, { 200: 3 }],
  ['POST', '/login', 2, { 302: 2 }],
  ['GET', '/assets/*.js', 1, { 200: 1 }],
  ['GET', '/assets/*.css', 2, { 200: 2 }], // one is the readiness probe
  ['GET', '/boom/:id', 1, { 500: 1 }],
  ['GET', '/missing', 1, { 404: 1 }],
].map(([m, u, n, s]) => JSON.stringify([m, u, n, s])).sort();

for (const [file, format] of [['access.ltsv', 'ltsv'], ['access.json', 'json'], ['access.timed', 'combined']] as const) {
  void test(`nginx ${format} log parses to the expected endpoints`, async () => {
    const r = await analyzeAccessLogFile(join(dir, 'logs', file), { format, routes });
    assert.equal(r.malformed, 0, JSON.stringify(r.malformedExamples));
    assert.equal(r.requests, 10); // nine requests + the readiness probe
    const got = r.endpoints.map((e) => JSON.stringify([e.method, e.uri, e.count, e.status])).sort();
    assert.deepEqual(got, expected);
    const items = r.endpoints.find((e) => e.uri === '/items/:id')!;
    assert.equal(items.kind, 'route');
    assert.ok(items.min >= 0.015, `upstream waits 20 ms: min ${items.min}`);
    assert.equal(items.bytes.min, JSON.stringify({ id: 7 }).length);
    const js = r.endpoints.find((e) => e.uri === '/assets/*.js')!;
    assert.equal(js.bytes.sum, 'console.log(1)\n'.length);
    if (format !== 'combined') assert.ok(items.requestBytes && items.requestBytes.sum > 0);
  });
}

void test('CLI: endpoints --format json over the nginx LTSV log', async () => {
  const routesFile = join(dir, 'routes.json');
  writeFileSync(routesFile, JSON.stringify(routes));
  let out = '';
  let err = '';
  const sink = (f: (s: string) => void) => new Writable({ write(chunk, _enc, cb) { f(String(chunk)); cb(); } });
  const code = await endpointsCommand.run([join(dir, 'logs', 'access.ltsv'), '--routes', routesFile, '--format', 'json', '--sort', 'count'],
    { stdout: sink((s) => { out += s; }), stderr: sink((s) => { err += s; }), env: {}, cwd: dir });
  assert.equal(code, 0);
  assert.match(err, /# ltsv: 10 lines, 10 requests/);
  const rows = out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(rows[0].uri, '/items/:id');
  assert.equal(rows[0].count, 3);
  assert.deepEqual(rows[0].handler, { file: 'app.js', line: 13, name: 'getItem' });
  for (const k of ['method', 'uri', 'count', 'status', 'min', 'max', 'sum', 'avg', 'p50', 'p90', 'p95', 'p99', 'bytes']) assert.ok(k in rows[0], k);
});
