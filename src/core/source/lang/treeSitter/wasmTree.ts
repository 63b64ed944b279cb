/**
 * Copying a tree-sitter tree by reading its structs straight from the runtime's wasm memory.
 *
 * why: the cursor copy (copyTree over the runtime's exports) makes six to eight calls into wasm per
 * node, each re-reading the cursor from the transfer buffer; reading the tree's own structs from JS
 * visits each node once with a few typed-array reads. It reproduces TreeCursor's walk exactly:
 * which nodes are visible (hidden nodes are walked through, aliases make nodes visible and rename
 * them), where each starts and ends, and which field it fills (inherited through hidden parents).
 *
 * The layout read here is tree-sitter's own (lib/src/subtree.h, tree_cursor.c, language.h) as built
 * into web-tree-sitter 0.27 for wasm32 (little-endian, 32-bit pointers); package.json pins that
 * version, and test/unit/source/syntaxTree.test.ts compares this copy node for node with the
 * cursor's on every fixture file in every grammar. A language whose header does not read as
 * expected gets no layout, and its trees are copied by the cursor.
 */
import { adoptChildren, appendNode, SyntaxTree, type GrammarTables, type SyntaxNode } from '../../syntaxTree';

/** Views of the runtime's memory (emscripten replaces them when the memory grows, so read them per tree). */
export interface WasmHeap {
  HEAPU8: Uint8Array;
  HEAPU16: Uint16Array;
  HEAPU32: Uint32Array;
}

/** Addresses of the language tables the walk reads (all inside the loaded grammar, fixed for the process). */
export interface LanguageLayout {
  publicSymbolMap: number;
  aliasSequences: number;
  maxAliasSequenceLength: number;
  /**
   * The field map unrolled: fieldAt[productionId * fieldWidth + structural child index] is the field of that
   * child (the first of the production's entries that is not inherited, as TreeCursor takes it), 0 for none.
   */
  fieldAt: Uint16Array;
  fieldWidth: number;
}

// TSLanguage (lib/src/parser.h), the same prefix in ABI 14 and 15: nine uint32 counts, then
// max_alias_sequence_length (uint16), then pointers from offset 40.
const LANG_ABI = 0, LANG_SYMBOL_COUNT = 4, LANG_ALIAS_COUNT = 8, LANG_PRODUCTION_ID_COUNT = 28, LANG_FIELD_COUNT = 32, LANG_MAX_ALIAS = 36;
const LANG_SYMBOL_NAMES = 56, LANG_FIELD_NAMES = 60, LANG_FIELD_MAP_SLICES = 64, LANG_FIELD_MAP_ENTRIES = 68;
const LANG_PUBLIC_SYMBOL_MAP = 76, LANG_ALIAS_SEQUENCES = 84;

// SubtreeHeapData: ref_count, padding {bytes, row, column}, size {bytes, row, column}, lookahead_bytes,
// error_cost, child_count, symbol (u16), parse_state (u16), flag bits (u16), then the union of
// non-terminals: visible_child_count … production_id.
const HEAP_PADDING_BYTES = 4, HEAP_SIZE_BYTES = 16, HEAP_CHILD_COUNT = 36, HEAP_SYMBOL = 40, HEAP_FLAGS = 44;
const HEAP_VISIBLE_CHILD_COUNT = 48, HEAP_PRODUCTION_ID = 66;
const HEAP_VISIBLE = 1, HEAP_EXTRA = 4, HEAP_MISSING = 1 << 9;
// SubtreeInlineData (8 bytes, in the Subtree slot itself; bit 0 of byte 0 tells it from a pointer):
// byte 0 the flag bits, byte 1 the symbol, byte 6 padding bytes, byte 7 size bytes.
const INLINE_VISIBLE = 2, INLINE_EXTRA = 8, INLINE_MISSING = 32;
/** tree-sitter's ts_builtin_sym_error. */
const ERROR_SYMBOL = 65535;

const utf8 = new TextDecoder();

function cString(u8: Uint8Array, at: number): string {
  let end = at;
  while (u8[end] !== 0) end++;
  return utf8.decode(u8.subarray(at, end));
}

/**
 * Reads the language tables' addresses from the TSLanguage at `address`, checked against what the
 * runtime's API says of the same language (counts, every type and field name); undefined when they disagree.
 */
