// Benchmark: `query-insight endpoints` against alp on the same generated LTSV access log.
//
//   node bench/endpoints.mjs                  1,000,000 lines, 5 pairs of runs after 1 warm-up pair
//   LINES=200000 RUNS=7 WARMUP=2 node bench/endpoints.mjs
//   QI_CLI=/path/to/cli.js node bench/endpoints.mjs   time that build of the CLI instead of a fresh one
//   SSH=0 node bench/endpoints.mjs            without the over-SSH part (e.g. with QI_CLI of an old build)
//   BOXES=0 node bench/endpoints.mjs          over SSH one box only (not also two boxes, one log each)
//   BOX_USER=isucon node bench/endpoints.mjs  log in to the box as that user (default: this one); its login
//                                             shell and rc files are part of every remote read's fixed cost
//
// Static files are not grouped by extension here (--no-static-groups), so the groups are alp's.
// Needs ../shared/bench (the generator gen_access_ltsv.py and run_peers.sh, whose install steps
// build alp from the Go module proxy); without it the benchmark is skipped with a message.
// The two tools run in turn (A B A B …). Prints per tool the median wall and CPU (user+sys) seconds,
// lines/s, MB/s and the peak RSS (the largest over the runs), the median of the per-pair wall ratios
// against the 10× target and the RSS against 1.5× alp's, and checks our
// per-endpoint counts and sums against the generator's ground truth. The machine may be shared:
// the "other load" column says how many cores other processes kept busy during each run.
import { buildCli } from '../scripts/build.mjs';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const shared = process.env.SHARED_BENCH ?? join(root, '..', 'shared', 'bench');
const LINES = Number(process.env.LINES ?? 1_000_000);
const RUNS = Number(process.env.RUNS ?? 5);
const WARMUP = Number(process.env.WARMUP ?? 1);
const SEED = Number(process.env.SEED ?? 42);

if (!existsSync(join(shared, 'gen_access_ltsv.py'))) {
  console.log(`# skipped: ${shared}/gen_access_ltsv.py not found (set SHARED_BENCH to the folder with the generator)`);
  process.exit(0);
}

const work = join(process.env.BENCH_DIR ?? tmpdir(), 'qi-bench-endpoints');
mkdirSync(work, { recursive: true });
const log = join(work, `access_${LINES}_s${SEED}.ltsv`);
const truthFile = `${log}.truth.json`;
if (!existsSync(log) || !existsSync(truthFile)) {
  console.log(`# generating ${LINES} lines into ${log} ...`);
  const g = spawnSync('python3', [join(shared, 'gen_access_ltsv.py'), '--lines', String(LINES), '--seed', String(SEED), '--ltsv', log, '--truth', truthFile], { stdio: 'inherit' });
  if (g.status !== 0) process.exit(1);
}
const M = spawnSync('python3', [join(shared, 'gen_access_ltsv.py'), '--print-alp-m'], { encoding: 'utf8' }).stdout.trim();

// Our CLI, built by scripts/build.mjs's own function (production), into a private folder (dist/ may be in use).
// QI_CLI=path/to/cli.js times another build instead (e.g. an older one, for before/after figures).
const cli = process.env.QI_CLI ?? join(work, 'qi-cli', 'cli.js');
// why: the bundles require ssh2's native crypto binding by package path (scripts/build.mjs); a build
// outside the repository finds the repository's node_modules only through NODE_PATH.
process.env.NODE_PATH = [join(root, 'node_modules'), process.env.NODE_PATH].filter(Boolean).join(':');
if (!process.env.QI_CLI) await buildCli(join(work, 'qi-cli'), { production: true });

