// Benchmark of SQL discovery.
//   node bench/scan.mjs [--files 10000] [--keep] [--dir DIR] [--edits 100] [--runs 3] [--before OLD_CLI]
// 1. generates N mixed-language source files (Go, Ruby, Python, PHP, JS, TS, Rust, Perl) in a temp
//    dir (or reuses DIR, e.g. one kept by --keep),
// 2. runs the built CLI (dist/cli.js, or $QI_CLI) `scan DIR --format json` in one process, once
//    free and once pinned to one CPU with taskset, and prints files/s and MB/s by the wall clock and
//    per CPU-second. The target is >= 1,000 files per CPU-second on one core: the pinned run's CPU
//    seconds (user + sys of the process, all its threads and the children it waited for, such as git ls-files:
//    GNU time's figures from wait4, so the wall clock's share of the other processes on a shared machine is left out). The pinned run is made --runs times, each printed,
//    then their min and median.
//    With --before OLD_CLI (or $QI_CLI_BEFORE, e.g. a copy of dist/ kept from before a change), each
//    pinned run of the CLI is paired with one of OLD_CLI, in turn (new, old, new, old …), so both see
//    the same machine: each pair's CPU seconds and their ratio, then the medians; and the two outputs
//    are compared byte for byte (a change for speed must print exactly the same).
// 3. runs the extraction engine alone in this process over the same files (no start-up, N+1 report or
//    output), then times re-extracting one edited file through that same workspace cache
//    (FactsCache.update), as the extension does on each edit after its activation scan: median and p95
//    over --edits edits (target: < 20 ms).
// Build first: `node scripts/build.mjs`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : dflt; };
const N = Number(arg('--files', '10000'));
const keep = process.argv.includes('--keep');
const reuse = arg('--dir', undefined);
const EDITS = Number(arg('--edits', '100'));
const RUNS = Math.max(1, Number(arg('--runs', '3')));
const cli = process.env.QI_CLI ?? join(root, 'dist', 'cli.js');
if (!existsSync(cli)) { console.error(`no ${cli}: run \`node scripts/build.mjs\` first`); process.exit(1); }
const before = arg('--before', process.env.QI_CLI_BEFORE);
if (before && !existsSync(before)) { console.error(`no ${before} (--before)`); process.exit(1); }

