/**
 * Value flow over one file's syntax tree, the same for every tree-sitter language: which
 * assignments of a variable can reach a given use (in program order, within the variable's scope,
 * killed by a later assignment on every path, stopped by an early return), and what string values
 * an expression can have there — literals, concatenations, interpolations, format calls and the
 * variables they name, as a few variants with unknown parts marked dynamic.
 *
 * why: a statement was attached to a call by the variable's name alone, so a `query` reused in
 * one function, or in the next handler of the same file, reached every call that named it.
 */
import type { GrammarTables, SyntaxNode as Node } from './syntaxTree';
import type { LangSpec, FormatStyle } from './lang/treeSitter/langSpec';
import type { SqlPart } from './sqlText';
import { readLiteral, type Literal } from './literal';
import { evalFormat, type HolePart } from './valueFormat';
import { boundedProduct, keepAlternative } from './bounds';
import { Builders, NO_VIEWS, pushedPieces, startsBuilder, viewsPushed, type Push } from './queryBuilder';

/** One value an expression may have: its parts and the literals they come from. */
export interface Variant {
  parts: SqlPart[];
  literals: Literal[];
  /** IN-list / rebinding helper the value passed through (`sqlx.In`). */
  helper?: string;
}

/** An assignment to a variable: a new value (`set`) or text added to the old one (`append`). */
export interface Def {
  key: string;
  node: Node;
  value: Node | null;
  kind: 'set' | 'append';
  /** Where the variable lives: the block of a block-scoped declaration, else the function (or file). */
  scope: Node;
  /** Pushes onto a query builder (a chain `qb.push(…).push_bind(…)` is one def), in order; undefined for other defs. */
  pushes: Push[] | undefined;
}

/**
 * Variants kept per value; past that, the first MAX_VARIANTS - 1 stand and the last slot holds the latest
 * alternative (see bounds.ts keepAlternative).
 */
export const MAX_VARIANTS = 4;
/** Assignments of one variable followed back from one use; past that, the later ones are dropped (and the bound noted). */
export const MAX_REACHING = 64;

/** keyOf's kept answer for a node that names no variable. */
const NO_KEY = '\0';
// why: every variant is made with all three members (helper undefined when none), so the reads of variants stay monomorphic.
const DYNAMIC: Variant[] = [{ parts: [{ dynamic: true }], literals: [], helper: undefined }];
const EMPTY: Variant[] = [{ parts: [], literals: [], helper: undefined }];

/** Node types that assign with an operator (`+=`, `.=`, `||=`), by grammar. */
const OP_ASSIGN = new Set(['augmented_assignment', 'operator_assignment', 'augmented_assignment_expression', 'compound_assignment_expr']);
/** Blocks that scope a declaration (Go `:=`/`var`, JS `let`/`const`, Rust `let`). */
const BLOCKS = new Set(['block', 'statement_block']);
/** Branches: code inside may or may not run. */
const CONDITIONAL = /(?:^|_)(?:if|else|elif|elsif|unless|case|switch|when|conditional|ternary|try|catch|rescue|except|match|default)(?:_|$)/;
/** Statements that leave the function (or, for the loop ones, the iteration). */
const LEAVES = /^(?:return|raise|throw|exit)(?:_statement|_expression)?$/;
const LEAVES_ITERATION = /^(?:break|continue|next)(?:_statement|_expression)?$/;
/** Calls that never return to the next statement. */
const EXIT_CALLS = new Set(['halt', 'panic', 'die', 'exit', 'abort', 'redirect', 'croak', 'error!', 'Fatal', 'Fatalf', 'Exit']);
/** Calls whose result is their argument's (or receiver's) text. */
export const SAME_TEXT: ReadonlySet<string> = new Set(['from', 'to_string', 'to_owned', 'into', 'String', 'str', 'strip', 'trim', 'rstrip', 'lstrip', 'freeze', 'dedent', 'as_str', 'clone', 'squish', 'chomp', 'TrimSpace', 'strip_heredoc']);
/** Of those, the ones given the text as their argument whatever they are called on (`strings.TrimSpace(q)`, `textwrap.dedent(q)`). */
const TEXT_ARGUMENT = new Set(['from', 'String', 'dedent', 'TrimSpace']);
const EMPTY_CALLS = new Set(['new', 'String::new']);
/** Calls that join a list into one text: what the list holds is not followed (a dynamic part). */
const JOINS = new Set(['join', 'Join', 'implode']);
const IDENTS = new Set(['identifier', 'variable_name', 'name', 'constant', 'instance_variable', 'class_variable', 'global_variable', 'shorthand_property_identifier']);
const MEMBERS = new Set(['selector_expression', 'attribute', 'member_expression', 'member_access_expression', 'scoped_identifier',
  'class_constant_access_expression', 'field_expression', 'scope_resolution', 'scoped_property_access_expression']);

/** Element targets (`xs[] = v`, `xs[i] = v`, `xs[k] = v`), by grammar: the collection is their object. */
const ELEMENTS = new Set(['subscript_expression', 'subscript', 'index_expression', 'element_reference']);

