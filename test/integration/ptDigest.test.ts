/**
 * A differential test against pt-query-digest (percona-toolkit, installed by
 * scripts/setup-test-env.sh): on slow logs written here to hold every quirk the reader handles —
 * `# User:` headers, garbled `# Time:`, a last statement without `;`, entries that are only
 * `use db;`, an administrator command with no header on line 1, statements over 1 MiB, multi-line
 * statements, MariaDB and MySQL headers — the class count, and each class's count, total and
 * maximum query time, equal pt-query-digest's. Where pt-query-digest is wrong (README: "Query
 * Insight and pt-query-digest"), the difference itself is asserted.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeSlowLogFile } from '../../src/node/slowLogFile';

let dir: string;
before(() => { dir = mkdtempSync(join(tmpdir(), 'qi-ptdigest-')); });
after(() => { if (!process.env.QI_KEEP) rmSync(dir, { recursive: true, force: true }); });

interface PtClass { query_count: number; fingerprint: string; metrics: { Query_time?: { sum: string; max: string }; db?: { value: string } } }
interface PtReport { classes: PtClass[]; global: { unique_query_count: number; query_count: number } }

function ptDigest(file: string): PtReport {
  const r = spawnSync('pt-query-digest', ['--output', 'json', '--limit', '100%', '--no-version-check', file], { encoding: 'utf8', maxBuffer: 256 << 20 });
  assert.equal(r.error, undefined, 'pt-query-digest runs (scripts/setup-test-env.sh installs percona-toolkit)');
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as PtReport;
}

const tuple = (count: number, sum: number, max: number): string => `${count} ${sum.toFixed(6)} ${max.toFixed(6)}`;

async function compare(name: string, text: string): Promise<{ ours: string[]; pt: string[]; unique: number; ourClasses: number; ourNames: string[]; ptNames: string[] }> {
  const file = join(dir, name);
  writeFileSync(file, text);
  const pt = ptDigest(file);
  const { stats } = await analyzeSlowLogFile(file);
  return {
    ours: stats.map((s) => tuple(s.count, s.queryTime.total, s.queryTime.max)).sort(),
    pt: pt.classes.filter((c) => c.metrics.Query_time).map((c) => tuple(c.query_count, Number(c.metrics.Query_time!.sum), Number(c.metrics.Query_time!.max))).sort(),
    unique: pt.global.unique_query_count,
    ourClasses: stats.length,
    // each class with its figures and database, for classes named alike by both
    ourNames: stats.map((s) => `${s.fingerprint} ${tuple(s.count, s.queryTime.total, s.queryTime.max)} ${s.exampleSchema}`).sort(),
    ptNames: pt.classes.map((c) => `${c.fingerprint} ${tuple(c.query_count, Number(c.metrics.Query_time?.sum ?? 0), Number(c.metrics.Query_time?.max ?? 0))} ${c.metrics.db?.value ?? ''}`).sort(),
  };
}

/** A deterministic stream of numbers in [0, 1). */
function rng(seed: number): () => number {
  let x = seed;
  return () => { x = (Math.imul(x, 1103515245) + 12345) >>> 0; return x / 2 ** 32; };
}

const QT = (r: () => number) => Math.round((0.0001 + r() * 0.2) * 1e6) / 1e6;

function mysqlEntry(i: number, qt: number, body: string, user = '# User@Host: isucon[isucon] @ localhost []  Id:    14'): string {
  const us = String(i % 1000000).padStart(6, '0');
  return `# Time: 2024-03-02T10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.${us}Z\n${user}\n`
    + `# Query_time: ${qt.toFixed(6)}  Lock_time: 0.000010 Rows_sent: 1  Rows_examined: ${i % 500}\nSET timestamp=${1709373600 + i};\n${body}\n`;
}

const SHAPES: ((r: () => number) => string)[] = [
  (r) => `SELECT * FROM chairs WHERE id = ${Math.floor(r() * 1000)};`,
  (r) => `SELECT id, name FROM estates WHERE rent < ${Math.floor(r() * 100000)} AND door_height >= ${Math.floor(r() * 200)} ORDER BY popularity DESC LIMIT 20;`,
  (r) => `SELECT COUNT(*) AS cnt\nFROM livecomments\nWHERE livestream_id = ${Math.floor(r() * 100)};`,
  (r) => `UPDATE chairs SET stock = stock - 1 WHERE id = ${Math.floor(r() * 1000)};`,
  (r) => `INSERT INTO reactions (user_id, livestream_id, emoji_name, created_at) VALUES (${Math.floor(r() * 100)}, ${Math.floor(r() * 100)}, 'innocent', ${1709373600 + Math.floor(r() * 1000)});`,
  (r) => `SELECT * FROM users WHERE name = '${r() < 0.5 ? "o\\'neil" : 'alice'}';`,
];

