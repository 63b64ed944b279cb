// The demo's preparation, shared by its two modes: prerequisites, the build, the kit (the TypeScript
// helpers in src/node that the tests use too, bundled for this script), the private MariaDB with the
// sample app's data, and the two benchmark rounds (before / after the advised indexes).
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';

export const say = (s = '') => process.stdout.write(`${s}\n`);

/**
 * A demo script's options (node:util parseArgs `options`, plus --help): the values, and `num` that
 * reads a positive whole number with a default. A bad option prints the usage and exits with 2.
 */
export function scriptOptions(options, usage) {
  let values;
  try {
    values = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h' } } }).values;
  } catch (err) {
    console.error(`${err.message}\n${usage}`);
    process.exit(2);
  }
  if (values.help) { say(usage); process.exit(0); }
  const num = (v, d, name) => {
    if (v === undefined) return d;
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) { console.error(`--${name} must be a positive whole number (got "${v}")\n${usage}`); process.exit(2); }
    return n;
  };
  return { values, num };
}
export const step = (s) => process.stdout.write(`\x1b[1m==> ${s}\x1b[0m\n`);

/** Paths relative to the current directory where that is shorter, for printing. */
export const rel = (p) => { const r = relative(process.cwd(), p); return r && !r.startsWith('..') ? r : p; };

const CODE_SERVER_VERSION = '4.100.3';

/** What the demo needs that is missing, each with the command that installs it. */
export function missingPrerequisites({ editor }) {
  const missing = [];
  const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 20) missing.push(`Node 20 or later (found ${process.version})`);
  if (!['/usr/sbin/mariadbd', '/usr/bin/mariadbd', '/usr/sbin/mysqld'].some((p) => existsSync(p)) || !has('mariadb') || !has('mariadb-install-db')) {
    missing.push('MariaDB server and client: sudo apt-get install -y mariadb-server mariadb-client   (or: bash scripts/setup-test-env.sh)');
  }
  if (editor) {
    const cs = codeServerPath();
    if (!existsSync(cs)) missing.push(`code-server ${CODE_SERVER_VERSION} (looked at ${cs}): bash scripts/setup-test-env.sh   (or set QI_CODE_SERVER to the binary)`);
  }
  return missing;
}

/** Where scripts/setup-test-env.sh puts code-server (the same rule as src/node/codeServer.ts). */
export function codeServerPath() {
  if (process.env.QI_CODE_SERVER) return process.env.QI_CODE_SERVER;
  const prefix = process.env.QI_CODE_SERVER_PREFIX ?? join(homedir(), '.cache', 'query-insight', `code-server-${CODE_SERVER_VERSION}`);
  return join(prefix, 'node_modules', '.bin', 'code-server');
}

export function nginxPath() {
  return ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
}

/** Runs a command quietly; on failure prints its output and throws. */
export function run(root, cmd, args, what) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) {
    process.stderr.write(`${r.stdout ?? ''}${r.stderr ?? ''}`);
    throw new Error(`${what} failed (${cmd} ${args.join(' ')}: exit ${r.status ?? r.signal})`);
  }
  return r.stdout;
}

/**
 * Bundles the demo kit — src/node/demo/* and the launchers the e2e tests use — into one CommonJS
 * file and loads it. Packages stay external: the file is written inside the checkout (.demo/build),
 * whatever --dir says, so that they resolve from its node_modules; it is removed once loaded.
 */
export async function loadKit(root) {
  const esbuild = await import('esbuild');
  const outfile = join(root, '.demo', 'build', `kit-${process.pid}.cjs`);
  await esbuild.build({
    stdin: {
      contents: [
        "export { runBenchmark } from './src/node/demo/benchmark';",
        "export { runLoad, STATIC_FILES } from './src/node/demo/loadRun';",
        "export { startSampleAppServer } from './src/node/demo/sampleAppServer';",
        "export { startSampleDatabase, sampleConnectionSettings, SAMPLE_DB, SAMPLE_USERS, SAMPLE_POSTS, SAMPLE_COMMENTS } from './src/node/demo/sampleDatabase';",
        "export { startCodeServer, QUIET_SETTINGS, killGroup } from './src/node/codeServer';",
      ].join('\n'),
      resolveDir: root, loader: 'ts', sourcefile: 'demo-kit.ts',
    },
    bundle: true, platform: 'node', target: 'node20', format: 'cjs', packages: 'external', outfile, logLevel: 'warning',
  });
  // why: esbuild keeps a service process for further builds; the demo needs none.
  await esbuild.stop();
  try {
    return createRequire(join(root, 'package.json'))(outfile);
  } finally {
    rmSync(outfile, { force: true });
  }
}

/** Removes what an earlier demo left in the demo directory (its MariaDB dirs, logs, code-server state). */
export function cleanDemoDir(demoDir, keep = ['build']) {
  // why: 'build' may hold the kit of another demo starting at the same moment.
  mkdirSync(demoDir, { recursive: true });
  for (const name of readdirSync(demoDir)) if (!keep.includes(name)) rmSync(join(demoDir, name), { recursive: true, force: true });
}

/** Index suggestions of `query-insight advise` against the database (JSON Lines → objects). */
export function adviseIndexes(root, appDir, db, database) {
  const out = run(root, process.execPath, [join(root, 'bin', 'query-insight.js'), 'advise', appDir, '--socket', db.socket, '--user', db.user, '--database', database, '--format', 'json'], 'query-insight advise');
  return out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((s) => s.kind === 'index');
}

