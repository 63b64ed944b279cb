/**
 * The sample app's database (`isupic`) in a private MariaDB: the app's own schema file, then rows
 * generated inside the server with INSERT … SELECT over the sequence engine (seconds, not minutes):
 * 1,000 users, 100,000 posts, 200,000 comments — enough for the optimizer to plan as in production,
 * so the sample app's missing indexes show as full scans. Used by the e2e tests and the demo.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startMariaDb, type MariaDbServer, type MariaDbOptions } from '../privateMariaDb';

export const SAMPLE_DB = 'isupic';
export const SAMPLE_USERS = 1_000;
export const SAMPLE_POSTS = 100_000;
export const SAMPLE_COMMENTS = 200_000;

const ROWS = `
INSERT INTO users (id, account_name, passhash, authority, del_flg, created_at)
  SELECT seq, CONCAT('user', seq), SHA2(seq, 256), seq % 50 = 0, seq % 20 = 0, '2024-01-01' + INTERVAL seq MINUTE
  FROM seq_1_to_${SAMPLE_USERS};
INSERT INTO posts (id, user_id, mime, imgdata, body, created_at)
  SELECT seq, 1 + (seq * 7919) % ${SAMPLE_USERS}, ELT(1 + seq % 3, 'image/jpeg', 'image/png', 'image/gif'), '',
         CONCAT('post body ', seq), '2024-01-01' + INTERVAL seq MINUTE
  FROM seq_1_to_${SAMPLE_POSTS};
INSERT INTO comments (id, post_id, user_id, comment, created_at)
  SELECT seq, 1 + (seq * 104729) % ${SAMPLE_POSTS}, 1 + (seq * 31) % ${SAMPLE_USERS}, CONCAT('comment ', seq), '2024-01-01' + INTERVAL seq MINUTE
  FROM seq_1_to_${SAMPLE_COMMENTS};
ANALYZE TABLE users, posts, comments;
`;

/** The schema file the sample app's initializer loads, under the app's folder. */
export function sampleSchemaFile(appDir: string): string {
  return join(appDir, 'webapp', 'sql', 'schema.sql');
}

/** Creates the database from the app's schema file and fills it with the generated rows. */
export function loadSampleDatabase(db: MariaDbServer, appDir: string): void {
  db.sql(`CREATE DATABASE ${SAMPLE_DB}`);
  db.sql(readFileSync(sampleSchemaFile(appDir), 'utf8'), SAMPLE_DB);
  db.sql(ROWS, SAMPLE_DB);
}

/** Starts a private MariaDB holding the sample app's database; stops it again when loading fails. */
export async function startSampleDatabase(appDir: string, opts: MariaDbOptions = {}): Promise<MariaDbServer> {
  const db = await startMariaDb(opts);
  try {
    loadSampleDatabase(db, appDir);
  } catch (err) {
    await db.stop();
    throw err;
  }
  return db;
}

/** Settings that point the extension at the server's socket (root over the socket, no password). */
export function sampleConnectionSettings(db: MariaDbServer): Record<string, unknown> {
  return {
    'queryInsight.connection.socket': db.socket,
    'queryInsight.connection.user': db.user,
    'queryInsight.connection.database': SAMPLE_DB,
  };
}
