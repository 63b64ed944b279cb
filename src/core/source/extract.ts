/**
 * SQL discovery over a tree-sitter syntax tree: one walker for every language, driven by the
 * LangSpec of its grammar (languageSpecs.ts). It finds the string literals (and concatenations,
 * formatted and interpolated strings) whose text is a SQL statement, the call each flows into —
 * directly or through a variable or constant — the enclosing function and loops, and it lists the
 * file's functions and calls for following calls across functions.
 */
import type { GrammarTables, SyntaxNode as Node, SyntaxTree } from './syntaxTree';
import type { CallSite, FileFacts, FunctionDef, Language, LoopInfo, Position, Range, SqlSite } from '../model';
import { boundInChain, limitPassed } from './limitValue';
import { isReportingCall, joinSqlParts, looksLikeSql, placeholdersOf, type SqlPart } from './sqlText';
import type { LangSpec, FormatStyle, CallShape } from './lang/treeSitter/langSpec';
import { SPECS } from './lang/treeSitter/languageSpecs';
import { parseSyntax, type GrammarName, type ParserSet } from './lang/treeSitter/treeSitter';
import { readLiteral, type Literal } from './literal';
import { formatAsDynamic } from './formatHoles';
import { treeSitterRoutes } from './lang/treeSitter/routes';
import type { ExtractOptions } from './lang/adapter';
import { loopInfo, uniformFunction } from './factShapes';
import { ValueFlow, SAME_TEXT, argNodes, type Variant } from './valueFlow';
import { BUILDS, startsBuilder } from './queryBuilder';
import { MemoIndex } from './memoised';
import { loopSources } from './rowFlow';
import { isRetryBody } from './retryLoop';
import { canBreak, dispatchedIn, guardsOf, headerNames, isEndless, leavesAfter, type LeavingMemo } from './statementContext';
import { MAX_NESTING, NESTING_NOTE } from './bounds';
import { FileRanges, intern, SharedLists } from './intern';

const R_STRING = 1, R_CALL = 4, R_FUNCTION = 5, R_CLASS = 6, R_LOOP = 7, R_DETACH = 8, R_HEREDOC_BEGIN = 9, R_HEREDOC_BODY = 10, R_IMPORT = 11, R_BARE = 12;

/** Per grammar: the role of each node type id that has one (concatenations are reached from their strings, so they have none). */
const grammarRoles = new WeakMap<GrammarTables, Uint8Array>();

function rolesFor(spec: LangSpec, tables: GrammarTables): Uint8Array {
  const cached = grammarRoles.get(tables);
  if (cached) return cached;
  const roles = new Map<string, number>();
  const add = (names: Iterable<string>, role: number) => { for (const n of names) if (!roles!.has(n)) roles!.set(n, role); };
  add(spec.strings, R_STRING);
  add(spec.calls, R_CALL);
  add(spec.functions, R_FUNCTION);
  add(spec.classes, R_CLASS);
  add(spec.loops, R_LOOP);
  add(spec.detachers, R_DETACH);
  if (spec.heredocBegin) add([spec.heredocBegin], R_HEREDOC_BEGIN);
  if (spec.heredocBody) add([spec.heredocBody], R_HEREDOC_BODY);
  if (spec.imports) add(spec.imports.nodes, R_IMPORT);
  if (spec.bareCalls) add([spec.bareCalls.node], R_BARE);
  for (const n of [...spec.binary, ...spec.implicitConcat]) if (roles.get(n) !== R_STRING) roles.delete(n);
  const byId = new Uint8Array(tables.types.length);
  tables.types.forEach((name, id) => { if (tables.named[id]) byId[id] = roles.get(name) ?? 0; });
  grammarRoles.set(tables, byId);
  return byId;
}

interface Frame {
  kind: 'fn' | 'class' | 'loop' | 'detach';
  /** End of the node that opened the frame: the frame closes before anything starting there. */
  popAt: number;
  /** Where the frame applies (a loop's body, a function's whole node). */
  start: number;
  end: number;
  name?: string;
  range?: Range;
  loop?: LoopInfo;
  /** A loop's iterable written inside its active range (a comprehension's `for … in rows`): read once, not per element. */
  skipStart?: number;
  skipEnd?: number;
  /** A function's node and parameter names (a caller's arguments settle the branches on them). */
  node?: Node;
  params?: string[];
  id: number;
}

interface Context { fn?: Frame; loops: LoopInfo[]; detached: boolean }

/** A fact object with every member present (some undefined), as factShapes.ts makes them. */
type Whole<T> = { [K in keyof Required<T>]: T[K] };

interface CallRec { shape: CallShape; node: Node; start: number; end: number; argsStart: number; argsEnd: number; ctx: Context; resultVar?: string | null; fact?: Whole<CallSite> }

interface Candidate {
  literals: Literal[];
  parts: SqlPart[];
  ctx: Context;
  start: number;
  /** The whole value the literal is part of (concatenation, format call, helper call). */
  top: Node;
  call?: CallRec;
  helper?: string;
  binding?: string;
  /** Ruby heredoc whose body is read later, and where its opener starts. */
  pendingHeredoc?: string;
  opener?: number;
  /** How the heredoc's body is formatted once it is read. */
  format?: FormatStyle;
}

/** QUICK: a string holding none of select, insert, update, delete, replace, with (any case) in its first 400 characters (after its leading blanks and comments) is not looked at further. */
const NOT_A_DB_CALL = /^(?:print|println|printf|puts|p|pp|log|logf|debug|debugf|info|infof|warn|warnf|warning|error|errorf|fatal|fatalf|panic|panicf|sprintf|format|errors|new|append|len|String|Errorf|Sprintf|Println|Printf|Print|Fatal|Fatalf|Panic|Panicf|echo|var_dump|error_log|json_encode|dd|dump|assert|raise|str|repr)$/;

/**
 * Extracts the SQL sites, functions and calls of one file of a tree-sitter language, read by
 * `grammar` (the tree-sitter adapter, lang/treeSitter/adapter.ts, calls it). `parsers` must already hold the
 * grammar (ParserSet.load / loadFor); otherwise, as when the file cannot be parsed, the facts
 * carry a FileError instead of throwing. Routes come from lang/treeSitter/routes.ts, unless
 * `options.routes` is false (a caller that never reads them, as the `scan` command, spares their walk).
 */
export function extractTreeSitter(file: string, text: string, language: Language, grammar: GrammarName, parsers: ParserSet, options: ExtractOptions = {}): FileFacts {
  const facts: FileFacts = { file, language, sites: [], functions: [], calls: [], routes: [], errors: [], imports: [] };
  const parser = parsers.get(grammar);
  if (!parser) {
    facts.errors.push({ file, message: `no parser loaded for ${language} (grammar ${grammar})` });
    return facts;
  }
  // why: one parse serves both the SQL walker and route discovery (parsing is most of the cost of a file).
  let tree: SyntaxTree | undefined;
  try {
    tree = parseSyntax(parser, text);
    new Walker(file, text, language, grammar, facts).run(tree);
  } catch (err) {
    facts.sites = []; facts.functions = []; facts.calls = [];
    facts.errors.push({ file, message: `extraction failed: ${(err as Error).message ?? String(err)}` });
  }
  if (options.routes !== false) {
    try {
      facts.routes = treeSitterRoutes(file, text, grammar, parsers, tree);
    } catch (err) {
      facts.errors.push({ file, message: `route discovery failed: ${err instanceof Error ? err.message : String(err)}` });
    }
  }
  return facts;
}

