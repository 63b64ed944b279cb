/**
 * `query-insight diff` answers "did the fix help?": status classes for access logs, rows examined
 * and sent for slow logs, one unit per time column, the app's routes and -m as in `endpoints`,
 * sorting by the change of total or mean, JSON numbers without float noise, and a gzip log cut short
 * named with exit 3 rather than read as a run with fewer requests. Logs written here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { diffCommand } from '../../../src/cli/commands/diff';
import { roundTo, timeUnitFor, formatIn } from '../../../src/core/report/compare';
import { runCommand } from '../../support/runCommand';

const diff = (args: string[], cwd: string) => runCommand(diffCommand, args, cwd);

function ltsv(rows: [string, string, number, number][]): string {
  return rows.map(([method, uri, status, t]) => `time:02/Mar/2024:10:00:00 +0900\thost:192.168.0.10\tmethod:${method}\turi:${uri}\tstatus:${status}\tsize:120\treqtime:${t.toFixed(3)}\n`).join('');
}

function slow(entries: [number, number, number, string][]): string {
  return entries.map(([qt, sent, examined, sql], i) => `# Time: 2024-03-02T10:00:00.${String(i).padStart(6, '0')}Z\n# User@Host: isucon[isucon] @ localhost []  Id:    14\n`
    + `# Query_time: ${qt.toFixed(6)}  Lock_time: 0.000010 Rows_sent: ${sent}  Rows_examined: ${examined}\nSET timestamp=1709373600;\n${sql};\n`).join('');
}

/** A table's text without borders and padding, for matching. */
const plainText = (t: string): string => t.replace(/[|+-]{2,}/g, ' ').replace(/\|/g, ' ').replace(/\s+/g, ' ');

type JsonRow = { key: string; status: string; total: { before: number; after: number; delta: number; ratio: number }; mean: { delta: number }; classes?: Record<string, { before: number | null; after: number | null; delta: number }>; rowsExamined?: { before: number; after: number }; rowsSent?: { before: number; after: number } };

