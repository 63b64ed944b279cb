/**
 * Log and error-message strings that mention SQL words are not statements, in every language: by
 * their use (the argument of a logging, printing or error-raising call, a throw / raise / die) and by
 * their text (a value followed by prose, a formatting verb no driver reads). Real statements beside
 * them are still found.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Language } from '../../../src/core/model';
import { FactsCache } from '../../../src/core/workspace';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../../src/node/grammars';
import { isReportingCall, looksLikeSql } from '../../../src/core/source/sqlText';

const cache = new FactsCache(new ParserSet(fsGrammarSource()));

/** Per language: a file whose only statement is `SELECT name FROM users WHERE id = ?` (or `%s`), among messages. */
const APPS: [Language, string, string][] = [
  ['go', 'main.go', `package main
func get(db *sql.DB, id int, price int) error {
	log.Infof("select * from items where price > %d", price)
	log.Printf("update items set price = %d where id = %d", price, id)
	logger.Warn("delete from carts where user_id = ?", zap.Int("id", id))
	if err := db.QueryRow("SELECT name FROM users WHERE id = ?", id).Scan(&name); err != nil {
		return fmt.Errorf("failed to select from users where id = %d: %w", id, err)
	}
	return errors.New("delete from carts failed")
}
`],
  ['python', 'app.py', `def get(cur, logger, id):
    logger.info("select * from items where price > %s", 3)
    logging.warning("update users set name = %s where id = %s", "x", id)
    print("insert into logs (a) values (1)")
    cur.execute("SELECT name FROM users WHERE id = %s", (id,))
    if cur.rowcount == 0:
        raise ValueError("select from users where id = %s returned nothing" % id)
`],
  ['ruby', 'app.rb', `def get(db, id)
  logger.warn("select * from items where price > #{id}")
  Rails.logger.info "update items set price = 3 where id = 1"
  puts "delete from carts where id = #{id}"
  db.xquery("SELECT name FROM users WHERE id = ?", id)
  raise ArgumentError, "delete from carts where id = #{id} failed"
end
`],
  ['php', 'app.php', `<?php
function get($db, $id) {
  error_log("select * from items where price > 3");
  $this->logger->info("update items set price = 3 where id = 1");
  $stmt = $db->prepare("SELECT name FROM users WHERE id = ?");
  $stmt->execute([$id]);
  throw new RuntimeException("delete from carts where id = 3");
}
`],
  ['perl', 'app.pl', `sub get {
  my ($self, $id) = @_;
  warn "select * from items where price > 3";
  $self->log->info("delete from carts where id = 3");
  my $row = $self->dbh->select_row('SELECT name FROM users WHERE id = ?', $id);
  die "update items set price = 3 where id = $id" unless $row;
  croak("select * from users where id = $id");
}
`],
  ['javascript', 'app.js', `async function get(db, id) {
  console.log("select * from items where price > 3");
  logger.error(\`update items set price = \${id} where id = 1\`);
  const [rows] = await db.query("SELECT name FROM users WHERE id = ?", [id]);
  if (!rows.length) throw new Error("select * from users where id = " + id);
  return rows;
}
`],
  ['typescript', 'app.ts', `export async function get(db: Pool, id: number) {
  console.warn("delete from carts where id = ?", id);
  const [rows] = await db.query("SELECT name FROM users WHERE id = ?", [id]);
  if (!rows) throw new NotFoundError("select * from users where id = " + id);
  return rows;
}
`],
  ['rust', 'main.rs', `async fn get(pool: &MySqlPool, id: i64) -> anyhow::Result<String> {
    log::info!("select * from items where price > {}", 3);
    tracing::warn!("update items set price = 3 where id = {}", id);
    eprintln!("delete from carts where id = 1");
    let name: String = sqlx::query_scalar("SELECT name FROM users WHERE id = ?").bind(id).fetch_one(pool).await?;
    if name.is_empty() { bail!("select * from users where id = {} is empty", id); }
    Ok(name)
}
`],
];

void test('not SQL: logging, printing and error strings are no statements in any language; the real one is found', async () => {
  for (const [language, file, text] of APPS) {
    const facts = await cache.update(file, text, language);
    assert.ok(facts, language);
    const sqls = facts.sites.map((s) => s.sql);
    assert.equal(sqls.length, 1, `${language}: ${JSON.stringify(sqls)}`);
    assert.match(sqls[0], /^SELECT name FROM users WHERE id = (\?|%s)$/, language);
  }
});

void test('isReportingCall: loggers, printers and error constructors; never query builders', () => {
  for (const c of ['log.Infof', 'logger.info', 'logging.warning', 'Rails.logger.info', '$this->logger->info', '$self->log->info', 'error_log',
    'fmt.Errorf', 'errors.New', 'raise', 'die', 'warn', 'croak', 'console.log', 'log::info!', 'tracing::warn!', 'eprintln!', 'bail!', 'anyhow!',
    'ValueError', 'RuntimeException', 'print', 'puts', 'fmt.Printf', 'fmt.Fprintf', 'slog.Error', 'app.logger.debug']) {
    assert.equal(isReportingCall(c), true, c);
  }
  for (const c of ['db.Query', 'cur.execute', '$dbh->selectrow_array', 'db.xquery', '$pdo->prepare', 'sqlx::query', 'fmt.Sprintf', 'sprintf',
    'format!', 'db.Exec', 'conn.query', 'tx.Get', 'Model.find_by_sql']) {
    assert.equal(isReportingCall(c), false, c);
  }
});

void test('looksLikeSql: a value followed by prose, or a formatting verb only loggers read, is a message', () => {
  for (const s of [
    'select * from items where price > %d failed',
    'update items set price = 3 done',
    'update users set name = %s failed',
    'delete from carts where id = 3 failed',
    'SELECT * FROM users WHERE id = %v',
    'select * from users where id = %+v',
    'delete from carts where id in (1, 2) went wrong',
  ]) assert.equal(looksLikeSql(s), false, s);
  for (const s of [
    'SELECT * FROM items WHERE price > 3 ORDER BY id DESC LIMIT 10',
    "UPDATE items SET status = 'done' WHERE id = ?",
    'SELECT * FROM events WHERE created_at > NOW() - INTERVAL 1 DAY',
    "SELECT * FROM t WHERE name = 'a failed' COLLATE utf8mb4_bin",
    'INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE a = VALUES(a)',
    'SELECT * FROM t WHERE id = ? FOR UPDATE SKIP LOCKED',
    'SELECT * FROM t WHERE a = 1 AND b BETWEEN 2 AND 3 UNION ALL SELECT * FROM u',
    "SELECT * FROM t WHERE a LIKE '%v%'",
    'SELECT id % 2 AS parity FROM t WHERE id > 0',
  ]) assert.equal(looksLikeSql(s), true, s);
});