class Walker {
  private readonly spec: LangSpec;
  private readonly frames: Frame[] = [];
  private readonly consumed = new Set<number>();
  private readonly candidates: Candidate[] = [];
  private readonly callRecs: CallRec[] = [];
  /**
   * fetchedInto's walks, by each run of the handle they stepped over (`cur.execute`): the call on the handle they
   * stopped at, null for none. why: a handle run once per block of a long function would have the rest of the
   * function read again from every run; a walk that meets a run already passed ends there.
   */
  private readonly fetchStops = new Map<CallRec, CallRec | null>();
  /** Set once the tree is walked: every call is then listed (fetchedInto). */
  private walked = false;
  /** The same records by the id of their call node (a string finds the call it is written in). */
  private readonly callByNode: (CallRec | undefined)[] = [];
  private readonly heredocs: Candidate[] = [];
  /** Ruby heredoc openers (their start) and the literal read from their body. */
  private readonly heredocBodies = new Map<number, Literal>();
  /** Literals read by the walk that have no interpolation, by start (value flow reuses them). */
  private readonly plainLiterals = new Map<number, Literal>();
  /** Bodies of iterating calls (`rows.each do … end`), by node id: loops for value flow. */
  private readonly loopBodies = new Set<number>();
  /** Every loop with the node it starts at, for following its iterable back (rowFlow.ts). */
  private readonly loopNodes: { info: LoopInfo; node: Node; iterable: Node }[] = [];
  /** Every loop's body, to tell retry loops (retryLoop.ts). */
  private readonly loopBodyNodes: { info: LoopInfo; body: Node; node: Node; iterable: Node | undefined }[] = [];
  /** Bare names standing as values (spec.bareCalls), each a call if it names a method of the file and no variable. */
  private readonly bareNames: { node: Node; ctx: Context }[] = [];
  private nextId = 1;
  private nestingNoted = false;
  /** The facts' positions and ranges, one object each per offset and per (start, end). */
  private readonly ranges: FileRanges;
  /** The lists of loops context() gives, one per loop body. */
  private readonly loopLists = new SharedLists<LoopInfo>();
  private tree?: SyntaxTree;
  private flow?: ValueFlow;
  private memo?: MemoIndex;

  constructor(private readonly file: string, private readonly text: string, private readonly language: Language,
    grammar: GrammarName, private readonly facts: FileFacts) {
    this.spec = SPECS[grammar];
    this.ranges = new FileRanges(text);
  }

  /** Reads `tree`, the parse of this text (the caller deletes it). */
  run(tree: SyntaxTree): void {
    const root = tree.rootNode;
    this.tree = tree;
    if (root.hasError) {
      const bad = firstError(root);
      // why: an error names where, never what: the file may be a link to a secret (a password hash), and a
      // message must not quote its text.
      this.facts.errors.push({ file: this.file, message: `syntax error${bad ? ` at column ${bad.startPosition.column + 1}` : ''} (sites found around it are still reported)`, line: bad ? bad.startPosition.row + 1 : undefined });
    }
    this.walk(tree);
    this.walked = true;
    this.resolve();
    for (const [line, message] of this.flow?.bounds ?? []) this.facts.errors.push({ file: this.file, message, line });
  }

  /** Visits the named nodes with a role in pre-order (outer nodes before the nodes they contain). */
  private walk(tree: SyntaxTree): void {
    const roles = rolesFor(this.spec, tree.tables);
    for (const node of tree.nodes) {
      const role = roles[node.typeId];
      if (!role) continue;
      const start = node.startIndex;
      while (this.frames.length && this.frames[this.frames.length - 1].popAt <= start) this.frames.pop();
      this.enter(role, node, node.endIndex);
    }
  }

  /** Opens a frame that applies inside `active` and closes where the opening node ends (`popAt`; also `active`'s end when `active` is that node). */
  private push(kind: Frame['kind'], popAt: number, active: Node, extra: Partial<Frame> = {}, activeIsOpener = false): void {
    // why: each node looks through the open frames (context()); past MAX_NESTING a function or loop nested deeper is
    // read as part of the one around it, so no nesting makes the walk quadratic. The file says where that happened.
    if (this.frames.length >= MAX_NESTING) {
      if (!this.nestingNoted) {
        this.nestingNoted = true;
        this.facts.errors.push({ file: this.file, message: NESTING_NOTE, line: active.startPosition.row + 1 });
      }
      return;
    }
    // why: every frame has every member (one object shape), so the reads of frames in context() stay monomorphic.
    const f: Frame = { kind, popAt, start: active.startIndex, end: activeIsOpener ? popAt : active.endIndex, id: this.nextId++, name: undefined, range: undefined, loop: undefined,
      skipStart: undefined, skipEnd: undefined, ...extra };
    this.frames.push(f);
  }

  /**
   * Dispatches a node by its role, one method per role.
   * why: each role's work is a method of its own, so the optimised code of one is not thrown away and rebuilt
   * when another role (or another language) takes a path it had not taken before.
   */
  private enter(role: number, node: Node, popAt: number): void {
    switch (role) {
      case R_STRING: this.enterString(node, popAt); return;
      case R_CALL: this.enterCall(node, popAt); return;
      case R_FUNCTION: this.enterFunction(node, popAt); return;
      case R_IMPORT:
        this.spec.imports!.read(node, this.facts.imports!);
        return;
      case R_BARE: this.enterBare(node); return;
      case R_CLASS: this.enterClass(node, popAt); return;
      case R_LOOP: this.enterLoop(node, popAt); return;
      case R_DETACH:
        this.push('detach', popAt, node, {}, true);
        return;
      case R_HEREDOC_BEGIN:
        this.candidate(node, true);
        return;
      case R_HEREDOC_BODY: this.enterHeredocBody(node); return;
    }
  }

  /** A string literal: a candidate statement, read whole from its outermost concatenation. */
  private enterString(node: Node, popAt: number): void {
    const spec = this.spec;
    if (this.consumed.has(node.startIndex)) return;
    // The first 400 characters after the literal's leading blanks and SQL comments (a template literal that opens
    // with blank lines or a comment block before its statement is read like any other).
    const from = this.afterBlanks(node.startIndex, popAt);
    if (!this.quickWordWithin(node.startIndex, Math.min(popAt, from + 400))) return;
    // A statement built by concatenation is read whole, from its outermost concatenation, when it
    // starts with a literal; a literal later in the chain is read on its own.
    let top: Node = node;
    for (let p = node.parent; p; p = p.parent) {
      const pt = p.type;
      if ((spec.binary.has(pt) && spec.concatOps.has(p.childForFieldName('operator')?.type ?? '')) || spec.implicitConcat.has(pt)
        || (spec.transparent.has(pt) && p.namedChildCount === 1 && top !== node)) top = p;
      // `concat!("SELECT …", "FROM …")`: the pieces are one string, read from the call that joins them.
      else if (spec.joinedArgs && p.parent && spec.joinedArgs(p.parent)?.id === p.id) top = p = p.parent;
      else break;
    }
    while (top !== node && spec.transparent.has(top.type)) top = top.firstNamedChild!;
    const leaf = top === node ? node : leftmost(top, spec);
    this.candidate(leaf && leaf.startIndex === node.startIndex ? top : node);
  }

