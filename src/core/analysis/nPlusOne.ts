/**
 * N+1 detection over extracted facts: a statement that runs once per iteration of a loop, either
 * lexically inside the loop or in a function reached from a call inside the loop (followed by name
 * across the workspace, several levels deep). Works on FileFacts only, so it does not care which
 * extractor (tree-sitter or the Perl lexer) produced them.
 */
import type {
  CallSite, FileFacts, Finding, FunctionDef, ImportFact, Language, LoopInfo, Range, RelatedLocation, Severity, SqlSite,
} from '../model';
import {
  containsRange, identifiersOf, isSmallConstantCollection, lastNameSegment, PairSet, rangeBefore, sameRange, stripSigil, textRanks,
} from './nPlusOneSyntax';
import { LOOP_KIND_TEXT, splitLoops, type LoopKind, type LoopPlace } from './loopKinds';
import { needsKey, needsOf, throughCall, type Need } from './callContext';
import { traitsOf } from '../source/lang/languages';
import { languageForPath } from '../source/languageOf';

export const N_PLUS_ONE = 'n-plus-one';

/** One call on the way from the loop to the statement, outermost first. */
export interface CallStep { name: string; file: string; range: Range; line: number }

/**
 * Why the loop runs many (or few) times; `retry`: it leaves after the first pass that succeeds; `poll-or-stream`: one
 * message per pass; `dispatch`: each pass takes another branch on its key. Only `query-rows` and `unknown` are data loops.
 */
export type LoopSource = 'query-rows' | 'small-constant' | 'retry' | 'poll-or-stream' | 'dispatch' | 'unknown';

/** The JSON-friendly facts of one N+1 finding (Finding.data). */
export interface NPlusOneData extends Record<string, unknown> {
  loopFile: string;
  /** 1-based line of the loop, as the CLI prints it. */
  loopLine: number;
  loopRange: Range;
  loopKind: string;
  iterable?: string;
  /** Calls from the loop to the function holding the statement; empty when the statement is in the loop itself. */
  path: CallStep[];
  language: Language;
  innerSql: string;
  innerPlaceholders: readonly string[];
  innerCall?: string;
  source: LoopSource;
  /** The query whose rows the loop iterates over, when there is one. */
  /** The query the loop walks; `limit` is the number the code passes for its `LIMIT ?`, when known (SqlSite.limit). */
  outer?: { file: string; line: number; range: Range; sql: string; placeholders: readonly string[]; resultVar?: string; limit?: number };
  /** Rows the outer query is estimated to return (its plan), when the caller knew it. */
  estimatedIterations?: number;
  /** Where estimatedIterations comes from (`the LIMIT 3 of that query`, `EXPLAIN's rows of posts …`). */
  estimateFrom?: string;
  /** Number of enclosing loops on the way (nested loops multiply the count). */
  loopDepth: number;
  /** The statement runs in a task started per element (goroutine, async callback): concurrent, but still N statements. */
  concurrent: boolean;
}

export interface NPlusOneFinding extends Finding { data: NPlusOneData }

export interface NPlusOneOptions {
  /** Estimated rows a statement returns (from its EXPLAIN plan), when connected. */
  /** How many rows the outer query returns: a number (from its plan), or the number and where it comes from. */
  estimatedRows?: (site: SqlSite) => number | { rows: number; from: string } | undefined;
  /** How many calls to follow back from the statement's function (default 4; at least 2 is the contract). */
  maxDepth?: number;
  /** A literal collection with at most this many elements counts as small (default 5). */
  smallCollection?: number;
  /** Build each finding's related locations (default true); the CLI's records print none (nPlusOneReport). */
  related?: boolean;
}

interface Located<T> { file: FileFacts; item: T }

/** Calls that run a prepared statement once more (`stmt.Query`, `$sth->execute`). */
const RUNS_PREPARED = /^(?:execute|exec|query|queryrow|querycontext|queryrowcontext|execcontext|run|all|get|first|select|selectrow_\w+|fetch_all)$/i;
const PREPARES = /^prepare/i;

/** A name the extractor may give an anonymous function; such defs are never call targets nor owners of sites. */
function isNamed(def: FunctionDef): boolean {
  return /^[A-Za-z_$][\w$]*[?!]?$/.test(def.name);
}

/** The definitions of one name a caller of one language family may reach, in workspace order, and the same by file. */
interface Reachable { all: Located<FunctionDef>[]; byFile?: Map<FileFacts, Located<FunctionDef>[]> }

/**
 * A file's statements by start (stable: of two at one place, the earlier listed comes first), and by the line their
 * call (else their text) starts on: where findOuterQuery looks, so that asking about every loop of a long function
 * does not read all of its statements once per loop.
 */
interface SiteOrder { byStart: readonly SqlSite[]; byCallLine: Map<number, SqlSite[]> }