export class ValueFlow {
  private defs?: Map<string, Def[]>;
  /** Values stored into an element of a collection variable (`$xs[] = v`), by the collection's key. */
  private readonly elementDefs = new Map<string, Def[]>();
  private readonly values = new Map<Def, Variant[]>();
  private readonly active = new Set<Def>();
  /** pushedViews' answers. */
  private readonly viewsPushed = new Map<Def, ReadonlySet<number>>();
  private sqlKeys?: Set<string>;
  /** Where the names of sqlKeys occur, ascending (built on first use). */
  private sqlKeyOffsets?: number[];
  private readonly offsets = new Map<string, number[]>();
  /** keyOf's answers by node id (NO_KEY: none). */
  private readonly keys: string[] = [];
  /** What each node type of the grammar is to value flow (K_* bits), by type id. */
  private readonly kinds: Uint16Array;
  /** A block's children and which of them are exits (see nextExit), by node id. */
  private readonly exitsOf = new Map<number, { nodes: Node[]; always: number[]; iteration: number[] }>();
  /** Where a bound on the work was hit, by line (1-based): what was cut short. */
  readonly bounds = new Map<number, string>();
  /** Whether a call never returns (EXIT_CALLS), by node id. */
  private readonly exitCalls = new Map<number, boolean>();

  constructor(
    private readonly nodes: readonly Node[],
    private readonly text: string,
    private readonly spec: LangSpec,
    /** Loop bodies that are not loop statements (`rows.each do … end`, `xs.map(x => …)`), by node id. */
    private readonly loopBodies: ReadonlySet<number>,
    /** Ruby heredoc openers (their start) and the literal of their body. */
    private readonly heredocs: ReadonlyMap<number, Literal>,
    /** Literals already read without interpolations, by start (read once per file). */
    private readonly known: ReadonlyMap<number, Literal> = new Map(),
  ) {
    this.kinds = kindsOf(spec, nodes[0].tree.tables);
  }

  /** The key a use or target of a variable is filed under: `q`, `$q` → `q`; `self.q`, `@q`, `self::Q` → `.q`, `.Q`. */
  keyOf(node: Node): string | undefined {
    // why: asked again for the same names by every reaching and mention test; each answer is kept by node id.
    const kept = this.keys[node.id];
    if (kept !== undefined) return kept === NO_KEY ? undefined : kept;
    const k = this.keyOfNode(node);
    this.keys[node.id] = k ?? NO_KEY;
    return k;
  }

  private keyOfNode(node: Node): string | undefined {
    let n = node;
    while (this.spec.transparent.has(n.type) && n.namedChildCount === 1) n = n.firstNamedChild!;
    const t = n.type;
    if (IDENTS.has(t)) {
      const name = this.bareName(n);
      return t === 'instance_variable' || t === 'class_variable' ? `.${name}` : name;
    }
    if (MEMBERS.has(t)) {
      const last = n.lastNamedChild;
      return last ? `.${this.bareName(last)}` : undefined;
    }
    // Go `rows, err :=`, Python `a, b =`, JS `const [rows] =`: the first name.
    if (t === 'expression_list' || t === 'pattern_list' || t === 'tuple_pattern' || t === 'left_assignment_list' || t === 'array_pattern') {
      const first = n.firstNamedChild;
      return first ? this.keyOf(first) : undefined;
    }
    return undefined;
  }

  /** A name's text without its sigils (`$q`, `@q`, `@@q` → `q`). */
  private bareName(n: Node): string {
    let i = n.startIndex;
    const end = n.endIndex;
    for (let c = this.text.charCodeAt(i); i < end && (c === 36 || c === 64); c = this.text.charCodeAt(++i));
    return this.text.slice(i, end);
  }