  /** A call: its record and fact, and the frames it opens (a route handler, an iterating call, a detached task). */
  private enterCall(node: Node, popAt: number): void {
    const spec = this.spec;
    const shape = spec.call(node);
    if (!shape) return;
    const ctx = this.context(node.startIndex);
    const args = shape.args;
    const start = node.startIndex, end = popAt;
    const rec: CallRec = { shape, node, start, end, argsStart: args ? args.startIndex : end, argsEnd: args ? args.endIndex : end, ctx, resultVar: undefined };
    this.callRecs.push(rec);
    this.callByNode[node.id] = rec;
    // why: every member present, in uniformCall's order (factShapes.ts): the same object shape without a copy.
    const call: Whole<CallSite> = {
      name: intern(shape.name), receiver: shape.receiver ? intern(shape.receiver) : undefined, range: this.range(start, end), function: ctx.fn?.name || undefined,
      loops: ctx.loops, detached: ctx.detached ? true : undefined,
      args: args ? argTexts(argNodes(args, spec), this.text) : undefined, guards: undefined, once: undefined, dispatched: undefined,
    };
    rec.fact = call;
    this.facts.calls.push(call);
    if (spec.imports?.calls?.has(shape.name)) spec.imports.readCall?.(node, this.facts.imports!);
    const handler = routeHandlerName(shape, node, spec);
    if (handler) this.push('fn', popAt, handler.body, { name: handler.name, range: this.range(start, end) });
    if (shape.loop) {
      this.loopBodies.add(shape.loop.body.id);
      const info = loopInfo(shape.loop.kind, this.range(start, end), shape.loop.iterable || undefined);
      if (shape.loop.iterableNode) this.loopNodes.push({ info, node, iterable: shape.loop.iterableNode });
      this.loopBodyNodes.push({ info, body: shape.loop.body, node, iterable: shape.loop.iterableNode });
      this.push('loop', popAt, shape.loop.body, { loop: info });
      // A function passed by name (`xs.map(loadUser)`, `map(load_user, xs)`) is called once per element.
      const body = shape.loop.body;
      if (!spec.functions.has(body.type)) {
        const name = body.text.replace(/^['"]|['"]$/g, '');
        const m = /^(?:(.*)(?:\.|::|->))?([A-Za-z_$][\w$]*)$/.exec(name);
        if (m) {
          const named: Whole<CallSite> = {
            name: m[2], receiver: m[1] || undefined, range: this.range(body.startIndex, body.endIndex), function: ctx.fn?.name || undefined,
            loops: [...ctx.loops, info], detached: undefined, args: undefined, guards: undefined, once: undefined, dispatched: undefined,
          };
          this.facts.calls.push(named);
        }
      }
    }
    if (shape.detach) {
      this.push('detach', popAt, shape.detach);
      if (shape.detach === args) this.taskByName(args, ctx);
    }
  }

  /**
   * A function handed by name to what runs it as a task (`pool.submit(load, id)`, `Thread(target=load)`,
   * `run_in_executor(None, load)`, `g.Go(load)`): the first bare name among the arguments is called there.
   */
  private taskByName(args: Node, ctx: Context): void {
    for (const a of args.namedChildren) {
      const v = a.childForFieldName('value') ?? a;
      // why: the calls inside an argument are read after this one; stopping there keeps the calls in file order.
      if (v.type !== 'identifier' && v.namedChildCount) return;
      if (v.type !== 'identifier') continue;
      this.facts.calls.push({
        name: intern(v.text), receiver: undefined, range: this.range(v.startIndex, v.endIndex), function: ctx.fn?.name || undefined,
        loops: ctx.loops, detached: true, args: undefined, guards: undefined, once: undefined, dispatched: undefined,
      });
      return;
    }
  }

  /** A function definition: its fact and its frame. */
  private enterFunction(node: Node, popAt: number): void {
    const spec = this.spec;
    const def = spec.functionDef(node);
    if (!def) return;
    const owner = def.owner ?? this.innermostClass();
    const params = paramNames(node);
    const fd: FunctionDef = { name: def.name, owner: owner || undefined, range: this.range(node.startIndex, popAt), nameRange: this.range(def.nameNode.startIndex, def.nameNode.endIndex), params };
    this.facts.functions.push(uniformFunction(fd));
    this.push('fn', popAt, node, { name: owner ? `${owner}.${def.name}` : def.name, range: fd.range, node, params }, true);
  }

  /** A bare name standing as a value (spec.bareCalls): kept to be told a call or a variable once the file is read. */
  private enterBare(node: Node): void {
    const spec = this.spec;
    const bare = spec.bareCalls!;
    const p = node.parent;
    if (p && (bare.parents.has(p.type) || (node.field !== null && bare.fields.has(node.field)))) this.bareNames.push({ node, ctx: this.context(node.startIndex) });
  }

  /** A class: its frame names the methods inside. */
  private enterClass(node: Node, popAt: number): void {
    const spec = this.spec;
    const name = spec.className(node);
    if (name) this.push('class', popAt, node, { name }, true);
  }

  /** A loop statement: its info and its frame. */
  private enterLoop(node: Node, popAt: number): void {
    const spec = this.spec;
    const l = spec.loop(node);
    const info = loopInfo(l.kind, this.range(node.startIndex, popAt), l.iterable || undefined);
    const it = l.iterableNode;
    if (it) this.loopNodes.push({ info, node, iterable: it });
    if (l.body) this.loopBodyNodes.push({ info, body: l.body, node, iterable: it });
    const active = l.body ?? node;
    const skip = it && it.startIndex >= active.startIndex && it.endIndex <= active.endIndex ? { skipStart: it.startIndex, skipEnd: it.endIndex } : {};
    this.push('loop', popAt, active, { loop: info, ...skip }, !l.body);
  }

  /** A heredoc's body: fills in the candidate its opener left pending. */
  private enterHeredocBody(node: Node): void {
    const spec = this.spec;
    const c = this.heredocs.shift();
    if (!c) return;
    const lit = readLiteral(node, this.text, spec, c.pendingHeredoc);
    if (c.opener !== undefined) this.heredocBodies.set(c.opener, lit);
    c.literals = [lit];
    c.parts = applyPendingFormat(lit.parts, c);
    c.start = lit.range[0];
    c.pendingHeredoc = undefined;
  }

  /** True when one of QUICK's words lies wholly within [start, end) of the text (any case). */
  /** The first index from `start` (before `end`) past quotes, blanks and SQL comments (`/* … *\/`, `-- …`, `# …` lines). */
  private afterBlanks(start: number, end: number): number {
    const t = this.text;
    let i = start;
    while (i < end) {
      const c = t.charCodeAt(i);
      if (c <= 32 || c === 34 || c === 39 || c === 96) { i++; continue; }
      if (c === 47 && t.charCodeAt(i + 1) === 42) {
        const close = t.indexOf('*/', i + 2);
        if (close < 0 || close >= end) return i;
        i = close + 2;
        continue;
      }
      if ((c === 45 && t.charCodeAt(i + 1) === 45) || c === 35) {
        const nl = t.indexOf('\n', i);
        if (nl < 0 || nl >= end) return i;
        i = nl + 1;
        continue;
      }
      return i;
    }
    return i;
  }

  private quickWordWithin(start: number, end: number): boolean {
    // why: asked for every string literal; a look at the code units needs neither a copy of the string nor a regex run.
    const t = this.text;
    for (let i = start; i + 4 <= end; i++) {
      switch (t.charCodeAt(i) | 32) {
        case 115: if (i + 6 <= end && wordAt(t, i, 'select')) return true; break;
        case 105: if (i + 6 <= end && wordAt(t, i, 'insert')) return true; break;
        case 117: if (i + 6 <= end && wordAt(t, i, 'update')) return true; break;
        case 100: if (i + 6 <= end && wordAt(t, i, 'delete')) return true; break;
        case 114: if (i + 7 <= end && wordAt(t, i, 'replace')) return true; break;
        case 119: if (wordAt(t, i, 'with')) return true; break;
        case 116: if (i + 8 <= end && wordAt(t, i, 'truncate')) return true; break;
        case 108: if (wordAt(t, i, 'lock')) return true; break;
      }
    }
    return false;
  }

  private innermostClass(): string | undefined {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const f = this.frames[i];
      if (f.kind === 'class') return f.name;
      if (f.kind === 'fn') return undefined;
    }
    return undefined;
  }

  /** The enclosing named function, and the loops between it and `index`, outermost first. */
  private context(index: number): Context {
    const loops: LoopInfo[] = [];
    let detached = false;
    let fn: Frame | undefined;
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const f = this.frames[i];
      if (index < f.start || index >= f.end) continue;
      if (f.kind === 'fn') { fn = f; break; }
      if (f.skipStart !== undefined && index >= f.skipStart && index < f.skipEnd!) continue;
      if (f.kind === 'loop' && f.loop) loops.push(f.loop);
      else if (f.kind === 'detach') detached = true;
    }
    loops.reverse();
    return { fn, loops: this.loopLists.share(loops), detached };
  }

