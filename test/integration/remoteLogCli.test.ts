/**
 * Two boxes (two private sshd instances on loopback ports) serve access logs, one gzipped: the CLI's
 * `endpoints` merges them with a local log in one report whose counts equal the sum of the local
 * runs, `--by-host` splits each endpoint exactly, a host key is checked against known_hosts, and a
 * box whose file is missing is named while the others are still reported (exit 1 after the output).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { sshdAvailable, startSshd, type SshdServer } from '../support/sshd';
import { endpointsCommand } from '../../src/cli/commands/endpoints';
import { slowCommand } from '../../src/cli/commands/slow';
import { diffCommand } from '../../src/cli/commands/diff';
import type { Command } from '../../src/cli/command';
import { FIXTURES } from '../support/paths';

const skip = !sshdAvailable() ? 'sshd is not installed (Debian package openssh-server; scripts/setup-test-env.sh installs it)' : false;

let boxA: SshdServer;
let boxB: SshdServer;
let dir: string;
let home: string;

/** A deterministic LTSV access log: `n` requests over a few endpoints, seeded so each box differs. */
function accessLog(n: number, seed: number): string {
  const uris = ['/api/items/%d', '/api/users/%d/posts', '/login', '/', '/api/items/%d/comments'];
  const lines: string[] = [];
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const uri = uris[x % uris.length].replace('%d', String(x % 997));
    const status = x % 23 === 0 ? 500 : x % 7 === 0 ? 404 : 200;
    const method = uri === '/login' ? 'POST' : 'GET';
    lines.push(`time:2024-05-01T10:00:${String(i % 60).padStart(2, '0')}+09:00\thost:10.0.0.${seed}\tmethod:${method}\turi:${uri}\tstatus:${status}\tsize:${x % 5000}\treqtime:${((x % 900) / 1000).toFixed(3)}`);
  }
  return lines.join('\n') + '\n';
}

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'qi-boxes-'));
  home = join(dir, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  boxA = await startSshd();
  boxB = await startSshd({ authorizedKeys: [boxA.clientKey.publicKey] });
  const known = [boxA, boxB].map((b) => `[${b.host}]:${b.port} ${readFileSync(join(b.dir, 'host_ed25519.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ')}`);
  writeFileSync(join(home, '.ssh', 'known_hosts'), known.join('\n') + '\n');
  writeFileSync(join(dir, 'a.ltsv'), accessLog(3000, 11));
  writeFileSync(join(dir, 'b.ltsv.gz'), gzipSync(accessLog(2000, 29)));
  writeFileSync(join(dir, 'local.ltsv'), accessLog(500, 5));
  writeFileSync(join(dir, 'slow-a.log'), readFileSync(join(FIXTURES, 'logs', 'slow', 'mariadb.log')));
  writeFileSync(join(dir, 'slow-b.log.gz'), gzipSync(Buffer.concat([readFileSync(join(FIXTURES, 'logs', 'slow', 'mysql80.log')), readFileSync(join(FIXTURES, 'logs', 'slow', 'mariadb.log'))])));
}, { timeout: 60_000 } as never);