function findAlp() {
  const candidates = [process.env.ALP, join(process.env.GOBIN ?? join(homedir(), 'go', 'bin'), 'alp')].filter(Boolean);
  const onPath = spawnSync('bash', ['-c', 'command -v alp'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) candidates.unshift(onPath);
  return candidates.find((p) => existsSync(p));
}
let alp = findAlp();
if (!alp) {
  // The install steps of run_peers.sh (INSTALL=1), for alp only: the proxy's zip, built locally.
  console.log('# alp not found: building it from the Go module proxy as run_peers.sh INSTALL=1 does ...');
  const ver = process.env.ALP_VER ?? 'v1.0.21';
  const gobin = process.env.GOBIN ?? join(homedir(), 'go', 'bin');
  const sh = `set -e; GOFLAGS=-mod=mod go mod download -json github.com/tkuchiki/alp@${ver} >/dev/null; cd "$(go env GOMODCACHE)/github.com/tkuchiki/alp@${ver}"; mkdir -p "${gobin}"; GOFLAGS=-mod=mod go build -o "${gobin}/alp" ./cmd/alp`;
  spawnSync('bash', ['-c', sh], { stdio: 'inherit' });
  alp = findAlp();
}

function cpuTicks() {
  const a = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  return { busy: a.reduce((x, y) => x + y, 0) - a[3] - a[4] };
}

/** One timed run under GNU time: wall, max RSS, CPU, and the other load on the machine. */
function timed(cmd, args, out, env) {
  const s0 = cpuTicks();
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M %U %S', '-o', join(work, 'time.txt'), cmd, ...args], { maxBuffer: 1 << 28, encoding: 'utf8', ...(env ? { env } : {}) });
  const s1 = cpuTicks();
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  if (out) writeFileSync(out, r.stdout);
  const [wall, rssKb, user, sys] = readFileSync(join(work, 'time.txt'), 'utf8').trim().split('\n').pop().split(' ').map(Number);
  const hz = 100;
  const other = Math.max(0, (s1.busy - s0.busy) / hz - user - sys) / wall;
  return { wall, rss: rssKb / 1024, cpu: user + sys, other };
}

const bytes = statSync(log).size;
const truth = JSON.parse(readFileSync(truthFile, 'utf8')).endpoints;

function checkRows(rows) {
  let ok = 0;
  const bad = [];
  for (const [key, t] of Object.entries(truth)) {
    const g = rows.get(key);
    if (g && g.count === t.count && Math.abs(g.sum - t.apptime_or_reqtime_sum) <= 0.01 + 0.0005 * Math.sqrt(t.count)) ok++;
    else bad.push(`${key}: got ${g ? `${g.count} / ${g.sum.toFixed(3)}` : 'nothing'}, truth ${t.count} / ${t.apptime_or_reqtime_sum.toFixed(3)}`);
  }
  const extra = [...rows.keys()].filter((k) => !(k in truth));
  return { text: `${ok}/${Object.keys(truth).length} endpoints exact (count+sum)${extra.length ? `; ${extra.length} extra rows` : ''}`, bad };
}

const tools = [
  { name: 'query-insight', cmd: process.execPath, args: [cli, 'endpoints', log, '-m', M, '--log-format', 'ltsv', '--no-static-groups', '--format', 'json', '--quiet'],
    rows: (text) => new Map(text.trim().split('\n').map((l) => JSON.parse(l)).map((o) => [`${o.method} ${o.uri}`, { count: o.count, sum: o.sum }])) },
];
if (alp) {
  tools.push({ name: 'alp', cmd: alp, args: ['ltsv', '--file', log, '-m', M, '--format', 'tsv'],
    rows: (text) => new Map(text.trim().split('\n').slice(1).map((l) => l.split('\t')).map((c) => [`${c[6]} ${c[7]}`, { count: Number(c[0]), sum: Number(c[10]) }])) });
} else console.log('# alp could not be built: only our figures follow');

// Paired runs: the two commands in turn (warm-up pair first, not counted), so a change in the
// machine's other load falls on both alike; each pair gives a wall ratio, and the median of those
// ratios is the figure quoted.
const runsOf = Object.fromEntries(tools.map((t) => [t.name, []]));
for (let i = -WARMUP; i < RUNS; i++) {
  for (const t of tools) {
    const r = timed(t.cmd, t.args, i === 0 ? join(work, `${t.name}.out`) : undefined);
    if (i >= 0) runsOf[t.name].push(r);
  }
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const results = {};
for (const t of tools) {
  const runs = runsOf[t.name];
  results[t.name] = {
    runs, wall: median(runs.map((r) => r.wall)), cpu: median(runs.map((r) => r.cpu)), rss: Math.max(...runs.map((r) => r.rss)),
    check: checkRows(t.rows(readFileSync(join(work, `${t.name}.out`), 'utf8'))),
  };
}

const f = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
console.log(`\n${f(LINES)} lines, ${f(bytes / 1e6, 1)} MB LTSV, -m with ${M.split(',').length} expressions; ${RUNS} pairs (the tools in turn) after ${WARMUP} warm-up pair${WARMUP === 1 ? '' : 's'}; medians, peak RSS = max over runs`);
console.log(`${'tool'.padEnd(14)} ${'wall s'.padStart(7)} ${'lines/s'.padStart(11)} ${'MB/s'.padStart(7)} ${'CPU s'.padStart(6)} ${'peak RSS MB'.padStart(11)} ${'other load'.padStart(14)}  check`);
for (const [name, r] of Object.entries(results)) {
  console.log(`${name.padEnd(14)} ${f(r.wall, 2).padStart(7)} ${f(LINES / r.wall).padStart(11)} ${f(bytes / 1e6 / r.wall, 1).padStart(7)} ${f(r.cpu, 2).padStart(6)} ${f(r.rss, 1).padStart(11)} ${r.runs.map((x) => f(x.other, 1)).join('/').padStart(14)}  ${r.check.text}`);
}
const q = results['query-insight'];
if (results.alp) {
  const a = results.alp;
  const ratios = q.runs.map((r, i) => a.runs[i].wall / r.wall);
  const ratio = median(ratios);
  const memory = q.rss / a.rss;
  console.log(`\nalp / query-insight, wall, per pair: ${ratios.map((x) => f(x, 2)).join(' ')}; median ×${f(ratio, 2)} (target ≥ 10×: ${ratio >= 10 ? 'met' : 'not met'})`);
  console.log(`CPU (user+sys, medians): ×${f(a.cpu / q.cpu, 2)}; peak RSS ${f(q.rss, 1)} MB vs alp's ${f(a.rss, 1)} MB: ×${f(memory, 2)} (target ≤ 1.5×: ${memory <= 1.5 ? 'met' : 'not met'})`);
}
for (const b of q.check.bad.slice(0, 10)) console.log(`  mismatch ${b}`);

// The same file read over SSH (a private sshd on a loopback port, as the integration tests start it):
// what streaming a log from another box costs against reading it locally. Local and remote runs
// alternate, so a change in the machine's other load falls on both alike. SSH=0 skips this part
// (for timing an older build, whose CLI may not read remote logs). On loopback the box's side runs
// here too: sshd's CPU (its session processes and the `cat` they run, reaped by the listener) is
// printed beside the client's, and the two share this machine's cores.
const sshd = ['/usr/sbin/sshd', '/usr/bin/sshd'].find((p) => existsSync(p));
let remoteBad = false;
if (process.env.SSH === '0') console.log('\n# over SSH: skipped (SSH=0)');
else if (!sshd) console.log('\n# over SSH: skipped (openssh-server is not installed; scripts/setup-test-env.sh installs it)');
else {
  if (spawnSync(process.execPath, [join(root, 'scripts/build.mjs'), '--tests'], { stdio: 'inherit' }).status !== 0) process.exit(1);
  const { startSshd } = await import(join(root, 'out/test/support/sshd.js'));
  const box = await startSshd();
  try {
    const home = join(work, 'ssh-home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    const hostKey = readFileSync(join(box.dir, 'host_ed25519.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ');
    writeFileSync(join(home, '.ssh', 'known_hosts'), `[${box.host}]:${box.port} ${hostKey}\n`);
    const env = { ...process.env, HOME: home, USER: box.user };
    delete env.SSH_AUTH_SOCK;
    // why: sshd runs every command through the user's login shell, so whose account it is counts: this
    // machine's root may run a version manager's init from ~/.bashrc, a contest box's user a default rc.
    const boxUser = process.env.BOX_USER ?? box.user;
    const account = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith(`${boxUser}:`))?.split(':');
    if (!account) throw new Error(`BOX_USER=${boxUser}: no such user here`);
    // why: sshd reads authorized_keys as that user; the box's private dir is root's (its host key stays unreadable).
    const letUserIn = (b) => { if (boxUser !== box.user) { chmodSync(b.dir, 0o755); chmodSync(join(b.dir, 'authorized_keys'), 0o644); } };
    letUserIn(box);
    const url = `ssh://${boxUser}@${box.host}:${box.port}${log}`;
    const args = [cli, 'endpoints', url, '--ssh-key', box.clientKey.path, '-m', M, '--log-format', 'ltsv', '--no-static-groups', '--format', 'json', '--quiet'];
    const out = join(work, 'remote.out');
    const sshdPid = Number(readFileSync(join(box.dir, 'sshd.pid'), 'utf8'));
    /** CPU seconds of sshd's reaped children (utime, stime, cutime, cstime of the listener: the sessions and what they ran). */
    const sshdCpu = () => {
      const f = readFileSync(`/proc/${sshdPid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
    };
    const local = [];
    const runs = [];
    // The peer for the transport: OpenSSH's own client doing the same read, into the same parser
    // through a pipe (ssh box cat log | query-insight endpoints -), as a team would do by hand.
    const ssh = spawnSync('bash', ['-c', 'command -v ssh'], { encoding: 'utf8' }).stdout.trim();
    const sshArgs = ['-p', String(box.port), '-i', box.clientKey.path, '-o', `UserKnownHostsFile=${join(home, '.ssh', 'known_hosts')}`,
      '-o', 'BatchMode=yes', '-o', 'LogLevel=ERROR', `${boxUser}@${box.host}`];
    const shq = (a) => a.map((x) => `'${x.replace(/'/g, `'\\''`)}'`).join(' ');
    const pipeCmd = (file) => `${shq([ssh, ...sshArgs, `cat ${file}`])} | ${shq([process.execPath, cli, 'endpoints', '-', ...args.slice(3)])}`;
    const piped = [];
    const opensshOne = [];
    // why: a one-line file read the same two ways gives the fixed cost of a remote read (the login,
    // the start of the user's shell on the box, one command), apart from the streaming itself.
    const one = join(work, 'one-line.ltsv');
    writeFileSync(one, readFileSync(log, 'latin1').slice(0, 4096).split('\n')[0] + '\n', 'latin1');
    const oneArgs = (src) => [cli, 'endpoints', src, '--ssh-key', box.clientKey.path, '-m', M, '--log-format', 'ltsv', '--no-static-groups', '--format', 'json', '--quiet'];
    const localOne = [];
    const remoteOne = [];
    for (let i = 0; i < RUNS; i++) {
      localOne.push(timed(process.execPath, oneArgs(one), undefined, env));
      remoteOne.push(timed(process.execPath, oneArgs(`ssh://${boxUser}@${box.host}:${box.port}${one}`), undefined, env));
      if (ssh) opensshOne.push(timed(ssh, [...sshArgs, `cat ${one}`], undefined, env));
    }
    for (let i = 0; i < RUNS; i++) {
      local.push(timed(tools[0].cmd, tools[0].args));
      const c0 = sshdCpu();
      const r = timed(process.execPath, args, i === 0 ? out : undefined, env);
      // why: the listener reaps the session a moment after the client has seen the channel close.
      for (let w = 0; w < 20 && sshdCpu() === c0; w++) spawnSync('sleep', ['0.05']);
      spawnSync('sleep', ['0.1']);
      r.sshd = sshdCpu() - c0;
      r.other = Math.max(0, r.other - r.sshd / r.wall);
      runs.push(r);
      if (ssh) {
        const pipedOut = join(work, 'piped.out');
        piped.push(timed('bash', ['-c', `set -o pipefail; ${pipeCmd(log)}`], i === 0 ? pipedOut : undefined, env));
        if (i === 0 && checkRows(tools[0].rows(readFileSync(pipedOut, 'utf8'))).bad.length) { console.log('  the piped read does not match the truth'); remoteBad = true; }
      }
    }
    const bestOf = (rs) => rs.reduce((a, b) => (b.wall < a.wall ? b : a));
    const median = (rs) => [...rs].map((r) => r.wall).sort((a, b) => a - b)[Math.floor(rs.length / 2)];
    const [bl, br] = [bestOf(local), bestOf(runs)];
    const check = checkRows(tools[0].rows(readFileSync(out, 'utf8')));
    remoteBad = check.bad.length > 0;
    console.log(`\nover SSH (loopback sshd, ${url.replace(log, '…')}, login shell ${account[6] || '/bin/sh'}), alternating with local runs:`);
    console.log(`  local   best ${f(bl.wall, 2)} s, median ${f(median(local), 2)} s, ${f(LINES / bl.wall)} lines/s, CPU ${f(Math.min(...local.map((r) => r.cpu)), 2)} s, other load ${local.map((x) => f(x.other, 1)).join('/')}`);
    const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(`  remote  best ${f(br.wall, 2)} s, median ${f(median(runs), 2)} s, ${f(LINES / br.wall)} lines/s, CPU client ${f(Math.min(...runs.map((r) => r.cpu)), 2)} s `
      + `(median ${f(med(runs.map((r) => r.cpu)), 2)}), ${boxUser === box.user ? `sshd and cat ${f(med(runs.map((r) => r.sshd)), 2)} s (median)` : 'sshd and cat in "other load" (another user\'s sessions are not reaped into the listener\'s figures)'}, `
      + `maxRSS ${f(Math.max(...runs.map((r) => r.rss)), 1)} MB, other load ${runs.map((x) => f(x.other, 1)).join('/')}; ${check.text}`);
    console.log(`  whole run, the login and the box's shell included: remote/local ${f(bl.wall / br.wall, 2)} best, ${f(median(local) / median(runs), 2)} median`);
    const fixedLocal = median(localOne);
    const fixedRemote = median(remoteOne);
    // why: sshd runs the command through the user's login shell, which (bash, under sshd) reads ~/.bashrc first.
    const shell = account[6] || '/bin/sh';
    const shellRuns = Array.from({ length: 5 }, () => {
      const t0 = performance.now();
      // why: the environment sshd gives a session (bash reads ~/.bashrc only at the first shell level).
      spawnSync(shell, ['-c', 'true'], { env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: account[5], USER: boxUser, SHELL: shell, SSH_CLIENT: '127.0.0.1 40000 22' } });
      return (performance.now() - t0) / 1000;
    });
    console.log(`  a one-line file: local ${f(fixedLocal, 2)} s, remote ${f(fixedRemote, 2)} s (median): ${f(fixedRemote - fixedLocal, 2)} s to log in and run one command; `
      + `of that, ${shell} -c true as sshd starts it (reading ~/.bashrc) takes ${f(med(shellRuns), 2)} s here`);
    console.log(`remote/local throughput while streaming (each run less its one-line time): ${f((bl.wall - fixedLocal) / (br.wall - fixedRemote), 2)} best, ${f((median(local) - fixedLocal) / (median(runs) - fixedRemote), 2)} median (goal ≥ 0.8)`);
    if (ssh) {
      const bp = bestOf(piped);
      console.log(`  peer, OpenSSH's ssh: the one-line file by ssh box cat takes ${f(median(opensshOne), 2)} s (median; the remote read above ${f(fixedRemote, 2)} s, node's start included);`
        + ` the whole log by ssh box cat log | query-insight endpoints - best ${f(bp.wall, 2)} s, median ${f(median(piped), 2)} s,`
        + ` ${f(bl.wall / bp.wall, 2)} best / ${f(median(local) / median(piped), 2)} median of local; the built-in read takes ${f(br.wall / bp.wall, 2)} of its time (best)`);
    } else console.log('  peer, OpenSSH\'s ssh: skipped (no ssh client on PATH)');

    // why: a team reads one log per box; with every box logged in to at once, the second box's login and
    // shell start overlap the first. Two boxes (a second sshd serving the same file) against the file read twice locally.
    if (process.env.BOXES !== '0') {
      const box2 = await startSshd({ authorizedKeys: [box.clientKey.publicKey] });
      try {
        letUserIn(box2);
        const key2 = readFileSync(join(box2.dir, 'host_ed25519.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ');
        writeFileSync(join(home, '.ssh', 'known_hosts'), `[${box.host}]:${box.port} ${hostKey}\n[${box2.host}]:${box2.port} ${key2}\n`);
        const two = (sources) => [cli, 'endpoints', ...sources, '--ssh-key', box.clientKey.path, '-m', M, '--log-format', 'ltsv', '--no-static-groups', '--format', 'json', '--quiet'];
        const remoteTwo = [url, `ssh://${boxUser}@${box2.host}:${box2.port}${log}`];
        const [local2, remote2] = [[], []];
        const total = (file) => readFileSync(file, 'utf8').trim().split('\n').reduce((n, l) => n + JSON.parse(l).count, 0);
        for (let i = 0; i < RUNS; i++) {
          local2.push(timed(process.execPath, two([log, log]), undefined, env));
          remote2.push(timed(process.execPath, two(remoteTwo), i === 0 ? out : undefined, env));
          if (i === 0 && total(out) !== 2 * LINES) { console.log(`  two boxes: ${total(out)} requests, expected ${2 * LINES}`); remoteBad = true; }
        }
        const [b2l, b2r] = [bestOf(local2), bestOf(remote2)];
        console.log(`  two boxes, one log each (${f(2 * LINES)} requests): local (the file twice) best ${f(b2l.wall, 2)} s, median ${f(median(local2), 2)} s; `
          + `remote best ${f(b2r.wall, 2)} s, median ${f(median(remote2), 2)} s -> remote/local ${f(b2l.wall / b2r.wall, 2)} best, ${f(median(local2) / median(remote2), 2)} median`);
      } finally {
        await box2.stop();
      }
    }
  } finally {
    await box.stop();
  }
}
process.exit(q.check.bad.length || remoteBad ? 1 : 0);
