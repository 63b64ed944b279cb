/**
 * A tree-sitter parse copied into plain JavaScript objects, in one pass over the tree.
 *
 * why: every property read on a web-tree-sitter Node (its type, end, parent, a field) is a call
 * into wasm with the node marshalled through a shared buffer — about a microsecond each, and the
 * walkers read a few hundred per file. Copying the tree once with a cursor and walking the copy
 * makes those reads plain property reads, and the wasm tree can be freed right after parsing.
 * The subset of Node's interface the walkers use keeps its names here (type, text, parent,
 * childForFieldName, namedChildren …), so grammar-specific code reads like tree-sitter code.
 */

/** Per grammar: node type names and whether each is named, field names; indexed by tree-sitter id. */
export interface GrammarTables {
  types: readonly string[];
  named: readonly boolean[];
  fields: readonly (string | null)[];
}

/**
 * The cursor moves the copy needs, over a tree-sitter tree (see treeSitter.ts for the two kinds): each a function
 * of the cursor's handle `at`, answering a number (1 for yes in the tests and moves).
 * why: plain functions, not methods: the copy keeps them in locals, so each call site sees one function (the
 * runtime's own export on the fast path) and the optimised copy calls into wasm directly, about six calls per node.
 */
export interface CopyCursor {
  at: number;
  typeId(at: number): number;
  startIndex(at: number): number;
  endIndex(at: number): number;
  fieldId(at: number): number;
  isMissing(at: number): number;
  gotoFirstChild(at: number): number;
  gotoNextSibling(at: number): number;
  gotoParent(at: number): number;
}

/** tree-sitter's symbol for ERROR nodes ((TSSymbol)-1). */
const ERROR_SYMBOL = 65535;

// why: most nodes are leaves; sharing one empty list spares an allocation per leaf. Not frozen: a `for (const c of
// node.children)` that meets frozen and plain arrays both is not compiled to a plain loop under the scan thread's
// --no-turbo-inlining, and each step then makes an iterator result (four times slower in a loop that does little else).
// No reader changes a node's list of children.
const NO_CHILDREN: SyntaxNode[] = [];

export interface Point { row: number; column: number }

/** One node of a copied tree: positions are offsets into the text (UTF-16 code units). */
export class SyntaxNode {
  // why: `declare`d members, set in the constructor only: a class field is defined on every new node
  // (and a parameter property once more assigned), which costs a property definition per field on
  // the few million nodes a scan copies.
  declare children: SyntaxNode[];
  /** Position among the parent's children. */
  declare index: number;
  declare isMissing: boolean;
  /** True when this node is or contains an ERROR or missing node. */
  declare hasError: boolean;
  private declare named: SyntaxNode[] | undefined;
  declare readonly tree: SyntaxTree;
  /** Unique within its tree: the node's place in pre-order. */
  declare readonly id: number;
  /** The grammar's id of the type (tables.types[typeId] === type; 65535 for ERROR). */
  declare readonly typeId: number;
  declare readonly type: string;
  declare readonly isNamed: boolean;
  declare readonly startIndex: number;
  declare readonly endIndex: number;
  /** The field this node fills in its parent (`left`, `arguments` …), or null. */
  declare readonly field: string | null;
  declare readonly parent: SyntaxNode | null;

  constructor(tree: SyntaxTree, id: number, typeId: number, type: string, isNamed: boolean, startIndex: number, endIndex: number,
    field: string | null, parent: SyntaxNode | null) {
    this.children = NO_CHILDREN;
    this.index = 0;
    this.isMissing = false;
    this.hasError = false;
    this.named = undefined;
    this.tree = tree;
    this.id = id;
    this.typeId = typeId;
    this.type = type;
    this.isNamed = isNamed;
    this.startIndex = startIndex;
    this.endIndex = endIndex;
    this.field = field;
    this.parent = parent;
  }

  get text(): string {
    return this.tree.text.slice(this.startIndex, this.endIndex);
  }

  get startPosition(): Point {
    return this.tree.pointAt(this.startIndex);
  }

  get endPosition(): Point {
    return this.tree.pointAt(this.endIndex);
  }

  get namedChildren(): SyntaxNode[] {
    let named = this.named;
    if (!named) {
      // why: asked of most nodes the walkers look at. A node whose children are all named hands back the children's
      // own list, one with none of them named the shared empty list: no copy unless some children are anonymous (no
      // reader changes either list).
      const children = this.children;
      let count = 0;
      for (let i = 0; i < children.length; i++) if (children[i].isNamed) count++;
      if (count === children.length) named = children;
      else if (count === 0) named = NO_CHILDREN;
      else {
        named = [];
        for (let i = 0; i < children.length; i++) if (children[i].isNamed) named.push(children[i]);
      }
      this.named = named;
    }
    return named;
  }

  get namedChildCount(): number {
    return this.namedChildren.length;
  }

  get firstChild(): SyntaxNode | null {
    return this.children[0] ?? null;
  }

  get firstNamedChild(): SyntaxNode | null {
    return this.namedChildren[0] ?? null;
  }

  get lastNamedChild(): SyntaxNode | null {
    const n = this.namedChildren;
    return n[n.length - 1] ?? null;
  }