after(async () => {
  await Promise.all([boxA?.stop(), boxB?.stop()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Row { method: string; uri: string; count: number; s5xx: number; sum: number; hosts?: Record<string, number> }

async function endpoints(args: string[]): Promise<{ code: number; rows: Row[]; err: string }> {
  return cli<Row>(endpointsCommand, args);
}

async function cli<T>(command: Command, args: string[]): Promise<{ code: number; rows: T[]; err: string }> {
  let out = '';
  let err = '';
  const sink = (f: (s: string) => void) => new Writable({ write(chunk, _enc, cb) { f(String(chunk)); cb(); } });
  const code = await command.run([...args, '--format', 'json', '--ssh-key', boxA.clientKey.path],
    { stdout: sink((s) => { out += s; }), stderr: sink((s) => { err += s; }), env: { HOME: home, USER: boxA.user }, cwd: dir }).catch((e: Error) => {
    err += e.message;
    return -1;
  });
  const rows = out.trim() ? out.trim().split('\n').map((l) => JSON.parse(l) as T) : [];
  return { code, rows, err };
}

const key = (r: Row) => `${r.method} ${r.uri}`;
const url = (b: SshdServer, file: string) => `ssh://${b.user}@${b.host}:${b.port}${join(dir, file)}`;

void test('endpoints over two boxes and a local file equals the sum of the local runs; --by-host splits exactly', { skip, timeout: 120_000 }, async () => {
  const localA = await endpoints([join(dir, 'a.ltsv')]);
  const localB = await endpoints([join(dir, 'b.ltsv.gz')]);
  const localC = await endpoints([join(dir, 'local.ltsv')]);
  for (const r of [localA, localB, localC]) assert.equal(r.code, 0, r.err);
  const remoteA = url(boxA, 'a.ltsv');
  const remoteB = url(boxB, 'b.ltsv.gz');
  const merged = await endpoints([remoteA, remoteB, 'local.ltsv', '--by-host']);
  assert.equal(merged.code, 0, merged.err);
  const expected = new Map<string, { count: number; s5xx: number; sum: number; hosts: Record<string, number> }>();
  const hostA = `${boxA.host}:${boxA.port}`;
  const hostB = `${boxB.host}:${boxB.port}`;
  for (const [host, run] of [[hostA, localA], [hostB, localB], ['local', localC]] as const) {
    for (const r of run.rows) {
      const e = expected.get(key(r)) ?? { count: 0, s5xx: 0, sum: 0, hosts: {} };
      e.count += r.count;
      e.s5xx += r.s5xx;
      e.sum += r.sum;
      e.hosts[host] = r.count;
      expected.set(key(r), e);
    }
  }
  assert.equal(merged.rows.length, expected.size);
  for (const r of merged.rows) {
    const e = expected.get(key(r));
    assert.ok(e, key(r));
    assert.equal(r.count, e.count, key(r));
    assert.equal(r.s5xx, e.s5xx, key(r));
    assert.ok(Math.abs(r.sum - e.sum) < 1e-6, `${key(r)}: ${r.sum} vs ${e.sum}`);
    assert.deepEqual(r.hosts, e.hosts, key(r));
  }
  assert.equal(merged.rows.reduce((a, r) => a + r.count, 0), 5500);
  assert.match(merged.err, /b\.ltsv\.gz: 2000 lines \(gzip\)/);
});

void test('a missing file on one box names the box; the rest is still reported and the exit is 1', { skip, timeout: 60_000 }, async () => {
  const r = await endpoints([url(boxA, 'a.ltsv'), url(boxB, 'missing.ltsv')]);
  assert.equal(r.code, 1);
  assert.equal(r.rows.reduce((a, x) => a + x.count, 0), 3000);
  assert.match(r.err, new RegExp(`query-insight: ${boxB.host}:${boxB.port}: cannot read .*missing\\.ltsv: .*No such file`));
});

void test('a host key not in known_hosts is not silently trusted for a changed key', { skip, timeout: 60_000 }, async () => {
  // The known_hosts entry of box A, written for box B's port: box B then presents a different key.
  const known = readFileSync(join(home, '.ssh', 'known_hosts'), 'utf8');
  const lines = known.trim().split('\n');
  const swapped = `[${boxB.host}]:${boxB.port} ${lines[0].split(' ').slice(1).join(' ')}`;
  writeFileSync(join(home, '.ssh', 'known_hosts'), `${lines[0]}\n${swapped}\n`);
  try {
    const r = await endpoints([url(boxB, 'b.ltsv.gz')]);
    assert.equal(r.code, 1, r.err);
    assert.equal(r.rows.length, 0);
    assert.match(r.err, /differs from the one in/);
  } finally {
    writeFileSync(join(home, '.ssh', 'known_hosts'), known);
  }
});

interface SlowRow { fingerprint: string; count: number; queryTime: { total: number; max: number }; hosts?: Record<string, number> }

void test('slow over two boxes (one log gzipped) equals the sum of the local runs; --by-host splits exactly', { skip, timeout: 120_000 }, async () => {
  const a = await cli<SlowRow>(slowCommand, [join(dir, 'slow-a.log'), '--limit', '0']);
  const b = await cli<SlowRow>(slowCommand, [join(dir, 'slow-b.log.gz'), '--limit', '0']);
  assert.equal(a.code, 0, a.err);
  assert.equal(b.code, 0, b.err);
  const merged = await cli<SlowRow>(slowCommand, [url(boxA, 'slow-a.log'), url(boxB, 'slow-b.log.gz'), '--limit', '0', '--by-host']);
  assert.equal(merged.code, 0, merged.err);
  const hostA = `${boxA.host}:${boxA.port}`;
  const hostB = `${boxB.host}:${boxB.port}`;
  const want = new Map<string, { count: number; total: number; max: number; hosts: Record<string, number> }>();
  for (const [host, run] of [[hostA, a], [hostB, b]] as const) {
    for (const r of run.rows) {
      const w = want.get(r.fingerprint) ?? { count: 0, total: 0, max: 0, hosts: {} };
      w.count += r.count;
      w.total += r.queryTime.total;
      w.max = Math.max(w.max, r.queryTime.max);
      w.hosts[host] = r.count;
      want.set(r.fingerprint, w);
    }
  }
  assert.equal(merged.rows.length, want.size);
  assert.ok(want.size >= 5);
  assert.ok([...want.values()].some((w) => Object.keys(w.hosts).length === 2), 'a fingerprint seen on both boxes');
  for (const r of merged.rows) {
    const w = want.get(r.fingerprint);
    assert.ok(w, r.fingerprint);
    assert.equal(r.count, w.count, r.fingerprint);
    assert.ok(Math.abs(r.queryTime.total - w.total) < 1e-9, r.fingerprint);
    assert.equal(r.queryTime.max, w.max, r.fingerprint);
    assert.deepEqual(r.hosts, w.hosts, r.fingerprint);
  }
});

void test('diff reads each side from several boxes, keeps the reads on saved runs, and says when the sides read different hosts', { skip, timeout: 120_000 }, async () => {
  const save = join(dir, 'runs');
  const both = `${url(boxA, 'a.ltsv')},${url(boxB, 'b.ltsv.gz')}`;
  const r = await cli<{ key: string; count: { before: number | null; after: number | null } }>(diffCommand, [both, url(boxA, 'a.ltsv'), '--save', save]);
  assert.equal(r.code, 0, r.err);
  const total = (side: 'before' | 'after') => r.rows.reduce((a, x) => a + (x.count[side] ?? 0), 0);
  assert.equal(total('before'), 5000);
  assert.equal(total('after'), 3000);
  assert.match(r.err, new RegExp(`note: the runs did not read the same hosts: only the before run read ${boxB.host}:${boxB.port}`));
  const saved = readdirSync(save).map((f) => JSON.parse(readFileSync(join(save, f), 'utf8')) as { id: string; reads: { host: string; file: string; lines: number; to: number }[] });
  const before = saved.find((s) => s.id === 'before')!;
  assert.deepEqual(before.reads.map((x) => [x.host, x.file, x.lines]), [[`${boxA.host}:${boxA.port}`, join(dir, 'a.ltsv'), 3000], [`${boxB.host}:${boxB.port}`, join(dir, 'b.ltsv.gz'), 2000]]);
  assert.equal(before.reads[0].to, readFileSync(join(dir, 'a.ltsv')).length);
});

void test('a ~/.ssh/config alias names a box (HostName, Port, User); an unlisted host key needs --accept-new-host-key, which records it', { skip, timeout: 120_000 }, async () => {
  const known = readFileSync(join(home, '.ssh', 'known_hosts'), 'utf8');
  writeFileSync(join(home, '.ssh', 'config'), `Host isu2\n  HostName ${boxB.host}\n  Port ${boxB.port}\n  User ${boxB.user}\n  IdentityFile ${boxA.clientKey.path}\n`);
  // Box B's key is not listed at first.
  writeFileSync(join(home, '.ssh', 'known_hosts'), known.split('\n')[0] + '\n');
  try {
    const refused = await endpoints([`isu2:${join(dir, 'b.ltsv.gz')}`]);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /does not list: refused/);
    const accepted = await endpoints([`isu2:${join(dir, 'b.ltsv.gz')}`, '--accept-new-host-key', '--by-host']);
    assert.equal(accepted.code, 0, accepted.err);
    assert.equal(accepted.rows.reduce((a, r) => a + r.count, 0), 2000);
    assert.ok(accepted.rows.every((r) => Object.keys(r.hosts ?? {}).join() === 'isu2'));
    assert.match(readFileSync(join(home, '.ssh', 'known_hosts'), 'utf8'), new RegExp(`\\[${boxB.host}\\]:${boxB.port} ssh-ed25519 `));
    const again = await endpoints([`isu2:${join(dir, 'b.ltsv.gz')}`]);
    assert.equal(again.code, 0, again.err);
  } finally {
    writeFileSync(join(home, '.ssh', 'known_hosts'), known);
    rmSync(join(home, '.ssh', 'config'), { force: true });
  }
});
