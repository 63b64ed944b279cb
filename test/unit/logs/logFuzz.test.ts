/**
 * Fuzz test of every log reader: a deterministic mutator over seed logs (all access layouts, slow
 * logs of three flavours, gzip whole and damaged) feeds at least 200,000 mutated lines per run
 * (QI_FUZZ_LINES=1000000 for a longer run; QI_FUZZ_SEED for another sequence). Asserted: no
 * exception, no non-finite number in any report or rendered output, every line counted exactly once
 * (requests + blank + malformed by reason = lines; for slow logs entries + malformed + banners +
 * blank lines = lines).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { AccessAnalyzer, type AccessReport } from '../../../src/core/logs/accessAnalysis';
import { forEachLine } from '../../../src/core/logs/lineSource';
import { SlowLogParser } from '../../../src/core/logs/slowLogParser';
import { SlowStatsCollector } from '../../../src/core/logs/slowStats';
import { analyzeAccessLogFile } from '../../../src/node/accessLogFile';
import { analyzeSlowLogFile } from '../../../src/node/slowLogFile';
import { toJson } from '../../../src/cli/commands/endpoints';
import { renderRows } from '../../../src/cli/output';
import { accessSeed, countLines, CUSTOM_LOG_FORMAT, mutate, rng, slowSeed, type AccessSeedFormat, type SlowFlavour } from './fuzzSeeds';

const TOTAL = Number(process.env.QI_FUZZ_LINES ?? 200_000);
const SEED = Number(process.env.QI_FUZZ_SEED ?? 15);
const dir = mkdtempSync(join(tmpdir(), 'qi-fuzz-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const enc = new TextEncoder();
let fed = 0;

/** Every number anywhere in `value` is finite. */
function assertFinite(value: unknown, where: string): void {
  const walk = (v: unknown, path: string): void => {
    if (typeof v === 'number') assert.ok(Number.isFinite(v), `${where}: ${path} = ${v}`);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) if (k !== 'route') walk(x, `${path}.${k}`);
  };
  walk(value, '');
}

function assertAccessCounted(r: AccessReport, lines: number, where: string): void {
  const byReason = Object.values(r.malformedByReason).reduce((a, b) => a + b, 0);
  assert.equal(r.lines, lines, `${where}: lines`);
  assert.equal(byReason, r.malformed, `${where}: malformed by reason add up`);
  assert.equal(r.requests + r.blank + r.malformed, lines, `${where}: requests ${r.requests} + blank ${r.blank} + malformed ${r.malformed} = lines ${lines}`);
}

function assertOutputs(r: AccessReport, where: string): void {
  const json = r.endpoints.map(toJson);
  assertFinite(json, where);
  assertFinite({ ...r, endpoints: [] }, where);
  // The figures as every format prints them: no NaN or Infinity may reach a table, Markdown, CSV or TSV.
  const num = (k: string) => ({ header: k, value: (e: Record<string, unknown>) => (e[k] as number).toFixed(3) });
  const cols = ['count', 'min', 'max', 'sum', 'avg', 'stddev', 'p50', 'p90', 'p95', 'p99'].map(num);
  for (const f of ['md', 'csv', 'tsv', 'table'] as const) assert.ok(!/NaN|Infinity/.test(renderRows(json, cols, f)), `${where}: ${f}`);
}

const ACCESS: [AccessSeedFormat, string][] = [['ltsv', 'ltsv'], ['json', 'json'], ['combined', 'combined'], ['combined-alp', 'combined-alp'], ['custom', CUSTOM_LOG_FORMAT]];
const SLOW: SlowFlavour[] = ['mysql8', 'mariadb', 'percona57'];

void test(`access logs of every layout, mutated (${Math.round(TOTAL * 0.6)} lines)`, () => {
  const r = rng(SEED);
  const per = Math.ceil((TOTAL * 0.6) / ACCESS.length);
  for (const [seed, format] of ACCESS) {
    for (let done = 0; done < per;) {
      const text = mutate(accessSeed(seed, 5000, r), r);
      const lines = countLines(text);
      // The layout as declared, and the wrong one (every line then malformed, still counted once).
      for (const f of [format, seed === 'ltsv' ? 'json' : 'ltsv']) {
        const a = new AccessAnalyzer({ format: f, matchingGroups: ['^/api/estate/[0-9]+$', '^/api/chair/buy/\\d+$'], exactMemoryLimit: 1 << 16 });
        forEachLine(enc.encode(text), a.line);
        const rep = a.finish();
        assertAccessCounted(rep, lines, `${seed} as ${f}`);
        assertOutputs(rep, `${seed} as ${f}`);
      }
      if (seed === 'ltsv') {
        const a = new AccessAnalyzer({ format: 'ltsv', pattern: '^time:(?<time>[^\\t]*)\\t.*\\treq:(?<request>[^\\t]*)\\t.*\\tstatus:(?<status>[^\\t]*)\\t.*\\treqtime:(?<reqtime>[^\\t]*)' });
        forEachLine(enc.encode(text), a.line);
        assertAccessCounted(a.finish(), lines, 'ltsv by --pattern');
      }
      done += lines;
      fed += lines;
    }
  }
});

