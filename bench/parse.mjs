// Benchmark of the tree-sitter parse alone, per grammar, in this process.
//   node bench/parse.mjs --dir DIR [--rounds 5]      (DIR: any source tree, e.g. one kept by `bench/scan.mjs --keep`)
//   taskset -c 0 node bench/parse.mjs --dir DIR      (one core: V8's background compiles then share it, as in a pinned scan)
// For each grammar, over every file of DIR it reads: the first round (the grammar's code just compiled, before V8 has
// optimised its hot functions), then the median of the later rounds, each as MB (UTF-8 bytes of the files) per
// CPU-second of this process: the parse alone (tree made, then freed) and the parse with the copy into plain objects
// that the walkers read (parseSyntax). Both figures count V8's compiler threads, as the CPU of a scan does.
// Build first: `node scripts/build.mjs`.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : dflt; };
const dir = arg('--dir', undefined);
const ROUNDS = Math.max(2, Number(arg('--rounds', '5')));
if (!dir) { console.error('usage: node bench/parse.mjs --dir DIR [--rounds 5]'); process.exit(2); }

// ---- the parse modules, bundled from source for this process (a directory of this run's own)
const bundleDir = mkdtempSync(join(tmpdir(), 'qi-parse-bundle-'));
const entry = join(bundleDir, 'parse-entry.ts');
writeFileSync(entry, `export { ParserSet, parseSyntax, grammarFor } from ${JSON.stringify(join(root, 'src/core/source/lang/treeSitter/treeSitter'))};
export { languageForPath } from ${JSON.stringify(join(root, 'src/core/source/languageOf'))};
export { fsGrammarSource } from ${JSON.stringify(join(root, 'src/node/grammars'))};\n`);
const bundle = join(bundleDir, 'parse.cjs');
await esbuild.build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, logLevel: 'error' });
const { ParserSet, parseSyntax, grammarFor, languageForPath, fsGrammarSource } = createRequire(import.meta.url)(bundle);
rmSync(bundleDir, { recursive: true, force: true });

// ---- the files, by grammar
const byGrammar = new Map();
for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
  if (!e.isFile()) continue;
  const path = join(e.parentPath ?? e.path, e.name);
  const language = languageForPath(path);
  const grammar = language ? grammarFor(language, path) : undefined;
  if (!grammar) continue;
  const text = readFileSync(path, 'utf8');
  const g = byGrammar.get(grammar) ?? { texts: [], bytes: 0 };
  g.texts.push(text);
  g.bytes += Buffer.byteLength(text);
  byGrammar.set(grammar, g);
}
if (byGrammar.size === 0) { console.error(`no file in ${dir} is read by a tree-sitter grammar`); process.exit(1); }

const cpuOf = (f) => { const c = process.cpuUsage(); f(); const u = process.cpuUsage(c); return (u.user + u.system) / 1e6; };
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const mbps = (bytes, secs) => `${(bytes / 1e6 / secs).toFixed(2)} MB/s`;

const parsers = new ParserSet(fsGrammarSource(join(root, 'dist', 'grammars')));
console.log(`tree-sitter parse per grammar, MB per CPU-second (${ROUNDS} rounds; first round, then the median of the others):`);
let firstAll = 0, parseAll = 0, copyAll = 0, bytesAll = 0;
for (const [grammar, { texts, bytes }] of [...byGrammar].sort((a, b) => a[0].localeCompare(b[0]))) {
  const parser = await parsers.load(grammar);
  const first = cpuOf(() => { for (const t of texts) parser.parse(t).delete(); });
  const parse = [], copy = [];
  for (let r = 1; r < ROUNDS; r++) {
    parse.push(cpuOf(() => { for (const t of texts) parser.parse(t).delete(); }));
    copy.push(cpuOf(() => { for (const t of texts) parseSyntax(parser, t); }));
  }
  const p = median(parse), c = median(copy);
  firstAll += first; parseAll += p; copyAll += c; bytesAll += bytes;
  console.log(`  ${grammar.padEnd(10)} ${String(texts.length).padStart(6)} files ${(bytes / 1e6).toFixed(2).padStart(6)} MB: first ${mbps(bytes, first)}, `
    + `then parse ${mbps(bytes, p)} (${(p * 1e6 / texts.length).toFixed(0)} µs a file), parse + copy ${mbps(bytes, c)}`);
}
console.log(`  all        ${(bytesAll / 1e6).toFixed(2)} MB: first ${firstAll.toFixed(2)} s (${mbps(bytesAll, firstAll)}), `
  + `then parse ${parseAll.toFixed(2)} s (${mbps(bytesAll, parseAll)}), parse + copy ${copyAll.toFixed(2)} s (${mbps(bytesAll, copyAll)})`);
