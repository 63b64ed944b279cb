/**
 * Every log reader is linear in its input: one line of 100 KB and one of 1 MB, of every shape that
 * once made a reader backtrack or rescan (long digit runs ending in a letter, `a:a:a:` runs, quotes,
 * brackets, separators, header prefixes), and the 1 MB line must take less than 20 times as long
 * (a quadratic reader takes about 100 times as long: seconds). Times are the best of seven runs,
 * the two sizes interleaved, after a warm-up; a 100 KB time under 2 ms counts as 2 ms, so timer noise
 * and cache effects on a shared machine cannot fail a linear reader (the 1 MB line then has 40 ms,
 * where a quadratic reader needs seconds).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AccessAnalyzer } from '../../../src/core/logs/accessAnalysis';
import { forEachLine } from '../../../src/core/logs/lineSource';
import { sniffLog } from '../../../src/core/logs/logKind';
import { SlowLogParser } from '../../../src/core/logs/slowLogParser';
import { CUSTOM_LOG_FORMAT } from './fuzzSeeds';

const enc = new TextEncoder();

/** Line shapes: a prefix, a unit repeated to the size, a suffix. */
const SHAPES: [string, string, string][] = [
  ['reqtime:', '9', 'x'], ['time:', '1', 'a\treqtime:0.1'], ['', 'a:', ''], ['# User@Host: ', 'a:', ''], ['# Query_time: ', '9', 'x'],
  ['# Query_time: 0.1 Lock_time: 0 Rows_sent: 1 Rows_examined: 1 ', 'a:', ''], ['# Time: ', '1', 'z'], ['# Thread_id: 1  ', 'a: ', ''], ['{"request_time":"', '7', 'e"}'], ['{"uri":"', '\\"', '"}'], ['{', '[', ''],
  ['1.1.1.1 - - [', 'x', '] "GET / HTTP/1.1" 200 1 "-" "-" 0.1'], ['1.1.1.1 - - [x] "', 'G', ' /x HTTP/1.1" 200 1 "-" "-" 0.1 0.1'],
  ['1.1.1.1 - - [x] "GET / HTTP/1.1" 200 1 "-" "-" 0.1 ', '0.1, ', '0.1'], ['', ' - ', ''], ['', '"', ''], ['', '\t', ''],
  ['method:GET\turi:/', 'a/', '\tstatus:200\treqtime:0.1'], ['', '1.', ''], ['SELECT \'', "a''", "';"], ['', '# Query_time: 1\n'.slice(0, 15), ''],
];

function line(shape: [string, string, string], size: number): Uint8Array {
  const [pre, unit, post] = shape;
  return enc.encode(pre + unit.repeat(Math.ceil((size - pre.length - post.length) / unit.length)) + post);
}

type Reader = (bytes: Uint8Array) => void;

const access = (options: ConstructorParameters<typeof AccessAnalyzer>[0]): Reader => (bytes) => {
  const a = new AccessAnalyzer(options);
  forEachLine(bytes, a.line);
  a.finish();
};

const READERS: [string, Reader][] = [
  ['ltsv', access({ format: 'ltsv', matchingGroups: ['^/a/[0-9]+$'] })],
  ['json', access({ format: 'json' })],
  ['combined', access({ format: 'combined' })],
  ['combined-alp', access({ format: 'combined-alp' })],
  ['log_format string', access({ format: CUSTOM_LOG_FORMAT })],
  ['--pattern', access({ format: 'ltsv', pattern: '"(?<request>[^"]*)" (?<status>\\d+) .* (?<reqtime>[\\d.]+)$' })],
  ['slow log', (bytes) => {
    const p = new SlowLogParser(() => undefined, {});
    forEachLine(bytes, (b, s, e, n) => p.line(b, s, e, n));
    p.end();
  }],
  ['sniffer', (bytes) => { sniffLog(bytes); }],
];

/** Best times of the two inputs over `runs` interleaved runs (so a burst of load on the machine hits both). */
function best(reader: Reader, small: Uint8Array, big: Uint8Array, runs: number): [number, number] {
  let ts = Infinity;
  let tb = Infinity;
  for (let i = 0; i < runs; i++) {
    let t0 = performance.now();
    reader(small);
    ts = Math.min(ts, performance.now() - t0);
    t0 = performance.now();
    reader(big);
    tb = Math.min(tb, performance.now() - t0);
  }
  return [ts, tb];
}

for (const [name, reader] of READERS) {
  void test(`${name}: a 1 MB line of any shape takes < 20× a 100 KB one`, () => {
    for (const shape of SHAPES) {
      const small = line(shape, 100 * 1024);
      const big = line(shape, 1024 * 1024);
      reader(small); // warm up the JIT on this shape
      reader(big);
      const [fast, tb] = best(reader, small, big, 7);
      const ts = Math.max(fast, 2);
      assert.ok(tb / ts < 20, `${name} on ${JSON.stringify(shape[0])} + ${JSON.stringify(shape[1])}…: 100 KB ${ts.toFixed(2)} ms, 1 MB ${tb.toFixed(2)} ms (×${(tb / ts).toFixed(1)})`);
    }
  });
}

