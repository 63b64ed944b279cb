/** The schema the advisor table test runs against: an ISUCON-like app with a few existing indexes. */
import type { IndexInfo, Schema, TableInfo } from '../../../src/core/model';

function table(name: string, rows: number, columns: [string, string][], indexes: IndexInfo[]): TableInfo {
  return { name, rows, engine: 'InnoDB', columns: columns.map(([n, type]) => ({ name: n, type, nullable: false })), indexes };
}
const pk = (...columns: string[]): IndexInfo => ({ name: 'PRIMARY', columns, unique: true, primary: true });
const idx = (name: string, columns: string[], cardinality?: number[], unique = false): IndexInfo => ({ name, columns, unique, primary: false, cardinality });

export const SCHEMA: Schema = {
  database: 'isuconp', flavor: 'mariadb', version: '10.11.6-MariaDB', generation: 1,
  tables: {
    users: table('users', 10_000, [['id', 'int'], ['account_name', 'varchar(64)'], ['passhash', 'varchar(128)'], ['authority', 'tinyint'], ['del_flg', 'tinyint'], ['created_at', 'timestamp']],
      [pk('id'), idx('account_name', ['account_name'], [10_000], true)]),
    posts: table('posts', 100_000, [['id', 'int'], ['user_id', 'int'], ['mime', 'varchar(64)'], ['imgdata', 'mediumblob'], ['body', 'text'], ['created_at', 'timestamp']],
      [pk('id')]),
    comments: table('comments', 800_000, [['id', 'int'], ['post_id', 'int'], ['user_id', 'int'], ['comment', 'text'], ['created_at', 'timestamp']],
      [pk('id'), idx('idx_post', ['post_id'], [90_000])]),
    login_log: table('login_log', 2_000_000, [['id', 'bigint'], ['created_at', 'datetime'], ['user_id', 'int'], ['login', 'varchar(255)'], ['ip', 'int unsigned'], ['succeeded', 'tinyint']],
      [pk('id')]),
    isu_condition: table('isu_condition', 3_000_000, [['id', 'bigint'], ['jia_isu_uuid', 'char(36)'], ['timestamp', 'datetime'], ['is_sitting', 'tinyint'], ['condition', 'varchar(255)'], ['message', 'varchar(255)'], ['created_at', 'datetime']],
      [pk('id'), idx('idx_uuid_ts', ['jia_isu_uuid', 'timestamp'], [100, 3_000_000])]),
    items: table('items', 50_000, [['id', 'bigint'], ['seller_id', 'bigint'], ['buyer_id', 'bigint'], ['status', "enum('on_sale','trading','sold_out','stop','cancel')"], ['name', 'varchar(191)'], ['price', 'int'], ['category_id', 'int'], ['created_at', 'datetime']],
      [pk('id'), idx('idx_category_id', ['category_id'], [60]), idx('idx_status', ['status'], [5])]),
    livecomments: table('livecomments', 200_000, [['id', 'bigint'], ['user_id', 'bigint'], ['livestream_id', 'bigint'], ['comment', 'varchar(255)'], ['tip', 'bigint'], ['created_at', 'bigint']],
      [pk('id'), idx('livestream_id_idx', ['livestream_id', 'created_at'], [7_000, 200_000])]),
    reactions: table('reactions', 300_000, [['id', 'bigint'], ['user_id', 'bigint'], ['livestream_id', 'bigint'], ['emoji_name', 'varchar(255)'], ['created_at', 'bigint']],
      [pk('id'), idx('idx_ls', ['livestream_id'], [7_000]), idx('idx_ls_created', ['livestream_id', 'created_at'], [7_000, 300_000])]),
    tags: table('tags', 100, [['id', 'bigint'], ['name', 'varchar(255)']], [pk('id'), idx('uniq_tag', ['name'], [100], true)]),
    follows: table('follows', 40_000, [['follower_id', 'int'], ['followee_id', 'int'], ['created_at', 'datetime']], [pk('follower_id', 'followee_id')]),
    events: table('events', 5_000_000, [['id', 'bigint'], ['kind', 'varchar(32)'], ['user_id', 'int'], ['tenant_id', 'int'], ['score', 'int'], ['created_at', 'datetime']],
      [pk('id'), idx('idx_tenant', ['tenant_id'], [50])]),
  },
};

/** `table(col1,col2)` strings; `none` when the statement needs no new index. */
export interface AdvisorCase { sql: string; expect: string[] | 'none'; servesOrderBy?: boolean; replaces?: string; covering?: boolean; merge?: boolean }

