// Compares the output of `scan DIR --format json` of two builds of the CLI, byte for byte: a change meant only to make
// the scan faster must print exactly what the build before it printed.
//   node scripts/scan-compare.mjs --before /path/to/old/dist/cli.js [--after dist/cli.js] [DIR ...]
// Without DIR: test/fixtures and every directory one or two levels below it (a scan follows calls across the files
// under its root, so each root is a case of its own). Prints one line per directory that differs, and a summary; exits 1
// when any differs. bench/scan.mjs --before makes the same comparison on its generated files.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name) => { const i = args.indexOf(name); if (i < 0) return undefined; const v = args[i + 1]; args.splice(i, 2); return v; };
const before = opt('--before') ?? process.env.QI_CLI_BEFORE;
const after = opt('--after') ?? join(root, 'dist', 'cli.js');
if (!before) { console.error('usage: node scripts/scan-compare.mjs --before OLD_CLI [--after NEW_CLI] [DIR ...]'); process.exit(2); }
for (const cli of [before, after]) if (!existsSync(cli)) { console.error(`no ${cli}`); process.exit(2); }

/** test/fixtures and its directories one and two levels down. */
function fixtureDirs() {
  const top = join(root, 'test', 'fixtures');
  const out = [top];
  const below = (d) => readdirSync(d, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(d, e.name)).sort();
  for (const d of below(top)) out.push(d, ...below(d));
  return out;
}

/** What `scan DIR --format json` prints on stdout, and its exit status. */
function scan(cli, dir) {
  const r = spawnSync(process.execPath, [cli, 'scan', dir, '--format', 'json'], { maxBuffer: 1 << 30 });
  return { status: r.status, stdout: r.stdout };
}

const dirs = args.length ? args.map((d) => resolve(d)) : fixtureDirs();
let differ = 0, lines = 0;
for (const dir of dirs) {
  const a = scan(before, dir), b = scan(after, dir);
  const name = relative(root, dir) || dir;
  if (a.status !== b.status || !a.stdout.equals(b.stdout)) {
    differ++;
    const at = firstDifference(a.stdout, b.stdout);
    console.log(`DIFFERS ${name}: exit ${a.status} / ${b.status}, ${a.stdout.length} / ${b.stdout.length} bytes, first difference at line ${at}`);
  }
  lines += b.stdout.toString('utf8').split('\n').length - 1;
}
console.log(`${dirs.length} directories scanned by both builds, ${lines} JSON lines: ${differ ? `${differ} differ` : 'identical output'}`);
process.exit(differ ? 1 : 0);

/** 1-based line of the first byte where two outputs part. */
function firstDifference(x, y) {
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  let line = 1;
  for (let k = 0; k < i; k++) if (x[k] === 10) line++;
  return line;
}