/** The load of one benchmark round, from the command line or defaults. */
export function loadSummary(r) {
  const statuses = Object.entries(r.load.byStatus).map(([s, n]) => `${n}×${s}`).join(' ');
  return `${r.load.sent} requests in ${r.load.seconds.toFixed(1)} s (${statuses}${r.load.cut ? `, ${r.load.cut} cut at the time limit` : ''}${r.load.failed ? `, ${r.load.failed} without answer` : ''}; `
    + `stopped by the ${r.load.stoppedBy === 'time' ? 'time limit' : 'request count'}${r.accessLogBy ? `; access log by ${r.accessLogBy}` : ''})`;
}

/**
 * A round's server statistics (performance_schema, on in the demo's MariaDB): `server-stats --save`
 * before the load, `--since … --run` after it, so each round leaves a server-stats run
 * (logs/server-LABEL.run.json) beside its logs; `print` shows the window's table as the CLI prints it.
 */
function serverStats({ root, db, database, appDir, logsDir }, label, phase, print) {
  const snapshot = join(logsDir, `server-${label}.snapshot.json`);
  const runFile = join(logsDir, `server-${label}.run.json`);
  const conn = ['--socket', db.socket, '--user', db.user, '--database', database];
  const args = phase === 'start' ? ['--save', snapshot, '--quiet'] : ['--since', snapshot, '--run', runFile, '--source', appDir, '--limit', '10'];
  const cmd = [join(root, 'bin', 'query-insight.js'), 'server-stats', ...conn, ...args];
  if (phase === 'end' && print) {
    say(`\n\x1b[1m$ query-insight server-stats ${[...conn, ...args].map((a) => (a.startsWith('/') ? rel(a) : a)).join(' ')}\x1b[0m`);
    const r = spawnSync(process.execPath, cmd, { stdio: 'inherit' });
    if (r.status !== 0) say(`(exit ${r.status ?? r.signal})`);
    return;
  }
  run(root, process.execPath, cmd, 'query-insight server-stats');
}

/** Both rounds: before, the advised indexes added, after; then (editor mode) the indexes dropped again. */
export async function twoRounds({ kit, root, db, appDir, logsDir, opts, track, onAdvice, onRound, printServerStats = false }) {
  const bench = async (label) => {
    mkdirSync(logsDir, { recursive: true });
    const where = { root, db, database: kit.SAMPLE_DB, appDir, logsDir };
    serverStats(where, label, 'start', printServerStats);
    const r = await kit.runBenchmark({
      db, appDir, docsFile: join(root, 'docs', 'nginx-log-formats.md'), outDir: logsDir, label,
      requests: opts.requests, seconds: opts.seconds, concurrency: opts.concurrency, nginx: opts.nginx,
      onNginx: (n) => track('nginx', n ? () => { try { process.kill(n.pid, 'SIGKILL'); } catch { /* gone */ } } : undefined),
    });
    serverStats(where, label, 'end', printServerStats);
    return { ...r, serverRun: join(logsDir, `server-${label}.run.json`) };
  };
  step(`benchmark round "before": up to ${opts.requests} requests or ${opts.seconds} s`);
  const before = await bench('before');
  say(`    ${loadSummary(before)}`);
  await onRound?.('before', before);
  const advice = adviseIndexes(root, appDir, db, kit.SAMPLE_DB);
  onAdvice?.(advice);
  step(`adding the ${advice.length} indexes \`query-insight advise\` suggests`);
  for (const a of advice) { say(`    ${a.ddl};`); db.sql(`${a.ddl};`, kit.SAMPLE_DB); }
  step('benchmark round "after"');
  const after = await bench('after');
  say(`    ${loadSummary(after)}`);
  await onRound?.('after', after);
  return { before, after, advice };
}

export function dropIndexes(db, database, advice) {
  for (const a of advice) db.sql(`ALTER TABLE \`${a.table}\` DROP INDEX \`${a.name}\`;`, database);
}

/**
 * Keeps each round as a run record in the app's workspace, with a commit between them: the app is a
 * git repository, the advised indexes go into its schema file and are committed before the second
 * round, and `query-insight runs record` keeps each round with the 2xx answers as its score, so the
 * editor's Runs view and `runs diff` show a real comparison. Returns the hooks for twoRounds.
 */
export function recordedRounds({ root, appDir, logsDir }) {
  const git = (...a) => run(appDir, 'git', ['-c', 'user.name=demo', '-c', 'user.email=demo@example.com', ...a], `git ${a[0]}`);
  run(appDir, 'git', ['init', '-q', '-b', 'main'], 'git init');
  writeFileSync(join(appDir, '.gitignore'), `${relative(appDir, logsDir).replace(/\\/g, '/') || 'logs'}/\n.vscode/\n`);
  git('add', '.');
  git('commit', '-q', '-m', 'the app as handed out');
  const record = (label, r) => {
    const ok = Object.entries(r.load.byStatus).filter(([s]) => s.startsWith('2')).reduce((n, [, c]) => n + c, 0);
    run(appDir, process.execPath, [join(root, 'bin', 'query-insight.js'), 'runs', 'record', '--access', r.accessLog, '--slow', r.slowLog,
      '--score', String(ok), '--memo', label === 'before' ? 'the app as handed out' : 'the advised indexes', '--format', 'json'], 'query-insight runs record');
    say(`    recorded as a run: score ${ok} (2xx answers), in ${relative(root, join(appDir, '.query-insight', 'runs'))}/`);
  };
  return {
    onAdvice: (advice) => {
      const schema = join(appDir, 'webapp', 'sql', 'schema.sql');
      appendFileSync(schema, advice.map((a) => `${a.ddl};`).join('\n') + '\n');
      git('commit', '-q', '-am', 'add the indexes query-insight advise suggests');
    },
    onRound: record,
    /** The schema file as it was (a commit that reverts the indexes), for an editor that shows the app as handed out. */
    revert: () => git('revert', '--no-edit', 'HEAD'),
  };
}
