/**
 * A real Go app (test/fixtures/profile/goapp: two handlers, one hashing in a loop, under
 * net/http/pprof) built with Debian's Go, behind a real nginx writing an LTSV access log, loaded by
 * the test while `query-insight profile` fetches its CPU profile over HTTP: the heavy handler must
 * get at least 70 % of the CPU under handlers. The same fetch through an SSH box (a private sshd,
 * the URL opened from the box's side) gives the same verdict, with CPU per request from the log.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Writable } from 'node:stream';
import { profileCommand } from '../../src/cli/commands/profile';
import { freePort } from '../../src/node/freePort';
import { nginxConfig } from '../../src/node/nginxConfig';
import { FIXTURES } from '../support/paths';
import { sshdAvailable, startSshd, type SshdServer } from '../support/sshd';

const APP = join(FIXTURES, 'profile', 'goapp');
const NGINX = '/usr/sbin/nginx';

/** `go` as a fresh machine has it: Debian's /usr/bin/go (scripts/setup-test-env.sh installs golang-go), else the PATH. */
function findGo(): string | undefined {
  if (existsSync('/usr/bin/go')) return '/usr/bin/go';
  for (const d of (process.env.PATH ?? '').split(delimiter)) if (d && existsSync(join(d, 'go'))) return join(d, 'go');
  return undefined;
}

let dir = '';
let app: ChildProcess | undefined;
let nginx: ChildProcess | undefined;
let box: SshdServer | undefined;
let appPort = 0;
let webPort = 0;
let home = '';

async function waitFor(url: string, proc: ChildProcess, what: string, errors: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${what} exited: ${errors()}`);
    try { const r = await fetch(url); await r.arrayBuffer(); if (r.ok) return; } catch { /* not up yet */ }
    if (Date.now() > deadline) throw new Error(`${what} did not answer at ${url}: ${errors()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

before(async () => {
  const go = findGo();
  if (!go) throw new Error('go is missing: apt-get install golang-go (scripts/setup-test-env.sh installs it)');
  if (!existsSync(NGINX)) throw new Error(`${NGINX} is missing: apt-get install nginx (see scripts/setup-test-env.sh)`);
  dir = mkdtempSync(join(tmpdir(), 'qi-profile-go-'));
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'logs'));
  // why: the build cache outlives the test so a second run does not compile net/http again; the app
  // uses the standard library only, so nothing is downloaded (GOFLAGS=-mod=mod is not needed, GOPROXY=off proves it).
  const cache = join(tmpdir(), 'qi-go-build-cache');
  const built = spawnSync(go, ['build', '-o', join(dir, 'app'), 'main.go'], {
    cwd: APP, encoding: 'utf8', timeout: 240_000,
    env: { ...process.env, GOCACHE: cache, GOPATH: join(dir, 'gopath'), GOPROXY: 'off', GO111MODULE: 'auto', HOME: process.env.HOME ?? dir },
  });
  if (built.status !== 0) throw new Error(`go build failed: ${built.stderr || built.error?.message}`);
  appPort = await freePort();
  let appErr = '';
  app = spawn(join(dir, 'app'), [], { env: { ...process.env, LISTEN: `127.0.0.1:${appPort}` }, stdio: ['ignore', 'ignore', 'pipe'] });
  app.stderr!.on('data', (d: Buffer) => { appErr += d.toString(); });
  await waitFor(`http://127.0.0.1:${appPort}/api/light`, app, 'the Go app', () => appErr);
  webPort = await freePort();
  writeFileSync(join(dir, 'nginx.conf'), nginxConfig({ dir, workerConnections: 256, http: `
  log_format ltsv "time:$time_local\\thost:$remote_addr\\tmethod:$request_method\\turi:$request_uri\\tstatus:$status\\tsize:$body_bytes_sent\\treqtime:$request_time\\tapptime:$upstream_response_time";
  server {
    listen 127.0.0.1:${webPort};
    access_log ${dir}/logs/access.ltsv ltsv;
    location / { proxy_pass http://127.0.0.1:${appPort}; }
  }` }));
  let nginxErr = '';
  nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  nginx.stderr!.on('data', (d: Buffer) => { nginxErr += d.toString(); });
  await waitFor(`http://127.0.0.1:${webPort}/api/light`, nginx, 'nginx', () => nginxErr);
  if (sshdAvailable()) {
    box = await startSshd();
    home = join(dir, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'known_hosts'), `[${box.host}]:${box.port} ${readFileSync(join(box.dir, 'host_ed25519.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ')}\n`);
  }
}, { timeout: 300_000 } as never);

