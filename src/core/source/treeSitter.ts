/**
 * Loading tree-sitter: the runtime once per process, each grammar lazily on first use, one
 * Parser per grammar reused for every file. Bytes come through a GrammarSource so core does no
 * I/O (src/node/grammars.ts reads them from disk; a test or the extension may hand in others).
 */
// why: a `require` import makes esbuild pick web-tree-sitter's CommonJS build; its ES module build
// reads import.meta.url at load time, which is empty inside our CommonJS bundles.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see the why above
import TreeSitter = require('web-tree-sitter');
import type { Language } from '../model';

/** Supplies the wasm files by name: `web-tree-sitter.wasm` and `tree-sitter-<grammar>.wasm`. */
export interface GrammarSource {
  read(fileName: string): Promise<Uint8Array>;
}

/** The grammars we parse with; `tsx` serves .tsx and .jsx files. */
export type GrammarName = 'go' | 'ruby' | 'python' | 'php' | 'javascript' | 'typescript' | 'tsx' | 'rust';

/** Name of the runtime's own wasm file. */
export const RUNTIME_WASM = 'web-tree-sitter.wasm';

/** File name of a grammar's wasm. */
export function grammarFileName(g: GrammarName): string {
  return `tree-sitter-${g}.wasm`;
}

// why: the emscripten runtime behind web-tree-sitter is process-wide; initialising it twice
// would load a second copy of the module, so every ParserSet shares this one promise.
let runtime: Promise<void> | undefined;

function initRuntime(source: GrammarSource): Promise<void> {
  if (!runtime) {
    // why: passing the bytes as wasmBinary keeps emscripten from looking for the file beside
    // the script, which fails once esbuild has bundled web-tree-sitter into dist/*.js.
    runtime = source.read(RUNTIME_WASM).then((bytes) => TreeSitter.Parser.init({ wasmBinary: bytes } as object));
    runtime.catch(() => { runtime = undefined; });
  }
  return runtime;
}

/** The grammar that parses a file of `language` at `path` (.tsx/.jsx use the tsx grammar). */
export function grammarFor(language: Language, path: string): GrammarName | undefined {
  if (language === 'perl') return undefined;
  if (/\.[jt]sx$/i.test(path)) return 'tsx';
  return language;
}

/** One Parser per grammar, loaded on demand and reused. */
export class ParserSet {
  private readonly parsers = new Map<GrammarName, TreeSitter.Parser>();
  private readonly loading = new Map<GrammarName, Promise<TreeSitter.Parser>>();

  constructor(private readonly source: GrammarSource) {}

  /** Loads a grammar (once) and returns its parser. */
  load(grammar: GrammarName): Promise<TreeSitter.Parser> {
    let p = this.loading.get(grammar);
    if (!p) {
      p = (async () => {
        await initRuntime(this.source);
        const lang = await TreeSitter.Language.load(await this.source.read(grammarFileName(grammar)));
        const parser = new TreeSitter.Parser();
        parser.setLanguage(lang);
        this.parsers.set(grammar, parser);
        return parser;
      })();
      p.catch(() => this.loading.delete(grammar));
      this.loading.set(grammar, p);
    }
    return p;
  }

  /** Loads every grammar needed for these languages (and tsx for TypeScript/JavaScript). */
  async loadFor(languages: Iterable<Language>): Promise<void> {
    const want = new Set<GrammarName>();
    for (const l of languages) {
      const g = grammarFor(l, '');
      if (!g) continue;
      want.add(g);
      if (l === 'javascript' || l === 'typescript') want.add('tsx');
    }
    await Promise.all([...want].map((g) => this.load(g)));
  }

  /** The parser of a grammar that is already loaded, or undefined. */
  get(grammar: GrammarName): TreeSitter.Parser | undefined {
    return this.parsers.get(grammar);
  }
}

/** Compiles a tree-sitter query for a parser's language (kept here so only this file loads the runtime). */
export function compileQuery(parser: TreeSitter.Parser, source: string): TreeSitter.Query {
  return new TreeSitter.Query(parser.language!, source);
}
