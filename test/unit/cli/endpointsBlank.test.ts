/**
 * `endpoints` counts every line once and says so: lines = requests + malformed + blank, all four in its
 * summary on stderr, whatever the output format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../support/paths';

void test('endpoints: the summary names the blank lines, and lines = requests + malformed + blank', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-blank-'));
  try {
    const log = join(dir, 'access.log');
    const req = (uri: string) => `time:2024-01-01T00:00:00+09:00\tmethod:GET\turi:${uri}\tstatus:200\treqtime:0.100\tsize:10`;
    writeFileSync(log, [req('/a'), '', req('/b'), 'not a request', '', req('/a'), ''].join('\n'));
    for (const format of ['table', 'json']) {
      const r = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/query-insight.js'), 'endpoints', log, '--format', format], { encoding: 'utf8', timeout: 50_000 });
      assert.equal(r.status, 0, r.stderr);
      const m = /^# ltsv: (\d+) lines, (\d+) requests, \d+ endpoints, (\d+) malformed, (\d+) blank/m.exec(r.stderr);
      assert.ok(m, r.stderr);
      const [lines, requests, malformed, blank] = m.slice(1).map(Number);
      assert.deepEqual({ lines, requests, malformed, blank }, { lines: 6, requests: 3, malformed: 1, blank: 2 });
      assert.equal(lines, requests + malformed + blank);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