  /** Every assignment of the file, by variable key (built on first use). */
  private index(): Map<string, Def[]> {
    if (this.defs) return this.defs;
    const defs = new Map<string, Def[]>();
    const spec = this.spec;
    const add = (node: Node, target: Node | null | undefined, value: Node | null | undefined, kind: Def['kind'], declare: boolean) => {
      const key = target ? this.keyOf(target) : undefined;
      if (!key) return;
      const d: Def = { key, node, value: value ?? null, kind, scope: this.scopeOf(node, declare), pushes: undefined };
      const xs = defs.get(key);
      if (xs) xs.push(d); else defs.set(key, [d]);
      return key;
    };
    const builders = spec.queryBuilders ? new Builders((n) => this.keyOf(n)) : undefined;
    // why: this pass visits every node of the file; a table by type id rules most of them out with one read.
    const roles = defRoles(spec, this.nodes[0].tree.tables);
    for (const n of this.nodes) {
      const role = roles[n.typeId];
      if (!role) continue;
      if (role === 1) {
        const a = spec.assignment(n);
        // Go writes `q += "…"` as an assignment statement with an operator.
        const op = n.childForFieldName('operator')?.type;
        if (op === '+=' || op === '.=') add(n, a.target, a.value, 'append', false);
        else if (a.target && ELEMENTS.has(a.target.type)) this.addElement(n, a.target, a.value);
        else {
          const declare = this.declares(n);
          const key = add(n, a.target, a.value, 'set', declare);
          if (key && builders && a.value?.type === 'call_expression') builders.note(key, a.value, this.scopeOf(n, declare));
        }
      } else if (role === 2) {
        const op = n.childForFieldName('operator')?.type ?? n.children[1]?.type;
        if (op === '+=' || op === '.=') add(n, n.childForFieldName('left'), n.childForFieldName('right'), 'append', false);
        else if (op === '||=' || op === '??=' || op === '//=') add(n, n.childForFieldName('left'), n.childForFieldName('right'), 'set', false);
      } else if (role === 3 && n.childForFieldName('operator')?.type === spec.appendOperator && n.parent && !spec.binary.has(n.parent.type)) {
        add(n, n.childForFieldName('left'), n.childForFieldName('right'), 'append', false);
      } else if (role === 4) {
        const f = n.childForFieldName('function');
        const field = f?.type === 'field_expression' ? f.childForFieldName('field')?.text : undefined;
        if (field !== undefined && field === spec.appendMethod) {
          add(n, f!.childForFieldName('value'), n.childForFieldName('arguments')?.firstNamedChild, 'append', false);
        } else if (builders?.size) this.addPushes(n, builders, defs);
      }
    }
    this.defs = defs;
    return defs;
  }

  /** The pushes onto a query builder a chain ending in the call `n` makes, or its handing a builder on to a function. */
  private addPushes(n: Node, builders: Builders, defs: Map<string, Def[]>): void {
    const file = (key: string, pushes: Push[]) => {
      const d: Def = { key, node: n, value: pushes.length === 1 ? pushes[0].value : null, kind: 'append', scope: this.scopeOf(n, false), pushes };
      const xs = defs.get(key);
      if (xs) xs.push(d); else defs.set(key, [d]);
    };
    const made = builders.pushes(n);
    if (made) file(made.builder, made.pushes);
    else for (const key of builders.handedOn(n)) file(key, [{ adds: 'unknown', value: null, sep: undefined, view: 0 }]);
  }

  private addElement(n: Node, target: Node, value: Node | null | undefined): void {
    const obj = target.childForFieldName('object') ?? target.childForFieldName('value') ?? target.childForFieldName('operand') ?? target.firstNamedChild;
    const key = obj ? this.keyOf(obj) : undefined;
    if (!key || !value) return;
    const d: Def = { key, node: n, value, kind: 'append', scope: this.scopeOf(n, false), pushes: undefined };
    const xs = this.elementDefs.get(key);
    if (xs) xs.push(d); else this.elementDefs.set(key, [d]);
  }

  /**
   * What is added to the collection `key` before `at` in `at`'s function, nested blocks included (`$xs[] = v`,
   * `xs << v` in a Ruby block): adding to a collection changes the one object, whichever block does it.
   */
  addedBefore(key: string, at: Node): Def[] {
    const defs = this.index();
    const fn = this.functionOf(at);
    const out: Def[] = [];
    for (const d of this.elementDefs.get(key) ?? []) if (d.node.endIndex <= at.startIndex && within(fn, d.node)) out.push(d);
    for (const d of defs.get(key) ?? []) if (d.kind === 'append' && d.node.endIndex <= at.startIndex && within(fn, d.node) && !within(d.scope, at)) out.push(d);
    return out;
  }

  /** The keys of the variables `node` uses (each once, in order). */
  namesIn(node: Node, out: string[] = []): string[] {
    const kind = this.kinds[node.typeId];
    const k = (kind & (K_IDENT | K_MEMBER)) !== 0 ? this.keyOf(node) : undefined;
    if (k !== undefined) {
      if (!out.includes(k)) out.push(k);
      if ((kind & K_IDENT) !== 0) return out;
    }
    for (const c of node.children) if (c.isNamed) this.namesIn(c, out);
    return out;
  }

  /** True for a declaration that opens a new variable in its block (Go `:=`/`var`, JS `let`/`const`, Rust `let`). */
  private declares(n: Node): boolean {
    return this.spec.declares?.(n) ?? false;
  }

  /** The innermost function (or Ruby block) around `n`, or the root. */
  functionOf(n: Node): Node {
    let a: Node | null = n.parent;
    for (; a && a.parent; a = a.parent) if (this.isFunction(a)) return a;
    return a ?? n;
  }

  private isFunction(n: Node): boolean {
    return (this.kinds[n.typeId] & K_FUNCTION) !== 0;
  }

  private scopeOf(n: Node, declare: boolean): Node {
    let a: Node | null = n.parent;
    for (; a && a.parent; a = a.parent) {
      if (this.isFunction(a) || (declare && BLOCKS.has(a.type))) return a;
    }
    return a ?? n;
  }

  isLoop(n: Node): boolean {
    return (this.kinds[n.typeId] & K_LOOP) !== 0 || this.loopBodies.has(n.id);
  }

