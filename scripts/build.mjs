// One esbuild script for every bundle: the extension, the CLI and the webview.
// Types are checked separately (`npm run typecheck`).
//   node scripts/build.mjs               development bundles into dist/
//   node scripts/build.mjs --production  minified, no source maps (what `npm run package` ships)
//   node scripts/build.mjs --tests       also transpile src/ and test/ (not bundled) into out/ for node --test
import * as esbuild from 'esbuild';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const production = process.argv.includes('--production');
const tests = process.argv.includes('--tests');

/** Grammar files shipped beside the bundles; the runtime finds them in dist/grammars. */
export const GRAMMARS = ['go', 'javascript', 'typescript', 'tsx', 'python', 'ruby', 'php', 'rust'];

function copyGrammars() {
  const out = join(root, 'dist', 'grammars');
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

async function main() {
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  copyGrammars();
  const builds = [
    esbuild.build({ ...common, entryPoints: [join(root, 'src/extension/extension.ts')], outfile: join(root, 'dist/extension.js'), external: ['vscode', ...optionalNative] }),
    esbuild.build({ ...common, entryPoints: [join(root, 'src/cli/cli.ts')], outfile: join(root, 'dist/cli.js'), external: optionalNative }),
  ];
  const webviewEntry = join(root, 'src/webview/main.ts');
  if (existsSync(webviewEntry)) {
    builds.push(esbuild.build({ ...common, define: {}, banner: {}, platform: 'browser', format: 'iife', target: 'es2022', entryPoints: [webviewEntry], outfile: join(root, 'dist/webview.js') }));
  }
  if (tests) {
    rmSync(join(root, 'out'), { recursive: true, force: true });
    const files = [...walk(join(root, 'src'), (p) => p.endsWith('.ts')), ...walk(join(root, 'test'), (p) => p.endsWith('.ts'))];
    builds.push(esbuild.build({
      entryPoints: files, outdir: join(root, 'out'), outbase: root, bundle: false,
      platform: 'node', target: 'node20', format: 'cjs', sourcemap: 'inline', logLevel: 'warning',
    }));
  }
  await Promise.all(builds);
  if (!production) console.log(`built dist/${tests ? ' and out/' : ''} (${relative(process.cwd(), root) || '.'})`);
}

main().catch((err) => { console.error(err.message ?? err); process.exit(1); });
