/**
 * The editor's boxes run (src/extension/boxes/boxesRun.ts) against two real OpenSSH servers: one
 * access report from both boxes equal to the sum of the local reads and split per box by name; a
 * box that fails is named while the other is read; and the remote watch: appended lines read from
 * the offset (a line still being written waits for its newline), truncation and rotation read
 * again from the start, an unchanged file costs no read, and slow logs follow their changes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { sshdAvailable, startSshd, type SshdServer } from '../support/sshd';
import { accessAnalyzer } from '../../src/node/logSources';
import { RemoteLogReader } from '../../src/node/remoteLog';
import { readLines } from '../../src/node/lineReader';
import { parseBoxes, type BoxSource } from '../../src/extension/boxes/boxesConfig';
import { BoxesAccessRun, BoxesSlowRun } from '../../src/extension/boxes/boxesRun';
import type { AccessReport } from '../../src/core/logs/accessAnalysis';

const skip = !sshdAvailable() ? 'sshd is not installed (Debian package openssh-server; scripts/setup-test-env.sh installs it)' : false;

let isu1: SshdServer;
let isu2: SshdServer;
let dir: string;
let reader: RemoteLogReader;

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'qi-boxes-'));
  [isu1, isu2] = await Promise.all([startSshd(), startSshd()]);
  const byPort = new Map([[isu1.port, isu1], [isu2.port, isu2]]);
  reader = new RemoteLogReader((s) => {
    const box = byPort.get(s.port!)!;
    return { host: box.host, port: box.port, username: s.user ?? box.user, privateKeyPath: box.clientKey.path };
  });
}, { timeout: 60_000 } as never);

after(async () => {
  await reader?.close();
  await isu1?.stop();
  await isu2?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function ltsv(n: number, uris: string[], seed = 0): string {
  return Array.from({ length: n }, (_, i) => {
    const k = (i * 7 + seed) % uris.length;
    return `time:2026-11-25T10:00:${String(i % 60).padStart(2, '0')}+00:00\tmethod:${k % 3 ? 'GET' : 'POST'}\turi:${uris[k]}\tstatus:200\tsize:10\treqtime:0.${String((i % 9) + 1).padStart(3, '0')}`;
  }).join('\n') + '\n';
}

const URIS = ['/api/user/12', '/api/user/99', '/api/estate/low_priced', '/api/chair/search?page=1', '/initialize', '/api/chair/7'];

/** The boxes setting naming the two sshd servers, through the same parser the editor uses. */
function boxes(files: { isu1?: string; isu2?: string; slow1?: string }): { access: BoxSource[]; slow: BoxSource[] } {
  const setting = [
    { name: 'isu1', ssh: `${isu1.user}@127.0.0.1:${isu1.port}`, ...(files.isu1 ? { accessLog: files.isu1 } : {}), ...(files.slow1 ? { slowLog: files.slow1 } : {}) },
    { name: 'isu2', ssh: `${isu2.user}@127.0.0.1:${isu2.port}`, ...(files.isu2 ? { accessLog: files.isu2 } : {}) },
  ];
  const { boxes: parsed, problems } = parseBoxes(setting);
  assert.deepEqual(problems, []);
  return { access: parsed.flatMap((b) => (b.accessLog ? [b.accessLog] : [])), slow: parsed.flatMap((b) => (b.slowLog ? [b.slowLog] : [])) };
}

async function local(path: string): Promise<AccessReport> {
  const a = accessAnalyzer({ format: 'ltsv' });
  const r = await readLines(path, a.line as never, {});
  a.lines = r.lines;
  return a.finish();
}

const counts = (r: AccessReport): Record<string, number> => Object.fromEntries(r.endpoints.map((e) => [`${e.method} ${e.uri}`, e.count]));

void test('one report from both boxes: counts are the sum of the local reads, split per box by name; a gzip log too', { skip, timeout: 60_000 }, async () => {
  const a = join(dir, 'a.ltsv');
  const b = join(dir, 'b.ltsv.gz');
  writeFileSync(a, ltsv(3000, URIS, 1));
  const bText = ltsv(2000, URIS, 4);
  writeFileSync(b, gzipSync(bText));
  writeFileSync(join(dir, 'b.ltsv'), bText);
  const { access } = boxes({ isu1: a, isu2: b });
  const run = new BoxesAccessRun(access, { format: 'ltsv' }, reader);
  const r = await run.load();
  assert.deepEqual(r.sources.map((s) => [s.host, s.lines, s.error]), [['isu1', 3000, undefined], ['isu2', 2000, undefined]]);
  const [la, lb] = [await local(a), await local(join(dir, 'b.ltsv'))];
  const want: Record<string, number> = {};
  for (const [k, n] of [...Object.entries(counts(la)), ...Object.entries(counts(lb))]) want[k] = (want[k] ?? 0) + n;
  assert.deepEqual(counts(r), want);
  for (const e of r.endpoints) {
    const k = `${e.method} ${e.uri}`;
    assert.deepEqual(e.hosts, Object.fromEntries([['isu1', counts(la)[k]], ['isu2', counts(lb)[k]]].filter(([, n]) => n)), k);
  }
  assert.equal(r.requests, 5000);
});