  /** Builds a candidate from a string / concatenation node and finds where it flows. */
  private candidate(expr: Node, heredoc = false): void {
    const spec = this.spec;
    const literals: Literal[] = [];
    const parts: SqlPart[] = [];
    if (heredoc) {
      // Body comes later in the tree; remember the opener.
    } else {
      this.collect(expr, literals, parts);
      if (!literals.length) return;
    }
    const c: Candidate = {
      literals, parts, ctx: this.context(expr.startIndex), start: literals[0]?.range[0] ?? expr.startIndex, top: expr,
      call: undefined, helper: undefined, binding: undefined, pendingHeredoc: undefined, opener: undefined, format: undefined,
    };
    let format: FormatStyle | undefined;
    let cur = expr;
    for (let guard = 0; guard < 50; guard++) {
      const p = cur.parent;
      if (!p) break;
      const t = p.type;
      if (spec.transparent.has(t)) { cur = p; continue; }
      if (spec.binary.has(t) && spec.formatOps.has(p.childForFieldName('operator')?.type ?? '') && p.childForFieldName('left')?.startIndex === cur.startIndex) {
        format = 'printf'; cur = p; continue;
      }
      if (spec.formatMethod && t === spec.formatMethod.member && p.parent && spec.calls.has(p.parent.type)
        && p.lastNamedChild?.text === spec.formatMethod.name && p.firstNamedChild?.startIndex === cur.startIndex) {
        format = spec.formatMethod.style; cur = p.parent; continue;
      }
      let callNode: Node | null = null;
      if (spec.argLists.has(t) && p.parent && spec.calls.has(p.parent.type)) callNode = p.parent;
      else if (spec.calls.has(t)) callNode = p; // tagged template (the string is the arguments), Ruby `'...'.freeze`
      // `"...".to_owned()`, `"...".strip()`: the member the string is the receiver of, then its call.
      else if (p.parent && spec.calls.has(p.parent.type) && p.firstNamedChild?.startIndex === cur.startIndex && keepsText(spec.call(p.parent))) { cur = p.parent; continue; }
      if (callNode) {
        const rec = this.callByNode[callNode.id];
        const shape = rec?.shape ?? spec.call(callNode);
        if (!shape) break;
        // `String::from("...")`, `dedent("...")`, `'...'.freeze`: the text goes on unchanged to where the call's result goes.
        if (keepsText(shape)) { cur = callNode; continue; }
        const style = spec.formatCalls.get(shape.name);
        if (style && firstArgStart(shape) === cur.startIndex) { format = style; cur = callNode; continue; }
        if (spec.helpers.has(shape.name)) { c.helper = shape.callee; cur = callNode; continue; }
        c.call = rec;
        break;
      }
      if (spec.assignments.has(t)) {
        const a = spec.assignment(p);
        if (a.value && a.value.startIndex === cur.startIndex && a.value.endIndex === cur.endIndex && a.target) c.binding = bindingKey(a.target.text);
        break;
      }
      break;
    }
    c.top = cur;
    if (heredoc) {
      c.pendingHeredoc = expr.text;
      c.opener = expr.startIndex;
      c.format = format;
      this.heredocs.push(c);
    } else if (format) {
      c.parts = formatAsDynamic(parts, format);
    }
    this.candidates.push(c);
  }

  /** Flattens concatenations into literal and dynamic parts, marking their strings consumed. */
  private collect(node: Node, literals: Literal[], parts: SqlPart[]): void {
    const spec = this.spec;
    const t = node.type;
    if (spec.strings.has(t)) {
      this.consumed.add(node.startIndex);
      const lit = readLiteral(node, this.text, spec);
      if (!lit.parts.some((p) => p.dynamic)) this.plainLiterals.set(node.startIndex, lit);
      literals.push(lit);
      parts.push(...lit.parts);
      return;
    }
    if (spec.transparent.has(t) && node.namedChildCount === 1) { this.collect(node.firstNamedChild!, literals, parts); return; }
    const joined = spec.joinedArgs?.(node);
    if (joined) {
      this.consumed.add(node.startIndex);
      for (const ch of joined.namedChildren) if (ch && ch.type !== 'line_comment' && ch.type !== 'block_comment') this.collect(ch, literals, parts);
      return;
    }
    if ((spec.binary.has(t) && spec.concatOps.has(node.childForFieldName('operator')?.type ?? '')) || spec.implicitConcat.has(t)) {
      this.consumed.add(node.startIndex);
      for (const ch of node.namedChildren) if (ch && ch.type !== 'comment') this.collect(ch, literals, parts);
      return;
    }
    parts.push({ dynamic: true });
  }

