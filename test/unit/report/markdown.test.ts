/** The Markdown export: heading, totals, one row per change, escaping, the row limit. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import { compareRuns } from '../../../src/core/report/compare';
import { comparisonMarkdown, mdCell } from '../../../src/core/report/markdown';
import { loadRunFromFile } from '../../../src/node/runFile';

const dir = join(FIXTURES, 'report');
const when = new Date(Date.UTC(2024, 4, 1, 3, 0, 0));
const load = (f: string, label: string) => loadRunFromFile(join(dir, f), { meta: { id: label, source: `logs/${f}`, label, createdAt: when } });

void test('access comparison as Markdown', async () => {
  const c = compareRuns(await load('before.ltsv', 'round 1'), await load('after.ltsv', 'round 2 | index'));
  const md = comparisonMarkdown(c);
  const lines = md.split('\n');
  assert.equal(lines[0], '### round 1 → round 2 \\| index: endpoints (access log)');
  // the time the runs were made is not when the benchmark ran: the stamp is the span of the log's own times
  // (this fixture's requests all carry one time, so no throughput is derived from a 0 s span)
  assert.ok(lines.includes('- before: round 1 — `logs/before.ltsv`, 2023-11-21 01:00:00 – 01:00:00 UTC (0 s)'), md);
  assert.ok(!md.includes('throughput'), md);
  assert.ok(!md.includes('2024-05-01'), md);
  assert.ok(md.includes('- requests: 7 → 9 (+2, ×1.29)'));
  assert.ok(md.includes('- total time: 2.050 s → 2.020 s (−30.0 ms, ×0.99)'));
  // 4 requests a side cannot show 250 → 50 ms beyond noise (Welch p ≈ 0.05); 2 → 3 identical logins at 500 → 600 ms can
  assert.ok(md.includes("- verdict by the time per request (mean and p99), beyond the runs' own spread: 1 slower, 1 within noise, 1 new, 1 gone"), md);
  const header = lines.findIndex((l) => l.startsWith('| endpoint |'));
  // one unit per column, chosen from its figures
  assert.equal(lines[header], '| endpoint | verdict | count | total (s) | Δ total (ms) | ratio | mean (ms) | p99 (ms) |');
  assert.equal(lines[header + 1], '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  assert.deepEqual(lines.slice(header + 2, header + 6), [
    '| `GET /items/:id` | within noise (n 4 → 4, mean −200 ms, 99 % interval −577 ms … +177 ms (holds 0)) | 4 → 4 | 1.000 → 0.200 | −800.00 | ×0.20 | 250.00 → 50.00 | 400.00 → 50.00 |',
    '| `POST /login` | **slower** | 2 → 3 | 1.000 → 1.800 | +800.00 | ×1.80 | 500.00 → 600.00 | 500.00 → 600.00 |',
    '| `GET /old` (gone) | gone | 1 → – | 0.050 → – | −50.00 | gone | 50.00 → – | 50.00 → – |',
    '| `GET /new` (new) | new | – → 2 | – → 0.020 | +20.00 | new | – → 10.00 | – → 10.00 |',
  ]);
});

void test('slow comparison uses p95; the limit counts the rows left out', async () => {
  const c = compareRuns(await load('before.slow.log', 'a'), await load('after.slow.log', 'b'));
  const md = comparisonMarkdown(c, { limit: 2 });
  assert.match(md, /\| query \| verdict \| count \| total \((s|ms|µs)\) \| Δ total \((s|ms|µs)\) \| ratio \| mean \((s|ms|µs)\) \| p95 \((s|ms|µs)\) \|/);
  assert.equal(md.split('\n').filter((l) => l.startsWith('| `')).length, 2);
  assert.ok(md.includes('…and 2 more rows with smaller changes.'));
  assert.ok(!comparisonMarkdown(c, { limit: 0 }).includes('more rows'));
});

void test('cells escape pipes, backslashes, backticks and line breaks', () => {
  assert.equal(mdCell('a|b\\c`d\ne'), 'a\\|b\\\\c\\`d e');
});