void test('pt-query-digest agrees on a log with every quirk: # User:, garbled # Time, no final ;, use-only entries, headerless admin command', async () => {
  const r = rng(14);
  let log = '# administrator command: Quit;\n';
  for (let i = 0; i < 600; i++) {
    const body = SHAPES[i % SHAPES.length](r);
    if (i % 97 === 5) log += mysqlEntry(i, QT(r), 'use isupipe;');
    else if (i % 50 === 7) log += mysqlEntry(i, QT(r), body, '# User: isucon');
    else if (i % 61 === 11) log += mysqlEntry(i, QT(r), body).replace(/^# Time: [^\n]*/, '# Time: margdl 11:48:27');
    else log += mysqlEntry(i, QT(r), body);
  }
  log += mysqlEntry(600, 0.25, 'SELECT COUNT(*) FROM chairs WHERE stock > 0').replace(/\n$/, '');
  const c = await compare('quirks.log', log);
  assert.equal(c.ourClasses, c.unique, 'the same number of classes');
  // pt-query-digest leaves the headerless administrator command (no Query_time) out of its class list
  const extra = c.ours.filter((t) => !c.pt.includes(t));
  assert.deepEqual(extra, ['1 0.000000 0.000000']);
  assert.deepEqual(c.ours.filter((t) => t !== '1 0.000000 0.000000'), c.pt);
});

// why: no banner mid-file here: pt-query-digest knows only `mysqld, Version` banners, and reads MariaDB's
// `mariadbd, Version` one as statement text (README: where the two differ).
void test('pt-query-digest agrees on MariaDB headers (legacy # Time, Thread_id/Schema, verbosity, explain lines)', async () => {
  const r = rng(15);
  let log = '/usr/sbin/mariadbd, Version: 10.11.6-MariaDB-0+deb12u1-log (Debian 12). started with:\nTcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n';
  for (let i = 0; i < 400; i++) {
    if (i % 7 === 0) log += `# Time: 240302 10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}\n`;
    log += `# User@Host: isucon[isucon] @ localhost []\n# Thread_id: ${30 + (i % 4)}  Schema: isupipe  QC_hit: No\n`
      + `# Query_time: ${QT(r).toFixed(6)}  Lock_time: 0.000020  Rows_sent: 1  Rows_examined: ${i}\n# Rows_affected: 0  Bytes_sent: 120\n`
      + (i % 5 === 0 ? '# Full_scan: Yes  Full_join: No  Tmp_table: No  Tmp_table_on_disk: No\n# Filesort: Yes  Filesort_on_disk: No  Merge_passes: 0  Priority_queue: No\n#\n# explain: id\tselect_type\ttable\ttype\n# explain: 1\tSIMPLE\tt\tALL\n#\n' : '')
      + `SET timestamp=${1709373600 + i};\n${SHAPES[i % SHAPES.length](r)}\n`;
  }
  const c = await compare('mariadb.log', log);
  assert.equal(c.ourClasses, c.unique);
  assert.deepEqual(c.ours, c.pt);
});

void test('statements over 1 MiB: one class at any length, as pt-query-digest', async () => {
  const r = rng(16);
  let log = '';
  for (let i = 0; i < 4; i++) {
    const rows: string[] = [];
    let n = 0;
    const target = (1 + i * 0.7) * (1 << 20);
    while (n < target) {
      const row = `(${Math.floor(r() * 1e6)}, 'isu-${Math.floor(r() * 1e9).toString(16)}', ${Math.floor(r() * 1e4) / 100}, '2024-03-02 10:00:00')`;
      rows.push(row);
      n += row.length + 1;
    }
    log += mysqlEntry(i, QT(r), `INSERT INTO isu_condition (jia_isu_uuid, message, level, timestamp) VALUES ${rows.join(',')};`);
    log += mysqlEntry(i + 10, QT(r), 'SELECT 1;');
  }
  const c = await compare('long.log', log);
  assert.equal(c.ourClasses, 2);
  assert.equal(c.unique, 2);
  assert.deepEqual(c.ours, c.pt);
});

void test('where pt-query-digest is wrong: header lines inside a string literal forge an entry there, not here', async () => {
  const forged = "x\\';\n# Time: 2024-03-02T10:00:09.000000Z\n# User@Host: evil[evil] @ localhost []  Id: 99\n# Query_time: 999.000000  Lock_time: 0.000000 Rows_sent: 0  Rows_examined: 0\nSELECT SLEEP(999);\n# c";
  const log = mysqlEntry(1, 0.002, `INSERT INTO livecomments (user_id, comment) VALUES (7, '${forged}');`) + mysqlEntry(2, 0.003, 'SELECT 2;');
  const c = await compare('forged.log', log);
  assert.deepEqual(c.ours, ['1 0.002000 0.002000', '1 0.003000 0.003000']);
  assert.ok(c.pt.includes('1 999.000000 999.000000'), `pt-query-digest reads the forged entry: ${c.pt.join(', ')}`);
});

/** An entry as Percona Server writes it: `Schema:` on the Thread_id line, statistics lines, then the body. */
function perconaEntry(i: number, qt: number, body: string, schema = ''): string {
  return `# Time: 240302 10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}\n# User@Host: isucon[isucon] @  [10.0.0.${2 + (i % 3)}]\n`
    + `# Thread_id: ${20 + (i % 5)}${schema ? `  Schema: ${schema}` : ''}\n# Query_time: ${qt.toFixed(6)}  Lock_time: 0.000000  Rows_sent: 0  Rows_examined: ${i % 70}\n`
    + '# QC_Hit: No  Full_scan: No  Full_join: No  Tmp_table: No  Disk_tmp_table: No\n# Filesort: No  Disk_filesort: No  Merge_passes: 0\n'
    + `# No InnoDB statistics available for this query\n${body}\n`;
}

void test('pt-query-digest agrees on `use db;` before statements, administrator commands and a database switch mid-log', async () => {
  const r = rng(17);
  // why: each database has its own statements, so a class has one database and pt's db attribute can be compared
  const before = [(n: number) => `SELECT * FROM tenant WHERE id = ${n};`, (n: number) => `UPDATE tenant SET display_name = 'x${n}' WHERE id = ${n};`];
  const after = [(n: number) => `SELECT player_id, score FROM player_score WHERE tenant_id = ${n} ORDER BY row_num DESC;`, (n: number) => `INSERT INTO visit_history (player_id, tenant_id) VALUES ('p${n}', ${n});`];
  let log = '';
  for (let i = 0; i < 400; i++) {
    const mid = i >= 200;
    const db = mid ? 'isuports_2' : 'isuports';
    const shape = (mid ? after : before)[i % 2](Math.floor(r() * 1000));
    const k = i % 11;
    let body: string;
    if (i === 0 || i === 200) body = `use ${db};\n${shape}`;                        // the switch: written once, where it changes
    else if (k === 3) body = `use ${db};\nSET NAMES utf8mb4;`;                       // the classic: use, then a statement
    else if (k === 5) body = '# administrator command: Quit;';
    else if (k === 7) body = `use ${db};\n# administrator command: Quit;`;            // a use before an administrator command
    else if (k === 9) body = '# administrator command: Ping;';
    else body = shape;
    log += perconaEntry(i, QT(r), body, k === 1 ? db : '');
  }
  const c = await compare('use-admin.log', log);
  assert.equal(c.ourClasses, c.unique, 'the same number of classes');
  assert.deepEqual(c.ours, c.pt);
  // the names and databases too, but for two habits of pt's fingerprints (README): digits in names (`utf8mb4` is
  // `utf?m?` there) and a space kept before `(`; the classes seen in both databases are compared without one
  const same = (n: string): string => n.replace('set names utf?m?', 'set names utf8mb4').replace(/ \(/g, '(').replace(/ isuports(_2)?$/, (db) => (/^(administrator|set names)/.test(n) ? '' : db));
  assert.deepEqual(c.ourNames.map(same), c.ptNames.map(same).sort());
  assert.ok(c.ourNames.some((n) => n.startsWith('administrator command: Quit ')), c.ourNames.join('\n'));
  assert.ok(!c.ourNames.some((n) => n.startsWith(' ') || n.startsWith('use ')), 'no empty class, no `use` class');
});

void test('where pt-query-digest is wrong: a comment-only statement gets a class of its own, not an empty one', async () => {
  const log = mysqlEntry(1, 0.001, '/* ping */;') + mysqlEntry(2, 0.002, '-- health check\n;') + mysqlEntry(3, 0.003, 'SELECT 1;');
  const c = await compare('comments.log', log);
  assert.ok(c.ptNames.some((n) => n.startsWith(' 2 ')), `pt-query-digest classes both under an empty fingerprint: ${c.ptNames.join(', ')}`);
  assert.deepEqual(c.ourNames, ['-- health check 1 0.002000 0.002000 ', '/* ping */ 1 0.001000 0.001000 ', 'select ? 1 0.003000 0.003000 ']);
});
