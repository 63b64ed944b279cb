/**
 * Loading tree-sitter: the runtime once per process, each grammar lazily on first use, one
 * Parser per grammar reused for every file. Bytes come through a GrammarSource so core does no
 * I/O (src/node/grammars.ts reads them from disk; a test or the extension may hand in others).
 */
// why: a `require` import makes esbuild pick web-tree-sitter's CommonJS build; its ES module build
// reads import.meta.url at load time, which is empty inside our CommonJS bundles.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see the why above
import TreeSitter = require('web-tree-sitter');
import type { Language } from '../../../model';
import { copyTree, type CopyCursor, type GrammarTables, type SyntaxTree } from '../../syntaxTree';
import { copyWasmTree, languageLayout, type LanguageLayout, type WasmHeap } from './wasmTree';

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

/** The runtime's cursor exports used by copyTree (each takes the tree's address; the cursor lives in the runtime's transfer buffer). */
interface CursorExports {
  _ts_tree_root_node_wasm(tree: number): void;
  _ts_node_has_error_wasm(tree: number): number;
  _ts_tree_cursor_new_wasm(tree: number): void;
  _ts_tree_cursor_delete_wasm(tree: number): void;
  _ts_tree_cursor_current_node_type_id_wasm(tree: number): number;
  _ts_tree_cursor_start_index_wasm(tree: number): number;
  _ts_tree_cursor_end_index_wasm(tree: number): number;
  _ts_tree_cursor_current_field_id_wasm(tree: number): number;
  _ts_tree_cursor_current_node_is_missing_wasm(tree: number): number;
  _ts_tree_cursor_goto_first_child_wasm(tree: number): number;
  _ts_tree_cursor_goto_next_sibling_wasm(tree: number): number;
  _ts_tree_cursor_goto_parent_wasm(tree: number): number;
  _ts_parser_enable_logger_wasm(parser: number, enabled: number): void;
  _ts_parser_parse_wasm(parser: number, inputBuffer: number, oldTree: number, ranges: number, rangeCount: number): number;
  _ts_tree_delete(tree: number): void;
  /** Read by the runtime while it parses (Parser.parse sets them the same way). */
  currentParseCallback: ((index: number) => string) | null;
  currentLogCallback: unknown;
  currentProgressCallback: unknown;
}
const CURSOR_EXPORTS: (keyof CursorExports)[] = ['_ts_tree_root_node_wasm', '_ts_node_has_error_wasm', '_ts_tree_cursor_new_wasm', '_ts_tree_cursor_delete_wasm',
  '_ts_tree_cursor_current_node_type_id_wasm', '_ts_tree_cursor_start_index_wasm', '_ts_tree_cursor_end_index_wasm',
  '_ts_tree_cursor_current_field_id_wasm', '_ts_tree_cursor_current_node_is_missing_wasm', '_ts_tree_cursor_goto_first_child_wasm',
  '_ts_tree_cursor_goto_next_sibling_wasm', '_ts_tree_cursor_goto_parent_wasm', '_ts_parser_enable_logger_wasm', '_ts_parser_parse_wasm', '_ts_tree_delete'];

/** The runtime's own exports when they are reachable (see initRuntime), else undefined: copies then go through TreeCursor. */
let cursorExports: CursorExports | undefined;
/** The runtime's memory views when they are reachable (emscripten keeps them current on the module object). */
let wasmHeap: WasmHeap | undefined;

function initRuntime(source: GrammarSource): Promise<void> {
  if (!runtime) {
    // why: passing the bytes as wasmBinary keeps emscripten from looking for the file beside
    // the script, which fails once esbuild has bundled web-tree-sitter into dist/*.js.
    // Emscripten also fills this same options object with the module's exports (its documented
    // `Module` object); copyTree drives the cursor through them, several times faster than
    // TreeCursor's marshalling getters. Without them it falls back to TreeCursor.
    const moduleObject: Record<string, unknown> = {};
    runtime = source.read(RUNTIME_WASM).then(async (bytes) => {
      moduleObject.wasmBinary = bytes;
      await TreeSitter.Parser.init(moduleObject);
      const ok = CURSOR_EXPORTS.every((k) => typeof moduleObject[k] === 'function');
      cursorExports = ok ? (moduleObject as unknown as CursorExports) : undefined;
      wasmHeap = ok && moduleObject.HEAPU8 instanceof Uint8Array && moduleObject.HEAPU16 instanceof Uint16Array
        && moduleObject.HEAPU32 instanceof Uint32Array ? (moduleObject as unknown as WasmHeap) : undefined;
    });
    runtime.catch(() => { runtime = undefined; });
  }
  return runtime;
}

/** How trees of this language are copied: 'memory' (read from wasm memory), 'exports' (the cursor's exports) or 'cursor' (TreeCursor). */
export function treeCopyPath(lang?: TreeSitter.Language): 'memory' | 'exports' | 'cursor' {
  if (!cursorExports) return 'cursor';
  return lang && layoutOf(lang) ? 'memory' : 'exports';
}