/**
 * Whole slow logs at n and 8n, of the shapes that once made the slow-log reader quadratic: each
 * header-looking line inside a statement asks the quote scanner whether the statement is still open,
 * and the scanner's search ran on past the statement to the end of its buffer (a literal holding n
 * `# Query_time:` lines; a block comment holding them; a statement of megabytes, a bulk INSERT whose
 * values hold header-looking lines). Linear: about 8 times as long; quadratic: 64 (the old scanner took 70
 * to 130 times as long). The bound is 24, three times linear.
 * Times are the process's CPU time, so the load of other processes on a shared machine does not count.
 * why: a small log is read several times per timing, so that both sizes take milliseconds, and the
 * sizes stay within a core's cache (or, for the long statement, both far outside it): a reader whose
 * input just outgrew the cache runs a few times slower per byte, which is not what is measured here.
 */
const SLOW_HEADER = '# Time: 2024-05-01T10:00:00.000000Z\n# User@Host: app[app] @ localhost []  Id: 7\n# Query_time: 0.5  Lock_time: 0.0 Rows_sent: 0  Rows_examined: 0\nSET timestamp=1714557600;\n';
const FORGED = '# Query_time: 9 Lock_time: 0 Rows_sent: 0 Rows_examined: 0\n';
const PAIRS = '# Thread_id: 8  Schema: app  QC_hit: No\n';

/** One bulk INSERT of about `mb` MB whose rows' literals each hold a header-looking line (`inner`), then a small entry. */
function bulkInsert(mb: number, inner = PAIRS): string {
  const rows: string[] = [];
  for (let i = 0, n = 0; n < mb * (1 << 20); i++) {
    rows.push(`(${i}, 'pasted:\n${inner}end')`);
    n += rows[i].length + 2;
  }
  return `${SLOW_HEADER}INSERT INTO notes (id, body) VALUES ${rows.join(',\n')};\n${SLOW_HEADER}SELECT 1;\n`;
}

const SLOW_SHAPES: [string, (n: number) => string, number][] = [
  ['one literal holding n `# Query_time:` lines', (n) => `${SLOW_HEADER}INSERT INTO notes (body) VALUES ('${FORGED.repeat(n)}');\n`, 300],
  ['one literal holding n `# Thread_id:` lines', (n) => `${SLOW_HEADER}INSERT INTO notes (body) VALUES ('${PAIRS.repeat(n)}');\n`, 400],
  ['a block comment holding n header lines', (n) => `${SLOW_HEADER}SELECT 1 /* ${FORGED.repeat(n)} */;\n`, 300],
  // why: 1 and 8 MB, both far outside a core's cache, on either side of the fuzzed log's 2 MB statements
  ['a statement of 1 MB and one of 8 MB', (n) => bulkInsert(n), 1],
  ['a bulk INSERT of 1 MB and one of 8 MB, each row holding a forged `# Query_time:` line', (n) => bulkInsert(n, FORGED), 1],
];

void test('slow log: a bulk INSERT over 1 MB whose rows hold forged `# Query_time:` lines stays one entry', () => {
  for (const mb of [0.5, 1.5, 3]) {
    const entries: { line: number; queryTime: number; sql: string }[] = [];
    const p = new SlowLogParser((e) => entries.push({ line: e.line, queryTime: e.queryTime, sql: new TextDecoder().decode(e.sqlBytes.subarray(0, Math.min(e.sqlLength, 40))) }), {});
    forEachLine(enc.encode(bulkInsert(mb, FORGED)), (b, s, e, n) => p.line(b, s, e, n));
    const summary = p.end();
    assert.equal(entries.length, 2, `${mb} MB: the INSERT and the SELECT after it (${entries.length} entries)`);
    assert.deepEqual(entries.map((e) => e.queryTime), [0.5, 0.5], `${mb} MB: no forged Query_time`);
    assert.match(entries[0].sql, /^INSERT INTO notes/, `${mb} MB`);
    assert.equal(summary.reread, 0, `${mb} MB: nothing read again as if the log were cut`);
  }
});

const slowReader = READERS.find(([name]) => name === 'slow log')![1];

/** CPU milliseconds (user and system) this process spent on `f`: unlike wall time, not lengthened while other processes run. */
function cpuMs(f: () => void): number {
  const t0 = process.cpuUsage();
  f();
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / 1000;
}

/** Best CPU times of `reps` reads of each input over `runs` interleaved runs. */
function bestRepeated(small: Uint8Array, big: Uint8Array, reps: number, runs: number): [number, number] {
  let ts = Infinity;
  let tb = Infinity;
  for (let i = 0; i < runs; i++) {
    ts = Math.min(ts, cpuMs(() => { for (let k = 0; k < reps; k++) slowReader(small); }));
    tb = Math.min(tb, cpuMs(() => { for (let k = 0; k < reps; k++) slowReader(big); }));
  }
  return [ts, tb];
}

for (const [name, make, n] of SLOW_SHAPES) {
  void test(`slow log, ${name}: 8n takes < 24× n`, () => {
    const small = enc.encode(make(n));
    const big = enc.encode(make(8 * n));
    slowReader(small);
    slowReader(big);
    const once = cpuMs(() => slowReader(small));
    const reps = Math.min(200, Math.max(1, Math.ceil(10 / Math.max(once, 0.05))));
    const [ts, tb] = bestRepeated(small, big, reps, n > 1 ? 5 : 3);
    assert.ok(tb / ts < 24, `${(small.length / 1024).toFixed(0)} KB ×${reps} ${ts.toFixed(2)} ms, ${(big.length / 1024).toFixed(0)} KB ×${reps} ${tb.toFixed(2)} ms (×${(tb / ts).toFixed(1)})`);
  });
}
