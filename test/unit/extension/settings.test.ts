/** The typed settings adapter: defaults, ill-typed values replaced and reported. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readSettings, SETTINGS } from '../../../src/extension/settings';

void test('no values: every default', () => {
  const { config, problems } = readSettings(() => undefined);
  assert.deepEqual(problems, []);
  assert.deepEqual(config.scan, { exclude: SETTINGS['scan.exclude'].default, maxFileSizeKb: 1024, debounceMs: 300, fileTimeBudgetMs: 10_000 });
  assert.deepEqual(config.connection, { host: '127.0.0.1', port: 3306, socket: '', user: '', database: '', sslMode: 'DISABLED', sslCa: '' });
  assert.deepEqual(config.ssh, { host: '', port: 22, user: '', privateKeyPath: '', useAgent: true });
});

void test('values of the right type are taken as they are', () => {
  const raw: Record<string, unknown> = { 'scan.exclude': ['**/tmp/**'], 'scan.maxFileSizeKb': 64, 'connection.port': 13306, 'connection.user': 'isucon' };
  const { config, problems } = readSettings((k) => raw[k]);
  assert.deepEqual(problems, []);
  assert.deepEqual(config.scan.exclude, ['**/tmp/**']);
  assert.equal(config.scan.maxFileSizeKb, 64);
  assert.equal(config.connection.port, 13306);
  assert.equal(config.connection.user, 'isucon');
});

void test('ill-typed or out-of-range values fall back to the default and are reported by full name', () => {
  const raw: Record<string, unknown> = { 'scan.exclude': 'node_modules', 'scan.debounceMs': -5, 'connection.port': 70000, 'scan.maxFileSizeKb': 1.5 };
  const { config, problems } = readSettings((k) => raw[k]);
  assert.deepEqual(config.scan.exclude, SETTINGS['scan.exclude'].default);
  assert.equal(config.scan.debounceMs, 300);
  assert.equal(config.connection.port, 3306);
  assert.equal(config.scan.maxFileSizeKb, 1024);
  assert.deepEqual(problems.map((p) => p.key).sort(),
    ['queryInsight.connection.port', 'queryInsight.scan.debounceMs', 'queryInsight.scan.exclude', 'queryInsight.scan.maxFileSizeKb']);
  assert.match(problems.find((p) => p.key.endsWith('port'))!.message, /an integer in \[1, 65535\], got 70000; using 3306/);
});

void test('SSH tunnel settings: typed values taken, ill-typed ones reported', () => {
  const raw: Record<string, unknown> = { 'connection.ssh.host': 'isu1', 'connection.ssh.port': 2222, 'connection.ssh.user': 'isucon', 'connection.ssh.privateKeyPath': '~/.ssh/id_ed25519', 'connection.ssh.useAgent': false };
  assert.deepEqual(readSettings((k) => raw[k]).problems, []);
  assert.deepEqual(readSettings((k) => raw[k]).config.ssh, { host: 'isu1', port: 2222, user: 'isucon', privateKeyPath: '~/.ssh/id_ed25519', useAgent: false });
  const bad = readSettings((k) => ({ 'connection.ssh.useAgent': 'yes', 'connection.ssh.port': 0 } as Record<string, unknown>)[k]);
  assert.deepEqual(bad.config.ssh, { host: '', port: 22, user: '', privateKeyPath: '', useAgent: true });
  assert.deepEqual(bad.problems.map((p) => p.key).sort(), ['queryInsight.connection.ssh.port', 'queryInsight.connection.ssh.useAgent']);
  assert.match(bad.problems.find((p) => p.key.endsWith('useAgent'))!.message, /expected a boolean, got "yes"; using true/);
});

void test('access-log layout: a name from the list, nginx with its log_format string, or an old log_format string kept with a note', () => {
  assert.equal(readSettings(() => undefined).config.endpoints.logFormat, 'auto');
  assert.equal(readSettings((k) => (k === 'endpoints.logFormat' ? 'ltsv' : undefined)).config.endpoints.logFormat, 'ltsv');
  const fmt = '$remote_addr [$time_local] "$request" $status $body_bytes_sent $request_time';
  const nginx = readSettings((k) => ({ 'endpoints.logFormat': 'nginx', 'endpoints.nginxLogFormat': fmt } as Record<string, unknown>)[k]);
  assert.deepEqual(nginx.problems, []);
  assert.equal(nginx.config.endpoints.logFormat, fmt);
  const legacy = readSettings((k) => (k === 'endpoints.logFormat' ? fmt : undefined));
  assert.equal(legacy.config.endpoints.logFormat, fmt);
  assert.match(legacy.problems[0]!.message, /belongs in queryInsight\.endpoints\.nginxLogFormat/);
  const unknown = readSettings((k) => (k === 'endpoints.logFormat' ? 'apache' : undefined));
  assert.equal(unknown.config.endpoints.logFormat, 'auto');
  assert.match(unknown.problems[0]!.message, /expected one of auto, ltsv, json, combined, combined-alp, nginx, got "apache"/);
  const empty = readSettings((k) => (k === 'endpoints.logFormat' ? 'nginx' : undefined));
  assert.equal(empty.config.endpoints.logFormat, 'auto');
  assert.equal(empty.problems[0]!.key, 'queryInsight.endpoints.nginxLogFormat');
});

void test('slow-log watch delay: its own setting', () => {
  assert.equal(readSettings(() => undefined).config.slowLog.watchDebounceMs, 1000);
  assert.equal(readSettings((k) => (k === 'slowLog.watchDebounceMs' ? 250 : undefined)).config.slowLog.watchDebounceMs, 250);
});