  /** Keys of variables some assignment gives SQL-looking text (directly or through another such variable). */
  sqlVariables(seeds: Iterable<string>): Set<string> {
    if (this.sqlKeys) return this.sqlKeys;
    const keys = new Set<string>(seeds);
    const all: Def[] = [];
    for (const ds of this.index().values()) for (const d of ds) if (d.value && !keys.has(d.key)) all.push(d);
    for (let round = 0; round < 3 && all.length; round++) {
      let grew = false;
      for (const d of all) {
        if (keys.has(d.key)) continue;
        if (this.mentions(d.value!, keys)) { keys.add(d.key); grew = true; }
      }
      if (!grew) break;
    }
    this.sqlKeys = keys;
    return keys;
  }

  /**
   * Every offset where the name of `key` (without its leading `.`) occurs in the text as a whole word, ascending
   * (once per key and file). why: a short name (`q`, `s`) occurs inside most words of a file; only an
   * occurrence not run into other word characters can be a use of the variable.
   */
  private offsetsOf(key: string): number[] {
    let at = this.offsets.get(key);
    if (!at) {
      at = [];
      const name = key.startsWith('.') ? key.slice(1) : key;
      const text = this.text;
      // An identifier is the longest run of its characters: one that starts (ends) with a word character has
      // none right before (after) it. Only ASCII counts as a word character here, so the test never drops a use.
      const checkBefore = isWordCode(name.charCodeAt(0)), checkAfter = isWordCode(name.charCodeAt(name.length - 1));
      for (let i = text.indexOf(name); i >= 0; i = text.indexOf(name, i + 1)) {
        if (checkBefore && i > 0 && isWordCode(text.charCodeAt(i - 1))) continue;
        if (checkAfter && isWordCode(text.charCodeAt(i + name.length))) continue;
        at.push(i);
      }
      this.offsets.set(key, at);
    }
    return at;
  }

  /** True when `node` holds a use of one of `keys`. */
  mentions(node: Node, keys: ReadonlySet<string>): boolean {
    return this.mentionsWithin(node.startIndex, node.endIndex, keys) && this.mentionsIn(node, keys);
  }

  /** True when one of `keys` is written somewhere in [start, end) of the text (a cheap first look: maybe not as a name). */
  mentionsWithin(start: number, end: number, keys: ReadonlySet<string>): boolean {
    // why: asked for every call and assignment; the names' offsets in the text rule most of them out without a walk.
    if (keys === this.sqlKeys) {
      // The final keys are asked about every call of the file: their offsets merged once, one search each.
      let at = this.sqlKeyOffsets;
      if (!at) {
        at = [];
        for (const k of keys) for (const i of this.offsetsOf(k)) at.push(i);
        this.sqlKeyOffsets = at.sort((a, b) => a - b);
      }
      const i = lowerBound(at, start);
      return i < at.length && at[i] < end;
    }
    for (const k of keys) {
      const at = this.offsetsOf(k);
      const i = lowerBound(at, start);
      if (i < at.length && at[i] < end) return true;
    }
    return false;
  }

  private mentionsIn(node: Node, keys: ReadonlySet<string>): boolean {
    const k = (this.kinds[node.typeId] & (K_IDENT | K_MEMBER)) !== 0 ? this.keyOf(node) : undefined;
    if (k !== undefined && (keys.has(k) || (k.startsWith('.') && keys.has(k.slice(1))))) return true;
    for (const c of node.children) if (c.isNamed && this.mentionsIn(c, keys)) return true;
    return false;
  }

  /** True when `key` is assigned before `at` in a scope that holds it (Ruby reads a bare name so assigned as the variable, not a call). */
  assignedBefore(key: string, at: Node): boolean {
    const ds = this.index().get(key);
    return ds !== undefined && ds.some((d) => d.node.startIndex < at.startIndex && within(d.scope, at));
  }

  /**
   * The assignments of `key` that can reach `at`: in scope, before it, not killed on every path, not behind an early return.
   * At most MAX_REACHING, the first ones (a bound hit is noted in `bounds`).
   */
  reaching(key: string, at: Node): Def[] {
    const ds = this.index().get(key);
    if (!ds) return [];
    // why: scanned nearest first, so an assignment that runs on every path to `at` ends the scan (all before it are
    // killed); a scan over every earlier assignment, each tested against every later one, was cubic in a function
    // that appends under a condition thousands of times.
    const out: Def[] = [];
    const start = at.startIndex;
    let killedBefore = -1;
    for (let i = ds.length - 1; i >= 0; i--) {
      const d = ds[i];
      if (d.node.endIndex > start || !within(d.scope, at)) continue;
      // Killed by a later assignment that always runs (one that holds this one, `q = (q = …)`, does not kill it).
      if (killedBefore >= d.node.endIndex) break;
      if (!this.leavesBefore(d.node, at)) out.push(d);
      if (killedBefore < 0 && this.always(d.node, at, d.kind === 'append')) killedBefore = d.node.startIndex;
    }
    out.reverse();
    // The values are taken from the first assignments in program order and the latest one (keepVariant): those are kept.
    if (out.length > MAX_REACHING) {
      this.noteBound(at, `more than ${MAX_REACHING} assignments of \`${key.replace(/^\./, '')}\` reach here; the first ${MAX_REACHING} are followed`);
      out.length = MAX_REACHING;
    }
    return out;
  }