void test('access diff: status classes (2xx 3xx 4xx 5xx 499) before → after, JSON rounded to what it measures', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-diff-'));
  try {
    writeFileSync(join(dir, 'before.ltsv'), ltsv([
      ['GET', '/api/livestream/1', 200, 0.1], ['GET', '/api/livestream/2', 200, 0.2], ['GET', '/api/livestream/3', 500, 0.3],
      ['GET', '/api/livestream/4', 499, 1.0], ['POST', '/api/login', 302, 0.05],
    ]));
    writeFileSync(join(dir, 'after.ltsv'), ltsv([
      ['GET', '/api/livestream/1', 200, 0.1], ['GET', '/api/livestream/2', 200, 0.1], ['GET', '/api/livestream/3', 200, 0.1],
      ['GET', '/api/livestream/4', 404, 0.001], ['POST', '/api/login', 302, 0.05],
    ]));
    const r = await diff(['before.ltsv', 'after.ltsv', '--format', 'json'], dir);
    assert.equal(r.code, 0, r.err);
    const rows = r.out.trim().split('\n').map((l) => JSON.parse(l) as JsonRow);
    const live = rows.find((x) => x.key === 'GET /api/livestream/:id')!;
    assert.deepEqual(Object.fromEntries(Object.entries(live.classes!).map(([k, v]) => [k, [v.before, v.after, v.delta]])), {
      '2xx': [2, 3, 1], '3xx': [0, 0, 0], '4xx': [1, 1, 0], '5xx': [1, 0, -1], '499': [1, 0, -1],
    });
    // 0.1 + 0.2 + 0.3 + 1.0 = 1.6 before, 0.301 after: exact decimals, no float noise
    assert.deepEqual([live.total.before, live.total.after, live.total.delta, live.total.ratio], [1.6, 0.301, -1.299, 0.1881]);
    assert.ok(!/\d\.\d*0000000\d|\d\.\d*9999999\d/.test(r.out), r.out);
    const table = plainText((await diff(['before.ltsv', 'after.ltsv'], dir)).out);
    assert.match(table, /STATUS VERDICT COUNT 2XX 3XX 4XX 5XX 499 SUM\(s\) BEFORE AFTER DELTA\(s\) RATIO AVG\(ms\) BEFORE/);
    // 4 requests a side, 400 → 75 ms: not beyond the spread of 0.1 … 1.0 s
    assert.match(table, /changed noise 4 -> 4 3 \(\+1\) 0 \(±0\) 1 \(±0\) 0 \(−1\) 0 \(−1\) 1.600 0.301 −1.299 ×0.19/);
    assert.match(table, /same too-few 1 -> 1 /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('slow diff: rows examined and sent per execution, the first sign that an index helped', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-diff-'));
  try {
    const q = (id: number) => `SELECT * FROM reservations WHERE schedule_id = '${id}'`;
    writeFileSync(join(dir, 'before.log'), slow([[0.2, 3, 10000, q(1)], [0.25, 5, 10000, q(2)], [0.001, 1, 1, 'SELECT * FROM users WHERE id = 1']]));
    writeFileSync(join(dir, 'after.log'), slow([[0.001, 3, 3, q(1)], [0.0012, 5, 5, q(2)], [0.001, 1, 1, 'SELECT * FROM users WHERE id = 2']]));
    const r = await diff(['before.log', 'after.log', '--format', 'json'], dir);
    assert.equal(r.code, 0, r.err);
    const rows = r.out.trim().split('\n').map((l) => JSON.parse(l) as JsonRow);
    assert.equal(rows[0].key, "select * from reservations where schedule_id = ?");
    assert.deepEqual([rows[0].rowsExamined!.before, rows[0].rowsExamined!.after], [10000, 4]);
    assert.deepEqual([rows[0].rowsSent!.before, rows[0].rowsSent!.after], [4, 4]);
    assert.deepEqual([rows[0].total.before, rows[0].total.after, rows[0].total.delta], [0.45, 0.0022, -0.4478]);
    const table = plainText((await diff(['before.log', 'after.log'], dir)).out);
    assert.match(table, /SUM\(ms\) BEFORE AFTER DELTA\(ms\) RATIO AVG\(ms\) BEFORE AFTER P95\(ms\) BEFORE AFTER EXAMINED\/EXEC SENT\/EXEC FINGERPRINT/);
    assert.match(table, /450.00 2.20 −447.80 ×0.0049 225.00 1.10 250.00 1.20 10000 -> 4.0 4.0 -> 4.0 select/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

type Verdicted = Omit<JsonRow, 'mean'> & { verdict: string; shifts: { mean: string; tail: string; rowsExamined?: string }; count: { before: number; after: number; delta: number }; mean: { before: number; after: number; delta: number } };

void test('a load-changed pair: the time per request decides, not the total (GET / 2.318 s → 494 ms with 7 → 57 requests reads faster)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-diff-'));
  try {
    const rows = (method: string, uri: string, times: number[]) => times.map((t) => [method, uri, 200, t] as [string, string, number, number]);
    const cycle = (values: number[], n: number) => Array.from({ length: n }, (_, i) => values[i % values.length]);
    writeFileSync(join(dir, 'before.ltsv'), ltsv([
      ...rows('GET', '/', [1.9, 2.1, 2.2, 2.3, 2.4, 2.5, 2.826]),
      ...rows('GET', '/api/items', cycle([0.08, 0.12], 40)),
      ...rows('POST', '/login', cycle([0.04, 0.05, 0.06], 30)),
    ]));
    writeFileSync(join(dir, 'after.ltsv'), ltsv([
      ...rows('GET', '/', cycle([0.394, 0.494, 0.594], 57)),
      // the same spread, twice the requests: the total doubles, the time per request does not move
      ...rows('GET', '/api/items', cycle([0.08, 0.12], 80)),
      ...rows('POST', '/login', cycle([0.19, 0.2, 0.21], 30)),
    ]));
    const r = await diff(['before.ltsv', 'after.ltsv', '--format', 'json'], dir);
    assert.equal(r.code, 0, r.err);
    const got = new Map(r.out.trim().split('\n').map((l) => JSON.parse(l) as Verdicted).map((x) => [x.key, x]));
    const root = got.get('GET /')!;
    assert.deepEqual([root.count.before, root.count.after, root.count.delta], [7, 57, 50]);
    assert.deepEqual([root.mean.before, root.mean.after], [2.318, 0.494]);
    assert.ok(root.total.delta > 11, `the total rose: ${JSON.stringify(root.total)}`);
    assert.equal(root.verdict, 'faster');
    assert.deepEqual(root.shifts, { mean: 'down', tail: 'noise' }, 'a p99 of 7 and of 57 requests has no upper bound: only the mean decides');
    const items = got.get('GET /api/items')!;
    assert.equal(items.total.ratio, 2);
    assert.equal(items.verdict, 'noise');
    assert.equal(got.get('POST /login')!.verdict, 'slower');
    const table = plainText((await diff(['before.ltsv', 'after.ltsv'], dir)).out);
    assert.match(table, /changed faster 7 -> 57 .* GET \//);
    assert.match(table, /changed noise 40 -> 80 .* GET \/api\/items/);
    const err = (await diff(['before.ltsv', 'after.ltsv'], dir)).err;
    assert.match(err, /1 faster, 1 slower, 0 mixed, 1 within noise, 0 too few to judge/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('slow diff: per-call mean and rows examined per call decide, with more calls after the fix', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-diff-'));
  try {
    const q = (id: number) => `SELECT * FROM reservations WHERE schedule_id = '${id}'`;
    const entries = (n: number, time: (i: number) => number, examined: (i: number) => number) =>
      Array.from({ length: n }, (_, i) => [time(i), 1, examined(i), q(i)] as [number, number, number, string]);
    writeFileSync(join(dir, 'before.log'), slow(entries(20, (i) => 0.02 + (i % 5) * 0.001, (i) => 10000 + (i % 3))));
    writeFileSync(join(dir, 'after.log'), slow(entries(200, (i) => 0.0005 + (i % 5) * 0.0001, (i) => 1 + (i % 2))));
    const r = await diff(['before.log', 'after.log', '--format', 'json'], dir);
    assert.equal(r.code, 0, r.err);
    const [row] = r.out.trim().split('\n').map((l) => JSON.parse(l) as Verdicted);
    assert.deepEqual([row.count.before, row.count.after], [20, 200]);
    assert.ok(row.total.delta < 0);
    assert.equal(row.verdict, 'faster');
    assert.deepEqual([row.shifts.mean, row.shifts.rowsExamined], ['down', 'down']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('one unit per time column, chosen from its figures', () => {
  const u = timeUnitFor([-1349, 0.000024]);
  assert.equal(u.name, 's');
  assert.deepEqual([formatIn(-1349, u, true), formatIn(0.000024, u, true), formatIn(0, u, true)], ['−1349.000', '±0.000', '±0.000']);
  assert.equal(timeUnitFor([0.0123, 0.5]).name, 'ms');
  assert.equal(timeUnitFor([0.000024, null]).name, 'µs');
  assert.equal(formatIn(0.000024, timeUnitFor([0.000024])), '24');
  // a sub-millisecond mean in a column of seconds keeps two significant digits, not 0.000
  assert.deepEqual([formatIn(0.0004, u), formatIn(0.000024, u), formatIn(0.0123, u)], ['0.0004', '0.000024', '0.012']);
  assert.equal(roundTo(0.1 + 0.2, 6), 0.3);
  assert.equal(roundTo(-0.0000001, 6), 0);
});

void test('access diff groups by the app routes (--routes) and -m, and sorts by the change of the mean', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-diff-'));
  try {
    mkdirSync(join(dir, 'app'));
    writeFileSync(join(dir, 'app', 'main.js'), [
      "const express = require('express');",
      'const app = express();',
      "app.get('/@:account_name', (req, res) => res.send('user'));",
      "app.get('/posts/:id', (req, res) => res.send('post'));",
      '',
    ].join('\n'));
    const users = (t: number) => Array.from({ length: 30 }, (_, i) => ['GET', `/@user${800 + i}`, 200, t] as [string, string, number, number]);
    writeFileSync(join(dir, 'before.ltsv'), ltsv([...users(0.05), ['GET', '/posts/1', 200, 2.0], ['GET', '/posts/2', 200, 0.1]]));
    writeFileSync(join(dir, 'after.ltsv'), ltsv([...users(0.02), ['GET', '/posts/1', 200, 0.1], ['GET', '/posts/2', 200, 0.1]]));
    const plain = await diff(['before.ltsv', 'after.ltsv', '--format', 'json', '--routes', 'app'], dir);
    assert.equal(plain.code, 0, plain.err);
    const rows = plain.out.trim().split('\n').map((l) => JSON.parse(l) as JsonRow);
    assert.deepEqual(rows.map((x) => x.key), ['GET /posts/:id', 'GET /@:account_name'], 'by total: /posts −1.9 s, users −0.9 s');
    const byMean = await diff(['before.ltsv', 'after.ltsv', '--format', 'json', '--routes', 'app', '--sort', 'mean'], dir);
    assert.deepEqual(byMean.out.trim().split('\n').map((l) => (JSON.parse(l) as JsonRow).key), ['GET /posts/:id', 'GET /@:account_name']);
    const m = await diff(['before.ltsv', 'after.ltsv', '--format', 'json', '-m', '^/@[a-z0-9]+$', '--sort', 'count'], dir);
    assert.equal(m.code, 0, m.err);
    const keys = m.out.trim().split('\n').map((l) => (JSON.parse(l) as JsonRow).key);
    assert.ok(keys.includes('GET ^/@[a-z0-9]+$'), keys.join(', '));
    assert.equal(keys.length, 2);
    const bad = await diff(['before.ltsv', 'after.ltsv', '--sort', 'p99'], dir).catch((e: Error) => e);
    assert.match(String(bad), /--sort must be total, mean or count/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('a gzip log cut short: the comparison of what was read, then the file and its lines named, exit 3', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-diff-'));
  try {
    const rows = Array.from({ length: 20000 }, (_, i): [string, string, number, number] => ['GET', `/api/items/${i % 7}`, 200, 0.01]);
    writeFileSync(join(dir, 'before.ltsv'), ltsv(rows));
    const gz = gzipSync(ltsv(rows));
    writeFileSync(join(dir, 'after.ltsv.gz'), gz);
    writeFileSync(join(dir, 'cut.ltsv.gz'), gz.subarray(0, Math.floor(gz.length / 2)));

    const whole = await diff(['before.ltsv', 'after.ltsv.gz', '-m', '/api/items/.+'], dir);
    assert.equal(whole.code, 0, whole.err);
    assert.match(whole.err, /requests 20000 -> 20000/);

    const cut = await diff(['before.ltsv', 'cut.ltsv.gz', '-m', '/api/items/.+'], dir);
    assert.equal(cut.code, 3, cut.err);
    const m = /^query-insight diff: \S*cut\.ltsv\.gz: gzip data ends early after (\d+) lines \(truncated\?\)$/m.exec(cut.err);
    assert.ok(m && Number(m[1]) > 0 && Number(m[1]) < 20000, cut.err);
    assert.ok(cut.err.indexOf('# access runs') < cut.err.indexOf('gzip data ends early'), 'the summary comes before the message');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('diff --format md of access logs: each side stamped with the span of its requests ($time_local, $time_iso8601, $msec), and the throughput', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-diff-'));
  const line = (time: string, t: number) => `time:${time}\thost:192.168.0.10\tmethod:GET\turi:/api/livestream/1\tstatus:200\tsize:120\treqtime:${t.toFixed(3)}\n`;
  try {
    // nginx's $time_local in its own zone (+0900): the span is shown in UTC
    writeFileSync(join(dir, 'before.ltsv'), line('02/Mar/2024:19:00:00 +0900', 0.2) + line('02/Mar/2024:19:00:30 +0900', 0.2) + line('02/Mar/2024:19:01:00 +0900', 0.2));
    // $time_iso8601 in the other run
    writeFileSync(join(dir, 'after.ltsv'), line('2024-03-02T20:00:00+09:00', 0.05) + line('2024-03-02T20:00:20+09:00', 0.05));
    const r = await diff(['before.ltsv', 'after.ltsv', '--format', 'md'], dir);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^- before: before — `before\.ltsv`, 2024-03-02 10:00:00 – 10:01:00 UTC \(60 s\)$/m);
    assert.match(r.out, /^- after: after — `after\.ltsv`, 2024-03-02 11:00:00 – 11:00:20 UTC \(20 s\)$/m);
    assert.match(r.out, /^- throughput: /m, 'the requests per second, from the span');
    // alp's JSON keys
    const json = (t: string) => JSON.stringify({ time: t, method: 'GET', uri: '/api/livestream/1', status: 200, body_bytes: 120, request_time: 0.05 }) + '\n';
    writeFileSync(join(dir, 'a.jsonl'), json('2024-03-02T20:00:00+09:00') + json('2024-03-02T20:00:10+09:00'));
    const j = await diff(['a.jsonl', 'a.jsonl', '--format', 'md'], dir);
    assert.equal(j.code, 0, j.err);
    assert.match(j.out, /^- before: before — `a\.jsonl`, 2024-03-02 11:00:00 – 11:00:10 UTC \(10 s\)$/m);
    // a log_format with $msec
    const combined = (msec: string) => `192.168.0.10 - - ${msec} "GET /api/livestream/1 HTTP/1.1" 200 120 0.010\n`;
    writeFileSync(join(dir, 'before.log'), combined('1709373600.000') + combined('1709373605.500'));
    writeFileSync(join(dir, 'after.log'), combined('1709377200.000') + combined('1709377201.000'));
    const msec = await diff(['before.log', 'after.log', '--format', 'md', '--log-format', '$remote_addr - $remote_user $msec "$request" $status $body_bytes_sent $request_time'], dir);
    assert.equal(msec.code, 0, msec.err);
    assert.match(msec.out, /^- before: before — `before\.log`, 2024-03-02 10:00:00 – 10:00:05 UTC \(6 s\)$/m);
    assert.match(msec.out, /^- after: after — `after\.log`, 2024-03-02 11:00:00 – 11:00:01 UTC \(1 s\)$/m);
    // a layout without a time: no span, and no stamp of when the diff ran
    writeFileSync(join(dir, 'notime.ltsv'), 'method:GET\turi:/a\tstatus:200\treqtime:0.010\n');
    const none = await diff(['notime.ltsv', 'notime.ltsv', '--format', 'md'], dir);
    assert.equal(none.code, 0, none.err);
    assert.match(none.out, /^- before: before — `notime\.ltsv`$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('diff --format md: each side stamped with its log\'s time span, not the time of the diff; a sub-millisecond mean is not 0.000', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-diff-'));
  const at = (entries: [string, number, string][]) => entries.map(([time, qt, sql]) => `# Time: ${time}\n# User@Host: isucon[isucon] @ localhost []  Id:    14\n`
    + `# Query_time: ${qt.toFixed(6)}  Lock_time: 0.000010 Rows_sent: 1  Rows_examined: 1\nSET timestamp=${Date.parse(time) / 1000};\n${sql};\n`).join('');
  try {
    const q = 'SELECT * FROM reservations WHERE schedule_id = 1';
    const u = 'SELECT * FROM users WHERE id = 1';
    writeFileSync(join(dir, 'before.log'), at([['2024-03-02T10:00:00.000000Z', 1.5, q], ['2024-03-02T10:00:30.000000Z', 0.0004, u], ['2024-03-02T10:01:00.000000Z', 0.0004, u]]));
    writeFileSync(join(dir, 'after.log'), at([['2024-03-02T11:00:00.000000Z', 0.002, q], ['2024-03-02T11:00:30.000000Z', 0.0003, u]]));
    const r = await diff(['before.log', 'after.log', '--format', 'md'], dir);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^- before: before — `before\.log`, 2024-03-02 10:00:00 – 10:01:00 UTC \(60 s\)$/m);
    assert.match(r.out, /^- after: after — `after\.log`, 2024-03-02 11:00:00 – 11:00:30 UTC \(30 s\)$/m);
    assert.ok(!r.out.includes(String(new Date().getUTCFullYear())) || new Date().getUTCFullYear() === 2024, 'no stamp of today');
    const users = r.out.split('\n').find((l) => l.includes('users'))!;
    assert.match(users, /\| 0\.0004 → 0\.0003 \|/, `the mean in seconds keeps its digits: ${users}`);
    assert.ok(!/\b0\.000 →|→ 0\.000 /.test(users), users);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
