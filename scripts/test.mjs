// Runs every suite with node's built-in test runner.
//   node scripts/test.mjs            unit + integration + e2e
//   node scripts/test.mjs unit       only the named suites (unit, integration, e2e)
// Integration tests start a private MariaDB themselves; e2e tests start code-server and Chromium
// (install both with scripts/setup-test-env.sh). A suite whose tools are missing fails with a message
// naming the setup script, unless QI_SKIP_E2E=1 / QI_SKIP_INTEGRATION=1 says to leave it out.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const all = ['unit', 'integration', 'e2e'];
const unknown = process.argv.slice(2).filter((a) => !all.includes(a));
if (unknown.length) { console.error(`unknown suite ${unknown.join(', ')}: the suites are ${all.join(', ')}`); process.exit(2); }
const asked = process.argv.slice(2);
const suites = (asked.length ? asked : all).filter((s) => process.env[`QI_SKIP_${s.toUpperCase()}`] !== '1');

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

function testFiles(dir) {
  const acc = [];
  const go = (d) => {
    if (!existsSync(d)) return;
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) go(p);
      else if (/\.test\.(js|mjs)$/.test(n)) acc.push(p);
    }
  };
  go(dir);
  return acc.sort();
}

if (run(process.execPath, [join(root, 'scripts/build.mjs'), '--tests']) !== 0) process.exit(1);
let failed = 0;
const times = [];
for (const suite of suites) {
  const files = testFiles(join(root, 'out/test', suite));
  if (files.length === 0) { console.log(`# suite ${suite}: no tests`); continue; }
  console.log(`# suite ${suite}: ${files.length} files`);
  // why: integration and e2e suites share one MariaDB / code-server per file; run files one at a time there.
  const conc = suite === 'unit' ? [] : ['--test-concurrency=1'];
  const t0 = Date.now();
  const status = run(process.execPath, ['--test', ...conc, ...files]);
  if (status !== 0) failed++;
  times.push(`${suite} ${((Date.now() - t0) / 1000).toFixed(0)} s${status ? ' (failed)' : ''}`);
  console.log(`# suite ${suite}: ${times.at(-1)}`);
}
if (times.length) console.log(`# time per suite: ${times.join(', ')}`);
process.exit(failed ? 1 : 0);
