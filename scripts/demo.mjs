// npm run demo            Query Insight in a real VS Code (code-server) on the sample app, over a private
//                         MariaDB with 300k generated rows and the logs of two benchmark rounds; prints the
//                         URL to open. Ctrl+C stops everything it started.
// npm run demo -- --cli   the same setup, then the command-line reports (scan, explain, advise, endpoints,
//                         slow, diff before → after); exits leaving nothing running.
// Options: --requests N (per round, default 3000)  --seconds S (per round, default 20)  --concurrency N
//          --no-nginx (the app writes the access log)  --dir DIR (default .demo)  --port P (code-server)
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  cleanDemoDir, dropIndexes, loadKit, missingPrerequisites, nginxPath, recordedRounds, rel, run, say, scriptOptions, step, twoRounds,
} from './demo/setup.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = 'usage: npm run demo [-- --cli] [--requests N] [--seconds S] [--concurrency N] [--no-nginx] [--dir DIR] [--port P]';

const { values: args, num } = scriptOptions({
  cli: { type: 'boolean' }, requests: { type: 'string' }, seconds: { type: 'string' }, concurrency: { type: 'string' },
  'no-nginx': { type: 'boolean' }, dir: { type: 'string' }, port: { type: 'string' },
}, USAGE);
const opts = {
  requests: num(args.requests, 3000, 'requests'), seconds: num(args.seconds, 20, 'seconds'),
  concurrency: num(args.concurrency, 4, 'concurrency'), nginx: !args['no-nginx'], port: args.port ? num(args.port, 0, 'port') : undefined,
};
const editor = !args.cli;
const demoDir = resolve(args.dir ?? join(root, '.demo'));

// ---- everything started is tracked here and stopped in reverse order, also on Ctrl+C ----------
const running = new Map();
const track = (name, stop) => { if (stop) running.set(name, stop); else running.delete(name); };
let stopping;
async function stopAll() {
  stopping ??= (async () => {
    for (const [name, stop] of [...running].reverse()) {
      try { await stop(); } catch (err) { console.error(`stopping ${name}: ${err.message ?? err}`); }
      running.delete(name);
    }
  })();
  return stopping;
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    if (stopping) { say('\nstill stopping; one moment'); return; }
    say(`\n${sig === 'SIGINT' ? 'Ctrl+C' : sig}: stopping ${[...running.keys()].join(', ') || 'nothing'}…`);
    void stopAll().then(() => { say('stopped; nothing of the demo is running.'); process.exit(sig === 'SIGINT' ? 130 : 143); });
  });
}

async function main() {
  const missing = missingPrerequisites({ editor });
  if (missing.length) {
    console.error('The demo needs:\n' + missing.map((m) => `  - ${m}`).join('\n'));
    process.exit(1);
  }
  if (opts.nginx && !nginxPath()) {
    say('note: nginx is not installed (sudo apt-get install -y nginx); the app writes the LTSV access log itself.');
    opts.nginx = false;
  }
  const t0 = Date.now();
  if (editor) {
    step('building the extension and packaging it (npm run package)');
    run(root, 'npm', ['run', '--silent', 'package'], 'npm run package');
    say(`    ${rel(join(root, 'dist', 'query-insight.vsix'))}`);
  } else {
    step('building the CLI (npm run build)');
    run(root, 'npm', ['run', '--silent', 'build'], 'npm run build');
  }
  cleanDemoDir(demoDir);
  const kit = await loadKit(root);
  const appDir = join(demoDir, 'sample-app');
  cpSync(join(root, 'test', 'fixtures', 'sample-app'), appDir, { recursive: true });

  step(`starting a private MariaDB with the sample app's schema and ${kit.SAMPLE_USERS.toLocaleString('en-US')} users, `
    + `${kit.SAMPLE_POSTS.toLocaleString('en-US')} posts, ${kit.SAMPLE_COMMENTS.toLocaleString('en-US')} comments`);
  // performance_schema on: each round also records a server-stats run (and the editor's Start measuring works)
  const db = await kit.startSampleDatabase(appDir, { parentDir: demoDir, performanceSchema: true });
  track('MariaDB', () => db.stop());
  say(`    socket ${rel(db.socket)}, port ${db.port} on 127.0.0.1, user root without password, database ${kit.SAMPLE_DB}`);

  if (editor) await editorMode(kit, db, appDir, t0);
  else await cliMode(kit, db, appDir, t0);
}

