// What the SSH tunnel costs: a private MariaDB behind a private sshd on loopback, reached directly
// and through the tunnel (ssh2 in pure JavaScript, as in the bundle).
//
//   node bench/sshTunnel.mjs              10 fresh connections, 500 EXPLAINs each way
//   CONNECTS=20 QUERIES=2000 node bench/sshTunnel.mjs
//
// Prints: time to a usable connection (SSH login + forward + MySQL handshake + session setup) and
// EXPLAIN round-trip latency (p50/p95/max) direct vs tunnelled. Loopback hides network latency, so
// the difference is the tunnel's own CPU cost. The machine may be shared; the load average is printed.
import * as esbuild from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CONNECTS = Number(process.env.CONNECTS ?? 10);
const QUERIES = Number(process.env.QUERIES ?? 500);

const tmp = mkdtempSync(join(tmpdir(), 'qi-ssh-bench-'));
const outfile = join(tmp, 'bench.cjs');
await esbuild.build({
  stdin: {
    contents: `export { startMariaDb } from './test/support/mariadb';
      export { startSshd } from './test/support/sshd';
      export { DbConnection } from './src/db/connection';`,
    resolveDir: root, loader: 'ts',
  },
  // why: as in scripts/build.mjs, ssh2's optional native parts stay out of the bundle.
  bundle: true, platform: 'node', format: 'cjs', outfile, logLevel: 'warning', external: ['cpu-features', '*.node'],
});
const { startMariaDb, startSshd, DbConnection } = createRequire(import.meta.url)(outfile);

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; };
const ms = (x) => `${x.toFixed(2)} ms`;

const [db, sshd] = await Promise.all([startMariaDb(), startSshd()]);
try {
  db.sql('CREATE DATABASE b');
  db.sql('CREATE TABLE t (id INT PRIMARY KEY, v INT, KEY (v)); INSERT INTO t SELECT seq, seq % 100 FROM seq_1_to_10000;', 'b');
  db.sql("CREATE USER 'qi'@'127.0.0.1' IDENTIFIED BY 'pw'; GRANT SELECT ON b.* TO 'qi'@'127.0.0.1';");
  const base = { host: '127.0.0.1', port: db.port, user: 'qi', password: 'pw', database: 'b' };
  const ssh = { host: sshd.host, port: sshd.port, username: sshd.user, privateKeyPath: sshd.clientKey.path };
  const results = {};
  for (const [name, opts] of [['direct', base], ['tunnel', { ...base, ssh }]]) {
    const connects = [];
    for (let i = 0; i < CONNECTS; i++) {
      const c = new DbConnection(opts);
      const t0 = performance.now();
      await c.connect();
      connects.push(performance.now() - t0);
      await c.close();
    }
    const c = new DbConnection(opts);
    await c.connect();
    const lat = [];
    for (let i = 0; i < QUERIES; i++) {
      const t0 = performance.now();
      await c.query('explain', `EXPLAIN SELECT * FROM t WHERE v = ${i % 100} ORDER BY id LIMIT 10`);
      lat.push(performance.now() - t0);
    }
    await c.close();
    results[name] = { connects, lat };
  }
  console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${CONNECTS} connects, ${QUERIES} EXPLAINs each`);
  for (const [name, r] of Object.entries(results)) {
    console.log(`${name.padEnd(7)} connect p50 ${ms(pct(r.connects, 50))} max ${ms(Math.max(...r.connects))} | EXPLAIN p50 ${ms(pct(r.lat, 50))} p95 ${ms(pct(r.lat, 95))} max ${ms(Math.max(...r.lat))}`);
  }
} finally {
  await Promise.all([db.stop(), sshd.stop()]);
  rmSync(tmp, { recursive: true, force: true });
}