  /** True when `n` runs on every path that reaches `at` (no branch, loop or function between them). */
  private always(n: Node, at: Node, append: boolean): boolean {
    for (let a = n.parent; a && !(a.startIndex <= at.startIndex && a.endIndex >= at.endIndex); a = a.parent) {
      // why: text appended in a loop is what the loop is for (`VALUES (?)` + `, (?)` per row); its value
      // (the old text and a dynamic part) stands for the statement, not the bare start.
      if (append && this.isLoop(a)) continue;
      if ((this.kinds[a.typeId] & (K_CONDITIONAL | K_FUNCTION)) !== 0 || this.isLoop(a)) return false;
    }
    return true;
  }

  /** True when every path from `n` to `at` leaves first (`return`, `raise`, `halt` … after `n` in an enclosing block). */
  private leavesBefore(n: Node, at: Node): boolean {
    let crossesLoop = false;
    for (let a = n.parent; a && !(a.startIndex <= at.startIndex && a.endIndex >= at.endIndex); a = a.parent) if (this.isLoop(a)) crossesLoop = true;
    for (let c: Node = n; c.parent; c = c.parent) {
      const p = c.parent;
      const top = p.startIndex <= at.startIndex && p.endIndex >= at.endIndex;
      const exit = this.nextExit(p, c.index + 1, crossesLoop);
      if (exit && (!top || exit.endIndex <= at.startIndex)) return true;
      if (top) return false;
    }
    return false;
  }

  /**
   * The first child of `p` from index `from` on that is an exit (isExit), or undefined.
   * why: asked for each assignment reaching each use; the exits among a block's statements are found once per block,
   * so a function of thousands of statements is not walked again for each of them.
   */
  private nextExit(p: Node, from: number, crossesLoop: boolean): Node | undefined {
    let e = this.exitsOf.get(p.id);
    if (!e) {
      const sibs = p.children;
      e = { nodes: sibs, always: [], iteration: [] };
      for (let i = 0; i < sibs.length; i++) {
        if (this.isExit(sibs[i], true)) e.always.push(i);
        else if (this.isExit(sibs[i], false)) e.iteration.push(i);
      }
      this.exitsOf.set(p.id, e);
    }
    let i = firstAtLeast(e.always, from);
    if (!crossesLoop) i = Math.min(i, firstAtLeast(e.iteration, from));
    return i < e.nodes.length ? e.nodes[i] : undefined;
  }

  /** An exit statement standing on its own (not under a condition). */
  isExit(s: Node, crossesLoop: boolean): boolean {
    if (!s.isNamed) return false;
    const t = s.type;
    const kind = this.kinds[s.typeId];
    if ((kind & K_LEAVES) !== 0 || (!crossesLoop && (kind & K_LEAVES_ITERATION) !== 0)) return true;
    if (t === 'expression_statement' && s.firstNamedChild) return this.isExit(s.firstNamedChild, crossesLoop);
    if (this.spec.calls.has(t)) {
      // why: the statements after an assignment are asked again for each use it may reach; a call's shape is read once.
      let exits = this.exitCalls.get(s.id);
      if (exits === undefined) {
        const shape = this.spec.call(s);
        this.exitCalls.set(s.id, exits = !!shape && EXIT_CALLS.has(shape.name));
      }
      return exits;
    }
    return false;
  }

  /** True when `n` sits where an error is being handled: a catch/rescue/except clause, or `if err != nil { … }`. */
  onErrorPath(n: Node): boolean {
    for (let a = n.parent; a && !this.isFunction(a); a = a.parent) {
      const kind = this.kinds[a.typeId];
      if (kind & K_HANDLER) return true;
      if (kind & K_IF) {
        const cond = a.childForFieldName('condition');
        const body = a.childForFieldName('consequence') ?? a.childForFieldName('body');
        if (cond && body && body.startIndex <= n.startIndex && body.endIndex >= n.endIndex && /\berr\s*!=\s*nil\b|\.is_err\(\)|\bError\b/.test(cond.text)) return true;
      }
    }
    return false;
  }

  private noteBound(at: Node, message: string): void {
    const line = at.startPosition.row + 1;
    if (!this.bounds.has(line)) this.bounds.set(line, message);
  }