  get nextNamedSibling(): SyntaxNode | null {
    const sibs = this.parent?.children;
    if (sibs) for (let i = this.index + 1; i < sibs.length; i++) if (sibs[i].isNamed) return sibs[i];
    return null;
  }

  get previousNamedSibling(): SyntaxNode | null {
    const sibs = this.parent?.children;
    if (sibs) for (let i = this.index - 1; i >= 0; i--) if (sibs[i].isNamed) return sibs[i];
    return null;
  }

  /** The first child filling field `name`, as tree-sitter's childForFieldName. */
  childForFieldName(name: string): SyntaxNode | null {
    for (const c of this.children) if (c.field === name) return c;
    return null;
  }

  childrenForFieldName(name: string): SyntaxNode[] {
    return this.children.filter((c) => c.field === name);
  }

  /** The smallest node within this one that spans [start, end), by tree-sitter's rule (it must end past `start`). */
  descendantForIndex(start: number, end = start): SyntaxNode {
    const inner = this.children.find((c) => c.endIndex >= end && c.endIndex > start);
    return inner && inner.startIndex <= start ? inner.descendantForIndex(start, end) : this;
  }
}

/** The copy of one parse: its root, every node in pre-order, and the text it was parsed from. */
export class SyntaxTree {
  readonly nodes: SyntaxNode[] = [];
  private lineStarts?: number[];

  constructor(readonly text: string, readonly tables: GrammarTables) {}

  get rootNode(): SyntaxNode {
    return this.nodes[0];
  }

  /** Row and column (code units) of an offset. */
  pointAt(index: number): Point {
    if (!this.lineStarts) {
      const ls = [0];
      for (let i = this.text.indexOf('\n'); i >= 0; i = this.text.indexOf('\n', i + 1)) ls.push(i + 1);
      this.lineStarts = ls;
    }
    const ls = this.lineStarts;
    let lo = 0, hi = ls.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (ls[mid] <= index) lo = mid; else hi = mid - 1;
    }
    return { row: lo, column: index - ls[lo] };
  }
}

/**
 * Appends one node to `tree` in pre-order, as child number `index` of `parent` (null for the root); both copies
 * (copyTree here, the memory walk in lang/treeSitter/wasmTree.ts) build their nodes through it, and give each parent
 * its list of children once the last is made (adoptChildren). `isMissing` is only asked of trees with errors (false otherwise).
 */
export function appendNode(tree: SyntaxTree, parent: SyntaxNode | null, index: number, typeId: number, startIndex: number, endIndex: number,
  fieldId: number, isMissing: boolean): SyntaxNode {
  const { types, named, fields } = tree.tables;
  const nodes = tree.nodes;
  const isError = typeId === ERROR_SYMBOL;
  const node: SyntaxNode = new SyntaxNode(tree, nodes.length, typeId, isError ? 'ERROR' : (types[typeId] ?? 'ERROR'), isError || named[typeId] === true,
    startIndex, endIndex, fields[fieldId] ?? null, parent);
  nodes.push(node);
  node.index = index;
  if (isMissing) node.isMissing = true;
  if (isError || isMissing) for (let a: SyntaxNode | null = node; a && !a.hasError; a = a.parent) a.hasError = true;
  return node;
}

/**
 * Gives `parent` its children: kids[from, to), gathered on a stack shared by the whole copy.
 * why: one list of exactly their number, made once; a list grown child by child starts at one slot and then
 * jumps to seventeen, and most parents have two to four children.
 */
export function adoptChildren(parent: SyntaxNode, kids: SyntaxNode[], from: number, to: number): void {
  if (to > from) parent.children = kids.slice(from, to);
}

/**
 * Copies the tree under `cursor` (positioned on the root) in pre-order. `withErrors` asks each node
 * whether it is missing, which only a tree with errors needs.
 */
export function copyTree(text: string, cursor: CopyCursor, tables: GrammarTables, withErrors: boolean): SyntaxTree {
  const tree = new SyntaxTree(text, tables);
  const { at, typeId: typeIdOf, startIndex: startOf, endIndex: endOf, fieldId: fieldOf, isMissing: missingOf, gotoFirstChild, gotoNextSibling, gotoParent } = cursor;
  // The children made so far of each node on the path from the root, and where each one's start on that stack.
  const kids: SyntaxNode[] = [], bases: number[] = [];
  let parent: SyntaxNode | null = null, top = 0;
  for (;;) {
    const base = parent ? bases[bases.length - 1] : 0;
    const node = appendNode(tree, parent, top - base, typeIdOf(at), startOf(at), endOf(at), fieldOf(at), withErrors && missingOf(at) === 1);
    if (parent) kids[top++] = node;
    if (gotoFirstChild(at) === 1) { parent = node; bases.push(top); continue; }
    let more = true;
    while (gotoNextSibling(at) !== 1) {
      if (gotoParent(at) !== 1) { more = false; break; }
      const from = bases.pop()!;
      adoptChildren(parent!, kids, from, top);
      top = from;
      parent = parent!.parent;
    }
    if (!more) break;
  }
  return tree;
}
