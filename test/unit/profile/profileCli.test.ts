import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { profileCommand } from '../../../src/cli/commands/profile';
import { parseRecord, RECORD_FORMAT, RECORD_VERSION, serializeRecord, type RunRecord } from '../../../src/core/runs/record';
import { runCommand } from '../../support/runCommand';
import { FIXTURES } from '../../support/paths';

const dir = mkdtempSync(join(tmpdir(), 'qi-profile-cli-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const APP = join(FIXTURES, 'profile', 'go');

const FOLDED = [
  'runtime.goexit;net/http.HandlerFunc.ServeHTTP;main.getItem;encoding/json.Marshal 70',
  'runtime.goexit;net/http.HandlerFunc.ServeHTTP;main.getIndex;fmt.Fprintf 30',
  'runtime.gcBgMarkWorker;runtime.gcDrain 10',
  'no count here',
].join('\n') + '\n';

void test('profile: text, Markdown (escaped) and JSON rows; a gzip file; malformed lines counted on stderr', async () => {
  writeFileSync(join(dir, 'cpu.folded.gz'), gzipSync(FOLDED));
  const json = await runCommand(profileCommand, ['cpu.folded.gz', '--routes', APP, '--format', 'json'], dir);
  assert.equal(json.code, 0, json.err);
  const rows = json.out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(rows.map((r) => [r.endpoint ?? r.bucket, r.handler ?? '', r.cpuSeconds]), [
    ['ANY /items', 'main.go:17', 0.7], ['ANY /', 'main.go:13', 0.3], ['runtime/GC', '', 0.1], ['database driver', '', 0], ['other', '', 0],
  ]);
  assert.equal(rows[0].share, 0.7);
  assert.match(json.err, /folded \(gzip\), 110 samples, 4 lines, 1 malformed/);
  assert.match(json.err, /line 4: sample count is not a number/);
  const md = await runCommand(profileCommand, ['cpu.folded.gz', '--routes', APP, '--format', 'md', '--quiet'], dir);
  assert.match(md.out, /^\| ENDPOINT \| HANDLER \| CPU S \|/);
  assert.match(md.out, /\| ANY \/items \| main.go:17 \| 0.70 \| 70.0 % \|/);
  assert.match(md.out, /encoding\/json.Marshal 100.0 %/);
  const text = await runCommand(profileCommand, ['cpu.folded.gz', '--hz', '10', '--quiet'], dir);
  assert.match(text.out, /outside handlers: runtime\/GC 1.00 s \(9.1 %\), database driver 0.00 s \(0.0 %\), other 10.00 s \(90.9 %\)/, 'without --routes every sample is in a bucket; --hz 10 makes a sample 0.1 s');
});

void test('profile: a missing file fails with its name (exit 1), bad options are usage errors', async () => {
  const r = await runCommand(profileCommand, ['nope.pb.gz', '--routes', APP], dir);
  assert.equal(r.code, 1);
  assert.match(r.err, /nope\.pb\.gz/);
  await assert.rejects(profileCommand.run(['x', '--format', 'csv'], { stdout: process.stdout, stderr: process.stderr, env: {}, cwd: dir }), /--format must be text, md or json/);
  await assert.rejects(profileCommand.run(['x', '--hz', '0'], { stdout: process.stdout, stderr: process.stderr, env: {}, cwd: dir }), /--hz takes a positive number/);
});

void test('profile --record last: the figures and flame graphs are kept in the newest run record', async () => {
  const store = join(dir, '.query-insight', 'runs');
  mkdirSync(store, { recursive: true });
  const record: RunRecord = {
    format: RECORD_FORMAT, version: RECORD_VERSION, id: '20261128-0700-a', createdAt: '2026-11-28T07:00:00.000Z',
    window: { origin: 'whole' }, sources: [], score: 1234, health: [],
  };
  writeFileSync(join(store, `${record.id}.json`), serializeRecord(record));
  writeFileSync(join(dir, 'cpu.folded'), FOLDED);
  const r = await runCommand(profileCommand, ['cpu.folded', '--routes', APP, '--record', 'last'], dir);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /kept with run 20261128-0700-a/);
  const kept = parseRecord(readFileSync(join(store, `${record.id}.json`), 'utf8'));
  assert.equal(kept.score, 1234);
  assert.equal(kept.profile?.source, join(dir, 'cpu.folded'));
  assert.deepEqual(kept.profile?.endpoints.map((e) => [e.endpoint, e.cpuSeconds, e.flame?.name]), [['ANY /items', 0.7, 'main.getItem'], ['ANY /', 0.3, 'main.getIndex']]);
});