  /** The values `node` may have where it stands. */
  eval(node: Node, depth = 0): Variant[] {
    if (depth > 12) return DYNAMIC;
    const spec = this.spec;
    const t = node.type;
    if (spec.transparent.has(t) && node.namedChildCount === 1) return this.eval(node.firstNamedChild!, depth + 1);
    if (spec.strings.has(t)) {
      const lit = this.known.get(node.startIndex);
      if (lit) return [{ parts: lit.parts, literals: [lit], helper: undefined }];
      return this.literal(node, readLiteral(node, this.text, spec, undefined, true), depth);
    }
    if (t === spec.heredocBegin) {
      const lit = this.heredocs.get(node.startIndex);
      return lit ? this.literal(node, lit, depth) : DYNAMIC;
    }
    if (spec.binary.has(t)) {
      const op = node.childForFieldName('operator')?.type ?? '';
      const left = node.childForFieldName('left'), right = node.childForFieldName('right');
      if (spec.concatOps.has(op) && left && right) return product([this.eval(left, depth + 1), this.eval(right, depth + 1)]);
      if (spec.formatOps.has(op) && left && right) {
        const args = right.type === 'tuple' || right.type === 'array' || right.type === 'parenthesized_expression' ? right.namedChildren : [right];
        return this.format(this.eval(left, depth + 1), 'printf', args, node, depth);
      }
      return DYNAMIC;
    }
    if (spec.implicitConcat.has(t)) return product(node.namedChildren.filter((c) => c.type !== 'comment').map((c) => this.eval(c, depth + 1)));
    if (IDENTS.has(t) || MEMBERS.has(t)) return this.variable(node, depth);
    if (spec.calls.has(t)) return this.call(node, depth);
    if (t === 'conditional_expression' || t === 'ternary_expression' || t === 'conditional') {
      const alts = t === 'conditional_expression' && spec.valueFirstConditional
        ? [node.namedChildren[0], node.namedChildren[2]]
        : [node.childForFieldName('consequence') ?? node.childForFieldName('body'), node.childForFieldName('alternative')];
      const out: Variant[] = [];
      for (const a of alts) if (a) for (const v of this.eval(a, depth + 1)) keepVariant(out, v);
      return out.length ? out : DYNAMIC;
    }
    return DYNAMIC;
  }

  /** The values of a variable where `node` uses it. */
  private variable(node: Node, depth: number): Variant[] {
    const key = this.keyOf(node);
    if (!key) return DYNAMIC;
    let defs = this.reaching(key, node);
    // `self::Q`, `self.Q`, `Foo.Q`: a constant or attribute assigned in a class body.
    if (!defs.length && key.startsWith('.')) defs = this.reaching(key.slice(1), node).filter((d) => !this.isFunction(d.scope));
    if (!defs.length) return DYNAMIC;
    const out: Variant[] = [];
    for (const d of defs) for (const v of this.valueOf(d, depth + 1)) keepVariant(out, v);
    return out;
  }

  /** The values a variable holds right after the assignment `d`. */
  valueOf(d: Def, depth = 0): Variant[] {
    const memo = this.values.get(d);
    if (memo) return memo;
    if (this.active.has(d)) return DYNAMIC;
    this.active.add(d);
    let out: Variant[];
    if (d.kind === 'set') out = d.value ? this.eval(d.value, depth) : DYNAMIC;
    else {
      const priorDefs = this.reaching(d.key, d.node);
      const loop = this.loopOf(d.node);
      const prior: Variant[] = [];
      for (const p of priorDefs) for (const v of this.valueOf(p, depth + 1)) keepVariant(prior, v);
      // Text appended in a loop to a value from before the loop: a part per iteration, how many is not known.
      const grows = loop !== undefined && priorDefs.some((p) => !within(loop, p.node));
      if (grows) out = prior.map((v) => ({ ...v, parts: [...v.parts, { dynamic: true }] }));
      else if (d.pushes?.some((p) => p.sep)) {
        // A separated view writes its separator only after its first push: told apart per assignment reaching `d`.
        out = [];
        for (const p of priorDefs.length ? priorDefs : [undefined]) {
          const added = this.added(d, depth + 1, p ? this.pushedViews(p) : NO_VIEWS);
          for (const v of product([p ? this.valueOf(p, depth + 1) : EMPTY, added])) keepVariant(out, v);
        }
      } else out = product([prior.length ? prior : EMPTY, this.added(d, depth + 1, NO_VIEWS)]);
    }
    this.active.delete(d);
    this.values.set(d, out);
    return out;
  }

  /** What the append `d` adds: its value's text, or a builder's pushes (pushedPieces). */
  private added(d: Def, depth: number, before: ReadonlySet<number>): Variant[] {
    if (d.pushes) return product(pushedPieces(d.pushes, before, (n) => this.eval(n, depth)));
    return d.value ? this.eval(d.value, depth) : DYNAMIC;
  }

  /** The separated views that have pushed on some path through the assignment `d`. */
  private pushedViews(d: Def): ReadonlySet<number> {
    return viewsPushed(d, this.viewsPushed, (p) => this.reaching(p.key, p.node));
  }

  /** The innermost loop around `n` within its function. */
  private loopOf(n: Node): Node | undefined {
    for (let a = n.parent; a && !this.isFunction(a); a = a.parent) if (this.isLoop(a)) return a;
    return undefined;
  }