export function languageLayout(heap: WasmHeap, address: number, tables: GrammarTables): LanguageLayout | undefined {
  const u32 = heap.HEAPU32, u16 = heap.HEAPU16, u8 = heap.HEAPU8;
  if (!address || address % 4 !== 0) return undefined;
  const word = (offset: number) => u32[(address + offset) >> 2];
  const abi = word(LANG_ABI);
  if (abi !== 14 && abi !== 15) return undefined;
  const symbolCount = word(LANG_SYMBOL_COUNT), fieldCount = word(LANG_FIELD_COUNT);
  if (symbolCount + word(LANG_ALIAS_COUNT) !== tables.types.length || fieldCount !== tables.fields.length - 1) return undefined;
  const names = word(LANG_SYMBOL_NAMES), fieldNames = word(LANG_FIELD_NAMES);
  for (let id = 0; id < tables.types.length; id++) {
    const name = cString(u8, u32[(names >> 2) + id]);
    // why: the API names symbol 0 (end) null, which tablesOf turns into 'ERROR'.
    if (name !== tables.types[id] && !(id === 0 && tables.types[id] === 'ERROR')) return undefined;
  }
  for (let id = 1; id <= fieldCount; id++) if (cString(u8, u32[(fieldNames >> 2) + id]) !== tables.fields[id]) return undefined;
  // TSMapSlice {index, length} (u16 each) per production; TSFieldMapEntry {field_id u16, child_index u8, inherited u8}.
  const productions = word(LANG_PRODUCTION_ID_COUNT), slices = word(LANG_FIELD_MAP_SLICES), entries = word(LANG_FIELD_MAP_ENTRIES);
  let fieldWidth = 0;
  const eachEntry = (visit: (production: number, child: number, field: number) => void) => {
    if (fieldCount === 0) return;
    for (let p = 0; p < productions; p++) {
      const start = u16[(slices >> 1) + 2 * p], end = start + u16[(slices >> 1) + 2 * p + 1];
      for (let e = start; e < end; e++) {
        const entry = entries + 4 * e;
        if (u8[entry + 3] === 0) visit(p, u8[entry + 2], u16[entry >> 1]);
      }
    }
  };
  eachEntry((_p, child) => { fieldWidth = Math.max(fieldWidth, child + 1); });
  const fieldAt = new Uint16Array(Math.max(1, productions * fieldWidth));
  eachEntry((p, child, field) => {
    if (fieldAt[p * fieldWidth + child] === 0) fieldAt[p * fieldWidth + child] = field;
  });
  return {
    publicSymbolMap: word(LANG_PUBLIC_SYMBOL_MAP), aliasSequences: word(LANG_ALIAS_SEQUENCES),
    maxAliasSequenceLength: u16[(address + LANG_MAX_ALIAS) >> 1], fieldAt, fieldWidth,
  };
}

/**
 * Copies the TSTree at `treeAddress` (its root Subtree is the struct's first member) into a SyntaxTree,
 * the same nodes in the same order as copyTree over a TreeCursor. `withErrors` marks missing nodes.
 */