function orderSites(sites: readonly SqlSite[]): SiteOrder {
  const byCallLine = new Map<number, SqlSite[]>();
  let sorted = true;
  for (let i = 0; i < sites.length; i++) {
    const s = sites[i];
    push(byCallLine, (s.callRange ?? s.range).start.line, s);
    if (i > 0 && byStart(sites[i - 1], s) > 0) sorted = false;
  }
  // Extractors mostly list statements in text order already; Array.prototype.sort is stable.
  return { byStart: sorted ? sites : [...sites].sort(byStart), byCallLine };
}

/** The index of the last of `sites` (ordered by start) that starts at or before `at`, or -1. */
function lastStartingBy(sites: readonly SqlSite[], at: Range['start']): number {
  let lo = 0, hi = sites.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const p = sites[mid].range.start;
    if (p.line < at.line || (p.line === at.line && p.character <= at.character)) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** Calls of a file read one by one by callAt (a list this short costs less to read than to index). */
const FEW_CALLS = 32;

/** The outer query found for a loop (see outerQuery), kept with the loop's file. */
interface OuterMemo { file: FileFacts; site: SqlSite | undefined }

// why: detection runs over every statement of a workspace (tens of thousands); the values below depend only on
// one site, loop or name, so each is computed once per detection instead of once per statement, loop and path.
class Workspace {
  readonly byName = new Map<string, Located<FunctionDef>[]>();
  private readonly namedIn = new Map<FileFacts, FunctionDef[]>();
  private lastFile: FileFacts | undefined;
  private lastNamed: FunctionDef[] = [];
  private readonly callsByName = new Map<string, Located<CallSite>[]>();
  private readonly callersByName = new Map<string, Map<FunctionDef, { file: FileFacts; call: Located<CallSite> }[]>>();
  private readonly reachable = new Map<string, Reachable>();
  readonly outers = new Map<LoopInfo, OuterMemo>();
  /** The file detection is at, and the outer queries of its loops found so far (see outerQuery). */
  current: FileFacts | undefined;
  readonly currentLoops: LoopInfo[] = [];
  readonly currentOuters: (SqlSite | undefined)[] = [];
  readonly small = new Map<LoopInfo, boolean>();
  /** walksHandle's pattern per handle. */
  readonly handleWalks = new Map<string, RegExp>();
  private readonly segments = new Map<string, string>();
  private readonly handles = new Map<string, string | undefined>();
  private readonly idents = new Map<string, string[]>();
  private readonly siteOrders = new Map<FileFacts, SiteOrder>();
  private readonly callsByLine = new Map<FileFacts, Map<number, CallSite[]>>();
  /** Per file with imports: each imported name by the name its code uses, and the modules mixed in whole. */
  private readonly importsIn = new Map<FileFacts, { byLocal: Map<string, ImportFact>; mixins: string[] }>();

  constructor(readonly files: readonly FileFacts[]) {
    for (const f of files) {
      if (f.imports?.length) {
        const byLocal = new Map<string, ImportFact>();
        const mixins: string[] = [];
        for (const i of f.imports) {
          if (i.local === '*') mixins.push(i.from);
          else byLocal.set(i.local, i);
        }
        this.importsIn.set(f, { byLocal, mixins });
      }
      const named: FunctionDef[] = [];
      for (const d of f.functions) {
        if (!isNamed(d)) continue;
        named.push(d);
        push(this.byName, d.name, { file: f, item: d });
      }
      this.namedIn.set(f, named);
    }
    // Only calls of a defined name can be callers (callersOf asks by definition name).
    for (const f of files) {
      for (const c of f.calls) {
        const name = this.targetName(f, c);
        if (this.byName.has(name)) push(this.callsByName, name, { file: f, item: c });
      }
    }
  }

  /** The innermost named function of `file` whose range holds `range`. */
  enclosing(file: FileFacts, range: Range): FunctionDef | undefined {
    // Asked mostly about the file at hand, many times in a row.
    if (file !== this.lastFile) {
      this.lastFile = file;
      this.lastNamed = this.namedIn.get(file) ?? file.functions.filter(isNamed);
    }
    let best: FunctionDef | undefined;
    for (const d of this.lastNamed) {
      if (!containsRange(d.range, range)) continue;
      if (!best || containsRange(best.range, d.range)) best = d;
    }
    return best;
  }

  /** Whether the loop is over a literal collection of at most `max` constants (one `max` per detection). */
  isSmall(l: LoopInfo, max: number): boolean {
    let yes = this.small.get(l);
    if (yes === undefined) this.small.set(l, yes = l.iterable !== undefined && isSmallConstantCollection(l.iterable, max));
    return yes;
  }

  /** The object a call is made on, sigil dropped (`$sth->execute` → `sth`), once per distinct call text. */
  handleOf(call: string): string | undefined {
    if (this.handles.has(call)) return this.handles.get(call);
    const m = /([$@]?[A-Za-z_]\w*)\s*(?:\.|->)\s*[A-Za-z_]\w*$/.exec(call);
    const handle = m ? stripSigil(m[1]) : undefined;
    this.handles.set(call, handle);
    return handle;
  }

  /**
   * The first of the file's calls over exactly `range`. why: asked for every statement; a file with many calls has
   * them listed by the line they start on (once), so a long function's statements do not each read all its calls.
   */
  callAt(file: FileFacts, range: Range): CallSite | undefined {
    let calls: readonly CallSite[] | undefined = file.calls;
    if (calls.length > FEW_CALLS) {
      let byLine = this.callsByLine.get(file);
      if (!byLine) {
        this.callsByLine.set(file, byLine = new Map());
        for (const c of calls) push(byLine, c.range.start.line, c);
      }
      calls = byLine.get(range.start.line);
    }
    if (calls) for (const c of calls) if (sameRange(c.range, range)) return c;
    return undefined;
  }

  /** The file's statements ordered for findOuterQuery, once per file that has a loop asked about. */
  siteOrder(file: FileFacts): SiteOrder {
    let order = this.siteOrders.get(file);
    if (!order) this.siteOrders.set(file, order = orderSites(file.sites));
    return order;
  }

  /** identifiersOf, once per distinct loop iterable (callers only read the list). */
  identifiers(iterable: string): string[] {
    let xs = this.idents.get(iterable);
    if (!xs) this.idents.set(iterable, xs = identifiersOf(iterable));
    return xs;
  }

  /** lastNameSegment, once per distinct name. */
  lastSegment(name: string): string {
    let s = this.segments.get(name);
    if (s === undefined) this.segments.set(name, s = lastNameSegment(name));
    return s;
  }

  /** The name of the definition a call reaches: the closure's variable (calleeName), or the name a bare call's import brings in (`nid` for `next_id as nid`). */
  private targetName(file: FileFacts, c: CallSite): string {
    const name = calleeName(c);
    if (name !== c.name || c.receiver !== undefined) return name;
    const imp = this.importsIn.get(file)?.byLocal.get(name);
    return imp && imp.name !== '*' && imp.name !== 'default' ? imp.name : name;
  }

  /**
   * The definitions among `all` that a bare call of `local` reaches through the file's imports: the module that
   * imports the name by itself, else the modules mixed in whole. Undefined when the imports tell nothing (today's rules decide).
   */
  private throughImports(file: FileFacts, local: string, all: Located<FunctionDef>[]): Located<FunctionDef>[] | undefined {
    const imports = this.importsIn.get(file);
    if (!imports) return undefined;
    // A whole module called by its name (`const nextId = require('./next-id')` of a module that exports one function) is looked for there too.
    const imp = imports.byLocal.get(local);
    if (imp) {
      const xs = inModule(all, imp.from);
      if (xs.length) return xs;
    }
    const mixed = imports.mixins.flatMap((m) => inModule(all, m));
    return mixed.length ? mixed : undefined;
  }

  /** The definitions named `name` in files of `language`'s family (JavaScript and TypeScript are one), in workspace order. */
  private reachableFrom(name: string, language: Language): Reachable {
    const key = `${family(language)}\u0000${name}`;
    let r = this.reachable.get(key);
    if (!r) {
      r = { all: (this.byName.get(name) ?? []).filter((d) => family(d.file.language) === family(language)) };
      this.reachable.set(key, r);
    }
    return r;
  }

  /** True when some call names `name` (else callersOf finds nothing for a definition of that name). */
  isCalled(name: string): boolean {
    return this.callsByName.has(name);
  }

  /** Calls anywhere in the workspace that resolve to `def` (defined in `defFile`). */
  callersOf(defFile: FileFacts, def: FunctionDef): Located<CallSite>[] {
    // why: every statement outside a loop asks for its function's callers; resolving them afresh each time
    // made a common name (a helper defined in each of thousands of files) cubic in the workspace size.
    // A call reaches only definitions of its callee name, so the calls of one name are resolved once
    // and filed under the definitions they reach, in workspace order.
    let byDef = this.callersByName.get(def.name);
    if (!byDef) {
      byDef = new Map();
      for (const c of this.callsByName.get(def.name) ?? []) {
        for (const t of this.resolve(c.file, c.item)) {
          let xs = byDef.get(t.item);
          if (!xs) byDef.set(t.item, xs = []);
          const last = xs[xs.length - 1];
          if (!last || last.call !== c || last.file !== t.file) xs.push({ file: t.file, call: c });
        }
      }
      this.callersByName.set(def.name, byDef);
    }
    return (byDef.get(def) ?? []).filter((x) => x.file === defFile).map((x) => x.call);
  }

  /**
   * The definitions a call may reach, chosen conservatively: a method of the caller's own class or
   * receiver type first, then a definition in the same file, then a free function (same directory
   * first), then a unique definition of that name in the workspace. An ambiguous name resolves to nothing.
   */
  resolve(file: FileFacts, call: CallSite): Located<FunctionDef>[] {
    const viaVar = calleeName(call) !== call.name;
    if (viaVar) {
      // `load.call(x)`: the closure held by a local variable, defined in this file.
      const name = calleeName(call);
      return (this.byName.get(name) ?? []).filter((d) => d.file === file);
    }
    const reach = this.reachableFrom(this.targetName(file, call), file.language);
    const all = reach.all;
    if (all.length === 0) return [];
    const caller = this.enclosing(file, call.range);
    const recv = call.receiver === undefined ? undefined : stripSigil(call.receiver.replace(/(?:->|::|\.)$/, ''));
    const selfish = recv === undefined || /^(?:self|this|Self|static|parent|cls|@)$/.test(recv);
    const pick = (xs: Located<FunctionDef>[]) => (xs.length === 1 ? xs : []);
    if (caller?.owner) {
      const own = all.filter((d) => d.item.owner === caller.owner);
      if (own.length && (selfish || (traitsOf(file.language).calls.plainReceiverIsSelf && isPlainIdent(recv)))) return pick(own);
    }
    // `next_id(…)` after `from util import next_id` / `use My::Util qw(next_id)` / `include Util`: the module it came from.
    if (recv === undefined) {
      const imported = this.throughImports(file, call.name, all);
      if (imported) return pick(imported);
    }
    if (recv !== undefined && /^[A-Z]/.test(recv)) {
      const typed = all.filter((d) => d.item.owner !== undefined && lastNameSegment(d.item.owner) === lastNameSegment(recv));
      if (typed.length) return pick(typed);
    }
    if (!reach.byFile) {
      reach.byFile = new Map();
      for (const d of all) push(reach.byFile, d.file, d);
    }
    const sameFile = reach.byFile.get(file);
    if (sameFile) return pick(sameFile);
    if (recv === undefined || selfish) {
      const free = all.filter((d) => recv === undefined ? d.item.owner === undefined || traitsOf(file.language).calls.bareCallReachesMethods : d.item.owner !== undefined);
      const dir = free.filter((d) => dirOf(d.file.file) === dirOf(file.file));
      return pick(dir.length ? dir : free);
    }
    // `users.Find(…)`, `Users::find(…)`, `users.find(…)`: a package or module qualifier names the file or folder defining it.
    // The qualifier may be an import's alias (`import util as u`, `import * as u from './util'`, Go's `u "…/util"`).
    const alias = this.importsIn.get(file)?.byLocal.get(recv);
    const mod = !alias ? moduleKey(recv) : importKey(alias.name === '*' || alias.name === 'default' ? alias.from : alias.name);
    const qualified = all.filter((d) => moduleKeysOf(d.file.file).includes(mod));
    if (qualified.length) return pick(qualified);
    return pick(all);
  }
}

/** The name a call reaches: `load.call(x)` / `load.(x)` (Ruby), `$load->(x)` reach the closure in `load`. */
function calleeName(c: CallSite): string {
  if ((c.name === 'call' || c.name === '' || c.name === '()') && c.receiver && /^[$@]?[A-Za-z_]\w*$/.test(c.receiver)) return stripSigil(c.receiver);
  return c.name;
}

/** Languages whose definitions reach each other's calls share a family (JavaScript and TypeScript). */
function family(l: Language): string {
  return traitsOf(l).calls.family;
}

/** Go receivers: in `func (h *Handler) a() { h.b() }` the plain name `h` stands for the caller's own type. */
function isPlainIdent(recv: string | undefined): boolean {
  return recv !== undefined && /^[a-z_]\w*$/.test(recv);
}

/** A module qualifier's last segment, lower case, without `_` / `-` (`App::Users`, `\\App\\Users` → `users`). */
function moduleKey(q: string): string {
  return lastNameSegment(q.slice(q.lastIndexOf('\\') + 1)).toLowerCase().replace(/[_-]/g, '');
}

/**
 * The key of the module an import names: its last segment, without a source extension, in moduleKey's form
 * (`./util.js`, `.util`, `crate::util`, `My::Util`, `App\\Util`, `example.com/app/util` → `util`; `./util/index` → `util`).
 */
function importKey(from: string): string {
  // why: a module named by its file (`./util.js`) loses the extension of a language's source files (the adapters' list).
  const bare = languageForPath(from) ? from.slice(0, from.lastIndexOf('.')) : from;
  const parts = bare.split(/[/\\.:]+/).filter((p) => p.length > 0);
  let last = parts.pop() ?? from;
  if ((last === 'index' || last === 'mod' || last === '__init__') && parts.length) last = parts.pop()!;
  return moduleKey(last);
}

/** The definitions of `all` in the module `from` names: the file or folder it answers to, or a module or class of that name (Ruby's `module Util`). */
function inModule(all: Located<FunctionDef>[], from: string): Located<FunctionDef>[] {
  const key = importKey(from);
  return all.filter((d) => moduleKeysOf(d.file.file).includes(key) || (d.item.owner !== undefined && moduleKey(d.item.owner) === key));
}

/** The module names a file answers to: its own name without extension and its folder's (`app/users.go` → `users`, `app`). */
function moduleKeysOf(path: string): string[] {
  const parts = path.split('/');
  const base = parts[parts.length - 1].replace(/\.[^.]*$/, '');
  const out = [moduleKey(base)];
  if (parts.length > 1) out.push(moduleKey(parts[parts.length - 2]));
  return out;
}

function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const xs = m.get(k);
  if (xs) xs.push(v); else m.set(k, [v]);
}

