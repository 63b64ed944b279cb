/**
 * `query-insight slow` on logs that are not what it expects: an access log is refused with exit 2
 * and a one-line reason; a log with one out-of-range `SET timestamp` still gives its whole report;
 * a gzip log cut short or corrupt gives the report of what came before, then says so, exit 3.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { slowCommand } from '../../../src/cli/commands/slow';
import { runCommand } from '../../support/runCommand';

const run = (args: string[], cwd: string) => runCommand(slowCommand, args, cwd);

void test('slow refuses access logs of every layout with exit 2 and one line; an empty file is no access log', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-slowcli-'));
  try {
    writeFileSync(join(dir, 'combined.log'), '192.168.0.10 - - [02/Mar/2024:10:00:00 +0900] "GET /api/chairs/12 HTTP/1.1" 200 512 "-" "isucandar" 0.012\n');
    writeFileSync(join(dir, 'access.ltsv'), 'time:02/Mar/2024:10:00:00 +0900\thost:192.168.0.10\tmethod:GET\turi:/api/chairs/12\tstatus:200\tsize:512\treqtime:0.012\n');
    writeFileSync(join(dir, 'access.json'), '{"time":"2024-03-02T10:00:00+09:00","method":"GET","uri":"/api/chairs/12","status":200,"request_time":0.012}\n');
    writeFileSync(join(dir, 'empty.log'), '');
    for (const f of ['combined.log', 'access.ltsv', 'access.json']) {
      const r = await run([f], dir);
      assert.equal(r.code, 2, f);
      assert.equal(r.out, '');
      assert.equal(r.err, `query-insight slow: ${f}: this looks like an access log; use \`query-insight endpoints\`\n`);
    }
    const empty = await run(['empty.log', '--quiet'], dir);
    assert.equal(empty.code, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('slow --format json: one out-of-range SET timestamp never aborts the report', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-slowcli-'));
  try {
    const entry = (ts: string, id: number) => `# Time: 2024-03-02T10:00:00.00000${id}Z\n# User@Host: isucon[isucon] @ localhost []  Id:    14\n# Query_time: 0.0${id}0000  Lock_time: 0.000010 Rows_sent: 1  Rows_examined: 50\nSET timestamp=${ts};\nSELECT * FROM chairs WHERE id = ${id};\n`;
    writeFileSync(join(dir, 'slow.log'), entry('1709373600', 1) + entry('9999999999999999999', 2) + entry('1709373600', 3));
    const r = await run(['slow.log', '--format', 'json'], dir);
    assert.equal(r.code, 0, r.err);
    const rows = r.out.trim().split('\n').map((l) => JSON.parse(l) as { count: number; firstSeen: string; lastSeen: string });
    assert.equal(rows.length, 1);
    assert.equal(rows[0].count, 3);
    assert.equal(rows[0].firstSeen, '2024-03-02T10:00:00.000Z');
    assert.match(r.err, /1 entries read with a damaged header/);
    assert.match(r.err, /line 6: SET timestamp out of range/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('slow on damaged gzip: the entries before the damage reported, then the file and lines named, exit 3', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-slowcli-'));
  try {
    const entries = Array.from({ length: 4000 }, (_, i) => `# Time: 2024-03-02T10:00:00.000000Z\n# User@Host: isucon[isucon] @ localhost []  Id:    14\n`
      + `# Query_time: 0.010000  Lock_time: 0.000010 Rows_sent: 1  Rows_examined: 50\nSET timestamp=1709373600;\nSELECT * FROM chairs WHERE id = ${i};\n`).join('');
    const gz = gzipSync(entries);
    writeFileSync(join(dir, 'whole.log.gz'), gz);
    writeFileSync(join(dir, 'cut.log.gz'), gz.subarray(0, Math.floor(gz.length * 0.6)));
    // the stored CRC-32 (the 8 bytes before the end hold CRC and length) no longer matches the data
    const bad = Buffer.from(gz);
    bad[bad.length - 8] ^= 0xff;
    writeFileSync(join(dir, 'crc.log.gz'), bad);

    const whole = await run(['whole.log.gz', '--format', 'json'], dir);
    assert.equal(whole.code, 0, whole.err);
    assert.doesNotMatch(whole.err, /gzip data/);

    const cut = await run(['cut.log.gz', '--format', 'json'], dir);
    assert.equal(cut.code, 3, cut.err);
    const counted = cut.out.trim().split('\n').map((l) => JSON.parse(l) as { fingerprint: string; count: number })
      .find((r) => r.fingerprint === 'select * from chairs where id = ?');
    assert.ok(counted && counted.count > 1000 && counted.count < 4000, cut.out);
    const m = /^query-insight slow: \S*cut\.log\.gz: gzip data ends early after (\d+) lines \(truncated\?\)$/m.exec(cut.err);
    assert.ok(m, cut.err);
    // the entry the damage cut (its statement without the final ;) is kept, counted as damaged
    assert.ok(Number(m[1]) > (counted.count - 1) * 5 && Number(m[1]) < (counted.count + 1) * 5, `${m[1]} lines for ${counted.count} entries of 5 lines`);
    assert.ok(cut.err.indexOf('# ') < cut.err.indexOf('gzip data ends early'), 'the summary comes before the message');

    const crc = await run(['crc.log.gz', '--format', 'json', '--quiet'], dir);
    assert.equal(crc.code, 3, crc.err);
    // why: the check fails at the end of the data; zlib drops the output of the block it was decoding then
    const c = /^query-insight slow: \S*crc\.log\.gz: gzip data is damaged after (\d+) lines \(incorrect data check\)$/m.exec(crc.err);
    assert.ok(c && Number(c[1]) > 0 && Number(c[1]) <= 20000, crc.err);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
