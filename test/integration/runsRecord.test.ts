/**
 * `query-insight runs` over a real git repository made here and logs written here, as a contest
 * round goes: traffic before `POST /initialize` (a warm-up, a manual curl) is left out of the
 * window, in the access log and, by its time, in the slow log; the second round reads the logs from
 * where the first stopped; a commit between the two rounds is named beside the handler it changed;
 * a rotated log is noticed and read from its start; `list`, `diff`, `trend` and `show` give the
 * JSON fields scripts and agents read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runsCommand } from '../../src/cli/commands/runs';
import { runCommand } from '../support/runCommand';

const runs = (args: string[], cwd: string) => runCommand(runsCommand, args, cwd);

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } }).trim();
}

/** An Express app in the style of a contest's reference implementation. */
const APP_V1 = `'use strict';
const express = require('express');
const mysql = require('mysql2/promise');
const pool = mysql.createPool({ host: '127.0.0.1', user: 'isucon', database: 'isuride' });
const app = express();

app.post('/initialize', async (req, res) => {
  await pool.query('TRUNCATE TABLE rides');
  res.json({ language: 'nodejs' });
});

app.get('/items/:id', async (req, res) => {
  const [rows] = await pool.query('SELECT * FROM items WHERE id = ?', [req.params.id]);
  res.json(rows[0]);
});

app.get('/users/:name', async (req, res) => {
  const [rows] = await pool.query('SELECT * FROM users WHERE name = ?', [req.params.name]);
  res.json(rows[0]);
});

app.listen(8080);
`;

/** The fix between the rounds: the item handler answers from a cache first. */
const APP_V2 = APP_V1.replace(`app.get('/items/:id', async (req, res) => {
  const [rows]`, `const cache = new Map();
app.get('/items/:id', async (req, res) => {
  if (cache.has(req.params.id)) return res.json(cache.get(req.params.id));
  const [rows]`);

const T0 = Date.UTC(2024, 4, 1, 3, 0, 0);
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function timeLocal(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}

/** One LTSV line as the contest's nginx writes it. */
function access(ms: number, method: string, uri: string, status: number, seconds: number): string {
  return `time:${timeLocal(ms)}\thost:192.168.0.11\tforwardedfor:-\treq:${method} ${uri} HTTP/1.1\tmethod:${method}\turi:${uri}\tstatus:${status}\tsize:512\treferer:-\tua:benchmarker\treqtime:${seconds.toFixed(3)}\tapptime:${seconds.toFixed(3)}\n`;
}

/** One MariaDB slow-log entry. */
function slow(ms: number, seconds: number, sql: string): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `# Time: ${String(d.getUTCFullYear()).slice(2)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}\n`
    + `# User@Host: isucon[isucon] @ localhost [127.0.0.1]\n# Thread_id: 8  Schema: isuride  QC_hit: No\n`
    + `# Query_time: ${seconds.toFixed(6)}  Lock_time: 0.000012  Rows_sent: 1  Rows_examined: 1\n# Rows_affected: 0  Bytes_sent: 240\n`
    + `SET timestamp=${Math.floor(ms / 1000)};\n${sql};\n`;
}

interface Round { access: string; slow: string }

/**
 * A round as the benchmarker drives it: `warmup` requests (each with its statement) 60 s before
 * the round, then `POST /initialize`, then `items` item requests taking `itemSeconds` each and
 * `users` user requests of 10 ms (one statement each), one every 100 ms.
 */
