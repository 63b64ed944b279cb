/**
 * The slow log of a real MariaDB (long_query_time = 0) under a workload that sends the statements
 * of a small fixture app (test/fixtures/apps-slowlog): every fingerprint maps to its source site,
 * the loop query is confirmed as N+1, and the CLI prints the same mapping.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { FIXTURES, REPO_ROOT } from '../support/paths';
import { startMariaDb, type MariaDbServer } from '../support/mariadb';
import { parseSlowLog } from '../../src/core/logs/slowLogParser';
import { fingerprint } from '../../src/core/sql/fingerprint';
import { indexSites, sitesFor } from '../../src/core/logs/slowMapping';
import { runtimeNPlusOne } from '../../src/core/analysis/runtimeNPlusOne';
import type { SqlSite } from '../../src/core/model';
import { ParserSet } from '../../src/core/source/lang/treeSitter/treeSitter';
import { FactsCache } from '../../src/core/workspace';
import { fsGrammarSource } from '../../src/node/grammars';
import { scanProject } from '../../src/node/scanDir';
import { analyzeSlowLogFile } from '../../src/node/slowLogFile';
import { slowCommand } from '../../src/cli/commands/slow';

const APP = join(FIXTURES, 'apps-slowlog');
let server: MariaDbServer;
let sites: SqlSite[];

const SCHEMA = `
CREATE DATABASE app;
USE app;
CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64));
CREATE TABLE posts (id INT PRIMARY KEY, user_id INT, body TEXT, created_at DATETIME);
CREATE TABLE comments (id INT AUTO_INCREMENT PRIMARY KEY, post_id INT, user_id INT, comment TEXT, created_at DATETIME DEFAULT NOW());
INSERT INTO users SELECT seq, CONCAT('user', seq) FROM seq_1_to_50;
INSERT INTO posts SELECT seq, seq % 50 + 1, CONCAT('body ', seq), '2024-01-01' + INTERVAL seq MINUTE FROM seq_1_to_200;
INSERT INTO comments (post_id, user_id, comment) SELECT seq % 200 + 1, seq % 50 + 1, 'hi' FROM seq_1_to_1000;
`;

/** What the fixture app sends, with values filled in as a driver would (interpolated or prepared). */
function workload(): string {
  const q: string[] = ["SELECT 'workload-start';"];
  for (let id = 1; id <= 5; id++) q.push(`SELECT * FROM users WHERE id = ${id};`);
  for (let r = 0; r < 3; r++) {
    q.push('SELECT id, user_id, body FROM posts ORDER BY created_at DESC LIMIT 20;');
    for (let p = 1; p <= 20; p++) q.push(`SELECT COUNT(*) AS \`count\` FROM \`comments\` WHERE \`post_id\` = ${200 - p - r};`);
  }
  q.push('SELECT * FROM users WHERE id IN (1);', 'SELECT * FROM users WHERE id IN (1, 2, 3, 4, 5, 6, 7);');
  q.push("INSERT INTO comments (post_id, user_id, comment) VALUES (3, 4, 'it''s fine');", "INSERT INTO comments (post_id, user_id, comment) VALUES (5, 6, 'O\\'Reilly');");
  q.push("UPDATE users\n  SET name = 'alice'\n  WHERE id = 7;", "update users set name='bob' where id=8;");
  q.push("SELECT id, body FROM posts WHERE user_id = 3 AND created_at > '2024-01-01 00:10:00' ORDER BY created_at;");
  q.push("DELETE FROM comments WHERE created_at < '2000-01-01';");
  q.push("SELECT 'workload-end';");
  return q.join('\n') + '\n';
}

before(async () => {
  server = await startMariaDb({ args: ['--slow-query-log=1', '--long-query-time=0', '--log-slow-verbosity=query_plan'] });
  server.sql(SCHEMA);
  server.sql(workload(), 'app');
  server.sql('FLUSH SLOW LOGS;');
  const scan = await scanProject(APP, new FactsCache(new ParserSet(fsGrammarSource(join(REPO_ROOT, 'dist/grammars')))));
  sites = scan.facts.flatMap((f) => f.sites);
});

after(async () => { await server?.stop(); });

function workloadRecords() {
  const { records, summary } = parseSlowLog(readFileSync(server.slowLog));
  assert.equal(summary.malformed, 0, JSON.stringify(summary.problems));
  const start = records.findIndex((r) => r.sql === "SELECT 'workload-start'");
  assert.ok(start >= 0, 'the workload marker is in the slow log');
  const end = records.findIndex((r) => r.sql === "SELECT 'workload-end'");
  assert.ok(end > start, 'the end marker is in the slow log');
  return records.slice(start + 1, end).filter((r) => !r.admin);
}