// ---- generators: a handler file with helpers, a loop and a few statements, ~1.5-3 KB each
const T = {
  go: (i) => `package h${i % 50}

import ("fmt"; "net/http")

const q${i} = "SELECT id, name FROM users WHERE id = ?"

type H${i} struct{ db *DB }

// getItems${i} serves /api/items/${i}.
func (h *H${i}) getItems${i}(w http.ResponseWriter, r *http.Request) error {
	rows, err := h.db.Query(\`SELECT * FROM items WHERE owner_id = ? ORDER BY created_at DESC LIMIT 50\`, r.URL.Query().Get("id"))
	if err != nil { return fmt.Errorf("select failed: %w", err) }
	defer rows.Close()
	for rows.Next() {
		var id int
		rows.Scan(&id)
		h.db.Exec("UPDATE items SET views = views + 1 WHERE id = ?", id)
		var name string
		h.db.QueryRow(q${i}, id).Scan(&name)
	}
	s := fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE x = ?", "t${i}")
	_ = s
	for j := 0; j < 10; j++ { w.Write([]byte(fmt.Sprint(j * ${i}))) }
	return nil
}
`,
  ruby: (i) => `class Handler${i} < Sinatra::Base
  USER_SQL = 'SELECT * FROM users WHERE id = ?'
  helpers do
    def items_for(user_id)
      db.xquery('SELECT * FROM items WHERE owner_id = ? ORDER BY id DESC LIMIT 20', user_id).to_a
    end
  end
  get '/api/items/${i}' do
    items = items_for(params[:id])
    items.each do |item|
      item[:user] = db.xquery(USER_SQL, item[:user_id]).first
      item[:tags] = db.xquery("SELECT name FROM tags WHERE item_id = #{item[:id]}").to_a
    end
    logger.info "Select a user (#{items.size})"
    json(items: items, page: ${i})
  end
end
`,
  python: (i) => `from flask import Flask, jsonify
app = Flask(__name__)
USER_SQL = "SELECT * FROM users WHERE id = %s"

@app.route("/api/items/${i}")
def items_${i}(user_id):
    cur = db().cursor()
    cur.execute("SELECT * FROM items WHERE owner_id = %s ORDER BY id DESC LIMIT 20", (user_id,))
    items = cur.fetchall()
    for item in items:
        cur.execute(USER_SQL, (item["user_id"],))
        item["user"] = cur.fetchone()
        cur.execute(f"SELECT name FROM tags_${i % 7} WHERE item_id = {item['id']}")
    names = [x["name"] for x in items if x]
    return jsonify(items=items, names=names, message="Select a user")
`,
  php: (i) => `<?php
class Handler${i} {
    const USER_SQL = 'SELECT * FROM users WHERE id = ?';
    public function items(PDO $db, int $userId): array {
        $st = $db->prepare('SELECT * FROM items WHERE owner_id = ? ORDER BY id DESC LIMIT 20');
        $st->execute([$userId]);
        $items = $st->fetchAll();
        foreach ($items as &$item) {
            $u = $db->prepare(self::USER_SQL);
            $u->execute([$item['user_id']]);
            $item['user'] = $u->fetch();
            $item['tags'] = $db->query("SELECT name FROM tags WHERE item_id = {$item['id']}")->fetchAll();
        }
        error_log("Select a user: " . count($items));
        return $items;
    }
}
`,
  javascript: (i) => `const USER_SQL = 'SELECT * FROM users WHERE id = ?';
app.get('/api/items/${i}', async (req, res) => {
  const [items] = await db.query('SELECT * FROM items WHERE owner_id = ? ORDER BY id DESC LIMIT 20', [req.query.id]);
  for (const item of items) {
    const [[user]] = await db.query(USER_SQL, [item.user_id]);
    item.user = user;
    item.tags = await db.query(\`SELECT name FROM tags WHERE item_id = \${item.id}\`);
  }
  await Promise.all(items.map(async (it) => db.execute('UPDATE items SET views = views + 1 WHERE id = ?', [it.id])));
  res.json({ items, message: 'Select a user', page: ${i} });
});
`,
  typescript: (i) => `import type { Pool, RowDataPacket } from 'mysql2/promise';
const USER_SQL = 'SELECT * FROM users WHERE id = ?';
export class Service${i} {
  constructor(private readonly db: Pool) {}
  async items(userId: number): Promise<RowDataPacket[]> {
    const [items] = await this.db.query<RowDataPacket[]>('SELECT * FROM items WHERE owner_id = ? ORDER BY id DESC LIMIT 20', [userId]);
    for (const item of items) {
      const [[user]] = await this.db.query<RowDataPacket[]>(USER_SQL, [item.user_id]);
      item.user = user;
    }
    const label: string = 'Select a user';
    return items.filter((x) => !!x && label.length > ${i % 10});
  }
}
`,
  perl: (i) => `package App::Handler${i};
use strict;
use warnings;
use constant USER_SQL => 'SELECT * FROM users WHERE id = ?';

sub items_${i} {
    my ($self, $c) = @_;
    my $items = $self->dbh->select_all(q{
        SELECT * FROM items WHERE owner_id = ? ORDER BY id DESC LIMIT 20
    }, $c->req->param('id'));
    for my $item (@$items) {
        $item->{user} = $self->dbh->select_row(USER_SQL, $item->{user_id});
        my $sql = "SELECT name FROM tags WHERE item_id = $item->{id}";
        $item->{tags} = $self->dbh->select_all($sql);
    }
    warn "Select a user: " . scalar(@$items);
    $c->render_json({ items => $items, page => ${i} });
}

1;
`,
  rust: (i) => `use sqlx::MySqlPool;
const USER_SQL: &str = "SELECT * FROM users WHERE id = ?";
pub async fn items_${i}(pool: &MySqlPool, user_id: i64) -> Vec<(i64,)> {
    let items: Vec<(i64, i64)> = sqlx::query_as("SELECT id, user_id FROM items WHERE owner_id = ? ORDER BY id DESC LIMIT 20")
        .bind(user_id).fetch_all(pool).await.unwrap();
    let mut out = Vec::new();
    for (id, uid) in items.iter() {
        let u: (i64,) = sqlx::query_as(USER_SQL).bind(uid).fetch_one(pool).await.unwrap();
        let t = format!("SELECT name FROM tags WHERE item_id = {}", id);
        let _ = t;
        out.push(u);
    }
    out
}
`,
};
const EXT = { go: 'go', ruby: 'rb', python: 'py', php: 'php', javascript: 'js', typescript: 'ts', rust: 'rs', perl: 'pm' };
const langs = Object.keys(T);