  /** The variable a call's result is assigned to, computed on first use (most calls never need it). */
  private resultOf(rec: CallRec): string | undefined {
    if (rec.resultVar === undefined) {
      const assigned = this.resultVar(rec.node);
      rec.resultVar = destination(rec.shape) ?? (assigned ? this.fetchedInto(rec, assigned) ?? assigned : this.fetchedInto(rec, rec.shape.receiver)) ?? null;
    }
    return rec.resultVar ?? undefined;
  }

  /**
   * `cur.execute(q)` then `rows = cur.fetchall()`, `$stmt = $db->query(q)` then `$posts = $stmt->fetchAll()`: the rows land
   * where the next call on the handle, when it is a fetch in the same function, puts them.
   */
  private fetchedInto(rec: CallRec, handle: string | undefined): string | undefined {
    if (!handle || !/^[$@]?[A-Za-z_]\w*$/.test(handle)) return undefined;
    const recs = this.callRecs;
    // Calls are in source order: search from this one to the end of its function.
    const end = rec.ctx.fn ? rec.ctx.fn.end : this.text.length;
    let lo = 0, hi = recs.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (recs[mid].start < rec.end) lo = mid + 1; else hi = mid; }
    // The call on the handle the walk stops at; null: none before the function's end; undefined: the calls listed so
    // far ran out while the tree is still being walked (more may come).
    let stop: CallRec | null | undefined = this.walked ? null : undefined;
    const skipped: CallRec[] = [];
    for (let j = lo; j < recs.length; j++) {
      const r = recs[j];
      if (r.start >= end) { stop = null; break; }
      if (r.ctx.fn !== rec.ctx.fn || r.shape.receiver !== handle) continue;
      const known = this.fetchStops.get(r);
      if (known !== undefined) { stop = known; break; }
      // A prepared handle is run (and given its values) before its rows are fetched.
      if (/^(?:execute|bind\w*)$/i.test(r.shape.name)) { skipped.push(r); continue; }
      stop = r;
      break;
    }
    if (stop !== undefined) for (const r of skipped) this.fetchStops.set(r, stop);
    return stop && /^fetch/i.test(stop.shape.name) ? this.resultVar(stop.node) : undefined;
  }

  /**
   * The first call that runs the statement `prepare` made (`$stmt->execute(…)` where `$stmt` holds this
   * prepare's result by value flow), so a handle reused by the next handler or iteration is told apart.
   */
  private runOf(prepare: CallRec): CallRec | undefined {
    const flow = this.flow;
    if (!flow) return undefined;
    for (const r of this.callRecs) {
      if (r.start < prepare.end || !r.shape.receiver || !RUNS_PREPARED.test(r.shape.name)) continue;
      const recv = receiverNode(r.node);
      const key = recv ? flow.keyOf(recv) : undefined;
      if (!key || !recv) continue;
      if (flow.reaching(key, recv).some((d) => d.value && d.value.startIndex <= prepare.start && d.value.endIndex >= prepare.end)) return r;
    }
    return undefined;
  }

  private resultVar(call: Node): string | undefined {
    const spec = this.spec;
    let cur = call;
    for (let guard = 0; guard < 30; guard++) {
      const p = cur.parent;
      if (!p) return undefined;
      const pt = p.type;
      if (spec.chain.has(pt) || spec.transparent.has(pt)) {
        // A call passed as an argument does not carry its result to the outer assignment.
        if (spec.argLists.has(pt)) return undefined;
        cur = p; continue;
      }
      if (spec.assignments.has(pt)) {
        const a = spec.assignment(p);
        return a.value && a.value.startIndex <= cur.startIndex && a.value.endIndex >= cur.endIndex && a.target ? targetName(a.target.text) : undefined;
      }
      return undefined;
    }
    return undefined;
  }

  /**
   * Emits the sites: each literal-led statement written in a call (its variables and interpolations
   * filled in by value flow), then each call that receives a statement through a variable (the values
   * that reach it there), then statements held in variables that reach no call.
   */
  private resolve(): void {
    const flow = new ValueFlow(this.tree!.nodes, this.text, this.spec, this.loopBodies, this.heredocBodies, this.plainLiterals);
    this.flow = flow;
    if (this.bareNames.length) this.bareCalls(flow);
    const used = new Set<number>();
    const owned = new Set<number>();
    let held = false;
    for (const c of this.candidates) {
      if (c.pendingHeredoc !== undefined || !c.literals.length) continue;
      if (c.binding && !c.call) { held = true; continue; }
      owned.add(c.top.id);
      // A message about SQL (`log.Infof("select … failed")`, `throw new Error("…")`) is reported, not run.
      if (c.call ? isReportingCall(c.call.shape.callee) : thrown(c.top, this.text)) continue;
      for (const v of this.valuesOf(c, flow)) {
        const { sql, dynamic } = joinSqlParts(v.parts);
        if (!looksLikeSql(sql)) continue;
        for (const l of v.literals) used.add(l.range[0]);
        this.emit(v.literals.length ? v.literals : c.literals, sql, dynamic, c.ctx, c.call, v.helper ?? c.helper, c.top);
      }
    }
    if (held) {
      const seeds: string[] = [];
      for (const c of this.candidates) if (c.binding && !c.call) seeds.push(c.binding, `.${c.binding}`);
      this.flowIntoCalls(flow, owned, used, seeds);
    }
    for (const c of this.candidates) {
      if (c.pendingHeredoc !== undefined || !c.literals.length || !c.binding || c.call) continue;
      if (c.literals.some((l) => used.has(l.range[0]))) continue;
      // A statement kept in a variable that reaches no call (a constant, a query passed on): reported where it is written.
      for (const v of this.valuesOf(c, flow)) {
        const { sql, dynamic } = joinSqlParts(v.parts);
        if (looksLikeSql(sql)) this.emit(v.literals.length ? v.literals : c.literals, sql, dynamic, c.ctx, undefined, v.helper ?? c.helper);
      }
    }
    const sites = this.facts.sites;
    const before = (a: SqlSite, b: SqlSite) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character;
    // why: the sites mostly come in order already; checking that is cheaper than a sort with a comparator.
    for (let i = 1; i < sites.length; i++) if (before(sites[i - 1], sites[i]) > 0) { sites.sort(before); break; }
    this.loopOrigins(flow);
  }

  /**
   * Ruby's `audit` standing alone: a call of the method of that name defined in this file, unless a parameter of an
   * enclosing method or block, or a variable assigned before it in scope, has that name.
   */
  private bareCalls(flow: ValueFlow): void {
    const defined = new Set<string>();
    for (const f of this.facts.functions) defined.add(f.name);
    let added = false;
    for (const { node, ctx } of this.bareNames) {
      const name = this.text.slice(node.startIndex, node.endIndex);
      if (!defined.has(name) || flow.assignedBefore(name, node) || this.isParam(name, node, ctx)) continue;
      const start = node.startIndex, end = node.endIndex;
      const rec: CallRec = { shape: { callee: name, name, args: null }, node, start, end, argsStart: end, argsEnd: end, ctx, resultVar: undefined };
      const call: Whole<CallSite> = {
        name, receiver: undefined, range: this.range(start, end), function: ctx.fn?.name || undefined, loops: ctx.loops, detached: ctx.detached ? true : undefined,
        args: undefined, guards: undefined, once: undefined, dispatched: undefined,
      };
      rec.fact = call;
      this.callRecs.push(rec);
      this.callByNode[node.id] = rec;
      this.facts.calls.push(call);
      added = true;
    }
    if (!added) return;
    // In file order, as the walk gives the others.
    const pos = (r: Range) => r.start.line * 1e6 + r.start.character;
    this.facts.calls.sort((a, b) => pos(a.range) - pos(b.range));
    this.callRecs.sort((a, b) => a.start - b.start);
  }

  /** True when `name` is a parameter of a block or function around `node`, out to its function. */
  private isParam(name: string, node: Node, ctx: Context): boolean {
    if (ctx.fn?.params?.includes(name)) return true;
    const stop = ctx.fn?.node;
    for (let p = node.parent; p && p !== stop; p = p.parent) {
      if ((this.spec.closureBlocks?.has(p.type) || this.spec.functions.has(p.type)) && paramNames(p)?.includes(name)) return true;
    }
    return false;
  }

  /** Fills each loop's `from`: what its iterable is derived from in its function (see rowFlow.ts), and `retry`. */
  private loopOrigins(flow: ValueFlow): void {
    // Only a loop with a call in it can run a statement per pass (the statement's own call, or one reaching it).
    const live = new Set<LoopInfo>();
    for (const r of this.callRecs) for (const l of r.ctx.loops) live.add(l);
    for (const site of this.facts.sites) for (const l of site.loops) live.add(l);
    if (!live.size) return;
    const exits = (n: Node) => flow.isExit(n, true);
    const bodies = new Map<LoopInfo, Node>();
    const loopOrFn = (n: Node) => this.spec.loops.has(n.type) || this.spec.functions.has(n.type) || this.loopBodies.has(n.id);
    for (const { info, body, node, iterable } of this.loopBodyNodes) {
      if (!live.has(info)) continue;
      bodies.set(info, body);
      if (isRetryBody(body, exits)) info.retry = true;
      if (isEndless(node, body, info.iterable)) info.endless = true;
      if (canBreak(body, loopOrFn)) info.breaks = true;
      const vars = headerNames(node, body, iterable);
      if (vars.length) info.vars = vars;
    }
    this.statementContexts(bodies, exits);
    let appends: Map<string, CallRec[]> | undefined;
    const appended = (key: string, at: Node): Node[] => {
      if (!appends) {
        appends = new Map();
        for (const r of this.callRecs) {
          const k = appendTarget(r.shape);
          if (!k) continue;
          const xs = appends.get(k);
          if (xs) xs.push(r); else appends.set(k, [r]);
        }
      }
      const bare = key.startsWith('.') ? key.slice(1) : key;
      const fn = flow.functionOf(at);
      const out: Node[] = [];
      for (const r of appends.get(bare) ?? []) {
        if (r.end > at.startIndex || flow.functionOf(r.node) !== fn) continue;
        const args = argNodes(r.shape.args, this.spec);
        out.push(...(r.shape.receiver ? args : args.slice(1)));
      }
      return out;
    };
    for (const { info, node, iterable } of this.loopNodes) {
      if (!live.has(info)) continue;
      const fn = flow.functionOf(node);
      // The iterables of the other loops of the function that `value` is written in (not in their iterable).
      const around = (value: Node): Node[] => {
        const out: Node[] = [];
        // Loops are listed in source order: none starting after `value` holds it.
        for (const l of this.loopNodes) {
          if (l.node.startIndex > value.startIndex) break;
          if (l.node === node || !contains(fn, l.node) || !contains(l.node, value) || contains(l.iterable, value)) continue;
          out.push(l.iterable);
        }
        return out;
      };
      const src = loopSources(flow, node, iterable, appended, around);
      if (src) info.from = { names: src.names, values: src.values.map((v) => this.range(v.startIndex, v.endIndex)) };
    }
  }

  /**
   * For each call: the branches around it that test a parameter of its function, and the loops it runs once in
   * (its statement list leaves them right after it) or in one branch of a dispatch on a key (statementContext.ts).
   */
  private statementContexts(bodies: Map<LoopInfo, Node>, exits: (n: Node) => boolean): void {
    const leavingMemo: LeavingMemo = new Map();
    for (const r of this.callRecs) {
      const call = r.fact;
      if (!call) continue;
      const fn = r.ctx.fn;
      if (fn?.params?.length && fn.node) {
        const gs = guardsOf(r.node, fn.node);
        const mine = gs?.filter((g) => fn.params!.some((p) => mentions(g.condition, p)));
        if (mine?.length) call.guards = mine;
      }
      const loops = r.ctx.loops;
      if (!loops.length) continue;
      const inner = loops[loops.length - 1];
      const body = bodies.get(inner);
      // A loop whose body is a function (`rows.forEach((r) => …)`): `return` only ends the pass.
      if (!body || this.spec.functions.has(body.type)) continue;
      const leaves = leavesAfter(r.node, body, exits, (n) => this.spec.functions.has(n.type), leavingMemo);
      if (leaves === 'break') call.once = [inner];
      else if (leaves === 'all') call.once = loops.every((l) => { const b = bodies.get(l); return b && !this.spec.functions.has(b.type); }) ? loops : [inner];
      if (dispatchedIn(r.node, body)) call.dispatched = [inner];
    }
  }

  /** A candidate's values: its own parts when they are all known, else what value flow makes of its whole expression. */
  private valuesOf(c: Candidate, flow: ValueFlow): Variant[] {
    if (!c.parts.some((p) => p.dynamic)) return [{ parts: c.parts, literals: c.literals, helper: undefined }];
    const vs = flow.eval(c.top);
    // why: the literals read by the walker carry the ranges the site reports; value flow read the same nodes.
    return vs.some((v) => v.literals.length) ? vs : [{ parts: c.parts, literals: c.literals, helper: undefined }];
  }

  /** Sites of statements handed to a call through variables: one per call and distinct text that reaches it. */
  private flowIntoCalls(flow: ValueFlow, owned: ReadonlySet<number>, used: Set<number>, seeds: string[]): void {
    const keys = flow.sqlVariables(seeds);
    if (!keys.size) return;
    for (const r of this.callRecs) {
      const shape = r.shape;
      // `qb.build_query_as()`: the statement is the builder's text, the call is handed it as its receiver.
      const built = BUILDS.has(shape.name) ? receiverNode(r.node) : null;
      if (built ? !flow.mentions(built, keys) : !shape.args || !flow.mentionsWithin(r.argsStart, r.argsEnd, keys)) continue;
      if (NOT_A_DB_CALL.test(shape.name) || this.spec.formatCalls.has(shape.name) || this.spec.helpers.has(shape.name)) continue;
      const args = built ? [built] : argNodes(shape.args, this.spec);
      let onError: boolean | undefined;
      const seen = new Set<string>();
      for (const a of args) {
        if (owned.has(a.id) || (a.parent && owned.has(a.parent.id)) || !flow.mentions(a, keys)) continue;
        // A variable handed to a call while an error is handled (`if err != nil { … }`, `rescue`) is being reported, not run.
        if (onError === undefined) onError = flow.onErrorPath(r.node);
        if (onError) break;
        for (const v of flow.eval(a)) {
          if (!v.literals.length) continue;
          const { sql, dynamic } = joinSqlParts(v.parts);
          if (seen.has(sql) || !looksLikeSql(sql)) continue;
          seen.add(sql);
          for (const l of v.literals) used.add(l.range[0]);
          this.emit(v.literals, sql, dynamic, r.ctx, r, v.helper, a);
        }
      }
    }
  }

  /** Files a site; `sqlArg` is the expression the statement is in (an argument of `call`, or inside one). */
  private emit(literals: Literal[], sql: string, dynamic: boolean, ctx: Context, call: CallRec | undefined, helper: string | undefined, sqlArg?: Node): void {
    // Python's drivers fill `%s` / `%(name)s` with Python's `%` operator, which turns `%%` into `%`: the server gets `%`.
    if (this.spec.doubledPercent && sql.includes('%%') && PYFORMAT.test(sql)) sql = sql.replace(/%%/g, '%');
    // The statement is reported at its literals in the function that runs it (a shared constant stays in the list of ranges).
    // `literals` come in the order of the text they give: the first one starts the statement.
    const fn = ctx.fn;
    const local = fn ? literals.filter((l) => l.range[0] >= fn.start && l.range[1] <= fn.end) : literals;
    const first = (local.length ? local : literals)[0];
    let end = first.range[1];
    for (const l of local) if (l.range[0] >= first.range[0] && l.range[1] > end) end = l.range[1];
    const sorted = literals.length > 1 ? [...literals].sort((a, b) => a.range[0] - b.range[0]) : literals;
    const rv = call ? this.resultOf(call) : undefined;
    const run = call && PREPARES.test(call.shape.name) && rv ? this.runOf(call) : undefined;
    let memoised = false;
    if (call && this.flow) {
      this.memo ??= new MemoIndex(this.tree!.nodes, this.spec.assignments);
      memoised = this.memo.memoised(call.node, this.flow.functionOf(call.node));
    }
    const fnName = ctx.fn?.name || undefined;
    // why: every member present, in uniformSite's order (factShapes.ts): the same object shape without a copy.
    const site: Whole<SqlSite> = {
      file: this.file,
      language: this.language,
      range: this.range(first.range[0], end),
      literalRanges: sorted.map((l) => this.range(l.range[0], l.range[1])),
      sql: intern(sql),
      placeholders: placeholdersOf(sql),
      dynamic,
      call: call ? intern(call.shape.callee) : undefined,
      function: fnName,
      functionRange: fnName ? ctx.fn!.range || undefined : undefined,
      loops: ctx.loops,
      resultVar: rv || undefined,
      textStart: this.pos(first.textStart),
      callRange: call ? this.range(call.start, call.end) : undefined,
      helper: helper || undefined,
      detached: ctx.detached ? true : undefined,
      runRange: run ? this.range(run.start, run.end) : undefined,
      memoised: memoised ? true : undefined,
      guards: call?.fact?.guards, once: call?.fact?.once, dispatched: call?.fact?.dispatched,
      limit: call && sqlArg && this.flow ? this.limitOf(sql, call, sqlArg, this.flow) : undefined,
    };
    this.facts.sites.push(site);
  }

  /** The number `call` passes for the statement's `LIMIT ?` (limitValue.ts), or undefined. */
  private limitOf(sql: string, call: CallRec, sqlArg: Node, flow: ValueFlow): number | undefined {
    if (!/\bLIMIT\b/i.test(sql)) return undefined;
    const args = argNodes(call.shape.args, this.spec);
    const at = args.findIndex((a) => a.startIndex <= sqlArg.startIndex && a.endIndex >= sqlArg.endIndex);
    if (at >= 0 && at < args.length - 1) return limitPassed(sql, args, at, flow, this.spec);
    // The values come after the statement: in the run of a prepared one (`$stmt->execute([…])`), or in `.bind(v)` calls on it.
    const run = PREPARES.test(call.shape.name) ? this.runOf(call) : undefined;
    if (run) return limitPassed(sql, argNodes(run.shape.args, this.spec), -1, flow, this.spec);
    return limitPassed(sql, boundInChain(call.node, this.spec), -1, flow, this.spec);
  }

  private pos(index: number): Position {
    return this.ranges.pos(index);
  }

  private range(start: number, end: number): Range {
    return this.ranges.range(start, end);
  }
}

