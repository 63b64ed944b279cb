/** When an EXPLAIN failure is the statement's fault (a warning) and when it is only "not explained" (information). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeExplainFailure, schemaFileTables, statementTables, type ExplainFailure } from '../../../src/core/plan/explainFailure';
import type { Schema, TableInfo } from '../../../src/core/model';

const table = (name: string, columns: string[] = ['id']): TableInfo => ({ name, columns: columns.map((c) => ({ name: c, type: 'int', nullable: false })), indexes: [], rows: 1000 });
const schemaOf = (database: string, tables: TableInfo[]): Schema => ({ database, flavor: 'mariadb', version: '10.11.6-MariaDB', generation: 1, tables: Object.fromEntries(tables.map((t) => [t.name, t])) });

/** A league app: its own tables in MariaDB (`league`), each club's tables in a per-club SQLite file. */
const LEAGUE = schemaOf('league', [table('club', ['id', 'name']), table('visit_log', ['club_id', 'member_id', 'at'])]);
const MAIN_SQL = `USE \`league\`;
DROP TABLE IF EXISTS club;
CREATE TABLE club (
  id BIGINT NOT NULL PRIMARY KEY,
  name VARCHAR(64) NOT NULL
);
CREATE TABLE visit_log (club_id BIGINT NOT NULL, member_id VARCHAR(64) NOT NULL, at BIGINT NOT NULL);
`;
const CLUB_SQL = `-- loaded into each club's SQLite file
CREATE TABLE member (id VARCHAR(64) PRIMARY KEY, club_id BIGINT NOT NULL, display_name TEXT NOT NULL);
CREATE TABLE match_score (
  id VARCHAR(64) PRIMARY KEY,
  member_id VARCHAR(64) NOT NULL,
  points BIGINT NOT NULL
);
`;
const FILES = [schemaFileTables('db/main/schema.sql', MAIN_SQL), schemaFileTables('db/club/schema.sql', CLUB_SQL)];
const missing = (t: string): string => `Table 'league.${t}' doesn't exist`;
const judge = (f: Partial<ExplainFailure> & Pick<ExplainFailure, 'sql'>) => judgeExplainFailure({ kind: 'unknown-table', message: missing('x'), schema: LEAGUE, files: FILES, ...f });

void test('schema files: tables with their line, columns and the database a USE or a qualified name gives them; ALTER TABLE ADD COLUMN', () => {
  const main = schemaFileTables('db/main/schema.sql', MAIN_SQL);
  assert.deepEqual(main.tables.map((t) => [t.name, t.line, t.database, t.columns.join(',')]), [
    ['club', 2, 'league', 'id,name'], ['visit_log', 6, 'league', 'club_id,member_id,at'],
  ]);
  assert.deepEqual(FILES[1].tables.map((t) => [t.name, t.line, t.database]), [['member', 1, undefined], ['match_score', 2, undefined]]);
  const more = schemaFileTables('m.sql', 'CREATE TABLE other.audit (id INT);\nALTER TABLE club ADD COLUMN logo VARCHAR(255), ADD INDEX idx_name (name), ADD `city` TEXT;');
  assert.deepEqual(more.tables.map((t) => [t.name, t.database]), [['audit', 'other']]);
  assert.deepEqual(more.altered, [{ name: 'club', columns: ['logo', 'city'] }]);
});

void test('the tables a statement reads, without its common table expressions', () => {
  assert.deepEqual(statementTables('SELECT * FROM match_score s JOIN member m ON m.id = s.member_id WHERE s.points > ?'), ['match_score', 'member']);
  assert.deepEqual(statementTables('WITH best (member_id, p) AS (SELECT member_id, MAX(points) FROM match_score GROUP BY member_id), b2 AS (SELECT 1) SELECT * FROM best JOIN member ON member.id = best.member_id, b2'),
    ['match_score', 'member']);
  assert.deepEqual(statementTables('UPDATE `league`.`club` SET name = ? WHERE id = ?'), ['club']);
});