function round(start: number, o: { warmup: number; items: number; itemSeconds: number; users: number }): Round {
  let a = '';
  let s = '';
  for (let i = 0; i < o.warmup; i++) {
    const t = start - 60_000 + i * 1000;
    a += access(t, 'GET', `/items/${i + 1}`, 200, 0.02);
    s += slow(t, 0.015, `SELECT * FROM items WHERE id = ${i + 1}`);
  }
  s += slow(start - 200, 0.05, 'TRUNCATE TABLE rides');
  a += access(start, 'POST', '/initialize', 200, 0.3);
  let t = start + 1000;
  // why: the spread of the times matters to the noise band; a small wobble, the same in every round.
  for (let i = 0; i < o.items; i++, t += 100) {
    const sec = o.itemSeconds * (1 + ((i % 5) - 2) * 0.05);
    a += access(t, 'GET', `/items/${(i % 30) + 1}`, 200, sec);
    s += slow(t - 1, sec * 0.8, `SELECT * FROM items WHERE id = ${(i % 30) + 1}`);
  }
  for (let i = 0; i < o.users; i++, t += 100) {
    const sec = 0.01 * (1 + ((i % 5) - 2) * 0.05);
    a += access(t, 'GET', `/users/u${i % 7}`, 200, sec);
    s += slow(t - 1, sec * 0.8, `SELECT * FROM users WHERE name = 'u${i % 7}'`);
  }
  return { access: a, slow: s };
}

type ListJson = { runs: Array<{ id: string; score: number | null; commit: string | null; requests: number | null; statements: number | null; health: string[]; memo: string | null; dirty: boolean | null }> };
type RecordJson = ListJson['runs'][number] & { sources: Array<{ kind: string; file: string; from: number; to: number; lines: number; outside: number; restarted?: string }> };
type Change = { before: number | null; after: number | null; delta: number };
type DiffJson = {
  before: string; after: string; score: Change; headline: string;
  rows: Array<{ kind: string; key: string; verdict: string; reason: string; count: Change; changed?: { commit: string; kind: string } }>;
  changes: Array<{ kind: string; key: string; commit: string }>;
};