/** True when `node` is (part of) what a throw / raise statement or an `Error` / `Exception` constructor is given. */
function thrown(node: Node, text: string): boolean {
  let n: Node | null = node.parent;
  for (let up = 0; n && up < 6; up++, n = n.parent) {
    const t = n.type;
    if (/throw|raise/.test(t)) return true;
    if (/^(?:new_expression|object_creation_expression)$/.test(t)) return /^new\s+[\\\w.]*(?:Error|Exception)\b/.test(text.slice(n.startIndex, Math.min(n.endIndex, n.startIndex + 200)));
    if (/statement|declaration|definition|function|method|block|body/.test(t)) return false;
  }
  return false;
}

/** A pyformat placeholder (`%s`, `%(name)s`), not preceded by another `%`. */
const PYFORMAT = /(?<!%)%(?:\(\w+\))?s/;

/** Calls that prepare a statement, and those that run a prepared one. */
const PREPARES = /^prepare/i;
const RUNS_PREPARED = /^(?:execute|exec|query|queryrow|querycontext|queryrowcontext|execcontext|run|all|get|first|select|selectrow_\w+|fetch_all)$/i;

/** The object a method is called on (`$stmt` in `$stmt->execute()`, `cur` in `cur.execute()`). */
function receiverNode(call: Node): Node | null {
  const direct = call.childForFieldName('object') ?? call.childForFieldName('receiver');
  if (direct) return direct;
  let fn = call.childForFieldName('function');
  // Rust's `qb.build_query_as::<T>()`: the method with its type arguments.
  if (fn?.type === 'generic_function') fn = fn.childForFieldName('function');
  return fn ? fn.childForFieldName('object') ?? fn.childForFieldName('operand') ?? fn.childForFieldName('value') : null;
}

