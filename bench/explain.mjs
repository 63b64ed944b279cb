// Benchmark of EXPLAIN on hover and of explaining a whole app, against a private MariaDB loaded with
// the isuconish fixture schema and its generated rows (10k users, 100k posts, 200k comments, 100k items).
//
//   node bench/explain.mjs                 200 statements, 2000 warm hovers
//   STATEMENTS=500 HOVERS=5000 node bench/explain.mjs
//
// Prints: time to explain all statements of a 200-statement app with a fresh service (connect, schema
// read, sampling, EXPLAIN + EXPLAIN FORMAT=JSON, findings; target < 3 s), hover latency with a warm
// plan cache (p50/p95/max; target p95 < 30 ms), and the latency of an uncached single statement.
// The machine may be shared; the load average is printed beside the figures.
import * as esbuild from 'esbuild';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const STATEMENTS = Number(process.env.STATEMENTS ?? 200);
const HOVERS = Number(process.env.HOVERS ?? 2000);

const tmp = mkdtempSync(join(tmpdir(), 'qi-explain-bench-'));
const outfile = join(tmp, 'bench.cjs');
await esbuild.build({
  stdin: {
    contents: `export { startMariaDb } from './test/support/mariadb';
      export { DbConnection } from './src/db/connection';
      export { ExplainService } from './src/db/explainService';`,
    resolveDir: root, loader: 'ts',
  },
  bundle: true, platform: 'node', format: 'cjs', outfile, logLevel: 'warning',
});
const { startMariaDb, DbConnection, ExplainService } = createRequire(import.meta.url)(outfile);

/** A 200-statement app: the shapes ISUCON apps send, over every table, each text distinct. */
function statements(n) {
  const shapes = [
    (i) => `SELECT * FROM posts WHERE user_id = ? ORDER BY created_at DESC LIMIT ${i + 1}`,
    (i) => `SELECT p.id, p.user_id, p.body, u.account_name FROM posts p JOIN users u ON u.id = p.user_id WHERE u.del_flg = 0 ORDER BY p.created_at DESC LIMIT ${i + 1}`,
    (i) => `SELECT * FROM comments WHERE post_id = ? ORDER BY created_at DESC LIMIT ${i + 1}`,
    (i) => `SELECT COUNT(*) AS count FROM comments WHERE post_id IN (?) /* ${i} */`,
    (i) => `SELECT * FROM users WHERE account_name = ? AND del_flg = ${i % 2}`,
    (i) => `SELECT * FROM users WHERE id = ? /* ${i} */`,
    (i) => `SELECT * FROM items WHERE seller_id = ? AND status IN ('on_sale', 'sold_out') ORDER BY created_at DESC, id DESC LIMIT ${i + 1}`,
    (i) => `SELECT * FROM items WHERE category_id IN (?) AND created_at < ? ORDER BY created_at DESC LIMIT ${i + 1}`,
    (i) => `SELECT c.* FROM comments c JOIN posts p ON p.user_id = c.user_id WHERE c.post_id = ? LIMIT ${i + 1}`,
    (i) => `SELECT user_id, COUNT(*) FROM comments WHERE created_at > ? GROUP BY user_id LIMIT ${i + 1}`,
    (i) => `UPDATE items SET buyer_id = ?, status = 'trading' WHERE id = ? /* ${i} */`,
    (i) => `DELETE FROM comments WHERE user_id = ? /* ${i} */`,
    (i) => `SELECT * FROM categories WHERE parent_id = ? /* ${i} */`,
    (i) => `INSERT INTO tags (id, name) VALUES (?, ?) /* ${i} */`,
    (i) => `SELECT * FROM posts WHERE id IN (SELECT post_id FROM comments WHERE user_id = ?) LIMIT ${i + 1}`,
    (i) => `SELECT * FROM users WHERE LOWER(account_name) = ? LIMIT ${i + 1}`,
  ];
  return Array.from({ length: n }, (_, i) => shapes[i % shapes.length](Math.floor(i / shapes.length)));
}

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; };
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

const db = await startMariaDb();
try {
  db.sql('CREATE DATABASE isu');
  db.sql(readFileSync(join(root, 'test/fixtures/schemas/isuconish.sql'), 'utf8'), 'isu');
  db.sql(readFileSync(join(root, 'test/fixtures/schemas/isuconish-data.sql'), 'utf8'), 'isu');
  const sqls = statements(STATEMENTS);
  console.log(`# MariaDB ${db.sql('SELECT VERSION()').trim()}, ${sqls.length} statements, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);

  // Whole app, fresh service: connect, read the schema, sample, EXPLAIN ×2 per statement, findings.
  const svc = new ExplainService(new DbConnection({ socket: db.socket, user: 'root', database: 'isu' }));
  const t0 = process.hrtime.bigint();
  let findings = 0, errors = 0, skipped = 0;
  for (const sql of sqls) {
    const r = await svc.explainSql(sql);
    findings += r.findings.length;
    if (r.error) errors++;
    if (r.skipped) skipped++;
  }
  const whole = ms(t0);
  console.log(`explain all: ${sqls.length} statements in ${whole.toFixed(0)} ms (${(whole / sqls.length).toFixed(1)} ms each; target < 3000 ms total) — ${findings} findings, ${skipped} without a plan, ${errors} errors`);

  // Hover with a warm cache: the same statements again, in random order.
  const warm = [];
  for (let i = 0; i < HOVERS; i++) {
    const sql = sqls[Math.floor(Math.random() * sqls.length)];
    const t = process.hrtime.bigint();
    const r = await svc.explainSql(sql);
    warm.push(ms(t));
    if (!r.cached) throw new Error(`expected a cache hit for ${sql}`);
  }
  console.log(`hover, warm cache: p50 ${pct(warm, 50).toFixed(3)} ms, p95 ${pct(warm, 95).toFixed(3)} ms, max ${Math.max(...warm).toFixed(3)} ms over ${HOVERS} hovers (target p95 < 30 ms)`);

  // Hover on a statement not seen before (plan cache miss, samples cached).
  const cold = [];
  for (let i = 0; i < 100; i++) {
    const t = process.hrtime.bigint();
    await svc.explainSql(`SELECT * FROM posts WHERE user_id = ? AND id > ${i} ORDER BY created_at DESC LIMIT 20`);
    cold.push(ms(t));
  }
  console.log(`hover, uncached statement: p50 ${pct(cold, 50).toFixed(1)} ms, p95 ${pct(cold, 95).toFixed(1)} ms over 100 statements`);
  await svc.close();
} finally {
  await db.stop();
  rmSync(tmp, { recursive: true, force: true });
}