/** The cursor of the runtime's exports over the tree at address `tree` (the cursor lives in the runtime's transfer buffer). */
function exportsCursor(x: CursorExports, tree: number): CopyCursor & { hasError: boolean; delete(): void } {
  // The root node goes into the transfer buffer, is asked about errors, and the cursor starts there.
  x._ts_tree_root_node_wasm(tree);
  const hasError = x._ts_node_has_error_wasm(tree) === 1;
  x._ts_tree_root_node_wasm(tree);
  x._ts_tree_cursor_new_wasm(tree);
  return {
    at: tree, hasError,
    typeId: x._ts_tree_cursor_current_node_type_id_wasm, startIndex: x._ts_tree_cursor_start_index_wasm, endIndex: x._ts_tree_cursor_end_index_wasm,
    fieldId: x._ts_tree_cursor_current_field_id_wasm, isMissing: x._ts_tree_cursor_current_node_is_missing_wasm,
    gotoFirstChild: x._ts_tree_cursor_goto_first_child_wasm, gotoNextSibling: x._ts_tree_cursor_goto_next_sibling_wasm, gotoParent: x._ts_tree_cursor_goto_parent_wasm,
    delete: () => x._ts_tree_cursor_delete_wasm(tree),
  };
}

/** The same moves through web-tree-sitter's TreeCursor (the slow path, and the tests' reference). */
function apiCursor(tree: TreeSitter.Tree): CopyCursor & { hasError: boolean; delete(): void } {
  const c = tree.walk();
  const yes = (b: boolean) => (b ? 1 : 0);
  return {
    at: 0, hasError: tree.rootNode.hasError,
    typeId: () => c.nodeTypeId, startIndex: () => c.startIndex, endIndex: () => c.endIndex, fieldId: () => c.currentFieldId,
    isMissing: () => yes(c.nodeIsMissing), gotoFirstChild: () => yes(c.gotoFirstChild()), gotoNextSibling: () => yes(c.gotoNextSibling()),
    gotoParent: () => yes(c.gotoParent()), delete: () => c.delete(),
  };
}

const grammarTables = new WeakMap<object, GrammarTables>();
const layouts = new WeakMap<object, LanguageLayout | null>();

/** Where the language's tables sit in wasm memory, checked once per language (null: copy its trees by the cursor). */
function layoutOf(lang: TreeSitter.Language): LanguageLayout | null {
  let l = layouts.get(lang);
  if (l === undefined) {
    const address = (lang as unknown as Record<number, unknown>)[0];
    l = (wasmHeap && typeof address === 'number' ? languageLayout(wasmHeap, address, tablesOf(lang)) : undefined) ?? null;
    layouts.set(lang, l);
  }
  return l;
}

function tablesOf(lang: TreeSitter.Language): GrammarTables {
  let t = grammarTables.get(lang);
  if (!t) {
    const types: string[] = [], named: boolean[] = [];
    for (let id = 0; id < lang.nodeTypeCount; id++) {
      types.push(lang.nodeTypeForId(id) ?? 'ERROR');
      named.push(lang.nodeTypeIsNamed(id));
    }
    t = { types, named, fields: [...lang.fields] };
    grammarTables.set(lang, t);
  }
  return t;
}

/**
 * Parses `text` and returns the tree copied into plain objects (syntaxTree.ts); the wasm tree is
 * freed before returning. `mode` forces a copy path (tests compare all three): 'auto' reads the tree
 * from wasm memory when the language's layout checked out, else through the cursor's exports.
 */
export function parseSyntax(parser: TreeSitter.Parser, text: string, mode: 'auto' | 'exports' | 'cursor' = 'auto'): SyntaxTree {
  const x = cursorExports;
  const handles = parser as unknown as Record<number, unknown>;
  if (x && mode !== 'cursor' && typeof handles[0] === 'number' && typeof handles[1] === 'number' && parser.language) {
    // why: Parser.parse wraps the tree in a Tree registered with a FinalizationRegistry, which the copy never
    // needs (the tree is freed right after it); the same runtime calls, made directly, spare that per file.
    x.currentParseCallback = (index: number) => text.slice(index);
    x.currentLogCallback = null;
    x.currentProgressCallback = null;
    x._ts_parser_enable_logger_wasm(handles[0], 0);
    let address: number;
    try {
      address = x._ts_parser_parse_wasm(handles[0], handles[1], 0, 0, 0);
    } finally {
      x.currentParseCallback = null;
    }
    if (!address) throw new Error('parser returned no tree');
    try {
      const layout = mode === 'auto' ? layoutOf(parser.language) : null;
      if (layout && wasmHeap) {
        x._ts_tree_root_node_wasm(address);
        const hasError = x._ts_node_has_error_wasm(address) === 1;
        return copyWasmTree(text, wasmHeap, address, layout, tablesOf(parser.language), hasError);
      }
      const cursor = exportsCursor(x, address);
      try {
        return copyTree(text, cursor, tablesOf(parser.language), cursor.hasError);
      } finally {
        cursor.delete();
      }
    } finally {
      x._ts_tree_delete(address);
    }
  }
  const tree = parser.parse(text);
  if (!tree) throw new Error('parser returned no tree');
  try {
    const address = (tree as unknown as Record<number, unknown>)[0];
    const tables = tablesOf(parser.language!);
    // why: no Node or TreeCursor call may come while the exports cursor lives, as they reuse its transfer buffer.
    const cursor = cursorExports && mode !== 'cursor' && typeof address === 'number' ? exportsCursor(cursorExports, address) : apiCursor(tree);
    try {
      return copyTree(text, cursor, tables, cursor.hasError);
    } finally {
      cursor.delete();
    }
  } finally {
    tree.delete();
  }
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