void test('a table another database\'s schema file defines: not explained, with where it is defined (information, no warning)', () => {
  const r = judge({ sql: 'SELECT * FROM match_score WHERE member_id = ? ORDER BY points DESC', message: missing('match_score') });
  assert.equal(r.notExplained, '`match_score` is not in the connected database `league` (defined in db/club/schema.sql)');
  const two = judge({ sql: 'SELECT m.display_name FROM match_score s JOIN member m ON m.id = s.member_id', message: missing('match_score') });
  assert.equal(two.notExplained, '`match_score`, `member` are not in the connected database `league` (defined in db/club/schema.sql)');
  // A table of the connected database beside them changes nothing: the server only names the first it misses.
  assert.ok(judge({ sql: 'SELECT * FROM visit_log v JOIN member m ON m.id = v.member_id', message: missing('member') }).notExplained);
  // The file says which database with USE: beside the main schema, in the same folder, it is still another database.
  const used = schemaFileTables('db/main/clubs.sql', 'USE club_archive;\nCREATE TABLE season (id INT PRIMARY KEY);');
  const s = judge({ sql: 'SELECT * FROM season', message: missing('season'), files: [FILES[0], used] });
  assert.equal(s.notExplained, '`season` is not in the connected database `league` (defined for database `club_archive` in db/main/clubs.sql)');
});

void test('a table no schema file defines stays a warning: a typo, or a migration nobody wrote', () => {
  const typo = judge({ sql: 'SELECT * FROM match_scores WHERE member_id = ?', message: missing('match_scores') });
  assert.equal(typo.notExplained, undefined);
  assert.equal(typo.message, "Table 'league.match_scores' doesn't exist; no schema file in the workspace defines `match_scores`: a typo, or a table no migration creates yet");
  // One missing table defined nowhere is enough, even beside one of another database.
  const mixed = judge({ sql: 'SELECT * FROM match_score s JOIN membr m ON m.id = s.member_id', message: missing('match_score') });
  assert.equal(mixed.notExplained, undefined);
  assert.match(mixed.message, /no schema file in the workspace defines `membr`/);
  // Without a workspace (no files read) the server's message is all there is.
  assert.deepEqual(judgeExplainFailure({ kind: 'unknown-table', message: missing('match_score'), sql: 'SELECT * FROM match_score', schema: LEAGUE }), { message: missing('match_score') });
});

void test('a table the connected database\'s own schema defines but the database lacks: a warning that it has not loaded it', () => {
  const grown = schemaFileTables('db/main/schema.sql', `${MAIN_SQL}CREATE TABLE trophy (id INT PRIMARY KEY, club_id BIGINT NOT NULL);\n`);
  const r = judge({ sql: 'SELECT * FROM trophy WHERE club_id = ?', message: missing('trophy'), files: [grown, FILES[1]] });
  assert.equal(r.notExplained, undefined);
  assert.equal(r.message, `${missing('trophy')}; db/main/schema.sql defines \`trophy\` for this database, which has not loaded it (run the schema or migration again)`);
  // A migrations folder: the newest file only creates the new table; its folder's other files hold the database's tables.
  const m1 = schemaFileTables('db/migrations/001_init.sql', 'CREATE TABLE club (id INT PRIMARY KEY);');
  const m2 = schemaFileTables('db/migrations/002_trophy.sql', 'CREATE TABLE trophy (id INT PRIMARY KEY);');
  assert.match(judge({ sql: 'SELECT * FROM trophy', message: missing('trophy'), files: [m1, m2, FILES[1]] }).message, /db\/migrations\/002_trophy\.sql defines `trophy` for this database/);
  // A file that only alters a table the database has is the database's too.
  const alter = schemaFileTables('db/patch.sql', 'ALTER TABLE club ADD COLUMN logo TEXT;\nCREATE TABLE trophy (id INT);');
  assert.match(judge({ sql: 'SELECT * FROM trophy', message: missing('trophy'), files: [alter] }).message, /db\/patch\.sql defines `trophy`/);
  // Named for the connected database in the file itself.
  const named = schemaFileTables('extra/t.sql', 'CREATE TABLE league.trophy (id INT);');
  assert.match(judge({ sql: 'SELECT * FROM trophy', message: missing('trophy'), files: [named] }).message, /extra\/t\.sql defines `trophy` for this database/);
  // A definition for this database wins over one for another: the player moved the table in and did not reload.
  const moved = schemaFileTables('db/main/schema.sql', `${MAIN_SQL}CREATE TABLE match_score (id VARCHAR(64) PRIMARY KEY);\n`);
  assert.equal(judge({ sql: 'SELECT * FROM match_score', message: missing('match_score'), files: [moved, FILES[1]] }).notExplained, undefined);
  // An empty database never had its schema loaded: every table of every file is "this database's".
  const empty = schemaOf('league', []);
  const e = judge({ sql: 'SELECT * FROM match_score', message: missing('match_score'), schema: empty });
  assert.equal(e.notExplained, undefined);
  assert.match(e.message, /db\/club\/schema\.sql defines `match_score` for this database/);
});

