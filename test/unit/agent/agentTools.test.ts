/**
 * The agent tools without a database: the tool table agrees with package.json's languageModelTools,
 * arguments are checked before anything runs, text from outside is escaped for Markdown, the tools
 * answer from the source of a fixture app (the same N+1 findings as the CLI's scan), and the editor's
 * MCP server command line carries the connection settings but never a password.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, REPO_ROOT } from '../../support/paths';
import { TOOLS } from '../../../src/agent/toolTable';
import { checkArgs, ToolError } from '../../../src/agent/toolArgs';
import { mdCode, mdText } from '../../../src/agent/markdown';
import { runTool, callReachesDatabase } from '../../../src/agent/agentTools';
import { diskScanner } from '../../../src/agent/diskScan';
import { fsAgentHost, relativeLink } from '../../../src/agent/fsHost';
import { fsGrammarSource } from '../../../src/node/grammars';
import { nPlusOneReport } from '../../../src/core/analysis/nPlusOneReport';
import { mcpServerArgs } from '../../../src/extension/agent/mcpDefinition';

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  contributes: { languageModelTools: { name: string; displayName: string; modelDescription: string; inputSchema: unknown }[] };
  activationEvents: string[];
};

void test('package.json contributes every tool of the table as a language-model tool, with the same schema and description', () => {
  const contributed = manifest.contributes.languageModelTools;
  assert.deepEqual(contributed.map((t) => t.name), TOOLS.map((t) => `queryInsight_${t.name}`));
  for (const [i, t] of TOOLS.entries()) {
    assert.deepEqual(contributed[i].inputSchema, t.inputSchema, t.name);
    assert.equal(contributed[i].modelDescription, t.description, t.name);
    assert.equal(contributed[i].displayName, t.title, t.name);
    assert.ok(manifest.activationEvents.includes(`onLanguageModelTool:queryInsight_${t.name}`), `${t.name} activates the extension`);
  }
});

void test('arguments are checked against the schema: types, bounds, enums, unknown and required names', () => {
  const findings = TOOLS.find((t) => t.name === 'findings')!.inputSchema;
  const endpoints = TOOLS.find((t) => t.name === 'endpoints')!.inputSchema;
  assert.deepEqual(checkArgs('findings', findings, { path: 'webapp', line: 3, limit: 5 }), { path: 'webapp', line: 3, limit: 5 });
  assert.deepEqual(checkArgs('findings', findings, undefined), {});
  const wrong: [unknown, RegExp][] = [
    [{ limit: 2.5 }, /`limit` must be a whole number, not number 2\.5/],
    [{ limit: 201 }, /`limit` must be at most 200/],
    [{ line: 0 }, /`line` must be at least 1/],
    [{ path: 7 }, /`path` must be a string/],
    [{ depth: 1 }, /unknown argument `depth` \(arguments: path, line, limit\)/],
    [[1, 2], /must be an object, not an array/],
    ['webapp', /must be an object/],
  ];
  for (const [args, message] of wrong) assert.throws(() => checkArgs('findings', findings, args), (e: Error) => e instanceof ToolError && message.test(e.message), JSON.stringify(args));
  assert.throws(() => checkArgs('endpoints', endpoints, {}), /`logs` is required/);
  assert.throws(() => checkArgs('endpoints', endpoints, { logs: [] }), /`logs` needs at least 1 item/);
  assert.throws(() => checkArgs('endpoints', endpoints, { logs: ['a.log'], sort: 'p42' }), /`sort` must be one of sum, count, avg, p99, max/);
  assert.throws(() => checkArgs('endpoints', endpoints, { logs: ['a.log', 3] }), /`logs` must be an array of strings/);
});

void test('Markdown: outside text cannot open markup, code spans survive backticks and pipes, links escape their text', () => {
  assert.equal(mdText('<img src=x> [a](b) *x* `y` | #h'), '\\<img src=x\\> \\[a\\](b) \\*x\\* \\`y\\` \\| \\#h');
  assert.equal(mdCode('SELECT `id` FROM t'), '``SELECT `id` FROM t``');
  assert.equal(mdCode('a | b\n  c'), '`a \\| b c`');
  assert.equal(mdCode('`x`'), '`` `x` ``');
  assert.equal(mdCode('x'.repeat(10), 5), '`xxxx…`');
  assert.equal(relativeLink('/w', '/w/web app/main(1).go', 3), '[web app/main(1).go:3](web%20app/main%281%29.go#L3)');
});

void test('which calls reach the database (the editor asks before those)', () => {
  assert.equal(callReachesDatabase('statements', {}), false);
  assert.equal(callReachesDatabase('findings', {}), true);
  assert.equal(callReachesDatabase('explain', { sql: 'SELECT 1' }), true);
  assert.equal(callReachesDatabase('endpoints', { logs: ['a'] }), false);
  assert.equal(callReachesDatabase('slow_queries', { logs: ['a'] }), false);
  assert.equal(callReachesDatabase('slow_queries', { seconds: 5 }), true);
});

void test('without a database the tools answer from the source: the N+1 findings of the CLI, and a clear word for what needs a connection', async () => {
  const root = join(FIXTURES, 'mcp', 'app');
  const host = fsAgentHost({ root, scan: diskScanner(fsGrammarSource()), explainService: async () => undefined, connectHint: 'give --user and --database' });
  const findings = await runTool(host, 'findings', { path: '.' });
  assert.equal(findings.isError, undefined, findings.text);
  const scan = await host.scan(root);
  const cli = nPlusOneReport(scan.facts).filter((r) => r.severity !== 'hint').map((r) => `${r.file}:${r.line}`);
  assert.deepEqual(cli, ['main.go:43', 'main.go:46']);
  for (const at of cli) assert.match(findings.text, new RegExp(`\`n-plus-one\` \\[${at.replace('.', '\\.')}\\]`));
  assert.match(findings.text, /Plan findings need a database connection, and none is configured: give --user and --database/);
  const explain = await runTool(host, 'explain', { path: 'main.go', line: 39 });
  assert.deepEqual(explain, { text: 'explain needs a database connection, and none is configured: give --user and --database', isError: true });
  const advise = await runTool(host, 'advise', {});
  assert.equal(advise.isError, undefined, advise.text);
  assert.match(advise.text, /No database connected and no schema file found/);
  assert.deepEqual(await runTool(host, 'nope', {}), { text: 'unknown tool `nope`', isError: true });
});

void test('the editor\'s MCP server: the workspace and the connection settings as flags, never the password', () => {
  const settings = { host: 'db.local', port: 3307, socket: '', user: 'isucon', database: 'isuconp', sslMode: 'DISABLED', sslCa: '' };
  assert.deepEqual(mcpServerArgs('/home/isucon/webapp', settings), ['mcp', '/home/isucon/webapp', '--host', 'db.local', '--port', '3307', '--user', 'isucon', '--database', 'isuconp']);
  assert.deepEqual(mcpServerArgs('/w', { ...settings, socket: '/run/mysqld/mysqld.sock' }), ['mcp', '/w', '--socket', '/run/mysqld/mysqld.sock', '--user', 'isucon', '--database', 'isuconp']);
  assert.deepEqual(mcpServerArgs('/w', { ...settings, sslMode: 'VERIFY_CA', sslCa: '~/ca.pem' }).slice(-4), ['--ssl-mode', 'VERIFY_CA', '--ssl-ca', '~/ca.pem']);
  assert.deepEqual(mcpServerArgs('/w', undefined), ['mcp', '/w']);
});