  private call(node: Node, depth: number): Variant[] {
    const spec = this.spec;
    const shape = spec.call(node);
    if (!shape) return DYNAMIC;
    const args = argNodes(shape.args, spec);
    const style: FormatStyle | undefined = spec.formatCalls.get(shape.name);
    if (style && args.length) {
      // `vsprintf($fmt, [$a, $b])` takes its arguments as one array.
      let rest = args.slice(1);
      if (shape.name === 'vsprintf') rest = rest.length === 1 && /^(?:array_creation_expression|array)$/.test(rest[0].type) ? argNodes(rest[0], spec).map((e) => e.namedChildCount === 1 && e.type === 'array_element_initializer' ? e.firstNamedChild! : e) : [];
      // util.format (not a driver's `format(sql, values)`) writes the arguments no hole took after the text.
      const appendRest = style === 'node' && (!shape.receiver || shape.receiver === 'util');
      return this.format(this.eval(args[0], depth + 1), style, rest, node, depth, appendRest);
    }
    if (spec.formatMethod && shape.name === spec.formatMethod.name) {
      const fn = node.childForFieldName('function');
      const recv = fn?.firstNamedChild;
      if (recv && fn?.type === spec.formatMethod.member) return this.format(this.eval(recv, depth + 1), spec.formatMethod.style, args, node, depth);
    }
    if (args.length === 1 && startsBuilder(shape.callee)) return this.eval(args[0], depth + 1);
    if (spec.helpers.has(shape.name) && args.length) return this.eval(args[0], depth + 1).map((v) => ({ ...v, helper: v.helper ?? shape.callee }));
    if (JOINS.has(shape.name)) return DYNAMIC;
    if (EMPTY_CALLS.has(shape.callee) || (shape.name === 'new' && shape.receiver === 'String')) return EMPTY;
    if (SAME_TEXT.has(shape.name)) {
      if (args.length === 1 && !shape.receiver?.match(/\w$/)) return this.eval(args[0], depth + 1);
      if (args.length === 1 && TEXT_ARGUMENT.has(shape.name)) return this.eval(args[0], depth + 1);
      const fn = node.childForFieldName('function') ?? node.childForFieldName('receiver');
      const recv = fn && fn !== node ? (fn.childForFieldName('value') ?? fn.childForFieldName('object') ?? fn.childForFieldName('operand') ?? (fn.type === 'call' ? null : fn.firstNamedChild)) : null;
      const rubyRecv = node.childForFieldName('receiver');
      const r = rubyRecv ?? recv;
      if (r && args.length === 0) return this.eval(r, depth + 1);
    }
    return DYNAMIC;
  }

  /** A format string's values with its holes filled from `args` where they are known text. */
  private format(fmt: Variant[], style: FormatStyle, args: Node[], at: Node, depth: number, appendRest = false): Variant[] {
    return evalFormat(fmt, style, args, (n) => this.eval(n, depth + 1), (name) => {
      const key = name.replace(/^[$@]+/, '');
      const defs = this.reaching(key, at);
      const out: Variant[] = [];
      for (const d of defs) for (const v of this.valueOf(d, depth + 1)) keepVariant(out, v);
      return out.length ? out : undefined;
    }, appendRest);
  }

  /** A literal's values: interpolated variables filled in where known. */
  private literal(node: Node, lit: Literal, depth: number): Variant[] {
    const holes = lit.parts.filter((p) => p.dynamic && (p as HolePart).hole);
    const base: Literal = holes.length ? { ...lit, parts: lit.parts.map((p) => (p.dynamic ? { dynamic: true } : p)) } : lit;
    if (!holes.length) return [{ parts: lit.parts, literals: [lit], helper: undefined }];
    // Each interpolation: a variable's values, else a dynamic part.
    // The literal is listed where its own text first stands, so the first literal is the one the statement starts with.
    const pieces: Variant[][] = [];
    let run: SqlPart[] = [];
    let placed = false;
    const flush = () => {
      if (!run.length) return;
      const own = !placed && run.some((p) => !p.dynamic);
      if (own) placed = true;
      pieces.push([{ parts: run, literals: own ? [base] : [], helper: undefined }]);
      run = [];
    };
    for (const p of lit.parts) {
      const h = p.dynamic ? (p as HolePart).hole : undefined;
      if (!h) { run.push(p.dynamic ? { dynamic: true } : p); continue; }
      flush();
      pieces.push(this.hole(h, depth));
    }
    flush();
    if (!placed) pieces.push([{ parts: [], literals: [base], helper: undefined }]);
    void node;
    return product(pieces);
  }

  private hole(h: Node, depth: number): Variant[] {
    let e: Node | null = h;
    // Ruby `#{q}`, Python `{q}` (no conversion or format spec), JS `${q}`, PHP `$q` / `{$q}`.
    if (h.type === 'interpolation' || h.type === 'template_substitution') {
      if (h.namedChildCount !== 1) return DYNAMIC;
      e = h.firstNamedChild;
    }
    return e && (IDENTS.has(e.type) || MEMBERS.has(e.type)) ? this.variable(e, depth + 1) : DYNAMIC;
  }
}

const K_FUNCTION = 1, K_LOOP = 2, K_CONDITIONAL = 4, K_LEAVES = 8, K_LEAVES_ITERATION = 16, K_HANDLER = 32, K_IF = 64, K_IDENT = 128, K_MEMBER = 256;
const kindTables = new WeakMap<GrammarTables, Uint16Array>();