void test(`slow logs of three flavours, mutated (${Math.round(TOTAL * 0.3)} lines)`, () => {
  const r = rng(SEED + 1);
  const per = Math.ceil((TOTAL * 0.3) / SLOW.length);
  for (const flavour of SLOW) {
    for (let done = 0; done < per;) {
      const text = mutate(slowSeed(flavour, 800, r), r);
      const lines = countLines(text);
      const collector = new SlowStatsCollector({});
      const parser = new SlowLogParser((e) => collector.add(e), {});
      const n = forEachLine(enc.encode(text), (b, s, e, no) => parser.line(b, s, e, no));
      const summary = parser.end();
      assert.equal(n, lines);
      const c = summary.lineCounts;
      assert.equal(c.entries + c.malformed + c.banners + c.blank, lines, `${flavour}: entries ${c.entries} + malformed ${c.malformed} + banners ${c.banners} + blank ${c.blank} = lines ${lines}`);
      const stats = collector.result();
      assertFinite(stats, flavour);
      assertFinite({ ...summary, problems: [], damagedSamples: [] }, flavour);
      for (const q of stats) assert.ok(q.count > 0 && q.queryTime.total >= 0 && q.queryTime.min >= 0, `${flavour}: ${q.fingerprint} ${q.queryTime.min}`);
      done += lines;
      fed += lines;
    }
  }
});

void test(`gzip logs, whole, cut short and corrupt (${Math.round(TOTAL * 0.1)} lines)`, async () => {
  const r = rng(SEED + 2);
  const per = Math.ceil((TOTAL * 0.1) / 2);
  let files = 0;
  for (const kind of ['access', 'slow'] as const) {
    for (let done = 0; done < per; files++) {
      const text = kind === 'access' ? mutate(accessSeed('ltsv', 4000, r), r) : mutate(slowSeed(SLOW[files % 3], 500, r), r);
      const gz = gzipSync(text);
      const cut = Math.floor(gz.length * (0.2 + r() * 0.7));
      const variants: [string, Buffer][] = [['whole', gz], ['cut', gz.subarray(0, cut)], ['corrupt', Buffer.concat([gz.subarray(0, cut), Buffer.from([0xde, 0xad, 0xbe, 0xef]), gz.subarray(cut + 4)])]];
      for (const [name, bytes] of variants) {
        const path = join(dir, `${kind}-${files}-${name}.gz`);
        writeFileSync(path, bytes);
        if (kind === 'access') {
          const rep = await analyzeAccessLogFile(path, { format: 'ltsv' });
          assertAccessCounted(rep, rep.read.lines, `gzip ${name}`);
          assertOutputs(rep, `gzip ${name}`);
          if (name === 'whole') { assert.equal(rep.lines, countLines(text)); assert.equal(rep.read.damaged, undefined); } else assert.ok(rep.read.damaged, `gzip ${name}: damage reported`);
          if (name === 'cut') assert.match(rep.read.damaged!.message, /gzip data ends early after \d+ lines \(truncated\?\)$/);
        } else {
          const res = await analyzeSlowLogFile(path);
          const c = res.summary.lineCounts;
          assert.equal(c.entries + c.malformed + c.banners + c.blank, res.read.lines, `slow gzip ${name}: lines`);
          assertFinite(res.stats, `slow gzip ${name}`);
          if (name !== 'whole') assert.ok(res.read.damaged, `slow gzip ${name}: damage reported`);
        }
      }
      const lines = countLines(text);
      done += lines;
      fed += lines;
    }
  }
});

void test('the run fed at least the lines it promised', () => {
  assert.ok(fed >= TOTAL, `${fed} mutated lines fed, ${TOTAL} wanted`);
  if (process.env.QI_FUZZ_LINES) process.stdout.write(`# fuzz: ${fed} mutated lines\n`);
});
