/**
 * A private MariaDB holding the sample app's database (`isupic`): the app's own schema file, then
 * rows generated inside the server with INSERT … SELECT over the sequence engine (seconds, not
 * minutes): 1,000 users, 100,000 posts, 200,000 comments — enough for the optimizer to plan as in
 * production, so the sample app's missing indexes show as full scans.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../support/paths';
import { startMariaDb, type MariaDbServer } from '../support/mariadb';

export const SAMPLE_DB = 'isupic';

const ROWS = `
INSERT INTO users (id, account_name, passhash, authority, del_flg, created_at)
  SELECT seq, CONCAT('user', seq), SHA2(seq, 256), seq % 50 = 0, seq % 20 = 0, '2024-01-01' + INTERVAL seq MINUTE
  FROM seq_1_to_1000;
INSERT INTO posts (id, user_id, mime, imgdata, body, created_at)
  SELECT seq, 1 + (seq * 7919) % 1000, ELT(1 + seq % 3, 'image/jpeg', 'image/png', 'image/gif'), '',
         CONCAT('post body ', seq), '2024-01-01' + INTERVAL seq MINUTE
  FROM seq_1_to_100000;
INSERT INTO comments (id, post_id, user_id, comment, created_at)
  SELECT seq, 1 + (seq * 104729) % 100000, 1 + (seq * 31) % 1000, CONCAT('comment ', seq), '2024-01-01' + INTERVAL seq MINUTE
  FROM seq_1_to_200000;
ANALYZE TABLE users, posts, comments;
`;

export async function startSampleDb(args: string[] = []): Promise<MariaDbServer> {
  const db = await startMariaDb({ args });
  try {
    db.sql(`CREATE DATABASE ${SAMPLE_DB}`);
    db.sql(readFileSync(join(FIXTURES, 'sample-app', 'webapp', 'sql', 'schema.sql'), 'utf8'), SAMPLE_DB);
    db.sql(ROWS, SAMPLE_DB);
  } catch (err) {
    await db.stop();
    throw err;
  }
  return db;
}

/** Settings that point the extension at the server's socket (root, no password). */
export function connectionSettings(db: MariaDbServer): Record<string, unknown> {
  return {
    'queryInsight.connection.socket': db.socket,
    'queryInsight.connection.user': db.user,
    'queryInsight.connection.database': SAMPLE_DB,
  };
}
