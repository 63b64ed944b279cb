/**
 * The per-language part of SQL discovery: which tree-sitter node types are strings, calls,
 * functions, loops and assignments, and how to read their names. The walker in extract.ts is
 * the same for every language and only consults a LangSpec.
 */
import type { SyntaxNode as Node } from '../../syntaxTree';
import { headAndEnd, MAX_CALLEE } from '../../bounds';
import type { ImportSyntax } from './importSyntax';

/** A call as the walker needs it. */
export interface CallShape {
  /** Callee as written, whitespace removed: `h.db.Query`, `$this->db->prepare`, `sqlx::query`. */
  callee: string;
  /** Last name segment (`Query`). */
  name: string;
  /** Text before the last segment (`h.db`), when there is one. */
  receiver?: string;
  /** The node holding the arguments (argument_list, arguments, token_tree …). */
  args?: Node | null;
  /** Set when the call iterates: `rows.each do … end`, `xs.map(x => …)`, `array_map(fn, $xs)`. */
  loop?: { kind: string; body: Node; iterable?: string; iterableNode?: Node };
  /** Node whose calls run detached (goroutine, spawned task, thread body). */
  detach?: Node;
}

export interface FunctionShape {
  name: string;
  /** Receiver type for methods declared outside a class (Go). */
  owner?: string;
  nameNode: Node;
}

export interface LoopShape {
  kind: string;
  iterable?: string;
  /** The node the iterable's text is read from (value flow follows its names back). */
  iterableNode?: Node;
  /** The part that repeats; the whole loop when absent. */
  body?: Node | null;
}

export interface AssignShape {
  target?: Node | null;
  value?: Node | null;
}

/** How formatting functions mark their holes: printf verbs (`%s`, `%d`, `%v`), Node's util.format (printf's verbs without flags, the arguments left over appended) or braces (`{}`, `{name}`). */
export type FormatStyle = 'printf' | 'node' | 'brace';

export interface LangSpec {
  /** String literal node types. */
  strings: ReadonlySet<string>;
  /** String node types without escape processing. */
  rawStrings: ReadonlySet<string>;
  /** Child node types holding literal text, escape sequences, and named delimiters to skip. */
  content: ReadonlySet<string>;
  escape: ReadonlySet<string>;
  skip: ReadonlySet<string>;
  /** Child node types to descend into (heredoc bodies). */
  containers: ReadonlySet<string>;
  /** Binary expression node types, the operators that concatenate, and those that format (`%`). */
  binary: ReadonlySet<string>;
  concatOps: ReadonlySet<string>;
  formatOps: ReadonlySet<string>;
  /** Adjacent-literal concatenation (`"a" "b"`). */
  implicitConcat: ReadonlySet<string>;
  /** Nodes an expression passes through without changing: parentheses, argument wrappers, expression lists. */
  transparent: ReadonlySet<string>;
  /** Argument-list node types (their parent is the call). */
  argLists: ReadonlySet<string>;
  /** Nodes a call's result passes through on the way to an assignment (await, `?`, method chains). */
  chain: ReadonlySet<string>;
  calls: ReadonlySet<string>;
  call(node: Node): CallShape | undefined;
  /** Function-like node types; `functionDef` returns undefined for anonymous ones. */
  functions: ReadonlySet<string>;
  functionDef(node: Node): FunctionShape | undefined;
  classes: ReadonlySet<string>;
  className(node: Node): string | undefined;
  loops: ReadonlySet<string>;
  loop(node: Node): LoopShape;
  assignments: ReadonlySet<string>;
  assignment(node: Node): AssignShape;
  /** Node types whose whole subtree runs detached (`go` statement). */
  detachers: ReadonlySet<string>;
  /** Callee last names that format their first argument. */
  formatCalls: ReadonlyMap<string, FormatStyle>;
  /** Method name that formats its receiver string (`"…{}".format(x)` in Python). */
  formatMethod?: { name: string; style: FormatStyle; member: string };
  /** IN-list / rebinding helpers the SQL passes through (`In` for sqlx.In). */
  helpers: ReadonlySet<string>;
  /** Ruby's heredocs: the opener stands in the expression, the body follows the line. */
  heredocBegin?: string;
  heredocBody?: string;
  /** Removes the host language's heredoc indentation and framing from the body text. */
  heredocText?(opener: string, body: string): string;
  /** Python: string_start carries prefixes; a raw prefix turns escape processing off. */
  rawPrefix?(node: Node): boolean;
  /**
   * A call that joins its literal arguments into one string before the program runs (Rust's `concat!("SELECT …",
   * "FROM …")`): the node holding those arguments, else undefined.
   */
  joinedArgs?(node: Node): Node | undefined;
  /** A declaration that opens a new variable in its block (Go `:=`/`var`, JS `let`/`const`, Rust `let`); absent where an assignment declares nothing. */
  declares?(node: Node): boolean;
  /** Blocks that are closures for scoping, beside `functions` (Ruby's `do … end` and `{ … }` blocks). */
  closureBlocks?: ReadonlySet<string>;
  /** A binary operator that appends its right operand to the variable on its left (Ruby `q << "…"`). */
  appendOperator?: string;
  /** A method that appends its argument to its receiver string (Rust `q.push_str("…")`). */
  appendMethod?: string;
  /** Query builder objects whose pushes are followed into the statement they build (Rust `QueryBuilder::new(…)`). */
  queryBuilders?: boolean;
  /** The conditional expression writes its first value before the condition (`a if c else b`). */
  valueFirstConditional?: boolean;
  /** `%%` in a statement with pyformat placeholders stands for one `%` (the driver formats it). */
  doubledPercent?: boolean;
  /** How the grammar imports names from other modules (calls by bare name resolve through them). */
  imports?: ImportSyntax;
  /**
   * A bare name that calls a method when no local variable of that name is in scope (Ruby's `current_user`): the node type,
   * and the parents (by type, or by the field the name fills) where such a name stands as a value.
   */
  bareCalls?: { node: string; parents: ReadonlySet<string>; fields: ReadonlySet<string> };
}