/**
 * Per grammar, by type id: the K_* bits of each node type (functions and Ruby blocks, loops, branches,
 * statements that leave, error handlers, `if`).
 * why: these are asked for every ancestor of every assignment and use; one read of a table beats a regular expression each time.
 */
function kindsOf(spec: LangSpec, tables: GrammarTables): Uint16Array {
  let r = kindTables.get(tables);
  if (!r) {
    // ERROR nodes (type id 65535) are past the end of the table and read as 0, as their type matched none of these.
    r = new Uint16Array(tables.types.length);
    tables.types.forEach((t, id) => {
      let k = 0;
      if (spec.functions.has(t) || spec.closureBlocks?.has(t)) k |= K_FUNCTION;
      if (spec.loops.has(t)) k |= K_LOOP;
      if (CONDITIONAL.test(t)) k |= K_CONDITIONAL;
      if (LEAVES.test(t)) k |= K_LEAVES;
      if (LEAVES_ITERATION.test(t)) k |= K_LEAVES_ITERATION;
      if (/(?:^|_)(?:catch|rescue|except)(?:_|$)/.test(t)) k |= K_HANDLER;
      if (/^if_(?:statement|expression)$/.test(t)) k |= K_IF;
      if (IDENTS.has(t)) k |= K_IDENT;
      if (MEMBERS.has(t)) k |= K_MEMBER;
      r![id] = k;
    });
    kindTables.set(tables, r);
  }
  return r;
}

/** Per grammar: 1 assignment, 2 assignment with an operator, 3 Ruby binary (`q << …`), 4 Rust call (`q.push_str(…)`), by type id. */
const defRoleTables = new WeakMap<GrammarTables, Uint8Array>();

function defRoles(spec: LangSpec, tables: GrammarTables): Uint8Array {
  let r = defRoleTables.get(tables);
  if (!r) {
    r = new Uint8Array(tables.types.length);
    tables.types.forEach((t, id) => {
      if (!tables.named[id]) return;
      if (spec.assignments.has(t)) r![id] = 1;
      else if (OP_ASSIGN.has(t)) r![id] = 2;
      else if (t === 'binary' && spec.appendOperator) r![id] = 3;
      else if (t === 'call_expression' && (spec.appendMethod || spec.queryBuilders)) r![id] = 4;
    });
    defRoleTables.set(tables, r);
  }
  return r;
}

/** ASCII letters, digits and `_`: characters no identifier token stops before or starts after. */
function isWordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

/** The first index of the ascending `xs` whose value is >= `x` (xs.length when none is). */
/** The first of the ascending `xs` that is at least `x`, or Infinity. */
function firstAtLeast(xs: readonly number[], x: number): number {
  const i = lowerBound(xs, x);
  return i < xs.length ? xs[i] : Infinity;
}

function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0, hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/** The argument expressions of a call (PHP's `argument` wrappers and Rust's token trees read through). */
export function argNodes(args: Node | null | undefined, spec: LangSpec): Node[] {
  if (!args) return [];
  if (args.type === 'token_tree') {
    // Rust macros: arguments are tokens separated by commas; a single named token is the argument.
    const out: Node[] = [];
    let group: Node[] = [];
    const flush = () => {
      const named = group.filter((g) => g.isNamed);
      const amp = group.length === 2 && group[0].type === '&';
      if (named.length === 1 && (group.length === 1 || amp)) out.push(named[0]);
      else if (group.length) out.push(group[0]);
      group = [];
    };
    const cs = args.children;
    for (let i = 1; i < cs.length - 1; i++) {
      if (cs[i].type === ',') flush(); else group.push(cs[i]);
    }
    flush();
    return out;
  }
  const out: Node[] = [];
  for (const c of args.namedChildren) {
    if (c.type === 'comment') continue;
    out.push(c.type === 'argument' && c.firstNamedChild ? c.firstNamedChild : c);
  }
  void spec;
  return out;
}

/** Adds `v` to `out`, at most MAX_VARIANTS: past that the latest takes the last slot (bounds.ts keepAlternative). */
export function keepVariant(out: Variant[], v: Variant): void {
  keepAlternative(out, v, MAX_VARIANTS, partsOf);
}

const partsOf = (v: Variant): number => v.parts.length;
const joinVariants = (a: Variant, b: Variant): Variant => ({ parts: [...a.parts, ...b.parts], literals: [...a.literals, ...b.literals], helper: (a.helper ?? b.helper) || undefined });

/** Combinations of one variant from each piece, in order: the first ones and the last (bounds.ts boundedProduct), at most MAX_VARIANTS. */
export function product(pieces: Variant[][]): Variant[] {
  return boundedProduct(pieces, EMPTY[0], joinVariants, MAX_VARIANTS, partsOf);
}

function within(outer: Node, inner: Node): boolean {
  return outer.startIndex <= inner.startIndex && outer.endIndex >= inner.endIndex;
}
