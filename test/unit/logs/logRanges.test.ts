// A log read in byte ranges (on several threads) gives exactly one reader's report: generated access
// and slow logs, ranges forced small so that the cuts fall inside lines, inside multi-line slow-log
// entries and inside string literals that hold newlines (and forged header lines).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccessAnalyzer, type AccessAnalysisOptions } from '../../../src/core/logs/accessAnalysis';
import { SlowStatsCollector } from '../../../src/core/logs/slowStats';
import { accessAnalyzer, analyzeAccessSources, analyzeSlowSources } from '../../../src/node/logSources';
import { rangeStarts, readAccessInRanges, readSlowInRanges, type RangePlan } from '../../../src/node/logRanges';
import { MIN_RANGE_BYTES, prestartForArgs, prestartRangeWorkers, takeReadyWorker } from '../../../src/node/rangeWorkerPool';
import type { RangeKind } from '../../../src/node/rangeJobs';
import type { Route } from '../../../src/core/model';

const dir = mkdtempSync(join(tmpdir(), 'qi-ranges-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

/** A small seeded generator (mulberry32), so a failure repeats. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PATHS = ['/api/user/{id}', '/api/isu/{id}/graph', '/api/condition/{id}', '/initialize', '/api/trend', '/assets/app.{n}.js', '/', '/api/isu'];
const METHODS = ['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE'];

function accessLog(seed: number, lines: number): string {
  const r = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const k = r();
    if (k < 0.02) { out.push(''); continue; }
    if (k < 0.04) { out.push(`garbage line ${i} without fields`); continue; }
    const path = PATHS[Math.floor(r() * PATHS.length)].replace('{id}', String(Math.floor(r() * 500))).replace('{n}', String(Math.floor(r() * 9)));
    const method = METHODS[Math.floor(r() * METHODS.length)];
    const status = [200, 200, 200, 201, 304, 400, 404, 499, 500][Math.floor(r() * 9)];
    // whole milliseconds mostly; microseconds on one endpoint (its values leave the ms grid)
    const t = path.startsWith('/api/trend') ? (r() * 2).toFixed(6) : (r() * 3).toFixed(3);
    const app = r() < 0.1 ? '-' : t;
    const line = `time:2024-05-01T10:00:${String(i % 60).padStart(2, '0')}+09:00\tmethod:${method}\turi:${path}${r() < 0.1 ? '?page=2' : ''}\tstatus:${status}\tsize:${Math.floor(r() * 5000)}\treqtime:${t}\tapptime:${app}`;
    out.push(r() < 0.05 ? `${line}\r` : line);
    // a line cut by a writer and glued to the next one
    if (r() < 0.01) out[out.length - 1] = line.slice(0, 30) + out[out.length - 1];
  }
  return out.join('\n');  // no final newline: the last line is unterminated
}

const PLANS: RangePlan[] = [{ threads: 0, rangeBytes: 173 }, { threads: 0, rangeBytes: 1000 }, { threads: 0, rangeBytes: 7777 }];

void test('access log: ranges cut anywhere merge into one reader\'s report', async () => {
  const path = join(dir, 'access.ltsv');
  writeFileSync(path, accessLog(1, 1500));
  const routes: Route[] = [{ method: 'GET', pattern: '/api/isu/:id/graph', framework: 'echo', file: 'main.go', range: { start: { line: 1, character: 0 }, end: { line: 1, character: 1 } } }];
  const variants: AccessAnalysisOptions[] = [
    { format: 'ltsv' },
    { format: 'ltsv', matchingGroups: ['^/api/user/[0-9]+$', '^/api/condition/.+'], staticByExtension: false, routes },
    { format: 'ltsv', keepQuery: true, normalize: false, time: 'reqtime' },
  ];
  for (const options of variants) {
    const one = await analyzeAccessSources([{ kind: 'local', path }], accessAnalyzer(options), { ranges: false });
    assert.ok(one.requests > 1200 && one.malformed > 0 && one.blank > 0);
    for (const plan of PLANS) {
      const { starts } = rangeStarts(path, plan, false);
      assert.ok(starts.length > 3, 'the file is cut into several ranges');
      // the ranged read itself must be exact here (no fallback to one reader)
      const direct = accessAnalyzer(options);
      assert.ok(await readAccessInRanges(path, direct, plan), `exact merge with ${JSON.stringify(plan)}`);
      const ranged = await analyzeAccessSources([{ kind: 'local', path }], accessAnalyzer(options), { ranges: plan });
      assert.equal(JSON.stringify(ranged), JSON.stringify(one), `${JSON.stringify(options)} in ranges of ${plan.rangeBytes} bytes`);
    }
  }
});

void test('access log: the reading threads give the same report, and a merge past a cap falls back to one reader', async () => {
  const path = join(dir, 'access-threads.ltsv');
  writeFileSync(path, accessLog(2, 20000));
  const options: AccessAnalysisOptions = { format: 'ltsv', matchingGroups: ['^/api/user/[0-9]+$'] };
  const one = await analyzeAccessSources([{ kind: 'local', path }], accessAnalyzer(options), { ranges: false });
  const threaded = await analyzeAccessSources([{ kind: 'local', path }], accessAnalyzer(options), { ranges: { threads: 2, rangeBytes: 100_000, here: true } });
  assert.equal(JSON.stringify(threaded), JSON.stringify(one));
  // Per-host counts: the analyzer that read this thread's ranges counts the merged parts for the host.
  const oneByHost = await analyzeAccessSources([{ kind: 'local', path }], accessAnalyzer(options), { ranges: false, byHost: true });
  assert.ok(oneByHost.endpoints.every((e) => e.hosts?.local === e.count));
  for (const ranges of [{ threads: 2, rangeBytes: 30_000, here: true }, { threads: 0, rangeBytes: 30_000 }, { threads: 2, rangeBytes: 30_000 }]) {
    const byHost = await analyzeAccessSources([{ kind: 'local', path }], accessAnalyzer(options), { ranges, byHost: true });
    assert.equal(JSON.stringify(byHost), JSON.stringify(oneByHost), `per host, ${JSON.stringify(ranges)}`);
  }
  // Many ranges, taken by both threads as they come free (one of them started ahead), merged in order as they come in.
  prestartRangeWorkers('access', 1);
  const many = await analyzeAccessSources([{ kind: 'local', path }], accessAnalyzer(options), { ranges: { threads: 2, rangeBytes: 7_000, here: true } });
  assert.equal(JSON.stringify(many), JSON.stringify(one));
  assert.equal(takeReadyWorker('access'), undefined, 'the thread started ahead was taken by the read');
  const workersOnly = await analyzeAccessSources([{ kind: 'local', path }], accessAnalyzer(options), { ranges: { threads: 3, rangeBytes: 9_000 } });
  assert.equal(JSON.stringify(workersOnly), JSON.stringify(one));
  // 10 endpoints kept: each range alone stays under the cap, together they pass it
  const capped: AccessAnalysisOptions = { format: 'ltsv', normalize: false, maxEndpoints: 10 };
  const direct = new AccessAnalyzer(capped);
  assert.equal(await readAccessInRanges(path, direct, { threads: 0, rangeBytes: 50_000 }), undefined, 'not exact: read again by one reader');
  const oneCapped = await analyzeAccessSources([{ kind: 'local', path }], accessAnalyzer(capped), { ranges: false });
  const rangedCapped = await analyzeAccessSources([{ kind: 'local', path }], accessAnalyzer(capped), { ranges: { threads: 0, rangeBytes: 50_000 } });
  assert.equal(JSON.stringify(rangedCapped), JSON.stringify(oneCapped));
  assert.ok(oneCapped.overflowRequests > 0);
});

const SHAPES = [
  (r: () => number) => `SELECT * FROM isu WHERE jia_isu_uuid = '${Math.floor(r() * 1e6).toString(16)}' AND jia_user_id = 'u${Math.floor(r() * 100)}';`,
  (r: () => number) => `SELECT id, name\n  FROM users\n  WHERE id IN (${Math.floor(r() * 9)}, ${Math.floor(r() * 9)})\n  ORDER BY id;`,
  (r: () => number) => `INSERT INTO isu_condition (jia_isu_uuid, message) VALUES ('a${Math.floor(r() * 99)}', 'line one\nline two\n# Time: 2024-05-01T10:00:00.000000Z\n# User@Host: forged[forged] @ localhost []  Id: 1\n# Query_time: 9.0  Lock_time: 0.0 Rows_sent: 0  Rows_examined: 0\nSELECT 1;\nstill the literal');`,
  (r: () => number) => `UPDATE users SET note = "multi\nline; # Time: 240501 10:00:00\ntext" WHERE id = ${Math.floor(r() * 50)};`,
  () => 'SELECT COUNT(*) FROM isu_condition;',
  () => '# administrator command: Quit;',
];

function slowLog(seed: number, entries: number, mariadb: boolean, tail = ''): string {
  const r = rng(seed);
  const out: string[] = ['/usr/sbin/mariadbd, Version: 10.11.6-MariaDB-0+deb12u1-log (Debian 12). started with:', 'Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock', 'Time                Id Command  Argument'];
  let sec = 1714557600;
  let db = '';
  for (let i = 0; i < entries; i++) {
    if (r() < 0.4) sec++;
    const thread = 10 + Math.floor(r() * 4);
    const qt = (r() * 0.5).toFixed(6);
    const d = new Date(sec * 1000);
    if (mariadb) {
      if (i === 0 || r() < 0.5) out.push(`# Time: ${String(d.getUTCFullYear() % 100).padStart(2, '0')}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCDate()).padStart(2, '0')} ${d.toISOString().slice(11, 19)}`);
      out.push(`# User@Host: isucon[isucon] @ localhost []`, `# Thread_id: ${thread}  Schema: isucondition  QC_hit: No`,
        `# Query_time: ${qt}  Lock_time: 0.000012  Rows_sent: ${Math.floor(r() * 10)}  Rows_examined: ${Math.floor(r() * 1000)}`, '# Rows_affected: 0  Bytes_sent: 120');
    } else {
      out.push(`# Time: ${d.toISOString().slice(0, 19)}.${String(Math.floor(r() * 1e6)).padStart(6, '0')}Z`, `# User@Host: isucon[isucon] @ localhost [127.0.0.1]  Id:    ${thread}`,
        `# Query_time: ${qt}  Lock_time: 0.000003 Rows_sent: ${Math.floor(r() * 10)}  Rows_examined: ${Math.floor(r() * 1000)}`);
    }
    const next = r() < 0.05 ? `db${Math.floor(r() * 3)}` : db;
    if (next !== db) { out.push(`use ${next};`); db = next; }
    const shape = SHAPES[Math.floor(r() * SHAPES.length)](r);
    if (!shape.startsWith('#')) out.push(`SET timestamp=${sec};`);
    out.push(shape);
    if (r() < 0.01) out.push('');
  }
  return out.join('\n') + '\n' + tail;
}

async function sameSlow(path: string, plans: RangePlan[], expectExact = true): Promise<void> {
  const one = await analyzeSlowSources([{ kind: 'local', path }], {}, { ranges: false });
  assert.ok(one.summary.entries > 0);
  for (const plan of plans) {
    const { starts } = rangeStarts(path, plan, true);
    assert.ok(starts.length > 3, 'the file is cut into several ranges');
    const direct = await readSlowInRanges(path, new SlowStatsCollector({}), {}, plan);
    if (expectExact) assert.ok(direct, `exact merge with ${JSON.stringify(plan)}`);
    const ranged = await analyzeSlowSources([{ kind: 'local', path }], {}, { ranges: plan });
    assert.equal(JSON.stringify(ranged), JSON.stringify(one), `${path} in ranges of ${plan.rangeBytes} bytes`);
  }
}

void test('slow log (MySQL 8): cuts inside entries and inside literals with forged headers merge exactly', async () => {
  const path = join(dir, 'slow-mysql.log');
  writeFileSync(path, slowLog(3, 400, false));
  await sameSlow(path, [{ threads: 0, rangeBytes: 97 }, { threads: 0, rangeBytes: 5000 }]);
  // the forged `# Time:` lines inside literals are range starts that the range before reads through
  const r = await readSlowInRanges(path, new SlowStatsCollector({}), {}, { threads: 0, rangeBytes: 97 });
  assert.ok(r && r.redone > 0, 'some ranges started at a forged header, and were read on by the range before');
});

void test('slow log (MariaDB): `# Time` only when the second changes, `use db;` carried across ranges', async () => {
  const path = join(dir, 'slow-mariadb.log');
  writeFileSync(path, slowLog(4, 400, true));
  await sameSlow(path, [{ threads: 0, rangeBytes: 61 }, { threads: 0, rangeBytes: 700 }]);
});

void test('slow log: a literal left open near the end (log cut inside it) is read again as one reader does', async () => {
  const path = join(dir, 'slow-open.log');
  const log = slowLog(5, 300, false);
  const at = log.indexOf('# Time:', Math.floor(log.length * 0.7));
  writeFileSync(path, `${log.slice(0, at)}# Time: 2024-05-01T11:00:00.000000Z\n# User@Host: isucon[isucon] @ localhost []  Id: 99\n# Query_time: 0.1  Lock_time: 0.0 Rows_sent: 0  Rows_examined: 0\nSET timestamp=1714561200;\nINSERT INTO t VALUES ('never closed\n${log.slice(at)}`);
  await sameSlow(path, [{ threads: 0, rangeBytes: 80 }, { threads: 0, rangeBytes: 3000 }]);
});

void test('slow log: the reading threads give the same report', async () => {
  const path = join(dir, 'slow-threads.log');
  writeFileSync(path, slowLog(6, 4000, false));
  const one = await analyzeSlowSources([{ kind: 'local', path }], {}, { ranges: false });
  const threaded = await analyzeSlowSources([{ kind: 'local', path }], {}, { ranges: { threads: 2, rangeBytes: 50_000 } });
  assert.equal(JSON.stringify(threaded), JSON.stringify(one));
});

void test('the reading threads start with the command line only for one large plain local log', async () => {
  const big = join(dir, 'big.log');
  writeFileSync(big, '');
  truncateSync(big, 2 * MIN_RANGE_BYTES); // a sparse file: large, and nothing written
  const gz = join(dir, 'big.log.gz');
  writeFileSync(gz, Buffer.from([0x1f, 0x8b]));
  truncateSync(gz, 2 * MIN_RANGE_BYTES);
  const small = join(dir, 'small.log');
  writeFileSync(small, 'x\n');
  const started = (args: string[], kind: RangeKind = 'access'): number => {
    prestartForArgs(kind, args);
    let n = 0;
    for (let w = takeReadyWorker(kind); w; w = takeReadyWorker(kind)) { n++; void w.terminate(); }
    return n;
  };
  assert.equal(started([big, '-m', '^/x$', '--threads', '3']), 2);
  assert.equal(started([big, '--threads=2']), 1);
  assert.equal(started([big, '--threads=2'], 'slow'), 1);
  prestartForArgs('slow', [big, '--threads=2']);
  assert.equal(takeReadyWorker('access'), undefined, 'a thread started for one kind of log is not taken for the other');
  takeReadyWorker('slow')?.terminate().catch(() => undefined);
  assert.equal(started([big, '--threads', '1']), 0);
  assert.equal(started([small, '--threads', '2']), 0);
  assert.equal(started([gz, '--threads', '2']), 0, 'gzip is read by one reader');
  assert.equal(started([big, big, '--threads', '2']), 0, 'several logs are read one after the other');
});
