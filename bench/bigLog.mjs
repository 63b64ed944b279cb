// Memory on a large log: `query-insight endpoints` and `slow` on a 256 MB and a 2 GB file of the same
// kind (8× the lines, the same distinct endpoints and fingerprints), peak RSS of each. Memory is
// linear in what is distinct, not in the log: the two peaks should be about the same.
//
//   node bench/bigLog.mjs                 2 GB (SIZE_MB=2048), files in a temp dir, deleted after
//   SIZE_MB=512 KIND=access node bench/bigLog.mjs
//
// The logs are written here (no generator needed): 32 endpoints with ids in the paths, and 40
// statement shapes with literals, repeated with varying numbers up to the size.
import { buildCli } from '../scripts/build.mjs';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SIZE_MB = Number(process.env.SIZE_MB ?? 2048);
const KINDS = (process.env.KIND ?? 'access,slow').split(',');
const work = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'qi-biglog-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
process.on('SIGINT', () => process.exit(130));

const cli = process.env.QI_CLI ?? join(work, 'qi-cli', 'cli.js');
process.env.NODE_PATH = [join(root, 'node_modules'), process.env.NODE_PATH].filter(Boolean).join(':');
if (!process.env.QI_CLI) await buildCli(join(work, 'qi-cli'), { production: true });

/** One block of log text: `n` lines or entries; `k` varies the numbers from block to block. */
function accessBlock(k, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const e = (i * 7 + k) % 32;
    const id = (i * 131 + k * 17) % 100000;
    const t = ((i * 37 + k) % 2000) / 1000;
    out.push(`time:2024-05-01T10:00:00+09:00\tmethod:${e % 3 ? 'GET' : 'POST'}\turi:/api/e${e}/${id}\tstatus:${e % 7 ? 200 : 404}\tsize:${(i * 13) % 9000}\treqtime:${t.toFixed(3)}\tapptime:${t.toFixed(3)}\n`);
  }
  return out.join('');
}

function slowBlock(k, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const shape = (i * 7 + k) % 40;
    const sec = 1714557600 + Math.floor((k * n + i) / 50);
    out.push(`# Time: ${new Date(sec * 1000).toISOString().slice(0, 19)}.${String(i % 1e6).padStart(6, '0')}Z\n`,
      `# User@Host: isucon[isucon] @ localhost [127.0.0.1]  Id: ${10 + (i % 8)}\n`,
      `# Query_time: ${((i * 37 + k) % 5000 / 1e5).toFixed(6)}  Lock_time: 0.000003 Rows_sent: ${i % 10}  Rows_examined: ${(i * 11) % 5000}\n`,
      `SET timestamp=${sec};\n`,
      `SELECT c${shape}, name FROM t${shape} WHERE id = ${(i * 131 + k) % 100000} AND note = 'n${i % 977}';\n`);
  }
  return out.join('');
}

function writeLog(path, block, mb) {
  const fd = openSync(path, 'w');
  let written = 0;
  for (let k = 0; written < mb * 1e6; k++) {
    const b = Buffer.from(block(k, 20000));
    writeSync(fd, b);
    written += b.length;
  }
  closeSync(fd);
  return written;
}

function timed(args) {
  const timeFile = join(work, 'time.txt');
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M %U %S', '-o', timeFile, process.execPath, cli, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`query-insight ${args[0]} failed: ${r.stderr}`);
  const [wall, rssKb, user, sys] = readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  return { wall, rss: rssKb / 1024, cpu: user + sys };
}

const f = (n, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
for (const kind of KINDS) {
  const rows = [];
  for (const mb of [SIZE_MB / 8, SIZE_MB]) {
    const path = join(work, `${kind}-${mb}.log`);
    const bytes = writeLog(path, kind === 'access' ? accessBlock : slowBlock, mb);
    const args = kind === 'access' ? ['endpoints', path, '--log-format', 'ltsv', '--format', 'json', '--quiet'] : ['slow', path, '--format', 'json', '--quiet'];
    const r = timed(args);
    rows.push({ bytes, ...r });
    rmSync(path, { force: true });
  }
  console.log(`${kind}: ${rows.map((r) => `${f(r.bytes / 1e6, 0)} MB: ${f(r.wall, 2)} s wall, ${f(r.cpu, 2)} CPU s, peak RSS ${f(r.rss)} MB`).join('; ')}`);
  console.log(`  8× the log, peak RSS ×${f(rows[1].rss / rows[0].rss, 2)}`);
}
