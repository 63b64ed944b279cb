/**
 * advise --server-stats weights each statement by its total time in the connected server's
 * performance_schema (events_statements_summary_by_digest), on a private MariaDB started with
 * performance_schema = ON: the statement the app ran most comes first, a statement the server never
 * ran weighs 0, another database's digests are not counted, and the summary says where the weights come from.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMariaDb, type MariaDbServer } from '../support/mariadb';
import { adviseJson } from '../support/adviseApplied';

const PASSWORD = 'qi-weights';
let db: MariaDbServer;
let dir: string;

before(async () => {
  db = await startMariaDb({ performanceSchema: true });
  dir = mkdtempSync(join(tmpdir(), 'qi-ps-weights-'));
  mkdirSync(join(dir, 'app'));
  writeFileSync(join(dir, 'app', 'main.go'), `package main
func handlers(db *sqlx.DB, id int) {
	db.Select(&xs, "SELECT id, body FROM comments WHERE post_id = ?", id)
	db.Select(&xs, "SELECT id, body FROM posts WHERE user_id = ?", id)
	db.Select(&xs, "SELECT id FROM likes WHERE user_id = ?", id)
}
`);
  const schema = `CREATE TABLE posts (id INT PRIMARY KEY, user_id INT NOT NULL, body TEXT NOT NULL);
CREATE TABLE comments (id INT PRIMARY KEY, post_id INT NOT NULL, body TEXT NOT NULL);
CREATE TABLE likes (id INT PRIMARY KEY, user_id INT NOT NULL);
INSERT INTO posts SELECT seq, seq % 3000, CONCAT('post ', seq) FROM seq_1_to_30000;
INSERT INTO comments SELECT seq, seq % 20000, CONCAT('comment ', seq) FROM seq_1_to_60000;
INSERT INTO likes SELECT seq, seq % 3000 FROM seq_1_to_30000;
ANALYZE TABLE posts, comments, likes;`;
  db.sql('CREATE DATABASE app; CREATE DATABASE other');
  db.sql(schema, 'app');
  db.sql(schema, 'other');
  db.sql(`CREATE USER 'player'@'localhost' IDENTIFIED BY '${PASSWORD}'; GRANT SELECT ON app.* TO 'player'@'localhost'; GRANT SELECT ON performance_schema.* TO 'player'@'localhost';`);
  // The app's traffic: the comment lookup 40 times, the post lookup 5 times, the likes never; in another
  // database, the likes lookup 200 times (not this app's).
  db.sql(Array.from({ length: 40 }, (_, i) => `SELECT id, body FROM comments WHERE post_id = ${i + 1};`).join('\n')
    + Array.from({ length: 5 }, (_, i) => `SELECT id, body FROM posts WHERE user_id = ${i + 1};`).join('\n'), 'app');
  db.sql(Array.from({ length: 200 }, (_, i) => `SELECT id FROM likes WHERE user_id = ${i + 1};`).join('\n'), 'other');
}, { timeout: 300_000 } as never);

after(async () => {
  await db?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

void test('advise --server-stats: weights are the seconds performance_schema counted for this database', async () => {
  const conn = { socket: db.socket, user: 'player', database: 'app', password: PASSWORD };
  const equal = await adviseJson(join(dir, 'app'), conn);
  assert.match(equal.stderr, /weights: every statement once/);
  assert.deepEqual(equal.lines.filter((l) => l.kind === 'index').map((l) => l.weight), [1, 1, 1]);

  const { lines, stderr } = await adviseJson(join(dir, 'app'), conn, ['--server-stats']);
  assert.match(stderr, /weights: total seconds in performance_schema of app \(2 of 3 statements seen there, the others 0\)/);
  const idx = lines.filter((l) => l.kind === 'index');
  assert.deepEqual(idx.map((l) => `${l.table}(${l.columns.join(',')})`), ['comments(post_id)', 'posts(user_id)', 'likes(user_id)'], JSON.stringify(idx));
  const w = Object.fromEntries(idx.map((l) => [l.table, l.weight as number]));
  assert.ok(w.comments > w.posts && w.posts > 0, JSON.stringify(w));
  assert.equal(w.likes, 0, 'the likes lookup ran only in another database');
});