export const CASES: AdvisorCase[] = [
  // Acceptance: OR across columns with ORDER BY → one index per branch (index merge).
  { sql: 'SELECT * FROM events WHERE kind = ? OR user_id = ? ORDER BY created_at DESC', expect: ['events(kind,created_at)', 'events(user_id,created_at)'], merge: true },
  // Acceptance: ISUCON login_log.
  { sql: 'SELECT * FROM login_log WHERE user_id = ? AND succeeded = 0 ORDER BY id DESC LIMIT 1', expect: ['login_log(user_id,succeeded)'], servesOrderBy: true },
  { sql: 'SELECT COUNT(1) AS cnt FROM login_log WHERE user_id = ? AND id > ? AND succeeded = 0', expect: ['login_log(user_id,succeeded)'], covering: true },
  // Acceptance: comments of a post, newest three.
  { sql: 'SELECT * FROM `comments` WHERE `post_id` = ? ORDER BY `created_at` DESC LIMIT 3', expect: ['comments(post_id,created_at)'], servesOrderBy: true, replaces: 'idx_post' },
  { sql: 'SELECT COUNT(*) AS `count` FROM `comments` WHERE `post_id` = ?', expect: 'none' },
  // Acceptance: IN lists with ORDER BY and LIMIT.
  { sql: 'SELECT * FROM posts WHERE user_id IN (?, ?, ?) ORDER BY created_at DESC LIMIT 20', expect: ['posts(user_id)'], servesOrderBy: false },
  { sql: 'SELECT * FROM posts WHERE user_id IN (?) ORDER BY created_at DESC LIMIT 20', expect: ['posts(user_id)'], servesOrderBy: false },
  { sql: "SELECT * FROM posts WHERE user_id IN (7) ORDER BY created_at DESC LIMIT 20", expect: ['posts(user_id,created_at)'], servesOrderBy: true },
  { sql: 'SELECT * FROM items WHERE status IN (?, ?) AND category_id IN (?, ?, ?) ORDER BY created_at DESC, id DESC LIMIT 49', expect: ['items(category_id,status)'], servesOrderBy: false, replaces: 'idx_category_id' },
  // Acceptance: keyset pagination.
  { sql: 'SELECT * FROM items WHERE seller_id = ? AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT 49', expect: ['items(seller_id,created_at)'], servesOrderBy: true },
  { sql: 'SELECT * FROM items WHERE status IN (?,?) AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT 49', expect: ['items(status,created_at)'], servesOrderBy: false, replaces: 'idx_status' },
  { sql: 'SELECT * FROM posts WHERE created_at <= ? ORDER BY created_at DESC LIMIT 20', expect: ['posts(created_at)'], servesOrderBy: true },
  // Acceptance: joins (index the inner table's join columns).
  { sql: 'SELECT p.id, p.body, u.account_name FROM posts p JOIN users u ON p.user_id = u.id WHERE u.del_flg = 0 ORDER BY p.created_at DESC LIMIT 20', expect: ['posts(user_id)', 'users(del_flg,account_name)'] },
  { sql: 'SELECT c.* FROM comments c JOIN users u ON u.id = c.user_id WHERE c.post_id = ? ORDER BY c.created_at DESC LIMIT 3', expect: ['comments(post_id,created_at)'], servesOrderBy: true, replaces: 'idx_post' },
  { sql: 'SELECT u.* FROM users u JOIN comments c ON c.user_id = u.id WHERE u.account_name = ?', expect: ['comments(user_id)'] },
  // SELECT * of a narrow table: every column fits in the index, so it covers (no row lookups).
  { sql: 'SELECT * FROM follows WHERE followee_id = ?', expect: ['follows(followee_id,created_at)'], covering: true },
  // A range, then the columns read: an index-only range read. The second range column comes first (checked inside the index).
  { sql: 'SELECT user_id FROM events WHERE created_at >= ? AND score <= ?', expect: ['events(created_at,score,user_id)'], covering: true },
  // A join chain: posts is reached from users by user_id; posts.id is compared with comments, read after it, so its primary key looks nothing up.
  { sql: 'SELECT COUNT(*) FROM users u JOIN posts p ON p.user_id = u.id JOIN comments c ON c.post_id = p.id WHERE u.id = ?', expect: ['posts(user_id)'] },
  { sql: 'SELECT i.*, u.account_name FROM items i LEFT JOIN users u ON u.id = i.seller_id WHERE i.buyer_id = ?', expect: ['items(buyer_id)'] },
  { sql: 'SELECT l.* FROM livecomments l INNER JOIN livestreams s ON s.id = l.livestream_id WHERE s.user_id = ?', expect: ['livestreams(user_id)'] },
  { sql: 'SELECT * FROM follows f JOIN posts p ON p.user_id = f.followee_id WHERE f.follower_id = ? ORDER BY p.created_at DESC LIMIT 20', expect: ['posts(user_id)'] },
  // Acceptance: GROUP BY with MAX().
  { sql: 'SELECT jia_isu_uuid, MAX(timestamp) AS max_ts FROM isu_condition GROUP BY jia_isu_uuid', expect: 'none' },
  { sql: 'SELECT user_id, MAX(created_at) AS last FROM login_log GROUP BY user_id', expect: ['login_log(user_id,created_at)'], servesOrderBy: true, covering: true },
  { sql: 'SELECT livestream_id, MAX(tip) FROM livecomments GROUP BY livestream_id', expect: ['livecomments(livestream_id,tip)'], servesOrderBy: true, covering: true },
  { sql: 'SELECT MAX(created_at) FROM login_log WHERE user_id = ?', expect: ['login_log(user_id,created_at)'], covering: true },
  { sql: 'SELECT tenant_id, COUNT(*) FROM events WHERE kind = ? GROUP BY tenant_id', expect: ['events(kind,tenant_id)'], servesOrderBy: true, covering: true },
  // Acceptance: statements already served by an existing or primary key index.
  { sql: 'SELECT * FROM users WHERE id = ?', expect: 'none' },
  { sql: 'SELECT * FROM users WHERE account_name = ? AND del_flg = 0', expect: 'none' },
  { sql: 'SELECT * FROM isu_condition WHERE jia_isu_uuid = ? AND timestamp < ? ORDER BY timestamp DESC LIMIT 20', expect: 'none' },
  { sql: 'SELECT * FROM isu_condition WHERE jia_isu_uuid = ? ORDER BY timestamp DESC', expect: 'none' },
  { sql: 'SELECT * FROM livecomments WHERE livestream_id = ? ORDER BY created_at DESC', expect: 'none' },
  { sql: 'SELECT * FROM reactions WHERE livestream_id = ? ORDER BY created_at DESC LIMIT 10', expect: 'none' },
  { sql: 'SELECT * FROM follows WHERE follower_id = ?', expect: 'none' },
  { sql: 'SELECT * FROM comments WHERE post_id = ? ORDER BY id', expect: 'none' },
  { sql: 'SELECT * FROM tags WHERE name = :name', expect: 'none' },
  { sql: 'UPDATE users SET del_flg = 1 WHERE id % 50 = 0', expect: 'none' },
  { sql: 'SELECT * FROM posts', expect: 'none' },
  { sql: 'SELECT * FROM posts ORDER BY created_at DESC', expect: 'none' },
  { sql: "SELECT * FROM users WHERE account_name LIKE '%foo'", expect: 'none' },
  { sql: 'SELECT * FROM posts WHERE DATE(created_at) = ?', expect: 'none' },
  // Ranges and placeholders of every driver style.
  { sql: 'SELECT * FROM events WHERE tenant_id = $1 AND created_at BETWEEN $2 AND $3', expect: ['events(tenant_id,created_at)'], replaces: 'idx_tenant' },
  { sql: 'SELECT * FROM events WHERE user_id = %s AND score > %s AND created_at > %s', expect: ['events(user_id,score)'] },
  { sql: "SELECT * FROM users WHERE account_name LIKE 'ab%' AND authority = 1", expect: ['users(authority,account_name)'] },
  { sql: 'SELECT id FROM events WHERE tenant_id = ? AND kind = ? AND user_id = ?', expect: ['events(tenant_id,kind,user_id)'], replaces: 'idx_tenant', covering: true },
  { sql: 'SELECT * FROM events WHERE kind = ? AND tenant_id = ? ORDER BY score DESC LIMIT 10', expect: ['events(tenant_id,kind,score)'], servesOrderBy: true, replaces: 'idx_tenant' },
  { sql: 'SELECT * FROM events WHERE user_id = ? AND created_at > ? ORDER BY score DESC', expect: ['events(user_id,created_at)'], servesOrderBy: false },
  { sql: 'SELECT * FROM events WHERE user_id = ? AND created_at > ? ORDER BY score DESC LIMIT 5', expect: ['events(user_id,score)'], servesOrderBy: true },
  { sql: 'SELECT * FROM events WHERE user_id = ? ORDER BY score ASC, created_at DESC LIMIT 5', expect: ['events(user_id)'], servesOrderBy: false },
  { sql: 'DELETE FROM login_log WHERE created_at < ?', expect: ['login_log(created_at)'] },
  { sql: 'UPDATE items SET status = ? WHERE seller_id = ? AND status = ?', expect: ['items(status,seller_id)'], replaces: 'idx_status' },
  { sql: 'SELECT * FROM posts WHERE id IN (SELECT post_id FROM comments WHERE user_id = ?)', expect: ['comments(user_id,post_id)'], covering: true },
  { sql: 'SELECT * FROM users u WHERE EXISTS (SELECT 1 FROM posts p WHERE p.user_id = u.id AND p.mime = ?)', expect: ['posts(user_id,mime)'] },
  { sql: 'SELECT * FROM posts WHERE user_id = ? AND body IS NULL', expect: ['posts(user_id)'] },
  { sql: 'SELECT * FROM posts WHERE user_id = /*?dynamic*/ ORDER BY id DESC', expect: ['posts(user_id)'], servesOrderBy: true },
  { sql: 'SELECT COUNT(*) FROM posts USE INDEX (PRIMARY) WHERE mime = ?', expect: ['posts(mime)'], covering: true },
  { sql: 'SELECT emoji_name FROM reactions WHERE user_id = ? AND emoji_name <> ?', expect: ['reactions(user_id,emoji_name)'], covering: true },
];
