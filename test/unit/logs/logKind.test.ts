import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { guessAccessFormat, sniffLog, wrongKindMessage } from '../../../src/core/logs/logKind';
import { FIXTURES } from '../../support/paths';

const enc = (s: string) => new TextEncoder().encode(s);

void test('one sniffer tells slow logs of every flavour from access logs of every layout', () => {
  for (const f of ['mariadb.log', 'mysql57.log', 'mysql80.log']) {
    assert.deepEqual(sniffLog(readFileSync(join(FIXTURES, 'logs', 'slow', f))), { kind: 'slow' }, f);
  }
  assert.deepEqual(sniffLog(readFileSync(join(FIXTURES, 'logs', 'access', 'sample.ltsv'))), { kind: 'access', format: 'ltsv' });
  assert.deepEqual(sniffLog(readFileSync(join(FIXTURES, 'logs', 'access', 'sample.jsonl'))), { kind: 'access', format: 'json' });
  assert.deepEqual(sniffLog(readFileSync(join(FIXTURES, 'logs', 'access', 'sample.combined'))), { kind: 'access', format: 'combined' });
  assert.deepEqual(sniffLog(enc('\n\n/usr/sbin/mariadbd, Version: 10.11.6-MariaDB-log (Debian). started with:\nTcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime                 Id Command    Argument\n')), { kind: 'slow' });
  assert.deepEqual(sniffLog(enc('hello\nworld\n')), { kind: 'unknown' });
  assert.deepEqual(sniffLog(enc('\n  \r\n\t\n')), { kind: 'empty' });
  assert.deepEqual(sniffLog(enc('')), { kind: 'empty' });
  assert.deepEqual(sniffLog(enc('{\n  "format": "query-insight-run",\n  "version": 1\n}\n')), { kind: 'run' }, 'a saved run, pretty-printed');
  assert.deepEqual(sniffLog(enc('{"format":"query-insight-run","version":1}\n')), { kind: 'run' });
  assert.deepEqual(sniffLog(enc('{"status":"200","uri":"/"}\n')), { kind: 'access', format: 'json' }, 'JSON that is not a run is an access log');
  assert.equal(guessAccessFormat(enc('hello')), 'combined');
  assert.equal(wrongKindMessage({ kind: 'slow' }, 'access'), 'this looks like a MySQL slow log; use `query-insight slow`');
  assert.equal(wrongKindMessage({ kind: 'access', format: 'ltsv' }, 'slow'), 'this looks like an nginx access log (ltsv); use `query-insight endpoints`');
  assert.equal(wrongKindMessage({ kind: 'unknown' }, 'slow'), '');
});