const dir = reuse ?? mkdtempSync(join(tmpdir(), 'qi-bench-'));
let bytes = 0;
let files = N;
if (reuse) {
  const sizes = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => statSync(join(e.parentPath ?? e.path, e.name)).size);
  files = sizes.length;
  bytes = sizes.reduce((a, b) => a + b, 0);
  console.log(`reusing ${files} files, ${(bytes / 1048576).toFixed(1)} MiB in ${dir}`);
} else {
  for (let i = 0; i < N; i++) {
    const lang = langs[i % langs.length];
    const sub = join(dir, lang, `m${Math.floor(i / 200)}`);
    if (i % 200 < langs.length) mkdirSync(sub, { recursive: true });
    const text = T[lang](i);
    bytes += Buffer.byteLength(text);
    writeFileSync(join(sub, `f${i}.${EXT[lang]}`), text);
  }
  console.log(`generated ${N} files (${langs.join(', ')}), ${(bytes / 1048576).toFixed(1)} MiB in ${dir}`);
}
const mb = bytes / 1048576;
const rate = (secs) => `${(files / secs).toFixed(0)} files/s, ${(mb / secs).toFixed(2)} MB/s`;

// why: on a shared machine wall time mostly measures the other processes; GNU time adds the CPU seconds.
const gnuTime = existsSync('/usr/bin/time');
/** Runs `cli` scan once (under `prefix`, e.g. taskset), returning wall and CPU seconds, its summary line and its output. */
function runScan(prefix, command = cli) {
  const cmd = [...prefix, process.execPath, command, 'scan', dir, '--format', 'json'];
  const t0 = process.hrtime.bigint();
  const r = gnuTime
    ? spawnSync('/usr/bin/time', ['-f', 'QI_CPU %U %S', ...cmd], { maxBuffer: 1 << 30 })
    : spawnSync(cmd[0], cmd.slice(1), { maxBuffer: 1 << 30 });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const stderr = r.stderr.toString('utf8');
  if (r.status !== 0) { console.error(stderr); process.exit(1); }
  const cpu = /QI_CPU ([\d.]+) ([\d.]+)/.exec(stderr);
  return { wall, cpu: cpu ? Number(cpu[1]) + Number(cpu[2]) : undefined, summary: stderr.split('\n').find((l) => l.startsWith('scanned ')) ?? '', stdout: r.stdout };
}
const median = (xs) => { const ys = [...xs].sort((a, b) => a - b); return ys.length % 2 ? ys[ys.length >> 1] : (ys[ys.length / 2 - 1] + ys[ys.length / 2]) / 2; };
const perCpu = (secs) => `${(files / secs).toFixed(0)} files per CPU-second`;
const all = runScan([]);
const scanMs = Number(/ in (\d+) ms/.exec(all.summary)?.[1] ?? NaN);
console.log(`scan command (one process; start-up, grammar loading, the N+1 report and JSON output included):`);
console.log(`  all cores: wall ${all.wall.toFixed(2)} s: ${rate(all.wall)}`);
if (all.cpu) console.log(`  all cores: CPU ${all.cpu.toFixed(2)} s (user+sys, V8's compiler and GC threads on the other cores included): ${rate(all.cpu)} per CPU-second`);
console.log(`  extraction alone (list + read + parse + extract, wall, from the command's summary): ${(scanMs / 1000).toFixed(2)} s: ${rate(scanMs / 1000)}`);
console.log(`  ${all.summary}`);
// why: "on one core" measured as such: the process and all its threads pinned to one CPU.
if (spawnSync('taskset', ['-c', '0', 'true']).status === 0) {
  const walls = [], cpus = [], olds = [], ratios = [];
  let same;
  for (let k = 0; k < RUNS; k++) {
    const one = runScan(['taskset', '-c', '0']);
    walls.push(one.wall);
    if (one.cpu) cpus.push(one.cpu);
    let pair = '';
    if (before) {
      const old = runScan(['taskset', '-c', '0'], before);
      if (same === undefined) same = old.stdout.equals(one.stdout);
      if (one.cpu && old.cpu) {
        olds.push(old.cpu);
        ratios.push(old.cpu / one.cpu);
        pair = `; before: CPU ${old.cpu.toFixed(2)} s (${perCpu(old.cpu)}), before/now ${(old.cpu / one.cpu).toFixed(2)}x`;
      }
    }
    console.log(`  one core (taskset -c 0), run ${k + 1}/${RUNS}: wall ${one.wall.toFixed(2)} s: ${rate(one.wall)}${one.cpu ? `; CPU ${one.cpu.toFixed(2)} s: ${perCpu(one.cpu)}` : ''}${pair}`);
  }
  const best = Math.min(...walls);
  console.log(`  one core (taskset -c 0), ${RUNS} runs: wall min ${best.toFixed(2)} s (${rate(best)}), median ${median(walls).toFixed(2)} s (${rate(median(walls))})`
    + `${cpus.length ? `; CPU min ${Math.min(...cpus).toFixed(2)} s, median ${median(cpus).toFixed(2)} s` : ''}`);
  if (cpus.length) console.log(`  one core: ${perCpu(median(cpus))} (median; best ${perCpu(Math.min(...cpus))})   (target >= 1000 files per CPU-second)`);
  if (before && olds.length) {
    console.log(`  before (${before}), paired: CPU median ${median(olds).toFixed(2)} s: ${perCpu(median(olds))}; before/now per pair: ${ratios.map((r) => r.toFixed(2)).join(', ')}, median ${median(ratios).toFixed(2)}x`);
  }
  if (before) console.log(`  output of ${cli} and ${before}: ${same ? 'byte-identical' : 'DIFFERENT'} (${all.stdout.length} bytes)`);
} else {
  console.log('  one core: taskset is not available here, so no pinned run; the CPU-second figure above stands in for it');
}