export function copyWasmTree(text: string, heap: WasmHeap, treeAddress: number, layout: LanguageLayout, tables: GrammarTables,
  withErrors: boolean): SyntaxTree {
  const u8 = heap.HEAPU8, u16 = heap.HEAPU16, u32 = heap.HEAPU32;
  const { publicSymbolMap, aliasSequences, maxAliasSequenceLength, fieldAt, fieldWidth } = layout;
  const tree = new SyntaxTree(text, tables);

  // The root: always visible, no alias, no field; it starts after its padding.
  const rootWord = u32[treeAddress >> 2];
  if (rootWord & 1) {
    const b = treeAddress, start = u8[b + 6];
    appendNode(tree, null, 0, u16[(publicSymbolMap >> 1) + u8[b + 1]], start >>> 1, (start + u8[b + 7]) >>> 1, 0,
      withErrors && (u8[b] & INLINE_MISSING) !== 0);
    return tree;
  }
  const rootStart = u32[(rootWord + HEAP_PADDING_BYTES) >> 2];
  const rootSymbol = u16[(rootWord + HEAP_SYMBOL) >> 1];
  const rootNode = appendNode(tree, null, 0, rootSymbol === ERROR_SYMBOL ? ERROR_SYMBOL : u16[(publicSymbolMap >> 1) + rootSymbol],
    rootStart >>> 1, (rootStart + u32[(rootWord + HEAP_SIZE_BYTES) >> 2]) >>> 1, 0,
    withErrors && (u16[(rootWord + HEAP_FLAGS) >> 1] & HEAP_MISSING) !== 0);
  if (u32[(rootWord + HEAP_CHILD_COUNT) >> 2] === 0) return tree;

  // One frame per subtree whose children are being walked: the visible node they belong to, where that node's
  // children start on `kids`, the field a hidden subtree passes down to its children, and where the walk is among its
  // children. A visible node's own frame sits above its parent's; a hidden subtree's frame has the same node as the one below.
  const framePtr: number[] = [], frameIndex: number[] = [], frameStructural: number[] = [], framePos: number[] = [];
  const frameField: number[] = [], frameParent: SyntaxNode[] = [], frameBase: number[] = [];
  framePtr[0] = rootWord; frameIndex[0] = 0; frameStructural[0] = 0; framePos[0] = rootStart; frameField[0] = 0; frameParent[0] = rootNode;
  frameBase[0] = 0;
  const kids: SyntaxNode[] = [];
  let sp = 1, top = 0;
  while (sp > 0) {
    const f = sp - 1;
    const parentPtr = framePtr[f];
    const count = u32[(parentPtr + HEAP_CHILD_COUNT) >> 2];
    const index = frameIndex[f];
    if (index === count) {
      if (f === 0 || frameParent[f] !== frameParent[f - 1]) {
        adoptChildren(frameParent[f], kids, frameBase[f], top);
        top = frameBase[f];
      }
      sp--;
      continue;
    }
    const slot = parentPtr - 8 * (count - index);
    const word = u32[slot >> 2];
    const pos = framePos[f];
    const structural = frameStructural[f];
    const productionId = u16[(parentPtr + HEAP_PRODUCTION_ID) >> 1];

    let symbol: number, size: number, visible: boolean, extra: boolean, missing: boolean, childPtr = 0, visibleChildren = 0;
    if (word & 1) {
      const flags = u8[slot];
      symbol = u8[slot + 1];
      size = u8[slot + 7];
      visible = (flags & INLINE_VISIBLE) !== 0;
      extra = (flags & INLINE_EXTRA) !== 0;
      missing = (flags & INLINE_MISSING) !== 0;
    } else {
      childPtr = word;
      const flags = u16[(word + HEAP_FLAGS) >> 1];
      symbol = u16[(word + HEAP_SYMBOL) >> 1];
      size = u32[(word + HEAP_SIZE_BYTES) >> 2];
      visible = (flags & HEAP_VISIBLE) !== 0;
      extra = (flags & HEAP_EXTRA) !== 0;
      missing = (flags & HEAP_MISSING) !== 0;
      if (u32[(word + HEAP_CHILD_COUNT) >> 2] > 0) visibleChildren = u32[(word + HEAP_VISIBLE_CHILD_COUNT) >> 2];
      else childPtr = 0;
    }

    // The alias and the field this child gets from its parent's production (none for extras).
    let alias = 0, field = 0;
    if (!extra) {
      if (productionId !== 0) alias = u16[(aliasSequences >> 1) + productionId * maxAliasSequenceLength + structural];
      if (structural < fieldWidth) field = fieldAt[productionId * fieldWidth + structural];
      if (field === 0) field = frameField[f];
      frameStructural[f] = structural + 1;
    }

    // Advance the parent's walk: past this child, then past the next one's padding.
    frameIndex[f] = index + 1;
    let next = pos + size;
    if (index + 1 < count) {
      const nextSlot = slot + 8;
      const nextWord = u32[nextSlot >> 2];
      next += nextWord & 1 ? u8[nextSlot + 6] : u32[(nextWord + HEAP_PADDING_BYTES) >> 2];
    }
    framePos[f] = next;

    if (visible || alias !== 0) {
      const s = alias !== 0 ? alias : symbol;
      const typeId = s === ERROR_SYMBOL ? ERROR_SYMBOL : u16[(publicSymbolMap >> 1) + s];
      const node = appendNode(tree, frameParent[f], top - frameBase[f], typeId, pos >>> 1, (pos + size) >>> 1, field, withErrors && missing);
      kids[top++] = node;
      if (childPtr !== 0) {
        framePtr[sp] = childPtr; frameIndex[sp] = 0; frameStructural[sp] = 0; framePos[sp] = pos; frameField[sp] = 0; frameParent[sp] = node;
        frameBase[sp] = top;
        sp++;
      }
    } else if (visibleChildren > 0) {
      // A hidden subtree: its children belong to the same visible parent, and inherit its field.
      framePtr[sp] = childPtr; frameIndex[sp] = 0; frameStructural[sp] = 0; framePos[sp] = pos; frameField[sp] = extra ? 0 : field;
      frameParent[sp] = frameParent[f]; frameBase[sp] = frameBase[f];
      sp++;
    }
  }
  return tree;
}
