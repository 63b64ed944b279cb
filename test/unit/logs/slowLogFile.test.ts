import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { FIXTURES } from '../../support/paths';
import { analyzeSlowLogFile } from '../../../src/node/slowLogFile';

const fixture = (name: string): Buffer => readFileSync(join(FIXTURES, 'logs/slow', name));

void test('plain and gzip files give the same statistics; malformed entries are reported with line numbers', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-slow-'));
  try {
    const text = Buffer.concat([fixture('malformed.log'), Buffer.from('\n'), fixture('mysql57.log'), fixture('mariadb.log')]);
    writeFileSync(join(dir, 'slow.log'), text);
    writeFileSync(join(dir, 'slow.log.gz'), gzipSync(text));
    const plain = await analyzeSlowLogFile(join(dir, 'slow.log'), {}, { chunkBytes: 64 });
    const gz = await analyzeSlowLogFile(join(dir, 'slow.log.gz'));
    assert.equal(plain.read.gzip, false);
    assert.equal(gz.read.gzip, true);
    assert.deepEqual(gz.stats, plain.stats);
    assert.deepEqual(gz.summary, plain.summary);
    assert.equal(plain.summary.entries, 4 + 4 + 4, 'malformed.log keeps the entry without # Query_time and the one cut short');
    assert.equal(plain.summary.malformed, 3);
    assert.equal(plain.summary.damaged, 2);
    const users = plain.stats.find((s) => s.fingerprint === 'select * from users where id = ?');
    assert.equal(users?.count, 7);
    assert.equal(plain.stats.find((s) => s.fingerprint === 'administrator command: Quit')?.admin, true);
    assert.deepEqual(plain.summary.problems.map((p) => p.line), [1, 8, 11]);
    assert.deepEqual(plain.summary.damagedSamples.map((p) => p.line), [16, 25]);
    assert.equal(plain.summary.banners, 4);
    assert.match(plain.summary.problems[0].text, /^ {2}WHERE id = 5/);
    assert.equal(plain.summary.damagedSamples[1].text, 'SELECT * FROM users WHERE');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