// ---- the workspace modules, bundled from source for this process
// why: the entry goes beside the bundle, not into the corpus, which a later --dir run would scan; both in a
// directory of this run's own, as node_modules is shared by every worktree and another run may be bundling too.
const bundleDir = mkdtempSync(join(tmpdir(), 'qi-bench-bundle-'));
const entry = join(bundleDir, 'workspace-entry.ts');
writeFileSync(entry, `export { FactsCache } from ${JSON.stringify(join(root, 'src/core/workspace'))};
export { ParserSet } from ${JSON.stringify(join(root, 'src/core/source/lang/treeSitter/treeSitter'))};
export { fsGrammarSource } from ${JSON.stringify(join(root, 'src/node/grammars'))};
export { scanProject } from ${JSON.stringify(join(root, 'src/node/scanDir'))};\n`);
const bundle = join(bundleDir, 'workspace.cjs');
await esbuild.build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, logLevel: 'error' });
const req = createRequire(import.meta.url);
const { FactsCache, ParserSet, fsGrammarSource, scanProject } = req(bundle);
// ---- the engine alone in this process (one thread): list + read + parse + extract every file through a
// fresh FactsCache, grammars loaded beforehand; no start-up, N+1 report or output as in the command above.
// why: the same cache then serves the edits below, as in the extension, which scans the workspace on activation.
const parsers = new ParserSet(fsGrammarSource(join(root, 'dist', 'grammars')));
await parsers.loadFor(['go', 'ruby', 'python', 'php', 'javascript', 'typescript', 'rust']);
const cache = new FactsCache(parsers);
{
  const c = process.cpuUsage();
  const w = process.hrtime.bigint();
  const scan = await scanProject(dir, cache);
  const wallSecs = Number(process.hrtime.bigint() - w) / 1e9;
  const u = process.cpuUsage(c);
  const cpuSecs = (u.user + u.system) / 1e6;
  console.log(`extraction engine in-process (${scan.files} files; list + read + parse + extract, grammars loaded before):`);
  console.log(`  CPU ${cpuSecs.toFixed(2)} s: ${rate(cpuSecs)} per CPU-second (one core); wall ${wallSecs.toFixed(2)} s: ${rate(wallSecs)}`);
}

// ---- incremental: one edited file through the workspace cache, after the workspace scan
const base = Array.from({ length: 8 }, (_, k) => T.go(k).replace(/^package .*$/m, k === 0 ? '$&' : '')).join('\n');
await cache.update('edit.go', base);
const wall = [], cpuMs = [];
for (let k = 0; k < EDITS; k++) {
  const text = base.replace('LIMIT 50', `LIMIT ${51 + k}`);
  const c = process.cpuUsage();
  const s = process.hrtime.bigint();
  await cache.update('edit.go', text);
  wall.push(Number(process.hrtime.bigint() - s) / 1e6);
  const u = process.cpuUsage(c);
  cpuMs.push((u.user + u.system) / 1000);
}
const unchanged = process.hrtime.bigint();
await cache.update('edit.go', base.replace('LIMIT 50', `LIMIT ${50 + EDITS}`));
const hitMs = Number(process.hrtime.bigint() - unchanged) / 1e6;
const pct = (xs, p) => { const ys = [...xs].sort((a, b) => a - b); return ys[Math.min(ys.length - 1, Math.ceil(p * ys.length) - 1)]; };
console.log(`re-extract one edited file through FactsCache.update, after the scan above (${base.split('\n').length} lines, ${(Buffer.byteLength(base) / 1024).toFixed(1)} KB), ${EDITS} edits:`);
console.log(`  wall median ${pct(wall, 0.5).toFixed(2)} ms, p95 ${pct(wall, 0.95).toFixed(2)} ms; CPU median ${pct(cpuMs, 0.5).toFixed(2)} ms, p95 ${pct(cpuMs, 0.95).toFixed(2)} ms   (target < 20 ms); unchanged content: ${hitMs.toFixed(3)} ms`);

rmSync(bundleDir, { recursive: true, force: true });
if (!keep && !reuse) rmSync(dir, { recursive: true, force: true });