/**
 * The same spec with every member present, in one order, so that all specs share one object shape.
 * why: the walker reads specs of several languages in one process; with one shape those reads stay
 * monomorphic instead of being re-optimised each time files of another language come along.
 */
export function uniformSpec(s: LangSpec): LangSpec {
  const out: { [K in keyof Required<LangSpec>]: LangSpec[K] } = {
    strings: s.strings,
    rawStrings: s.rawStrings,
    content: s.content,
    escape: s.escape,
    skip: s.skip,
    containers: s.containers,
    binary: s.binary,
    concatOps: s.concatOps,
    formatOps: s.formatOps,
    implicitConcat: s.implicitConcat,
    transparent: s.transparent,
    argLists: s.argLists,
    chain: s.chain,
    calls: s.calls,
    call: s.call,
    functions: s.functions,
    functionDef: s.functionDef,
    classes: s.classes,
    className: s.className,
    loops: s.loops,
    loop: s.loop,
    assignments: s.assignments,
    assignment: s.assignment,
    detachers: s.detachers,
    formatCalls: s.formatCalls,
    formatMethod: s.formatMethod,
    helpers: s.helpers,
    heredocBegin: s.heredocBegin,
    heredocBody: s.heredocBody,
    heredocText: s.heredocText,
    rawPrefix: s.rawPrefix,
    joinedArgs: s.joinedArgs,
    declares: s.declares,
    closureBlocks: s.closureBlocks,
    appendOperator: s.appendOperator,
    appendMethod: s.appendMethod,
    queryBuilders: s.queryBuilders,
    valueFirstConditional: s.valueFirstConditional,
    doubledPercent: s.doubledPercent,
    imports: s.imports,
    bareCalls: s.bareCalls,
  };
  return out;
}

// ---- helpers shared by the specs ----

/** Text of a node with whitespace removed (callee names spanning lines). */
export function compact(node: Node | null | undefined): string {
  if (!node) return '';
  // why: a callee can be an expression of any size (`(|| (|| …)())()`, a chain of a thousand calls), and each call
  // nested in it asks for its own: past MAX_CALLEE characters only the start and the end (where the name is) are read,
  // so a file of nested calls costs linear time, not its size squared.
  return compactText(node.endIndex - node.startIndex > MAX_CALLEE ? headAndEnd(node.text) : node.text);
}

function compactText(t: string): string {
  // why: asked for every call; most callees hold no whitespace, which a look at the code units tells without a regex.
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c <= 32 || c === 0xa0 || c >= 0x1680) return t.replace(/\s+/g, '');
  }
  return t;
}

/** Splits a compact callee into receiver and last name at the last `.`, `->`, `::`. */
export function splitCallee(callee: string): { name: string; receiver?: string } {
  // The name is the run after the last `.`, `:`, `>` or `-`; the separator before it is the longest of `?->`, `->`, `::`, `.`
  // that ends there (the shortest receiver, as a lazy `^(.*?)(?:\.|->|::|\?->)([^.:>-]+)$` would take).
  let p = callee.length;
  while (p > 0) {
    const c = callee.charCodeAt(p - 1);
    if (c === 46 || c === 58 || c === 62 || c === 45) break;
    p--;
  }
  if (p === callee.length || p === 0) return { name: callee };
  let r: number;
  if (p >= 3 && callee.startsWith('?->', p - 3)) r = p - 3;
  else if (p >= 2 && (callee.startsWith('->', p - 2) || callee.startsWith('::', p - 2))) r = p - 2;
  else if (callee.charCodeAt(p - 1) === 46) r = p - 1;
  else return { name: callee };
  const receiver = callee.slice(0, r);
  // `.` in the pattern stops at line ends: a receiver holding one did not match.
  if (/[\n\r\u2028\u2029]/.test(receiver)) return { name: callee };
  return { name: callee.slice(p), receiver };
}

export function set(...xs: string[]): ReadonlySet<string> {
  return new Set(xs);
}

/** First named child of `node` whose type is one of `types`. */
export function childOfType(node: Node, types: ReadonlySet<string>): Node | null {
  for (const c of node.namedChildren) if (c && types.has(c.type)) return c;
  return null;
}

/** A loop's iterable: its text (iterableText) and the node it is read from. */
export function iterableOf(node: Node | null | undefined): { iterable?: string; iterableNode?: Node } {
  return node ? { iterable: iterableText(node), iterableNode: node } : {};
}

/** Strips `.iter()`, `.into_iter()`, `.each` style suffixes from an iterable's text. */
export function iterableText(node: Node | null | undefined): string | undefined {
  if (!node) return undefined;
  return node.text.replace(/\s+/g, ' ').replace(/(?:\.(?:iter|into_iter|iter_mut|chunks|enumerate)\([^()]*\))+$/, '');
}