/**
 * Go's `db.Select(&posts, …)` / `tx.GetContext(ctx, &u, …)`: the rows land in the variable the first pointer
 * argument points to (after the context, when there is one).
 */
function destination(shape: CallShape): string | undefined {
  const args = shape.args?.namedChildren ?? [];
  for (let i = 0; i < args.length && i < 2; i++) {
    const a = args[i];
    const m = a.type === 'unary_expression' ? /^&\s*([A-Za-z_]\w*)$/.exec(a.text) : null;
    if (m) return m[1];
  }
  return undefined;
}

/** Calls that add elements to a collection: `xs.push(v)`, `xs.append(v)`, `array_push($xs, v)`. */
const APPENDS = /^(?:push|append|extend|add|insert|unshift|push_back|concat)$/;

/** The collection (its name without sigils) a call adds elements to, when it is one of APPENDS. */
function appendTarget(shape: CallShape): string | undefined {
  if (shape.name === 'array_push' && !shape.receiver) {
    const first = shape.args?.firstNamedChild;
    const t = first?.type === 'argument' ? first.firstNamedChild : first;
    return t ? /^\$?([A-Za-z_]\w*)$/.exec(t.text)?.[1] : undefined;
  }
  if (!shape.receiver || !APPENDS.test(shape.name)) return undefined;
  return /^(?:(?:self|this|\$this)(?:\.|->))?[$@]*([A-Za-z_]\w*)$/.exec(shape.receiver)?.[1];
}

