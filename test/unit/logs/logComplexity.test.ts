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
