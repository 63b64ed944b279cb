/** The pickers' view of a file (the one log sniffer, plus runs and empty files) and the one-line reason an import read nothing. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { nothingReadMessage } from '../../../src/core/logs/nothingRead';
import { sniffLogFile } from '../../../src/node/logSniffFile';

const SLOW = '/usr/sbin/mariadbd, Version: 10.11.6-MariaDB-0+deb12u1-log (Debian 12). started with:\nTcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n# Time: 241125  8:30:01\n# User@Host: isucon[isucon] @ localhost []\n# Query_time: 0.000412  Lock_time: 0.000101 Rows_sent: 1  Rows_examined: 1\nSELECT 1;\n';
const LTSV = 'time:2024-11-25T08:30:01+09:00\thost:127.0.0.1\tmethod:GET\turi:/\tstatus:200\tsize:512\treqtime:0.012\n';
const COMBINED = '127.0.0.1 - - [25/Nov/2024:08:30:01 +0900] "GET / HTTP/1.1" 200 512 "-" "bench" 0.012\n';

void test('each kind of file sniffs as itself: gzip looked into, blanks are empty, a saved run, other text unknown', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-sniff-'));
  try {
    writeFileSync(join(dir, 'access.log'), '');
    writeFileSync(join(dir, 'blank.log'), '\n  \n');
    writeFileSync(join(dir, 'combined.log'), `\n${COMBINED}`);
    writeFileSync(join(dir, 'run.json'), '{"format":"query-insight-run","version":1}\n');
    writeFileSync(join(dir, 'README'), 'hello world\nthis is a README\n');
    writeFileSync(join(dir, 'slow.log.gz'), gzipSync(SLOW));
    writeFileSync(join(dir, 'access.log.gz'), gzipSync(LTSV.repeat(50)));
    assert.equal(sniffLogFile(join(dir, 'access.log')).kind, 'empty');
    assert.equal(sniffLogFile(join(dir, 'blank.log')).kind, 'empty');
    assert.deepEqual(sniffLogFile(join(dir, 'combined.log')), { kind: 'access', format: 'combined' });
    assert.equal(sniffLogFile(join(dir, 'run.json')).kind, 'run');
    assert.equal(sniffLogFile(join(dir, 'README')).kind, 'unknown');
    assert.equal(sniffLogFile(join(dir, 'slow.log.gz')).kind, 'slow');
    assert.deepEqual(sniffLogFile(join(dir, 'access.log.gz')), { kind: 'access', format: 'ltsv' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('an import that read nothing says why in one line', () => {
  assert.equal(nothingReadMessage({ name: 'logs/slow-before.log', expected: 'access', sniffed: 'slow', lines: 120 }),
    'nothing imported from logs/slow-before.log: it is a slow query log, not an access log.');
  assert.equal(nothingReadMessage({ name: '/var/log/nginx/access.log', expected: 'access', sniffed: 'empty', lines: 0 }),
    'nothing imported from /var/log/nginx/access.log: the file is empty.');
  assert.equal(nothingReadMessage({ name: 'x.log', expected: 'access', sniffed: 'access', lines: 1200, firstProblem: { line: 1, reason: 'no reqtime field' } }),
    'nothing imported from x.log: none of its 1,200 lines is a request; line 1: no reqtime field.');
  assert.equal(nothingReadMessage({ name: 'README', expected: 'slow', sniffed: 'unknown', lines: 3 }), 'nothing imported from README: none of its 3 lines is a statement.');
  for (const m of [nothingReadMessage({ name: 'a', expected: 'slow', sniffed: 'access', lines: 9 })]) assert.ok(!m.includes('\n'));
});