void test('a box that fails is named, and the other box is still read', { skip, timeout: 60_000 }, async () => {
  const a = join(dir, 'ok.ltsv');
  writeFileSync(a, ltsv(500, URIS));
  const { access } = boxes({ isu1: join(dir, 'missing.ltsv'), isu2: a });
  const r = await new BoxesAccessRun(access, { format: 'ltsv' }, reader).load();
  assert.match(r.sources[0].error ?? '', /^isu1: cannot read .*missing\.ltsv: .*No such file/);
  assert.equal(r.sources[1].error, undefined);
  assert.equal(r.requests, 500);
  assert.ok(r.endpoints.every((e) => e.hosts && Object.keys(e.hosts).join() === 'isu2'));
});

void test('watch: appended lines are read from the offset, a line being written waits for its newline, an unchanged file costs no read', { skip, timeout: 60_000 }, async () => {
  const a = join(dir, 'grow1.ltsv');
  const b = join(dir, 'grow2.ltsv');
  writeFileSync(a, ltsv(100, URIS));
  writeFileSync(b, ltsv(50, URIS));
  const { access } = boxes({ isu1: a, isu2: b });
  const run = new BoxesAccessRun(access, { format: 'ltsv' }, reader);
  await run.load();
  assert.equal((await run.refresh()).mode, 'unchanged');
  const more = ltsv(30, ['/api/new/item'], 0).split('\n');
  // 29 complete lines and the start of the 30th
  appendFileSync(b, `${more.slice(0, 29).join('\n')}\n${more[29].slice(0, 20)}`);
  let got = await run.refresh();
  assert.equal(got.mode, 'appended');
  assert.equal(got.result.requests, 179);
  assert.equal(got.result.endpoints.find((e) => e.uri === '/api/new/item')?.hosts?.isu2, 29);
  assert.deepEqual(got.result.sources.map((s) => [s.lines, s.error]), [[100, undefined], [79, undefined]]);
  appendFileSync(b, `${more[29].slice(20)}\n`);
  got = await run.refresh();
  assert.equal(got.mode, 'appended');
  assert.equal(got.result.requests, 180);
  assert.equal(got.result.malformed, 0, 'the line completed across two polls is read whole');
  assert.equal((await run.refresh()).mode, 'unchanged');
});

void test('watch: a truncated file and a rotated file are read again from the start', { skip, timeout: 60_000 }, async () => {
  const a = join(dir, 'rot1.ltsv');
  const b = join(dir, 'rot2.ltsv');
  writeFileSync(a, ltsv(200, URIS));
  writeFileSync(b, ltsv(100, URIS));
  const { access } = boxes({ isu1: a, isu2: b });
  const run = new BoxesAccessRun(access, { format: 'ltsv' }, reader);
  await run.load();
  writeFileSync(a, ltsv(10, URIS)); // truncated and rewritten, smaller
  let got = await run.refresh();
  assert.equal(got.mode, 'full');
  assert.equal(got.result.requests, 110);
  // logrotate: the file moves away, a new one (another inode) takes its name, even a larger one
  renameSync(b, `${b}.1`);
  writeFileSync(b, ltsv(150, ['/api/after-rotation']));
  got = await run.refresh();
  assert.equal(got.mode, 'full');
  assert.equal(got.result.requests, 160);
  assert.deepEqual(got.result.endpoints.find((e) => e.uri === '/api/after-rotation')?.hosts, { isu2: 150 });
});

void test('watch: a slow log is read again when it changes, counted per box', { skip, timeout: 60_000 }, async () => {
  const slow = join(dir, 'slow.log');
  const entry = (id: number) => `# Time: 2026-11-25T10:00:00.000000Z\n# User@Host: isucon[isucon] @ localhost []  Id: 8\n# Query_time: 0.250000  Lock_time: 0.000010 Rows_sent: 1  Rows_examined: 10000\nSET timestamp=1764064800;\nSELECT * FROM chair WHERE id = ${id};\n`;
  writeFileSync(slow, entry(1) + entry(2));
  const { slow: sources } = boxes({ slow1: slow, isu2: join(dir, 'ok.ltsv') });
  const run = new BoxesSlowRun(sources, reader);
  const r = await run.load();
  assert.equal(r.summary.entries, 2);
  assert.deepEqual(r.stats[0].hosts, { isu1: 2 });
  assert.equal((await run.refresh()).mode, 'unchanged');
  appendFileSync(slow, entry(3));
  const got = await run.refresh();
  assert.equal(got.mode, 'full');
  assert.equal(got.result.summary.entries, 3);
  assert.equal(got.result.stats[0].count, 3);
});

void test('an abort stops a read at once, even while the box is still sending', { skip, timeout: 60_000 }, async () => {
  const big = join(dir, 'big.ltsv');
  writeFileSync(big, ltsv(400_000, URIS));
  const { access } = boxes({ isu1: big, isu2: big });
  const ac = new AbortController();
  const run = new BoxesAccessRun(access, { format: 'ltsv' }, reader);
  const t0 = Date.now();
  const p = run.load({ signal: ac.signal, onProgress: (_s, bytes) => { if (bytes > 1 << 20) ac.abort(new Error('cancelled by the test')); } });
  await assert.rejects(p, /cancelled by the test/);
  assert.ok(Date.now() - t0 < 20_000);
});
