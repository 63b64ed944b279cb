/**
 * `query-insight mcp` as a client runs it: the bundled CLI started as a child process, spoken to in
 * JSON-RPC over stdio, against a private MariaDB (the isuconish schema, 100k+ rows) and a contest-style
 * fixture app (test/fixtures/mcp/app). Then the server's general log: the tool calls sent nothing but
 * EXPLAIN, schema, performance_schema and sampling reads, and the session set-up.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { runsCommand } from '../../src/cli/commands/runs';
import { runCommand } from '../support/runCommand';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES } from '../support/paths';
import { startMariaDb, type MariaDbServer } from '../support/mariadb';
import { findingKeys, McpChild } from '../support/mcpClient';

const APP = join(FIXTURES, 'mcp', 'app');
const PASSWORD = 'qi-agent-secret';
let db: MariaDbServer;
let mcp: McpChild;
let scratch: string;

before(async () => {
  db = await startMariaDb({ performanceSchema: true, args: ['--general-log=1', '--slow-query-log=1', '--long-query-time=0'] });
  db.sql('CREATE DATABASE isu');
  db.sql(readFileSync(join(FIXTURES, 'schemas', 'isuconish.sql'), 'utf8'), 'isu');
  db.sql(readFileSync(join(FIXTURES, 'schemas', 'isuconish-data.sql'), 'utf8'), 'isu');
  // why: a user of its own makes the tools' statements easy to pick out of the general log; SELECT on
  // performance_schema is what a window needs.
  db.sql(`CREATE USER 'agent'@'localhost' IDENTIFIED BY '${PASSWORD}';
    GRANT SELECT, INSERT, UPDATE, DELETE ON isu.* TO 'agent'@'localhost'; GRANT SELECT ON performance_schema.* TO 'agent'@'localhost';`);
  scratch = mkdtempSync(join(tmpdir(), 'qi-mcp-'));
  mcp = new McpChild([APP, '--socket', db.socket, '--user', 'agent', '--database', 'isu'], { MYSQL_PWD: PASSWORD });
}, { timeout: 180_000 } as never);

after(async () => {
  await mcp?.close();
  await db?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

void test('initialize, then tools/list gives every tool with its input schema', async () => {
  const init = await mcp.initialize();
  assert.equal((init.serverInfo as { name: string }).name, 'query-insight');
  assert.ok((init.capabilities as Record<string, unknown>).tools, 'the server offers tools');
  const list = await mcp.request('tools/list');
  const tools = list.result!.tools as { name: string; description: string; inputSchema: { type: string; properties: Record<string, { type: string }>; required?: string[] }; annotations?: { readOnlyHint?: boolean } }[];
  assert.deepEqual(tools.map((t) => t.name), ['statements', 'findings', 'explain', 'advise', 'endpoints', 'slow_queries', 'runs_diff']);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.ok(t.description.length > 40, t.name);
    assert.equal(t.annotations?.readOnlyHint, true, `${t.name} is read-only`);
  }
  const byName = new Map(tools.map((t) => [t.name, t]));
  assert.deepEqual(Object.keys(byName.get('findings')!.inputSchema.properties).sort(), ['limit', 'line', 'path']);
  assert.equal(byName.get('findings')!.inputSchema.properties.line.type, 'integer');
  assert.deepEqual(Object.keys(byName.get('explain')!.inputSchema.properties).sort(), ['line', 'path', 'sql']);
  assert.deepEqual(byName.get('endpoints')!.inputSchema.required, ['logs']);
});

void test('findings on the fixture app: the N+1 loop and the scan, each at its file:line', async () => {
  const r = await mcp.call('findings', { path: '.' });
  assert.equal(r.isError, false, r.text);
  assert.deepEqual(findingKeys(r.text), ['filesort main.go:39', 'full-table-scan main.go:39', 'n-plus-one main.go:43', 'n-plus-one main.go:46']);
  // links a client can open, the loop named, the database named
  assert.match(r.text, /\[main\.go:43\]\(main\.go#L43\), loop \[main\.go:42\]\(main\.go#L42\)/);
  assert.match(r.text, /`full-table-scan` on `posts` \[main\.go:39\]\(main\.go#L39\) in `getUserPosts`/);
  assert.match(r.text, /from EXPLAIN on MariaDB 10\.\d+/);
  // a file:line narrows to what is on that line; limit bounds the rows and says how many are left
  assert.deepEqual(findingKeys((await mcp.call('findings', { path: 'main.go', line: 46 })).text), ['n-plus-one main.go:46']);
  const one = await mcp.call('findings', { limit: 1 });
  assert.equal(findingKeys(one.text).length, 1);
  assert.match(one.text, /3 more findings not shown \(raise `limit`/);
});

void test('statements lists each statement with file:line, function and its loop', async () => {
  const r = await mcp.call('statements', { path: 'main.go' });
  assert.equal(r.isError, false, r.text);
  assert.match(r.text, /^## SQL statements in `main\.go`: 4$/m);
  assert.match(r.text, /^- \[main\.go:43\]\(main\.go#L43\) in `getUserPosts`, inside range loop at line 42 over `posts`: `SELECT \* FROM users WHERE id = \?`$/m);
  assert.match(r.text, /^- \[main\.go:55\]\(main\.go#L55\) in `getPost`: `SELECT \* FROM posts WHERE id = \?`$/m);
});

void test('explain of one statement against the private MariaDB: the plan, what was filled in, the findings, the DDL not applied', async () => {
  const indexesBefore = db.sql('SHOW INDEX FROM posts', 'isu');
  const r = await mcp.call('explain', { path: 'main.go', line: 39 });
  assert.equal(r.isError, false, r.text);
  assert.match(r.text, /^## EXPLAIN of \[main\.go:39\]\(main\.go#L39\) in `getUserPosts`$/m);
  assert.match(r.text, /^Filled in: `\?` ← `\d+` \(`posts\.user_id`, sample\)$/m);
  assert.match(r.text, /^\| 1 \| SIMPLE \| posts \| ALL \|/m, 'the plan row of posts reads the whole table');
  assert.match(r.text, /^- \*\*error\*\* `full-table-scan` on `posts`: /m);
  assert.match(r.text, /^- \*\*\w+\*\* `filesort` on `posts`: /m);
  assert.match(r.text, /nothing was applied/);
  assert.match(r.text, /^ALTER TABLE `posts` ADD INDEX `idx_posts_user_id_created_at` \(`user_id`, `created_at`\)/m);
  assert.equal(db.sql('SHOW INDEX FROM posts', 'isu'), indexesBefore, 'the DDL was returned, not applied');
  // a statement given as text
  const bySql = await mcp.call('explain', { sql: 'SELECT * FROM users WHERE id = 7' });
  assert.equal(bySql.isError, false, bySql.text);
  assert.match(bySql.text, /\| users \| const \|/);
  assert.match(bySql.text, /No findings/);
});

void test('a bad argument is a tool error that says what is wrong, and the server goes on', async () => {
  const cases: [string, unknown, RegExp][] = [
    ['findings', { limit: 0 }, /`limit` must be at least 1/],
    ['findings', { limit: 'ten' }, /`limit` must be a whole number, not the string "ten"/],
    ['statements', { path: 'no/such/dir' }, /no such file or folder: no\/such\/dir/],
    ['statements', { colour: 'red' }, /unknown argument `colour`/],
    ['explain', { path: 'main.go' }, /give `path` and `line`/],
    ['explain', { path: 'main.go', line: 2 }, /no SQL statement at main\.go:2; the statements of that file start on lines 39, 43, 46, 55/],
    ['explain', { sql: 'SELECT 1', line: 3 }, /either `sql`, or `path` and `line`/],
    ['endpoints', {}, /`logs` is required/],
    ['endpoints', { logs: ['main.go'] }, /main\.go: not an nginx access log/],
    ['slow_queries', { logs: ['no-such.log'] }, /no such log file: no-such\.log/],
    ['slow_queries', {}, /either `logs`.*or `seconds`/],
    ['slow_queries', { seconds: 100000 }, /`seconds` must be at most 600/],
    ['runs_diff', {}, /runs_diff: /],
    ['no_such_tool', {}, /unknown tool/],
  ];
  for (const [tool, args, message] of cases) {
    const r = await mcp.request('tools/call', { name: tool, arguments: args });
    const text = r.result ? (r.result.content as { text: string }[])[0].text : r.error?.message ?? '';
    assert.ok(r.result?.isError === true || r.error, `${tool} ${JSON.stringify(args)} is an error: ${JSON.stringify(r)}`);
    assert.match(text, message, `${tool} ${JSON.stringify(args)}`);
  }
  // still serving
  const again = await mcp.call('statements', { path: 'main.go', line: 55 });
  assert.equal(again.isError, false);
  assert.match(again.text, /`SELECT \* FROM posts WHERE id = \?`/);
  assert.deepEqual(mcp.stray, [], 'nothing but JSON-RPC on stdout');
});

void test('advise returns the index DDL as text, from the database\'s schema', async () => {
  const r = await mcp.call('advise', {});
  assert.equal(r.isError, false, r.text);
  assert.match(r.text, /^- ``ALTER TABLE `posts` ADD INDEX `idx_posts_user_id_created_at` \(`user_id`, `created_at`\);``$/m);
  assert.match(r.text, /for \[main\.go:39\]\(main\.go#L39\)/);
  assert.match(r.text, /Existing indexes from the database \(MariaDB/);
  assert.doesNotMatch(db.sql('SHOW INDEX FROM posts', 'isu'), /idx_posts_user_id_created_at/);
});

void test('endpoints ranks an access log by the app\'s routes, with the handler\'s file:line', async () => {
  const log = join(scratch, 'access.log');
  const lines: string[] = [];
  for (let i = 0; i < 30; i++) lines.push(`time:2026-11-28T06:00:${String(i).padStart(2, '0')}+00:00\tmethod:GET\turi:/users/${i}/posts\tstatus:200\tsize:512\treqtime:0.${String(100 + i)}`);
  for (let i = 0; i < 10; i++) lines.push(`time:2026-11-28T06:01:${String(i).padStart(2, '0')}+00:00\tmethod:GET\turi:/posts/${i}\tstatus:${i < 2 ? 404 : 200}\tsize:128\treqtime:0.010`);
  writeFileSync(log, lines.join('\n') + '\n');
  const r = await mcp.call('endpoints', { logs: [log] });
  assert.equal(r.isError, false, r.text);
  assert.match(r.text, /2 endpoints, 40 requests from 40 lines/);
  const rows = r.text.split('\n').filter((l) => l.startsWith('| GET'));
  assert.equal(rows.length, 2);
  assert.match(rows[0], /^\| GET \| `\/users\/:id\/posts` \| 30 \| 3\.435 \|.*\| `getUserPosts` \[main\.go:36\]\(main\.go#L36\) \|$/);
  assert.match(rows[1], /^\| GET \| `\/posts\/:id` \| 10 \| 0\.100 \|.* \| 2 \| 0 \| `getPost` \[main\.go:53\]\(main\.go#L53\) \|$/);
});

void test('slow_queries from the server\'s slow log and from a performance_schema window, mapped to file:line', async () => {
  for (let i = 1; i <= 5; i++) db.sql(`SELECT * FROM posts WHERE user_id = ${i} ORDER BY created_at DESC`, 'isu');
  const fromLog = await mcp.call('slow_queries', { logs: [db.slowLog], limit: 50 });
  assert.equal(fromLog.isError, false, fromLog.text);
  const row = fromLog.text.split('\n').find((l) => l.toLowerCase().includes('select * from posts where user_id = ? order by created_at desc'));
  assert.ok(row, fromLog.text);
  assert.match(row, /^\| 5 \| .*\| \[main\.go:39\]\(main\.go#L39\) \|/);

  const window = mcp.call('slow_queries', { seconds: 2 });
  await new Promise((r) => setTimeout(r, 500));
  for (let i = 1; i <= 3; i++) db.sql(`SELECT COUNT(*) FROM comments WHERE post_id = ${i}`, 'isu');
  const r = await window;
  assert.equal(r.isError, false, r.text);
  assert.match(r.text, /^## performance_schema over \d+\.\d s on MariaDB/m);
  const counted = r.text.split('\n').find((l) => l.toLowerCase().includes('select count(*) from comments where post_id = ?'));
  assert.ok(counted, r.text);
  assert.match(counted, /^\| 3 \| .*\[main\.go:46\]\(main\.go#L46\)/);
});

void test('general log: the tool calls sent only EXPLAIN, schema, performance_schema and sampling reads, and the session set-up', async () => {
  const ours = new Set<string>();
  const sent: string[] = [];
  for (const line of readFileSync(db.generalLog, 'utf8').split('\n')) {
    const m = /^(?:\S+\s+\S+)?\s+(\d+)\s+(Connect|Query|Init DB|Quit|Prepare|Execute)\t?(.*)$/.exec(line);
    if (!m) continue;
    if (m[2] === 'Connect' && /^agent@/.test(m[3])) ours.add(m[1]);
    else if (ours.has(m[1]) && m[2] !== 'Quit' && m[2] !== 'Connect') sent.push(`${m[2]} ${m[3]}`);
  }
  assert.ok(sent.length > 10, `too few statements found in the general log: ${sent.length}`);
  const allowed = new RegExp('^Query (?:EXPLAIN (?:FORMAT=JSON )?(?:SELECT|UPDATE|DELETE|INSERT|REPLACE|WITH)\\b|SET SESSION |SELECT VERSION\\(\\)$|SELECT @@performance_schema$'
    + '|SELECT .+ FROM (?:information_schema|performance_schema)\\.\\w+|SELECT DISTINCT `[^`]+` FROM `isu`\\.`[^`]+` WHERE `[^`]+` IS NOT NULL LIMIT \\d+$'
    + '|SELECT COUNT\\(\\*\\) AS d, SUM\\(k\\) AS n, SUM\\(k = 1\\) AS f1 FROM \\(SELECT COUNT\\(\\*\\) AS k FROM \\(SELECT `\\w+` FROM `isu`\\.`\\w+` LIMIT \\d+\\) AS s GROUP BY `\\w+`\\) AS g$)');
  assert.deepEqual(sent.filter((s) => !allowed.test(s)), []);
  for (const kind of [/^Query EXPLAIN SELECT/, /^Query EXPLAIN FORMAT=JSON/, /^Query SELECT DISTINCT/, /^Query SET SESSION TRANSACTION READ ONLY/, /information_schema/, /performance_schema\.events_statements_summary_by_digest/]) {
    assert.ok(sent.some((s) => kind.test(s)), `no ${kind} in the general log`);
  }
  assert.ok(!sent.some((s) => /ALTER TABLE|ANALYZE FORMAT|EXPLAIN ANALYZE/.test(s)), 'no DDL, nothing measured');
});

void test('runs_diff compares the last two recorded runs: the score first, the endpoint that got faster, the handler the commit changed', async () => {
  const ws = join(scratch, 'ws');
  cpSync(APP, ws, { recursive: true });
  const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, env, encoding: 'utf8' });
  git('init', '-q'); git('add', '.'); git('commit', '-qm', 'v1');
  const round = (t: number, sec: string) => Array.from({ length: 40 }, (_, i) => `time:2026-11-28T0${t}:00:${String(i).padStart(2, '0')}+00:00\tmethod:GET\turi:/users/${i}/posts\tstatus:200\tsize:512\treqtime:${sec}`).join('\n') + '\n';
  writeFileSync(join(ws, 'access.log'), round(6, '0.400'));
  assert.equal((await runCommand(runsCommand, ['record', '--access', 'access.log', '--score', '1000'], ws)).code, 0);
  writeFileSync(join(ws, 'main.go'), readFileSync(join(ws, 'main.go'), 'utf8').replace('posts := []Post{}', 'posts := make([]Post, 0, 16)'));
  git('commit', '-qam', 'preallocate');
  writeFileSync(join(ws, 'access.log'), round(6, '0.400') + round(7, '0.040'));
  assert.equal((await runCommand(runsCommand, ['record', '--access', 'access.log', '--score', '1500'], ws)).code, 0);
  const agent = new McpChild([ws]);
  try {
    await agent.initialize();
    const r = await agent.call('runs_diff', {});
    assert.equal(r.isError, false, r.text);
    assert.match(r.text, /^### Benchmark: /m);
    assert.match(r.text, /1[,.]?000 → 1[,.]?500/);
    assert.match(r.text, /\| \*\*faster\*\* \| `GET \/users\/:id\/posts`/);
    assert.match(r.text, /handler changed in [0-9a-f]{7}/);
    const missing = await agent.call('runs_diff', { before: 'no-such-run' });
    assert.equal(missing.isError, true);
    assert.match(missing.text, /^runs_diff: .*no-such-run/);
  } finally {
    await agent.close();
  }
});
