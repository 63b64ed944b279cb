/**
 * A real slow query log for the sample app: a private MariaDB with slow_query_log = 1 and
 * long_query_time = 0 gets the app's schema (webapp/sql/schema.sql) and a few rows with the log off,
 * then, with the log on, the statements main.go sends when the index page is requested (the posts,
 * then per post its comment count, its last three comments, each comment's user and the post's
 * user: the N+1 of makePosts), on one connection as the app would.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../support/paths';
import { startMariaDb } from '../support/mariadb';

const USERS = 50;
const POSTS = 30;
const COMMENTS = 120;

const postUser = (p: number): number => 1 + ((p * 7) % USERS);
const commentPost = (c: number): number => 1 + (c % POSTS);
const commentUser = (c: number): number => 1 + ((c * 3) % USERS);

function setupSql(): string {
  const rows: string[] = [];
  for (let u = 1; u <= USERS; u++) rows.push(`INSERT INTO users (id, account_name, passhash, authority, del_flg) VALUES (${u}, 'user${u}', 'x', 0, 0);`);
  for (let p = 1; p <= POSTS; p++) rows.push(`INSERT INTO posts (id, user_id, mime, imgdata, body, created_at) VALUES (${p}, ${postUser(p)}, 'image/png', '', 'post ${p}', '2024-01-01' + INTERVAL ${p} MINUTE);`);
  for (let c = 1; c <= COMMENTS; c++) rows.push(`INSERT INTO comments (id, post_id, user_id, comment, created_at) VALUES (${c}, ${commentPost(c)}, ${commentUser(c)}, 'comment ${c}', '2024-01-01' + INTERVAL ${c} MINUTE);`);
  return rows.join('\n');
}

/** The statements of GET / (getIndex + makePosts), with the values the app would bind. */
function indexPageSql(): string {
  const out = ['SELECT `id`, `user_id`, `body`, `mime`, `created_at` FROM `posts` ORDER BY `created_at` DESC;'];
  for (let p = POSTS; p >= 1; p--) {
    out.push(`SELECT COUNT(*) AS \`count\` FROM \`comments\` WHERE \`post_id\` = ${p};`);
    out.push(`SELECT * FROM \`comments\` WHERE \`post_id\` = ${p} ORDER BY \`created_at\` DESC LIMIT 3;`);
    const latest: number[] = [];
    for (let c = COMMENTS; c >= 1 && latest.length < 3; c--) if (commentPost(c) === p) latest.push(c);
    for (const c of latest) out.push(`SELECT * FROM \`users\` WHERE \`id\` = ${commentUser(c)};`);
    out.push(`SELECT * FROM \`users\` WHERE \`id\` = ${postUser(p)};`);
  }
  return out.join('\n');
}

/** Runs the workload against a private MariaDB and copies its slow log to `<workspace>/logs/slow.log`. Returns that path. */
export async function writeSampleSlowLog(workspace: string): Promise<string> {
  const db = await startMariaDb({ args: ['--slow-query-log=1', '--long-query-time=0'] });
  try {
    // why: the schema and the rows are set up with the log off, so it holds what the app sends (and the client's own few statements)
    db.sql('SET GLOBAL slow_query_log = 0;');
    db.sql('CREATE DATABASE isupic');
    db.sql(readFileSync(join(FIXTURES, 'sample-app', 'webapp', 'sql', 'schema.sql'), 'utf8'), 'isupic');
    db.sql(setupSql(), 'isupic');
    db.sql('SET GLOBAL slow_query_log = 1;');
    // two page views, each on its own connection
    db.sql(indexPageSql(), 'isupic');
    db.sql(indexPageSql(), 'isupic');
    db.sql('FLUSH SLOW LOGS;');
    const dir = join(workspace, 'logs');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'slow.log');
    copyFileSync(db.slowLog, path);
    return path;
  } finally {
    await db.stop();
  }
}
