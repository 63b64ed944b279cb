/**
 * The fs-backed GrammarSource: the bundled dist/grammars first (beside dist/extension.js and
 * dist/cli.js, one folder above the CLI's command bundles), then the npm packages (tests run
 * unbundled from out/).
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RUNTIME_WASM, type GrammarSource } from '../core/source/lang/treeSitter/treeSitter';

function packageFile(fileName: string): string | undefined {
  try {
    if (fileName === RUNTIME_WASM) return require.resolve('web-tree-sitter/web-tree-sitter.wasm');
    return join(dirname(require.resolve('@vscode/tree-sitter-wasm/wasm/tree-sitter.wasm')), fileName);
  } catch {
    return undefined;
  }
}

/**
 * Where the bundled grammars are: `grammars` beside this script (dist/extension.js, dist/cli.js) or
 * one folder up (the CLI's command bundles in dist/cli/).
 */
function bundledDirs(): string[] {
  return [join(__dirname, 'grammars'), join(__dirname, '..', 'grammars')];
}

/** Reads grammar wasm files from `dir` (default: the bundled grammars, see bundledDirs), else from node_modules. */
export function fsGrammarSource(dir?: string): GrammarSource {
  const dirs = dir === undefined ? bundledDirs() : [dir];
  return {
    async read(fileName: string): Promise<Uint8Array> {
      const candidates = [...dirs.map((d) => join(d, fileName)), packageFile(fileName)].filter((p): p is string => !!p);
      for (const p of candidates) if (existsSync(p)) return readFile(p);
      throw new Error(`grammar file ${fileName} not found (looked in ${candidates.join(', ')})`);
    },
  };
}
