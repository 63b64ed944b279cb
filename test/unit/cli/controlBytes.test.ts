/**
 * Control bytes from logs never reach a terminal or a document raw: ESC (clear screen, OSC 8 links), BEL,
 * CR and U+202E (right-to-left override) in an access log's URI and user agent and in a slow log's SQL
 * come out of `endpoints` and `slow` as `\x1b`, `\x07`, `\x0d`, `\u202e` in the text table, md, csv and tsv,
 * and in the stderr samples of malformed lines. JSON stays as JSON.stringify writes it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../support/paths';
import { escapeControls } from '../../../src/core/format/controlChars';

const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
const NASTY = '\x1b[2J\x1b]8;;http://evil.example/\x07x\x1b]8;;\x07\rA\u202eB';

void test('escapeControls: C0 (but tab and line feed), DEL, C1 and bidi overrides and isolates as escapes; other text as it is', () => {
  assert.equal(escapeControls('a\x1bb\x07c\rd\u202ee\u2066f\u0085g\x7f'), 'a\\x1bb\\x07c\\x0dd\\u202ee\\u2066f\\x85g\\x7f');
  assert.equal(escapeControls('tab\tand\nline'), 'tab\tand\nline');
  assert.equal(escapeControls('日本語 café ✓'), '日本語 café ✓');
});

function run(args: string[]): { stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/query-insight.js'), ...args], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  return { stdout: r.stdout, stderr: r.stderr };
}

void test('endpoints and slow: every text format and the malformed samples show control bytes escaped; JSON as before', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-ctl-'));
  try {
    const access = join(dir, 'access.log');
    writeFileSync(access, [
      `time:2024-01-01T00:00:00+09:00\tmethod:GET\turi:/api/items/${NASTY}\tstatus:200\treqtime:0.120\tsize:10\tua:Mozilla ${NASTY}`,
      'time:2024-01-01T00:00:01+09:00\tmethod:GET\turi:/api/items/2\tstatus:200\treqtime:0.080\tsize:10\tua:curl',
      `broken line ${NASTY}`,
      '',
    ].join('\n'));
    const slow = join(dir, 'slow.log');
    writeFileSync(slow, [
      '# Time: 2024-01-01T00:00:00.000000Z',
      '# User@Host: isucon[isucon] @ localhost []',
      '# Query_time: 0.100000  Lock_time: 0.000000 Rows_sent: 1  Rows_examined: 1',
      'SET timestamp=1704067200;',
      `SELECT * FROM \`us${NASTY}ers\` WHERE name = 'x${NASTY}';`,
      `# Query_time: 1${NASTY}  Lock_time: 0.000000 Rows_sent: 1  Rows_examined: 1`,
      'SELECT 1;',
      '',
    ].join('\n'));
    for (const format of ['table', 'md', 'csv', 'tsv']) {
      for (const [what, out] of [['endpoints', run(['endpoints', access, '--format', format])], ['slow', run(['slow', slow, '--format', format])]] as const) {
        assert.doesNotMatch(out.stdout, RAW, `${what} --format ${format}: no raw control byte in stdout:\n${JSON.stringify(out.stdout)}`);
        assert.doesNotMatch(out.stderr, RAW, `${what} --format ${format}: no raw control byte in stderr:\n${JSON.stringify(out.stderr)}`);
        assert.match(out.stdout, /\\{1,2}x1b\\{0,2}\[2J/i, `${what} --format ${format} shows ESC as \\x1b`);
        assert.match(out.stdout, /\\{1,2}u202e/, `${what} --format ${format} shows U+202E as \\u202e`);
        assert.match(out.stderr, /malformed/, `${what}: a malformed line is reported`);
        assert.match(out.stderr, /\\x1b/, `${what}: its sample on stderr shows ESC as \\x1b`);
      }
    }
    // JSON stays as JSON.stringify writes it (C0 as \u001b …)
    const json = run(['slow', slow, '--format', 'json']).stdout;
    assert.match(json, /\\u001b\[2j/i);
    assert.doesNotMatch(json, /\\x1b/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
