/**
 * advise weights the statements by their total time in a slow log (--slow-log) or in a recorded round
 * (--run), else counts each once, and says which weights it used: the index of the slow statement comes
 * first. performance_schema (--server-stats) is tested on a real server (integration/adviseServerStats).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAdvise } from './advisorCliRun';
import { runCommand } from '../../support/runCommand';
import { runsCommand } from '../../../src/cli/commands/runs';

const entry = (t: number, sql: string, secs: number) => `# Time: 2024-01-01T00:00:0${t}.000000Z
# User@Host: app[app] @ localhost []
# Query_time: ${secs}  Lock_time: 0.000000 Rows_sent: 1  Rows_examined: 100000
SET timestamp=170406720${t};
${sql};
`;

void test('advise --slow-log: weights are the statements\' seconds in the log, and the output says so', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qi-weights-'));
  try {
    mkdirSync(join(dir, 'app'));
    writeFileSync(join(dir, 'app', 'schema.sql'), `CREATE TABLE posts (id INT PRIMARY KEY, user_id INT NOT NULL, created_at DATETIME NOT NULL);
CREATE TABLE comments (id INT PRIMARY KEY, post_id INT NOT NULL, created_at DATETIME NOT NULL);\n`);
    writeFileSync(join(dir, 'app', 'main.go'), `package main
func a(db *sqlx.DB, id int) {
	db.Select(&xs, "SELECT * FROM posts WHERE user_id = ?", id)
	db.Select(&xs, "SELECT * FROM comments WHERE post_id = ?", id)
}
`);
    writeFileSync(join(dir, 'slow.log'), entry(1, 'SELECT * FROM comments WHERE post_id = 5', 3) + entry(2, 'SELECT * FROM comments WHERE post_id = 6', 2) + entry(3, 'SELECT * FROM posts WHERE user_id = 1', 0.5));
    const equal = await runAdvise([join(dir, 'app'), '--format', 'json']);
    assert.equal(equal.code, 0, equal.err);
    assert.match(equal.err, /weights: every statement once/);
    const w = await runAdvise([join(dir, 'app'), '--format', 'json', '--slow-log', join(dir, 'slow.log')]);
    assert.equal(w.code, 0, w.err);
    assert.match(w.err, /weights: total seconds in .*slow\.log \(2 of 2 statements seen there/);
    const lines = w.out.trim().split('\n').map((l) => JSON.parse(l) as { table: string; weight: number });
    assert.deepEqual(lines.map((l) => `${l.table} ${l.weight}`), ['comments 5', 'posts 0.5']);

    // The same log kept as a recorded round: the same weights, from the record.
    const rec = await runCommand(runsCommand, ['record', '--slow', join(dir, 'slow.log'), '--store', join(dir, 'runs'), '--routes', 'none'], dir);
    assert.equal(rec.code, 0, rec.err);
    const r = await runAdvise([join(dir, 'app'), '--format', 'json', '--run', 'last', '--store', join(dir, 'runs')]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /weights: total seconds in run \S+ \(2 of 2 statements seen there/);
    assert.deepEqual(r.out.trim().split('\n').map((l) => JSON.parse(l) as { table: string; weight: number }).map((l) => `${l.table} ${l.weight}`), ['comments 5', 'posts 0.5']);
    await assert.rejects(runAdvise([join(dir, 'app'), '--run', 'last', '--store', join(dir, 'runs'), '--slow-log', join(dir, 'slow.log')]), /one source of weights, please \(got --slow-log, --run\)/);
    await assert.rejects(runAdvise([join(dir, 'app'), '--run', 'last', '--store', join(dir, 'empty')]), /no run last: 0 recorded/);
    await assert.rejects(runAdvise([join(dir, 'app'), '--server-stats']), /--server-stats needs the connection options/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