/** Where and how a statement is executed: the loops around the executing call, or the site's own. */
interface Execution { loops: LoopInfo[]; detached: boolean; at: LoopPlace & { guards?: SqlSite['guards'] } }

/** A multi-row `INSERT … VALUES (…)` / `REPLACE …`: the statement people build up in a loop and send once after it. */
const BATCHABLE = /^\s*(?:INSERT|REPLACE)\b[\s\S]*\bVALUES?\s*\(/i;

// why (here and below): one pass over the file's calls instead of filter/find/sort chains; this runs for every
// statement of the workspace. The first call in file order wins among equals, as a stable sort's first would.
function execution(file: FileFacts, site: SqlSite, ws: Workspace): Execution {
  // why: an INSERT … VALUES literal that flows into no call inside the loop is being built there (a batch
  // appended to per row) and sent after it; the extractor could not link it to that later call.
  if (!site.call && BATCHABLE.test(site.sql)) return { loops: NO_LOOPS, detached: !!site.detached, at: site };
  if (!site.call) return { loops: site.loops, detached: !!site.detached, at: site };
  const name = ws.lastSegment(site.call);
  // The function holding the statement (null: not looked up yet).
  let fn: FunctionDef | undefined | null = null;
  // The extractor names the executing call; else the literal written inside the call.
  let exec: CallSite | undefined;
  const callRange = site.callRange;
  if (callRange) exec = ws.callAt(file, callRange);
  if (!exec) {
    fn = ws.enclosing(file, site.range);
    for (const c of file.calls) if (c.name === name && within(fn, c) && containsRange(c.range, site.range)) { exec = c; break; }
  }
  // The statement held in a variable and handed to the call later (built in a loop, run after it, or the reverse).
  if (!exec) {
    for (const c of file.calls) {
      if (c.name === name && within(fn, c) && rangeBefore(site.range, c.range) && (!exec || byStart(c, exec) < 0)) exec = c;
    }
  }
  // The extractors leave a loop's iterable (`for row in db.query("SELECT …")`) out of the loop: it runs once.
  let result: Execution = exec ? { loops: exec.loops, detached: !!exec.detached || !!site.detached, at: exec }
    : { loops: site.loops, detached: !!site.detached, at: site };
  // The extractor followed the prepared handle to the call that runs it.
  const runCall = site.runRange && ws.callAt(file, site.runRange);
  if (runCall) return { loops: runCall.loops, detached: !!runCall.detached, at: runCall };
  if (PREPARES.test(name) && site.resultVar && traitsOf(site.language).calls.preparedHandleRunsLater) {
    const handle = stripSigil(site.resultVar);
    if (fn === null) fn = ws.enclosing(file, site.range);
    let run: CallSite | undefined;
    for (const c of file.calls) {
      if (c.loops.length > 0 && !c.detached && c.receiver !== undefined && RUNS_PREPARED.test(c.name) && stripSigil(c.receiver) === handle
        && within(fn, c) && rangeBefore(site.range, c.range) && (!run || byStart(c, run) < 0)) run = c;
    }
    if (run) result = { loops: run.loops, detached: false, at: run };
  }
  return result;
}

/** True when the call lies in `fn` (or there is no function). */
function within(fn: FunctionDef | undefined | null, c: CallSite): boolean {
  return !fn || containsRange(fn.range, c.range);
}

/** An empty list of loops, shared (never changed). */
const NO_LOOPS: LoopInfo[] = [];

function byStart(a: { range: Range }, b: { range: Range }): number {
  return a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character;
}

/**
 * Finds statements that run once per loop iteration. Pure: facts in, findings out.
 * One finding per (statement, loop) pair, at the statement, with the loop and each call on the path as related locations.
 */
export function detectNPlusOne(facts: readonly FileFacts[], options: NPlusOneOptions = {}): NPlusOneFinding[] {
  const ws = new Workspace(facts);
  const maxDepth = Math.max(2, options.maxDepth ?? 4);
  const out: NPlusOneFinding[] = [];
  const pairs = new PairSet();
  // The first finding of a (statement, loop) pair stands; a later one is not even built.
  const add: AddFinding = (file, site, loopFile, loops, path, concurrent, kind) => {
    if (pairs.add(site.file, site.range.start, loopFile.file, loops[loops.length - 1].range.start)) {
      out.push(build(ws, file, site, loopFile, loops, path, options, concurrent, kind));
    }
  };
  const smallMax = options.smallCollection ?? 5;
  const small = (l: LoopInfo) => ws.isSmall(l, smallMax);
  for (const file of facts) {
    ws.current = file;
    ws.currentLoops.length = 0;
    ws.currentOuters.length = 0;
    for (const site of file.sites) {
      // A lookup kept for the request (`@me ||= …`, a guard returning the kept value) runs once, not per iteration.
      if (site.memoised) continue;
      const ex = execution(file, site, ws);
      // A task started per iteration (goroutine, async callback) still sends one statement per element:
      // `detached` only changes the wording. A task started once outside any loop has no loops here.
      // Only data loops multiply a statement (loopKinds.ts). A retry, poll or dispatch loop in a helper (`nextID()`
      // trying again on a deadlock) does not: the loops of the helper's callers are followed as for a statement in no loop.
      const { data, other } = ex.loops.length ? splitLoops(ex.loops, ex.at, small) : NO_SPLIT;
      if (data.length) {
        add(file, site, file, data, [], ex.detached);
        continue;
      }
      const start = ws.enclosing(file, site.range);
      const before = out.length;
      let hint: Hint | undefined = other ? { file, loop: other.loop, kind: other.kind, path: [] } : undefined;
      if (start && ws.isCalled(start.name)) hint = followCallers(ws, file, site, start, ex.detached, maxDepth, add, needsOf(ex.at.guards, start), small) ?? hint;
      // No caller's data loop repeats it: the loop it is in is told as what it is (a hint).
      if (hint && out.length === before) add(file, site, hint.file, [hint.loop], hint.path, ex.detached, hint.kind);
    }
  }
  const rank = textRanks(out.flatMap((f) => [f.file, f.data.loopFile]));
  const r = (t: string) => rank.get(t)!;
  return out.sort((a, b) => r(a.file) - r(b.file) || byStart(a, b) || r(a.data.loopFile) - r(b.data.loopFile) || a.data.loopLine - b.data.loopLine);
}

type AddFinding = (file: FileFacts, site: SqlSite, loopFile: FileFacts, loops: LoopInfo[], path: Located<CallSite>[], concurrent: boolean, kind?: LoopKind) => void;

/** A loop that repeats a statement without being a data loop, kept for a hint when no data loop does. */
interface Hint { file: FileFacts; loop: LoopInfo; kind: LoopKind; path: Located<CallSite>[] }

const NO_SPLIT: ReturnType<typeof splitLoops> = { data: [] };

/**
 * Follows the callers of `start` (the function holding `site`) back to the data loops that call it, up to `maxDepth`
 * calls. `needs` are the branches on `start`'s parameters the statement lies in: a caller whose arguments settle one
 * of them the other way never reaches the statement, nor do the callers that reach the statement only through it.
 * Returns the first loop of another kind met on the way (for a hint).
 */
function followCallers(ws: Workspace, file: FileFacts, site: SqlSite, start: FunctionDef, detached: boolean, maxDepth: number, add: AddFinding,
  needs: Need[], small: (l: LoopInfo) => boolean): Hint | undefined {
  // Breadth first, so each loop is reached by its shortest call path; `seen` is the recursion guard and the memo,
  // per function and what is known of its arguments.
  const seen = new Map<FunctionDef, Set<string>>([[start, new Set([needsKey(needs)])]]);
  let hint: Hint | undefined;
  let frontier: { file: FileFacts; def: FunctionDef; path: Located<CallSite>[]; needs: Need[] }[] = [{ file, def: start, path: [], needs }];
  for (let depth = 0; depth < maxDepth && frontier.length; depth++) {
    const next: typeof frontier = [];
    for (const node of frontier) {
      for (const call of ws.callersOf(node.file, node.def)) {
        const c = call.item;
        const caller = ws.enclosing(call.file, c.range);
        const carried = node.needs.length || c.guards ? throughCall(node.needs, c, node.def, caller, c.loops.length ? loopVars(c.loops) : NO_NAMES,
          traitsOf(node.file.language).truthiness) : NO_NEEDS;
        // The call's arguments take the statement's branch away: it never runs for this caller.
        if (!carried) continue;
        const path = [call, ...node.path];
        if (c.loops.length) {
          const { data, other } = splitLoops(c.loops, c, small);
          if (data.length) {
            add(file, site, call.file, data, path, !!c.detached || detached);
            continue;
          }
          if (other && !hint) hint = { file: call.file, loop: other.loop, kind: other.kind, path };
        }
        if (!caller) continue;
        const key = needsKey(carried);
        let keys = seen.get(caller);
        if (!keys) seen.set(caller, keys = new Set());
        if (keys.has(key)) continue;
        keys.add(key);
        next.push({ file: call.file, def: caller, path, needs: carried });
      }
    }
    frontier = next;
  }
  return hint;
}

const NO_NAMES: string[] = [];
const NO_NEEDS: Need[] = [];

function loopVars(loops: readonly LoopInfo[]): string[] {
  const out: string[] = [];
  for (const l of loops) if (l.vars) out.push(...l.vars);
  return out;
}

/** The query whose rows `loop` iterates over: a statement before the loop, in the same function, whose result variable the iterable names. */
function outerQuery(ws: Workspace, file: FileFacts, loop: LoopInfo): SqlSite | undefined {
  // Loops of the file being scanned are kept in a short list (cheaper than the map, which serves the rest).
  if (file === ws.current) {
    const i = ws.currentLoops.indexOf(loop);
    if (i >= 0) return ws.currentOuters[i];
    const found = findOuterQuery(ws, file, loop);
    ws.currentLoops.push(loop);
    ws.currentOuters.push(found);
    return found;
  }
  const memo = ws.outers.get(loop);
  if (memo?.file === file) return memo.site;
  const site = findOuterQuery(ws, file, loop);
  if (!memo) ws.outers.set(loop, { file, site });
  return site;
}

function findOuterQuery(ws: Workspace, file: FileFacts, loop: LoopInfo): SqlSite | undefined {
  if (!loop.iterable) return undefined;
  const fn = ws.enclosing(file, loop.range);
  const inFn = (r: Range) => !fn || containsRange(fn.range, r);
  // `for row in db.query("SELECT …")`, `db.xquery("SELECT …").map.with_index do |row, i|`, `stmt.execute do |row|`:
  // the statement is run in the loop's header, before the body that repeats (so it does not count the loop among
  // its own); it may be written before the loop and run there (`tx.xquery(query).map do |row|`).
  // Its call starts on the loop's first line (inside the loop, not before it): only the statements of that line are asked.
  const order = ws.siteOrder(file);
  const header = order.byCallLine.get(loop.range.start.line)?.find((s) => { const at = s.callRange ?? s.range; return containsRange(loop.range, at) && !s.loops.includes(loop) && at.start.line <= loop.range.start.line && givesRows(s.sql); });
  if (header) return header;
  const names = ws.identifiers(loop.iterable);
  const it = loop.iterable.replace(/\s+/g, '');
  // What the iterable is derived from (`models = [M(**r) for r in rows]`, `if … q.fetch_all() else …`), by the extractor's value flow.
  const from = loop.from;
  const linked = (s: SqlSite) => (s.resultVar !== undefined && (names.includes(stripSigil(s.resultVar)) || !!from?.names.includes(stripSigil(s.resultVar))))
    || walksHandle(ws, it, s) || (!!from && !!s.callRange && from.values.some((v) => containsRange(v, s.callRange!)));
  // Of the linked statements before the loop, the best placed, the later of two alike (the later of two starting at the
  // same place too). A statement run once stands above one run per pass of an earlier loop (`for c in cs { ps = get(c);
  // pss.append(ps) }`): that one only adds to the rows the earlier loop walks, so the rows come from the query that loop
  // is linked to (the competition list, not the score looked up per competition), which also tells how many there are.
  // Next, a statement whose result is the iterable itself (by name, or written in the value given to it) stands above one
  // it is derived from (of two branches, `xs = if … { q.fetch_all() } else { … }` and rows pushed per tag in the other).
  // Walking back from the loop, the first statement met of a rank is the best placed of that rank, so the first of
  // the top rank (3) ends the walk: a loop over the rows of the statement just before it costs a step or two.
  const firstOfRank: (SqlSite | undefined)[] = [];
  const sites = order.byStart;
  for (let i = lastStartingBy(sites, loop.range.start); i >= 0; i--) {
    const s = sites[i];
    // The statement's own function (a route block too) must hold the loop.
    const sameFn = s.functionRange ? containsRange(s.functionRange, loop.range) : inFn(s.range);
    // An INSERT / UPDATE / DELETE run on a reused handle (`$stmt`) gives no rows to walk: not the loop's query.
    if (!sameFn || !rangeBefore(s.range, loop.range) || !givesRows(s.sql) || !linked(s)) continue;
    const direct = s.resultVar !== undefined ? names.includes(stripSigil(s.resultVar)) : !!from && !!s.callRange && from.values.some((v) => containsRange(v, s.callRange!));
    const rank = (s.loops.every((l) => containsRange(l.range, loop.range)) ? 2 : 0) + (direct ? 1 : 0);
    if (rank === 3) return s;
    firstOfRank[rank] ??= s;
  }
  return firstOfRank[2] ?? firstOfRank[1] ?? firstOfRank[0];
}

/** A statement that returns rows: SELECT, WITH, TABLE, VALUES, SHOW, or a data change with RETURNING (MariaDB). */
function givesRows(sql: string): boolean {
  const head = /^[\s(]*(?:\/\*[\s\S]*?\*\/\s*)*([A-Za-z]+)/.exec(sql);
  if (!head) return true;
  const w = head[1].toUpperCase();
  if (w === 'SELECT' || w === 'WITH' || w === 'TABLE' || w === 'VALUES' || w === 'SHOW' || w === 'CALL' || w === 'DESCRIBE' || w === 'EXPLAIN') return true;
  return /\bRETURNING\b/i.test(sql) || !/^(?:INSERT|UPDATE|DELETE|REPLACE|TRUNCATE|LOCK|UNLOCK|CREATE|ALTER|DROP|SET|BEGIN|COMMIT|ROLLBACK|START)$/.test(w);
}

/**
 * `cur.execute("SELECT …")` then `for row in cur.fetchall()` / `for row in cur` / `while ($r = $stmt->fetch())`:
 * the loop reads rows through the handle the statement was run on. `it` is the loop's iterable without whitespace.
 */
function walksHandle(ws: Workspace, it: string, site: SqlSite): boolean {
  if (!site.call) return false;
  const handle = ws.handleOf(site.call);
  if (handle === undefined) return false;
  if (it.replace(/^[$@]/, '') === handle) return true;
  let walks = ws.handleWalks.get(handle);
  if (!walks) ws.handleWalks.set(handle, walks = new RegExp(`(?:^|[^\\w$])[$@]?${handle}(?:\\.|->)(?:fetch|next|each|all|rows|iter|read)\\w*`, 'i'));
  return walks.test(it);
}

/** The LoopSource of a loop that is not a data loop. */
const SOURCE_OF_KIND: Record<Exclude<LoopKind, 'data' | 'runs-once'>, LoopSource> = {
  retry: 'retry', 'poll-or-stream': 'poll-or-stream', dispatch: 'dispatch', 'constant-list': 'small-constant',
};

function build(ws: Workspace, file: FileFacts, site: SqlSite, loopFile: FileFacts, loops: LoopInfo[], path: Located<CallSite>[], options: NPlusOneOptions, concurrent: boolean, kind?: LoopKind): NPlusOneFinding {
  const loop = loops[loops.length - 1];
  const other = kind && kind !== 'data' && kind !== 'runs-once' ? kind : undefined;
  let outer: SqlSite | undefined;
  if (!other) for (let i = loops.length - 1; i >= 0 && !outer; i--) outer = outerQuery(ws, loopFile, loops[i]);
  const source: LoopSource = other ? SOURCE_OF_KIND[other] : outer ? 'query-rows' : 'unknown';
  const got = outer ? options.estimatedRows?.(outer) : undefined;
  const estimated = typeof got === 'number' ? got : got?.rows;
  const estimateFrom = typeof got === 'number' ? 'its plan' : got?.from;
  let severity: Severity = source === 'query-rows' ? 'error' : source === 'unknown' ? 'warning' : 'hint';
  if (estimated !== undefined && estimated > 20 && severity === 'warning') severity = 'error';

  const sqlShort = shorten(site.sql);
  const over = loop.iterable ? ` over \`${shorten(loop.iterable, 40)}\`` : '';
  const via = path.length ? ` via ${path.map((c) => `${c.item.name}()`).join(' → ')}` : '';
  const rowsOf = outer ? `; the loop walks the rows of "${shorten(outer.sql, 50)}" (line ${outer.range.start.line + 1})` : '';
  const est = estimated !== undefined ? `, about ${Math.round(estimated)} iterations estimated from ${estimateFrom ?? 'its plan'}` : '';
  const nested = loops.length > 1 ? ` (inside ${loops.length} nested loops)` : '';
  const tasks = concurrent ? ' in a concurrent task per element (still one statement each)' : '';
  const where = loopFile === file ? `line ${loop.range.start.line + 1}` : `${loopFile.file}:${loop.range.start.line + 1}`;
  const few = other ? ` ${LOOP_KIND_TEXT[other]}` : '';
  const message = `N+1: "${sqlShort}" runs once per iteration of the ${loop.kind} loop${over} at ${where}${via}${tasks}${nested}${rowsOf}${est}.${few}`;

  let related: RelatedLocation[] | undefined;
  if (options.related !== false) {
    related = [{ file: loopFile.file, range: loop.range, message: `${loop.kind} loop${over}: the statement runs once per iteration` }];
    for (const c of path) related.push({ file: c.file.file, range: c.item.range, message: `calls ${c.item.name}()` });
    for (let i = loops.length - 2; i >= 0; i--) related.push({ file: loopFile.file, range: loops[i].range, message: `enclosing ${loops[i].kind} loop multiplies the count` });
    if (outer) related.push({ file: loopFile.file, range: outer.range, message: 'the loop iterates over the rows of this query' });
  }

  const data: NPlusOneData = {
    loopFile: loopFile.file, loopLine: loop.range.start.line + 1, loopRange: loop.range, loopKind: loop.kind,
    iterable: loop.iterable,
    path: path.map((c) => ({ name: c.item.name, file: c.file.file, range: c.item.range, line: c.item.range.start.line + 1 })),
    language: site.language, innerSql: site.sql, innerPlaceholders: site.placeholders, innerCall: site.call,
    source, loopDepth: loops.length, concurrent,
  };
  if (outer) data.outer = { file: loopFile.file, line: outer.range.start.line + 1, range: outer.range, sql: outer.sql, placeholders: outer.placeholders, resultVar: outer.resultVar, ...(outer.limit !== undefined ? { limit: outer.limit } : {}) };
  if (estimated !== undefined) { data.estimatedIterations = estimated; if (estimateFrom) data.estimateFrom = estimateFrom; }
  return { code: N_PLUS_ONE, severity, message, file: site.file, range: site.range, related, data };
}

/** Whitespace that shorten would change: other than single spaces between words. */
const UNTIDY_SPACE = /[^\S ]| {2}|^ | $/;

function shorten(s: string, max = 80): string {
  const one = UNTIDY_SPACE.test(s) ? s.replace(/\s+/g, ' ').trim() : s;
  if (one.length <= max) return one;
  // A cut inside a `/*?dynamic*/` marker would leave half a comment: cut before the marker instead.
  let cut = max - 1;
  const open = one.lastIndexOf('/*', cut - 1);
  if (open >= 0 && one.indexOf('*/', open) + 2 > cut) cut = open;
  return `${one.slice(0, cut)}…`;
}