async function editorMode(kit, db, appDir, t0) {
  const logsDir = join(appDir, 'logs');
  // why: each round is kept as a run record, with the indexes committed between them, so the Runs view has a real comparison
  const rounds = recordedRounds({ root, appDir, logsDir });
  const { before, after, advice } = await twoRounds({ kit, root, db, appDir, logsDir, opts, track, onAdvice: rounds.onAdvice, onRound: rounds.onRound });
  step('dropping those indexes again (and reverting their commit), so the editor shows the app as it was');
  dropIndexes(db, kit.SAMPLE_DB, advice);
  rounds.revert();

  mkdirSync(join(appDir, '.vscode'), { recursive: true });
  writeFileSync(join(appDir, '.vscode', 'settings.json'), JSON.stringify(kit.sampleConnectionSettings(db), null, 2) + '\n');
  step('serving the sample app, for the load you start from the editor');
  const live = await serveApp(kit, db, appDir, logsDir);
  track('sample app', () => live.close());
  step('starting code-server with the freshly built extension');
  const server = await kit.startCodeServer({
    workspace: appDir, vsix: join(root, 'dist', 'query-insight.vsix'), root: join(demoDir, 'code-server'),
    logFile: join(demoDir, 'code-server.log'), port: opts.port,
  });
  track('code-server', () => server.stop());
  const url = server.url();
  say(`
Ready in ${Math.round((Date.now() - t0) / 1000)} s. Open in a browser:

    ${url}

The sample app (${rel(appDir)}) is open; the extension is connected to the demo database by
.vscode/settings.json. Try:

  1. Ctrl+P  main.go. The status bar shows "MariaDB 10.11…". Problems (Ctrl+Shift+M) lists
     full-table-scan, filesort and n-plus-one findings.
  2. Hover the SQL string on line 155 (posts of a user ordered by created_at): the EXPLAIN plan,
     its findings and the suggested index.
  3. Ctrl+. on that string: "…to the schema file" adds the index to webapp/sql/schema.sql;
     "…to the database" asks, adds it, shows rows examined before → after, the finding goes away.
  4. Command palette: "Query Insight: Import access log", pick logs/access-before.ltsv:
     the Endpoints view ranks the routes by total time; each handler in main.go gets a CodeLens.
  5. "Query Insight: Import slow query log", pick logs/slow-before.log: the Queries view, each
     query linked to its statement.
  6. Import logs/access-after.ltsv too (the round after adding the advised indexes), then
     "Query Insight: Compare two runs": before → after per endpoint, in the report panel.
  7. The Runs view lists the two rounds as recorded runs (score, commit, memo); "Query Insight: Compare
     recorded runs" shows the score change and the commit between them; after each new benchmark,
     "Record run" (the view's button) keeps the next round.
  8. "Query Insight: Start measuring (server statistics)", then load the app: Terminal > Run Task…
     > "${LOAD_TASK}" (${LOAD_SECONDS} s of the benchmark's request mix), or open
     ${live.url}/ in a browser. Then "Stop measuring" (or the status-bar item): the Queries
     view and CodeLenses from performance_schema, no slow log needed; unused indexes under Findings.

The logs of the two rounds (and each round's server-stats run, for "Add a run from a log file"):
    ${rel(before.accessLog)}   ${rel(before.slowLog)}   ${rel(before.serverRun)}
    ${rel(after.accessLog)}    ${rel(after.slowLog)}   ${rel(after.serverRun)}
The app keeps serving at ${live.url} (its access log: ${rel(live.accessLog)}).

Press Ctrl+C to stop code-server, the app and MariaDB.`);
  // why: keeps the process alive until a signal; the handlers above stop everything and exit.
  setInterval(() => {}, 1 << 30);
}

const LOAD_TASK = 'Query Insight demo: load the app';
const LOAD_SECONDS = 20;

/**
 * The sample app on a loopback port until the demo stops, writing its own LTSV access log, and a
 * workspace task that runs the demo's load generator against it (scripts/demo-load.mjs).
 */
async function serveApp(kit, db, appDir, logsDir) {
  const accessLog = join(logsDir, 'access-live.ltsv');
  const app = await kit.startSampleAppServer({
    appDir, socket: db.socket, user: db.user, database: kit.SAMPLE_DB, accessLog, staticFiles: kit.STATIC_FILES,
  });
  const url = `http://127.0.0.1:${app.port}`;
  const tasks = {
    version: '2.0.0',
    tasks: [{
      label: LOAD_TASK, type: 'process', command: process.execPath,
      args: [join(root, 'scripts', 'demo-load.mjs'), '--url', url, '--seconds', String(LOAD_SECONDS)],
      problemMatcher: [], presentation: { reveal: 'always', panel: 'dedicated' },
    }],
  };
  writeFileSync(join(appDir, '.vscode', 'tasks.json'), JSON.stringify(tasks, null, 2) + '\n');
  say(`    ${url}; the task "${LOAD_TASK}" (.vscode/tasks.json) loads it for ${LOAD_SECONDS} s`);
  return { url, accessLog, close: () => app.close() };
}

async function cliMode(kit, db, appDir, t0) {
  const conn = ['--socket', rel(db.socket), '--user', 'root', '--database', kit.SAMPLE_DB];
  const cli = (...a) => {
    say(`\n\x1b[1m$ query-insight ${a.join(' ')}\x1b[0m`);
    const r = spawnSync(process.execPath, [join(root, 'bin', 'query-insight.js'), ...a], { stdio: 'inherit', cwd: process.cwd() });
    if (r.status !== 0) say(`(exit ${r.status ?? r.signal})`);
  };
  const app = rel(appDir);
  cli('scan', app);
  cli('explain', app, ...conn);
  cli('advise', app, ...conn);
  const logsDir = join(demoDir, 'logs');
  const { before, after } = await twoRounds({ kit, root, db, appDir, logsDir, opts, track, printServerStats: true });
  cli('endpoints', rel(before.accessLog), '--routes', app);
  cli('slow', rel(before.slowLog), '--source', app, '--limit', '10');
  cli('diff', rel(before.accessLog), rel(after.accessLog), '-m', '^/@[^/]+$');
  cli('diff', rel(before.slowLog), rel(after.slowLog), '--limit', '10');
  cli('diff', rel(before.serverRun), rel(after.serverRun), '--limit', '10');
  await stopAll();
  say(`\nDone in ${Math.round((Date.now() - t0) / 1000)} s; MariaDB stopped, nothing left running. The logs stay in ${rel(logsDir)}/.`);
}

main().catch(async (err) => {
  console.error(`demo failed: ${err.stack ?? err}`);
  await stopAll();
  process.exit(1);
});