function applyPendingFormat(parts: SqlPart[], c: Candidate): SqlPart[] {
  const f = c.format;
  return f ? formatAsDynamic(parts, f) : parts;
}

function firstArgStart(shape: CallShape): number | undefined {
  const a = shape.args?.firstNamedChild;
  return a ? a.startIndex : undefined;
}

function leftmost(node: Node, spec: LangSpec): Node | null {
  let cur: Node | null = node;
  for (let i = 0; cur && i < 200; i++) {
    if (spec.binary.has(cur.type) || spec.implicitConcat.has(cur.type) || (spec.transparent.has(cur.type) && cur.namedChildCount === 1)) cur = cur.firstNamedChild;
    else if (spec.joinedArgs?.(cur)) cur = spec.joinedArgs(cur)!.firstNamedChild;
    else return cur;
  }
  return null;
}

/** A call whose result is the text it is given (SAME_TEXT): at most one argument, the statement's. */
function keepsText(shape: CallShape | undefined): boolean {
  return !!shape && (SAME_TEXT.has(shape.name) || startsBuilder(shape.callee)) && (shape.args?.namedChildCount ?? 0) <= 1;
}

function contains(outer: Node, inner: Node): boolean {
  return outer.startIndex <= inner.startIndex && outer.endIndex >= inner.endIndex;
}

function firstError(node: Node): Node | null {
  if (node.type === 'ERROR' || node.isMissing) return node;
  for (const c of node.children) if (c && (c.hasError || c.isMissing)) return firstError(c) ?? c;
  return null;
}

/** The variable a call result lands in: `rows` for `rows, err :=`, `[rows]`, `$rows`, `@rows`. */
function targetName(text: string): string | undefined {
  const t = text.trim();
  if (/^[$@]*[\w.]+$/.test(t)) return t === '_' ? undefined : t;
  // The names in order, as /[$@]*[A-Za-z_]\w*/g finds them (sigils kept), without a regex: asked for every assignment.
  for (let i = 0; i < t.length;) {
    let j = i;
    while (j < t.length && (t.charCodeAt(j) === 36 || t.charCodeAt(j) === 64)) j++;
    const c = t.charCodeAt(j);
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95)) { i = j > i ? j : i + 1; continue; }
    let e = j + 1;
    while (e < t.length && isWordChar(t.charCodeAt(e))) e++;
    const m = t.slice(i, e);
    if (m !== '_' && m !== 'mut') return m;
    i = e;
  }
  return undefined;
}

/** True when `lower` (lower-case letters) stands at `i` of `t` in any case. */
function wordAt(t: string, i: number, lower: string): boolean {
  // `| 32` folds only A-Z onto a-z among the code units that can equal a lower-case letter after it.
  for (let k = 1; k < lower.length; k++) if ((t.charCodeAt(i + k) | 32) !== lower.charCodeAt(k)) return false;
  return true;
}

/** `\w` of a regular expression: ASCII letters, digits and `_`. */
function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

/** The name a later use refers to: last segment without sigils (`self.Q` → `Q`, `$sql` → `sql`). */
function bindingKey(text: string): string | undefined {
  const t = targetName(text);
  if (!t) return undefined;
  const seg = t.split(/\.|::|->/).pop() ?? t;
  return seg.replace(/^[$@]+/, '');
}

const ROUTE_VERBS = new Set(['get', 'post', 'put', 'delete', 'patch']);

/** `get '/path' do … end`, `app.get('/path', (req, res) => …)`: names the block after its route. */
function routeHandlerName(shape: CallShape, node: Node, spec: LangSpec): { name: string; body: Node } | undefined {
  // why: asked for every call; a name of another length is none of these without lower-casing it.
  const n = shape.name.length;
  if (n < 3 || n > 6 || !shape.args) return undefined;
  const m = shape.name.toLowerCase();
  if (!ROUTE_VERBS.has(m)) return undefined;
  const args = shape.args.namedChildren.map((a) => (a && a.type === 'argument' ? a.firstNamedChild : a));
  const path = args[0];
  if (!path || !spec.strings.has(path.type)) return undefined;
  const p = path.text.replace(/^[a-z]*["'`]|["'`]$/g, '');
  if (!p.startsWith('/')) return undefined;
  const body = args.slice(1).reverse().find((a) => a && spec.functions.has(a.type)) ?? node.childForFieldName('block');
  return body ? { name: `${m.toUpperCase()} ${p}`, body } : undefined;
}

/** Argument texts of a call (at most 8, each at most 80 characters, else empty), as CallSite.args. */
function argTexts(args: Node[], text: string): string[] | undefined {
  const n = args.length;
  if (!n || n > 8) return undefined;
  const out: string[] = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const a = args[i];
    out[i] = a.endIndex - a.startIndex > 80 ? '' : intern(text.slice(a.startIndex, a.endIndex));
  }
  return out;
}

/** Parameter names of a function node, sigils dropped; the receiver (`self`, `&self`, `this`, `cls`) left out. */
function paramNames(fn: Node): string[] | undefined {
  const ps = fn.childForFieldName('parameters');
  if (!ps) return undefined;
  const out: string[] = [];
  for (const c of ps.namedChildren) {
    if (c.type === 'comment' || /self_parameter/.test(c.type)) continue;
    const names = /identifier|variable_name/.test(c.type) && !c.namedChildCount ? [c] : c.childrenForFieldName('name');
    const picked = names.length ? names : [c.childForFieldName('pattern') ?? c.childForFieldName('left') ?? c.namedChildren.find((x) => /identifier|variable_name/.test(x.type)) ?? c];
    for (const n of picked) {
      const m = /^[&*]*\s*(?:mut\s+)?[$@]?([A-Za-z_]\w*)/.exec(n.text);
      if (m && !/^(?:self|cls|this)$/.test(m[1])) out.push(m[1]);
    }
  }
  return out.length ? out : undefined;
}

/** True when `text` names `word` as a whole word. */
function mentions(text: string, word: string): boolean {
  let i = text.indexOf(word);
  while (i >= 0) {
    const before = i > 0 ? text.charCodeAt(i - 1) : 32, after = i + word.length < text.length ? text.charCodeAt(i + word.length) : 32;
    if (!isWordCode(before) && !isWordCode(after)) return true;
    i = text.indexOf(word, i + 1);
  }
  return false;
}

function isWordCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}
