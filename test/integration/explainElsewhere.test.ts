/**
 * EXPLAIN failures judged by the workspace's schema files, against a private MariaDB: an app whose
 * own tables live in MariaDB (`league`) and whose per-club tables live in SQLite files created from
 * sql/club/schema.sql. Its statements on the club tables are "not explained" (information), a typo
 * in a table name and a table the database has not loaded from its own schema file stay warnings,
 * and a login without a grant on a table is told so without a warning.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../support/runCommand';
import { startMariaDb, type MariaDbServer } from '../support/mariadb';
import { explainCommand } from '../../src/cli/commands/explain';

const LOADED = `CREATE TABLE club (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(64) NOT NULL);
CREATE TABLE visit_log (club_id BIGINT NOT NULL, member_id VARCHAR(64) NOT NULL, at BIGINT NOT NULL, KEY idx_club (club_id));
`;
// The app's own schema file gained a table since the database was loaded from it.
const MAIN = `USE league;\n${LOADED}CREATE TABLE trophy (id BIGINT NOT NULL PRIMARY KEY, club_id BIGINT NOT NULL);\n`;
const CLUB = `-- each club's SQLite file is created from this
CREATE TABLE member (id VARCHAR(64) PRIMARY KEY, display_name TEXT NOT NULL);
CREATE TABLE match_score (id VARCHAR(64) PRIMARY KEY, member_id VARCHAR(64) NOT NULL, points BIGINT NOT NULL);
`;
const GO = `package main

func clubPage(db *sqlx.DB, clubDB *sqlx.DB, id int64, member string) {
	db.Select(&clubs, "SELECT * FROM club WHERE id = ?", id)
	clubDB.Select(&scores, "SELECT s.points, m.display_name FROM match_score s JOIN member m ON m.id = s.member_id WHERE s.member_id = ?", member)
	clubDB.Select(&scores, "SELECT * FROM match_scores WHERE member_id = ?", member)
	db.Select(&trophies, "SELECT * FROM trophy WHERE club_id = ?", id)
	db.Select(&visits, "SELECT * FROM visit_log WHERE club_id = ? ORDER BY at DESC", id)
}
`;

let db: MariaDbServer;
let root: string;
let app: string;

before(async () => {
  db = await startMariaDb();
  db.sql('CREATE DATABASE league');
  db.sql(LOADED, 'league');
  db.sql(`CREATE USER 'qi'@'localhost' IDENTIFIED BY 'qi'; GRANT SELECT ON league.* TO 'qi'@'localhost';
    CREATE USER 'narrow'@'localhost' IDENTIFIED BY 'qi'; GRANT SELECT ON league.club TO 'narrow'@'localhost';`);
  root = mkdtempSync(join(tmpdir(), 'qi-elsewhere-'));
  app = join(root, 'webapp');
  for (const [path, text] of [['sql/main/schema.sql', MAIN], ['sql/club/schema.sql', CLUB], ['go/main.go', GO]]) {
    mkdirSync(join(app, path, '..'), { recursive: true });
    writeFileSync(join(app, path), text);
  }
}, { timeout: 120_000 } as never);

after(async () => {
  await db?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

async function explain(dir: string, user = 'qi', extra: string[] = []): Promise<{ code: number; rows: { line: number; code: string; severity: string; message: string }[]; stderr: string }> {
  const { code, out: stdout, err: stderr } = await runCommand(explainCommand, ['--socket', db.socket, '--user', user, '--database', 'league', '--format', 'json', '--fail-on', 'warning', ...extra, dir],
    app, { MYSQL_PWD: 'qi' });
  return { code, rows: stdout.trim() ? stdout.trim().split('\n').map((l) => JSON.parse(l) as never) : [], stderr };
}

void test('statements on another database\'s tables are not explained (info); a typo and an unloaded table stay warnings', async () => {
  const r = await explain(app);
  const at = (line: number) => r.rows.filter((x) => x.line === line).map((x) => `${x.severity} ${x.code} ${x.message}`);
  assert.deepEqual(at(5), ['info not-explained not explained: `match_score`, `member` are not in the connected database `league` (defined in sql/club/schema.sql)']);
  assert.deepEqual(at(6), ["warning explain-error unknown-table: Table 'league.match_scores' doesn't exist; no schema file in the workspace defines `match_scores`: a typo, or a table no migration creates yet"]);
  assert.deepEqual(at(7), ["warning explain-error unknown-table: Table 'league.trophy' doesn't exist; sql/main/schema.sql defines `trophy` for this database, which has not loaded it (run the schema or migration again)"]);
  assert.deepEqual(at(4), []);
  assert.equal(r.code, 1, 'the warnings fail --fail-on warning');
  assert.match(r.stderr, /explained 2 of 5 statements .*; 1 not explained \(not-explained rows say why\); 2 errors/);
});

void test('from the app\'s own folder the schema files are found at the root of its git repository', async () => {
  const git = spawnSync('git', ['init', '-q'], { cwd: root });
  assert.equal(git.status, 0, String(git.stderr));
  const r = await explain(join(app, 'go'));
  assert.deepEqual(r.rows.filter((x) => x.line === 5).map((x) => x.code), ['not-explained']);
  // Named explicitly, only the given files count: the club schema left out, its tables are defined nowhere.
  const only = await explain(join(app, 'go'), 'qi', ['--schema', join(app, 'sql/main/schema.sql')]);
  assert.deepEqual(only.rows.filter((x) => x.line === 5).map((x) => `${x.code} ${x.severity}`), ['explain-error warning']);
});

void test('a login without a grant on a table is told so, as information: the statement is not at fault', async () => {
  const r = await explain(app, 'narrow');
  const visits = r.rows.filter((x) => x.line === 8);
  assert.equal(visits.length, 1, JSON.stringify(r.rows));
  assert.equal(visits[0].severity, 'info');
  assert.equal(visits[0].code, 'not-explained');
  assert.match(visits[0].message, /^not explained: the login may not read what it reads: SELECT command denied to user 'narrow'@'localhost' for table .*visit_log.* \(GRANT SELECT on it to narrow to explain it\)$/);
});
