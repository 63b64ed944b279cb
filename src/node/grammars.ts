/**
 * The fs-backed GrammarSource: the bundled dist/grammars beside the running script first
 * (dist/cli.js, dist/extension.js), then the npm packages (tests run unbundled from out/).
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RUNTIME_WASM, type GrammarSource } from '../core/source/treeSitter';

function packageFile(fileName: string): string | undefined {
  try {
    if (fileName === RUNTIME_WASM) return require.resolve('web-tree-sitter/web-tree-sitter.wasm');
    return join(dirname(require.resolve('@vscode/tree-sitter-wasm/wasm/tree-sitter.wasm')), fileName);
  } catch {
    return undefined;
  }
}

/** Reads grammar wasm files from `dir` (default: `grammars` beside this script), else from node_modules. */
export function fsGrammarSource(dir: string = join(__dirname, 'grammars')): GrammarSource {
  return {
    async read(fileName: string): Promise<Uint8Array> {
      const candidates = [join(dir, fileName), packageFile(fileName)].filter((p): p is string => !!p);
      for (const p of candidates) if (existsSync(p)) return readFile(p);
      throw new Error(`grammar file ${fileName} not found (looked in ${candidates.join(', ')})`);
    },
  };
}