after(async () => {
  if (nginx && nginx.exitCode === null) { nginx.kill('SIGQUIT'); await new Promise((r) => nginx!.once('exit', r)); }
  if (app && app.exitCode === null) { app.kill('SIGTERM'); await new Promise((r) => app!.once('exit', r)); }
  await box?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Requests through nginx from `workers` loops, one heavy to every four light ones, until stopped; returns the counts sent. */
function load(workers: number): { stop: () => Promise<{ heavy: number; light: number }> } {
  let running = true;
  const sent = { heavy: 0, light: 0 };
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = w; running; i++) {
      const heavy = i % 5 === 0;
      const r = await fetch(`http://127.0.0.1:${webPort}/api/${heavy ? 'heavy?rounds=20000' : 'light'}`);
      await r.arrayBuffer();
      assert.equal(r.status, 200);
      sent[heavy ? 'heavy' : 'light']++;
    }
  });
  return { stop: async () => { running = false; await Promise.all(loops); return sent; } };
}

interface Row { endpoint?: string; handler?: string; function?: string; cpuSeconds: number; share?: number; bucket?: string; requests?: number; msPerRequest?: number }

async function profile(args: string[], env: Record<string, string> = {}): Promise<{ code: number; rows: Row[]; err: string }> {
  let out = '';
  let err = '';
  const sink = (f: (s: string) => void) => new Writable({ write(chunk, _enc, cb) { f(String(chunk)); cb(); } });
  const code = await profileCommand.run([...args, '--routes', APP, '--format', 'json'],
    { stdout: sink((s) => { out += s; }), stderr: sink((s) => { err += s; }), env, cwd: dir });
  return { code, rows: out.trim() ? out.trim().split('\n').map((l) => JSON.parse(l) as Row) : [], err };
}

function verdict(rows: Row[]): { heavy: Row; light: Row | undefined } {
  const heavy = rows.find((r) => r.function === 'getHeavy');
  assert.ok(heavy, `getHeavy has CPU: ${JSON.stringify(rows)}`);
  assert.equal(heavy.endpoint, 'ANY /api/heavy');
  assert.equal(heavy.handler, 'main.go:17');
  assert.ok(heavy.share! >= 0.7, `getHeavy has ${(heavy.share! * 100).toFixed(1)} % of handler CPU`);
  const buckets = rows.filter((r) => r.bucket).map((r) => r.bucket);
  assert.deepEqual(buckets, ['runtime/GC', 'database driver', 'other']);
  return { heavy, light: rows.find((r) => r.function === 'getLight') };
}

void test('profile fetched over HTTP from net/http/pprof while the app is under load: the heavy handler has >= 70 % of handler CPU', { timeout: 120_000 }, async (t) => {
  const running = load(4);
  let result: Awaited<ReturnType<typeof profile>>;
  try {
    result = await profile([`http://127.0.0.1:${appPort}/debug/pprof/profile?seconds=3`]);
  } finally {
    await running.stop();
  }
  assert.equal(result.code, 0, result.err);
  const { heavy } = verdict(result.rows);
  t.diagnostic(`getHeavy ${(heavy.share! * 100).toFixed(1)} % of handler CPU, ${heavy.cpuSeconds.toFixed(2)} s`);
  assert.ok(heavy.cpuSeconds > 0.2, `${heavy.cpuSeconds} s of CPU in 3 s of load`);
  assert.match(result.err, /pprof \(gzip\), \d+ samples/);
});

void test('through an SSH box (the pprof port opened from the box) with CPU per request from the access log', { skip: sshdAvailable() ? false : 'sshd is not installed (openssh-server)', timeout: 120_000 }, async (t) => {
  const log = join(dir, 'logs', 'access.ltsv');
  writeFileSync(log, '');
  // why: nginx keeps the log open; truncating it starts this run's counts from zero.
  const running = load(3);
  let result: Awaited<ReturnType<typeof profile>>;
  let sent: { heavy: number; light: number };
  try {
    result = await profile([`ssh://${box!.user}@${box!.host}:${box!.port}/http://127.0.0.1:${appPort}/debug/pprof/profile?seconds=2`,
      '--ssh-key', box!.clientKey.path, '--access-log', log], { HOME: home, USER: box!.user });
  } finally {
    sent = await running.stop();
  }
  assert.equal(result.code, 0, result.err);
  const { heavy, light } = verdict(result.rows);
  assert.ok(heavy.requests! > 0 && heavy.requests! <= sent.heavy, `${heavy.requests} heavy requests logged, ${sent.heavy} sent`);
  t.diagnostic(`getHeavy ${(heavy.share! * 100).toFixed(1)} %, ${heavy.msPerRequest!.toFixed(2)} ms/req over ${heavy.requests} requests; getLight ${light?.msPerRequest?.toFixed(3)} ms/req`);
  assert.ok(heavy.msPerRequest! > 0);
  if (light?.msPerRequest !== undefined) assert.ok(heavy.msPerRequest! > light.msPerRequest, `heavy ${heavy.msPerRequest} ms/req, light ${light.msPerRequest}`);
  assert.match(box!.log(), /direct-tcpip|forward/i);
});