void test('every statement of the workload maps to its fixture site', () => {
  assert.equal(sites.length, 8, sites.map((s) => `${s.file}:${s.range.start.line + 1} ${s.sql}`).join('\n'));
  const recs = workloadRecords();
  assert.equal(recs.length, 5 + 3 * 21 + 2 + 2 + 2 + 1 + 1);
  assert.ok(recs.every((r) => r.schema === 'app' && r.threadId > 0 && r.time > Date.UTC(2020, 0, 1)));
  const index = indexSites(sites);
  const mappedSites = new Set<string>();
  for (const r of recs) {
    const m = sitesFor(index, fingerprint(r.sql));
    assert.equal(m.how, 'exact', `not mapped: ${r.sql} → ${fingerprint(r.sql)}`);
    assert.equal(m.sites.length, 1);
    mappedSites.add(`${m.sites[0].file}:${m.sites[0].range.start.line + 1}`);
  }
  assert.deepEqual([...mappedSites].sort(), [
    'go/main.go:17', 'go/main.go:22', 'go/main.go:27', 'go/main.go:35', 'go/main.go:44', 'go/main.go:49',
    'python/app.py:12', 'python/app.py:4',
  ]);
});

void test('the loop query is confirmed as N+1 by the log (file reader + stats)', async () => {
  const { stats, summary } = await analyzeSlowLogFile(server.slowLog);
  assert.equal(summary.malformed, 0);
  const count = stats.find((s) => s.fingerprint === 'select count(*) as count from comments where post_id = ?');
  assert.ok(count, stats.map((s) => s.fingerprint).join('\n'));
  assert.equal(count.count, 60);
  assert.ok(count.repeats >= 55, `repeats ${count.repeats}`);
  const { findings } = runtimeNPlusOne(stats, sites);
  const f = findings.find((x) => x.file === 'go/main.go' && x.range.start.line === 26);
  assert.ok(f, JSON.stringify(findings, null, 1));
  assert.equal(f.code, 'n-plus-one');
  assert.match(f.message, /60 calls/);
  assert.ok(!findings.some((x) => x.range.start.line === 21), 'the list query (once per request) is not N+1');
});

void test('CLI: slow LOG --source DIR --format json shows each fingerprint with its site', async () => {
  let stdout = '';
  let stderr = '';
  const sink = (put: (s: string) => void) => new Writable({ write(chunk, _enc, cb) { put(String(chunk)); cb(); } });
  const code = await slowCommand.run([server.slowLog, '--source', APP, '--format', 'json', '--limit', '0', '--sort', 'count'],
    { stdout: sink((s) => { stdout += s; }), stderr: sink((s) => { stderr += s; }), env: {}, cwd: REPO_ROOT });
  assert.equal(code, 0, stderr);
  const rows = stdout.trim().split('\n').map((l) => JSON.parse(l) as { rank: number; fingerprint: string; count: number; mapped: boolean; sites: { file: string; line: number }[] });
  assert.equal(rows[0].fingerprint, 'select count(*) as count from comments where post_id = ?');
  assert.deepEqual(rows[0].sites, [{ file: 'go/main.go', line: 27, function: 'listPosts' }]);
  const ins = rows.find((r) => r.fingerprint.startsWith('insert into comments'));
  assert.deepEqual(ins?.sites.map((s) => `${s.file}:${s.line}`), ['go/main.go:44']);
  assert.ok(rows.some((r) => !r.mapped), 'setup statements are listed as unmapped');
  assert.match(stderr, /8 SQL sites under .*fingerprints mapped, \d+ unmapped/);
});

void test('a real MariaDB (log_output=FILE) writes literals raw: forged header lines inside one stay in their statement', () => {
  // what a driver sends for a comment whose value is `x';` + header lines: the quote escaped, the newlines raw
  const forged = "x\\';\n# Time: 240302 10:00:09\n# User@Host: evil[evil] @ localhost []\n# Thread_id: 99  Schema: app  QC_hit: No\n"
    + '# Query_time: 999.000000  Lock_time: 0.000000  Rows_sent: 0  Rows_examined: 0\nSET timestamp=1709373609;\nSELECT SLEEP(999);\n# end';
  server.sql(`SELECT 'forged-start';\nINSERT INTO comments (post_id, user_id, comment) VALUES (9, 9, '${forged}'), (10, 10, "say ""hi""\n# Query_time: 5");\nSELECT 'forged-end';\n`, 'app');
  server.sql('FLUSH SLOW LOGS;');
  const { records, summary } = parseSlowLog(readFileSync(server.slowLog));
  assert.equal(summary.malformed, 0, JSON.stringify(summary.problems));
  assert.equal(summary.damaged, 0, JSON.stringify(summary.damagedSamples));
  const start = records.findIndex((r) => r.sql === "SELECT 'forged-start'");
  const end = records.findIndex((r) => r.sql === "SELECT 'forged-end'");
  assert.ok(start >= 0 && end === start + 2, records.slice(start).map((r) => r.sql).join('\n---\n'));
  const insert = records[start + 1];
  assert.ok(insert.sql.startsWith('INSERT INTO comments') && insert.sql.includes('# Query_time: 999.000000') && insert.sql.endsWith('# Query_time: 5")'), insert.sql);
  assert.ok(insert.queryTime < 5, `the real INSERT's own time, not a forged one: ${insert.queryTime}`);
  assert.equal(insert.user, 'root');
  assert.ok(!records.some((r) => r.user === 'evil' || r.queryTime >= 5));
});