void test('syntax the server cannot read: another database\'s statement, or a part built at run time, is not explained; plain SQL stays a warning', () => {
  const syntaxMsg = "the server cannot parse the statement: You have an error in your SQL syntax; … near 'ON CONFLICT (id) DO NOTHING' at line 1";
  const sqlite = judge({ kind: 'syntax', message: syntaxMsg, sql: 'INSERT INTO member (id) SELECT member_id FROM match_score ON CONFLICT (id) DO NOTHING' });
  assert.match(sqlite.notExplained ?? '', /^`member`, `match_score` are not in the connected database `league`/);
  const dyn = judge({ kind: 'syntax', message: syntaxMsg, sql: 'SELECT * FROM club ORDER BY id DESC DESC', runTimeParts: ['id'] });
  assert.equal(dyn.notExplained, `the part built at run time was completed here as \`id\`, and the server cannot read it so: ${syntaxMsg}`);
  const mine = judge({ kind: 'syntax', message: syntaxMsg, sql: 'SELECT * FROM club ORDER BY id DESC DESC' });
  assert.deepEqual(mine, { message: syntaxMsg });
  const col = judge({ kind: 'unknown-column', message: "Unknown column 'id' in 'order clause'", sql: 'SELECT * FROM visit_log ORDER BY id', runTimeParts: ['id'] });
  assert.match(col.notExplained ?? '', /completed here as `id`/);
});

void test('an unknown column: a warning, saying when the database\'s own schema file has the column (not loaded)', () => {
  const msg = "Unknown column 'logo' in 'field list'";
  const typo = judge({ kind: 'unknown-column', message: msg, sql: 'SELECT logo FROM club WHERE id = ?' });
  assert.deepEqual(typo, { message: msg });
  const grown = schemaFileTables('db/main/schema.sql', MAIN_SQL.replace('name VARCHAR(64) NOT NULL', 'name VARCHAR(64) NOT NULL,\n  logo TEXT'));
  assert.deepEqual(judge({ kind: 'unknown-column', message: msg, sql: 'SELECT logo FROM club WHERE id = ?', files: [grown] }),
    { message: `${msg}; db/main/schema.sql defines \`club\`.\`logo\` for this database, which has not loaded it (run the schema or migration again)` });
  const patched = schemaFileTables('db/patch.sql', 'ALTER TABLE club ADD COLUMN logo TEXT;');
  assert.match(judge({ kind: 'unknown-column', message: msg, sql: 'SELECT c.logo FROM club c', files: [FILES[0], patched] }).message, /db\/patch\.sql defines `club`\.`logo`/);
});

void test('refusals, time limits and missing grants are never the statement\'s fault; connection failures are left as they are', () => {
  for (const [kind, re] of [['refused', /^the guard does not send it: GET_LOCK/], ['timeout', /^no answer within the time limit/], ['denied', /^the login may not read what it reads/]] as const) {
    const r = judge({ kind, message: 'GET_LOCK() acts outside the statement', sql: 'SELECT * FROM club' });
    assert.match(r.notExplained ?? '', re, kind);
  }
  for (const kind of ['unreachable', 'auth', 'connection-lost', 'other']) {
    assert.deepEqual(judge({ kind, message: 'x', sql: 'SELECT * FROM match_score' }), { message: 'x' }, kind);
  }
});