void test('runs: two rounds with a commit between them, read from their offsets, then a rotation', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-runs-'));
  try {
    writeFileSync(join(dir, 'app.js'), APP_V1);
    writeFileSync(join(dir, '.gitignore'), 'logs/\n');
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'reference implementation');
    const c1 = git(dir, 'rev-parse', 'HEAD');
    execFileSync('mkdir', ['-p', join(dir, 'logs')]);
    const accessLog = join(dir, 'logs', 'access.log');
    const slowLog = join(dir, 'logs', 'slow.log');
    // The editor (or a person) writes the sources once; each round is then one command.
    execFileSync('mkdir', ['-p', join(dir, '.query-insight')]);
    writeFileSync(join(dir, '.query-insight', 'config.json'), JSON.stringify({ access: ['logs/access.log'], slow: ['logs/slow.log'] }));

    // Round 1: 5 warm-up requests before /initialize, then 40 item and 20 user requests.
    const r1 = round(T0, { warmup: 5, items: 40, itemSeconds: 0.08, users: 20 });
    writeFileSync(accessLog, r1.access);
    writeFileSync(slowLog, r1.slow);
    const first = await runs(['record', '--score', '1200', '--memo', 'baseline', '--format', 'json'], dir);
    assert.equal(first.code, 0, first.err);
    const rec1 = JSON.parse(first.out) as RecordJson;
    assert.equal(rec1.requests, 61, 'the /initialize and the 60 requests after it; not the 5 warm-up requests');
    assert.equal(rec1.statements, 61, 'the TRUNCATE of /initialize itself and the 60 statements after it; not the 5 warm-up ones');
    assert.equal(rec1.score, 1200);
    assert.equal(rec1.commit, c1);
    assert.equal(rec1.dirty, false, 'the run store itself does not make the tree dirty');
    const a1 = rec1.sources.find((s) => s.kind === 'access')!;
    const s1 = rec1.sources.find((s) => s.kind === 'slow')!;
    assert.deepEqual([a1.from, a1.to, a1.lines, a1.outside], [0, statSync(accessLog).size, 66, 5]);
    assert.deepEqual([s1.from, s1.to, s1.outside], [0, statSync(slowLog).size, 5]);
    assert.deepEqual(rec1.health, []);

    // The fix, committed; the logs are not rotated: round 2 is appended to the same files.
    writeFileSync(join(dir, 'app.js'), APP_V2);
    git(dir, 'commit', '-q', '-am', 'cache items');
    const c2 = git(dir, 'rev-parse', 'HEAD');
    const size1 = statSync(accessLog).size;
    const slowSize1 = statSync(slowLog).size;
    const r2 = round(T0 + 600_000, { warmup: 3, items: 50, itemSeconds: 0.008, users: 20 });
    appendFileSync(accessLog, r2.access);
    appendFileSync(slowLog, r2.slow);
    writeFileSync(join(dir, 'bench.txt'), '12:00:01 start\n12:01:01 load done\nSCORE: 1850\n');
    const second = await runs(['record', '--bench-output', 'bench.txt', '--format', 'json'], dir);
    assert.equal(second.code, 0, second.err);
    const rec2 = JSON.parse(second.out) as RecordJson;
    assert.equal(rec2.score, 1850, 'the SCORE: line of the benchmarker output');
    assert.equal(rec2.requests, 71, '/initialize + 50 + 20; the 3 warm-up requests and round 1 left out');
    assert.equal(rec2.statements, 71);
    assert.equal(rec2.commit, c2);
    const a2 = rec2.sources.find((s) => s.kind === 'access')!;
    const s2 = rec2.sources.find((s) => s.kind === 'slow')!;
    assert.deepEqual([a2.from, a2.to, a2.lines, a2.outside], [size1, statSync(accessLog).size, 74, 3], 'read from the first round\'s offset');
    assert.deepEqual([s2.from, s2.to], [slowSize1, statSync(slowLog).size]);
    assert.equal(a2.restarted, undefined);

    // A store file that is not a record is skipped with its name, never fatal.
    writeFileSync(join(dir, '.query-insight', 'runs', 'notes.json'), '{"x":1}');
    const list = await runs(['list', '--format', 'json'], dir);
    assert.equal(list.code, 0);
    const listed = JSON.parse(list.out) as ListJson;
    assert.deepEqual(listed.runs.map((r) => [r.id, r.score, r.commit, r.requests]), [[rec1.id, 1200, c1, 61], [rec2.id, 1850, c2, 71]]);
    assert.equal(listed.runs[0].memo, 'baseline');
    assert.match(list.err, /skipped notes\.json: not a Query Insight run record/);
    rmSync(join(dir, '.query-insight', 'runs', 'notes.json'));

    const diff = await runs(['diff', '--format', 'json'], dir);
    assert.equal(diff.code, 0, diff.err);
    const d = JSON.parse(diff.out) as DiffJson;
    assert.deepEqual([d.before, d.after], [rec1.id, rec2.id], 'the last two by default');
    assert.deepEqual([d.score.before, d.score.after, d.score.delta], [1200, 1850, 650]);
    const items = d.rows.find((r) => r.kind === 'endpoint' && r.key === 'GET /items/:id')!;
    assert.ok(items, `rows: ${d.rows.map((r) => r.key).join(', ')}`);
    assert.equal(items.verdict, 'faster', items.reason);
    assert.deepEqual([items.count.before, items.count.after], [40, 50]);
    assert.equal(items.changed?.commit, c2, 'the handler changed in the commit between the rounds');
    const users = d.rows.find((r) => r.key === 'GET /users/:name')!;
    assert.equal(users.verdict, 'same', users.reason);
    assert.match(users.reason, /within noise: n 20 → 20, mean .*99 % interval/);
    assert.equal(users.changed, undefined, 'an untouched handler names no commit');
    const itemSql = d.rows.find((r) => r.kind === 'statement' && r.key.startsWith('select * from items'))!;
    assert.equal(itemSql.verdict, 'faster', itemSql.reason);
    for (const r of d.rows) assert.ok(['faster', 'slower', 'same', 'new', 'gone', 'too-few'].includes(r.verdict), r.verdict);

    const md = await runs(['diff', '--format', 'md'], dir);
    assert.match(md.out, /\*\*Score 1200 → 1850 \(\+54\.2 %\)\*\*/);
    assert.ok(md.out.includes(`GET /items/:id: handler changed in ${c2.slice(0, 7)}, p99`), md.out);

    // Rotation between rounds: logrotate moves the file away and nginx opens a new one.
    renameSync(accessLog, `${accessLog}.1`);
    const r3 = round(T0 + 1_200_000, { warmup: 2, items: 30, itemSeconds: 0.009, users: 10 });
    writeFileSync(accessLog, r3.access);
    appendFileSync(slowLog, r3.slow);
    const third = await runs(['record', '--score', '1700', '--format', 'json'], dir);
    assert.equal(third.code, 0, third.err);
    const rec3 = JSON.parse(third.out) as RecordJson;
    const a3 = rec3.sources.find((s) => s.kind === 'access')!;
    assert.deepEqual([a3.from, a3.restarted, a3.lines, a3.outside], [0, 'rotated', 43, 2]);
    assert.equal(rec3.requests, 41);
    assert.ok(rec3.health.includes('log-rotated'), String(rec3.health));
    // Truncation: the slow log emptied in place (copytruncate) is noticed too.
    writeFileSync(slowLog, '');
    appendFileSync(accessLog, round(T0 + 1_800_000, { warmup: 0, items: 10, itemSeconds: 0.009, users: 0 }).access);
    const fourth = await runs(['record', '--format', 'json', '--failed', 'benchmarker: timeout'], dir);
    const rec4 = JSON.parse(fourth.out) as RecordJson;
    assert.equal(rec4.sources.find((s) => s.kind === 'slow')!.restarted, 'truncated');
    assert.equal(rec4.requests, 11);
    assert.equal((JSON.parse(readFileSync(join(dir, '.query-insight', 'runs', `${rec4.id}.json`), 'utf8')) as { failed: string }).failed, 'benchmarker: timeout', 'a failed round is kept with its reason');

    const trend = await runs(['trend', '--format', 'json', '--by', 'endpoint'], dir);
    const t = JSON.parse(trend.out) as { points: Array<{ commit: string; score: number | null }>; series: Array<{ key: string; values: Array<{ mean: number; count: number } | null> }> };
    assert.deepEqual(t.points.map((p) => p.score), [1200, 1850, 1700, null]);
    assert.deepEqual(t.points.map((p) => p.commit), [c1.slice(0, 7), c2.slice(0, 7), c2.slice(0, 7), c2.slice(0, 7)]);
    const itemSeries = t.series.find((s) => s.key === 'GET /items/:id')!;
    assert.deepEqual(itemSeries.values.map((v) => v?.count), [40, 50, 30, 10]);

    const text = await runs(['trend'], dir);
    assert.match(text.out, /^score\s+1200\s+1850\s+1700\s+FAILED$/m);
    const shown = await runs(['show', '-1'], dir);
    assert.match(shown.out, /score: FAILED \(benchmarker: timeout\)/);
    assert.match(shown.out, /was truncated since the previous run/);
    assert.equal(readdirSync(join(dir, '.query-insight', 'runs')).filter((f) => f.endsWith('.json')).length, 4);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('runs record: a usage error names what is missing; nothing is recorded', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-runs-'));
  try {
    await assert.rejects(runs(['record', '--score', '12'], dir), /no logs to read/);
    writeFileSync(join(dir, 'a.log'), access(T0, 'GET', '/', 200, 0.01));
    await assert.rejects(runs(['record', '--access', 'a.log', '--score', 'fast'], dir), /--score must be a number/);
    const r = await runs(['record', '--access', 'a.log', '--routes', 'none', '--format', 'json'], dir);
    assert.equal(r.code, 0, r.err);
    const rec = JSON.parse(r.out) as RecordJson;
    assert.equal(rec.commit, null, 'outside a git work tree: no commit');
    assert.deepEqual(rec.health, ['no-initialize']);
    const none = await runs(['show', 'nosuch'], dir);
    assert.equal(none.code, 1);
    assert.match(none.err, /no run "nosuch"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
