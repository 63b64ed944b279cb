/**
 * SQL discovery for Perl, by a lexer instead of a grammar: string literals and their
 * concatenations (`.`, `.=`, sprintf, interpolation), queries held in variables or constants
 * and passed to a call later, the enclosing sub (`Package::name`, anonymous subs named after
 * their variable or route) and the enclosing loops (for/foreach/while/until blocks, statement
 * modifiers, map/grep blocks).
 */
import type { CallSite, FileError, FileFacts, FunctionDef, LoopInfo, Position, Range, SqlSite } from '../../../model';
import { isReportingCall, joinSqlParts, looksLikeSql, placeholdersOf, type SqlPart } from '../../sqlText';
import { lexPerl, type Token } from './perlLexer';
import { discoverPerlRoutes } from './perlRoutes';
import { isCloser, isOp, isOpener, listEnd, matchBrackets, termEndForward, termStartBack } from './perlTerms';
import { perlLoopSources, perlRetryBody } from './perlRows';
import { builderStatement } from './perlSqlMaker';
import { FileRanges, intern, SharedLists } from '../../intern';
import { readFormat } from '../../formatHoles';
import { limitPlaceholderIndex } from '../../limitValue';
import { boundedProduct, headAndEnd, keepAlternative, MAX_CALLEE, MAX_NESTING, NESTING_NOTE } from '../../bounds';
import { loopInfo as uniformLoop, uniformCall, uniformFunction, uniformSite } from '../../factShapes';
import { isKeyDispatch } from '../../statementContext';

/** Words that look like calls before `(` but are syntax or builtins, not code worth following. */
const NOT_CALLS = new Set([
  'if', 'elsif', 'unless', 'while', 'until', 'for', 'foreach', 'my', 'our', 'local', 'state', 'return', 'and', 'or',
  'not', 'xor', 'sub', 'package', 'use', 'no', 'require', 'qw', 'print', 'printf', 'say', 'sprintf', 'join', 'push',
  'pop', 'shift', 'unshift', 'splice', 'scalar', 'defined', 'undef', 'ref', 'die', 'warn', 'map', 'grep', 'sort',
  'keys', 'values', 'each', 'exists', 'delete', 'lc', 'uc', 'lcfirst', 'ucfirst', 'length', 'substr', 'index',
  'int', 'abs', 'chomp', 'split', 'wantarray', 'bless', 'eval', 'do', 'open', 'close', 'binmode', 'reverse',
  'time', 'localtime', 'gmtime', 'sleep', 'exit', 'wait', 'exec', 'system', 'sqrt', 'hex', 'oct', 'ord', 'chr',
  'else', 'last', 'next', 'redo', 'goto', 'croak', 'confess', 'carp', 'first', 'any', 'all', 'none', 'min', 'max', 'sum',
]);

/** Calls that only show or log a value: a query variable handed to them is not sent to the database there. */
const NOT_DB_CALLS = /^(?:print|printf|say|warn|die|croak|carp|confess|debug|debugf|info|infof|warnf|error|errorf|log|logf|infof|critf|sprintf|join|push|length|Dumper|dump|p|ddp|encode_json|decode_json)$/;

/** Cheap first look: a literal without any of these words cannot start a statement by itself. */
const QUICK = /select|insert|update|delete|replace|with|truncate|lock/i;

const LOOP_WORDS = new Set(['for', 'foreach', 'while', 'until']);
const BLOCK_LOOPS = new Set(['map', 'grep', 'first', 'any', 'all', 'none']);
const ROUTE_VERBS = new Set(['get', 'post', 'put', 'del', 'delete', 'patch', 'any', 'options', 'head', 'router', 'under']);

/** A statement the token walk found: its parts, the literal tokens they come from, where it is used, the call it is handed to. */
interface PendingSite { parts: SqlPart[]; lits: number[]; ctx: number; call?: CallRec }
interface CallRec { name: string; receiver?: string; text: string; start: number; end: number; resultVar?: string; tok: number; open?: number }
interface FuncSpan { anonymous: boolean; name: string; owner?: string; qualified: string; start: number; end: number; nameStart: number; nameEnd: number }
/** `head`: where the list a `for` walks is written; it runs once, before the iterations (not inside the loop). */
interface LoopSpan { kind: string; start: number; end: number; iterable?: string; head?: Span; retry?: boolean; breaks?: boolean; vars?: string[]; endless?: boolean }
interface Frame {
  open: number; role: 'file' | 'block' | 'expr' | 'paren' | 'bracket'; stmtStart: number; pkg?: string; call?: CallRec; endsStatement: boolean;
  /** A loop's body (text appended here accumulates), and whether a statement in it leaves unconditionally (`return`, `->halt`, `die`). */
  loop?: boolean; exits?: boolean;
}
/** One value a query variable may hold: its parts and the literal tokens they come from. */
interface Alt { parts: SqlPart[]; lits: number[] }
/** Where a query variable is handed to a call: the statement as it was at that point. */
interface Flow { call: CallRec; tok: number; parts: SqlPart[]; lits: number[] }
interface Binding { alts: Alt[]; depth: number; flows: Flow[]; used: boolean }
/** A binding's values before a nested block changed them, restored or merged when the block closes. */
interface Saved { name: string; b: Binding; alts?: Alt[]; shadowed?: Binding }

/** Alternatives kept per variable (a branch adds one); past that, the first ones and the latest (bounds.ts keepAlternative). */
const MAX_ALTS = 4;
const DYNAMIC_ALT: Alt[] = [{ parts: [{ dynamic: true }], lits: [] }];
/** Words that end the statement list they stand in (when not under a statement modifier). */
const EXIT_WORDS = new Set(['return', 'die', 'croak', 'confess', 'next', 'last', 'redo', 'exit']);
const EXIT_METHODS = new Set(['halt', 'redirect', 'abort', 'render_and_halt']);

/** Combinations of one alternative per operand, in order: the first ones and the last (bounds.ts boundedProduct), at most MAX_ALTS. */
const altParts = (a: Alt): number => a.parts.length;

function altProduct(ops: Alt[][]): Alt[] {
  return boundedProduct(ops, { parts: [], lits: [] }, (a, b) => ({ parts: [...a.parts, ...b.parts], lits: [...a.lits, ...b.lits] }), MAX_ALTS, altParts);
}

/** The alternatives of `a`, then those of `b` not among them, at most MAX_ALTS (the latest in the last slot, bounds.ts keepAlternative). */
function altUnion(a: Alt[], b: Alt[]): Alt[] {
  const out = a.slice();
  for (const x of b) if (!out.includes(x)) keepAlternative(out, x, MAX_ALTS, altParts);
  return out;
}

/** Line-start table for turning offsets into 0-based positions. */
function lineIndex(text: string): (offset: number) => Position {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset: number): Position => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid; else hi = mid - 1;
    }
    return { line: lo, character: offset - starts[lo] };
  };
}

/**
 * Extracts the SQL sites, functions and calls of one Perl file. Never throws: what cannot be
 * read becomes a FileError and the rest of the file is still reported.
 */
export function extractPerl(file: string, text: string, withRoutes = true): FileFacts {
  const facts: FileFacts = { file, language: 'perl', sites: [], functions: [], calls: [], routes: [], errors: [], imports: [] };
  try {
    scan(file, text, facts);
    if (withRoutes) facts.routes = discoverPerlRoutes(file, text);
  } catch (err) {
    facts.errors.push({ file, message: `perl scan failed: ${err instanceof Error ? err.message : String(err)}` });
  }
  return facts;
}

function scan(file: string, text: string, facts: FileFacts): void {
  const pos = lineIndex(text);
  const { tokens, errors } = lexPerl(text);
  const { match, unbalancedAt } = matchBrackets(tokens);
  const fileErrors: FileError[] = errors.map((e) => ({ file, message: e.message, line: pos(e.offset).line + 1 }));
  if (unbalancedAt !== undefined) fileErrors.push({ file, message: 'unbalanced brackets', line: pos(unbalancedAt).line + 1 });
  facts.errors.push(...fileErrors);

  const n = tokens.length;
  const shared = new FileRanges(text);
  const range = (s: number, e: number): Range => shared.range(s, e);
  // why: a receiver or iterable can be a term of any size (a chain of a thousand calls), and each call in it asks for
  // its own: past MAX_CALLEE characters only its start and its end (where the names are) are kept, so the work and
  // the memory stay linear in the file.
  const src = (a: number, b: number): string => {
    const from = tokens[a].start, to = tokens[b].end;
    return oneSpaced(to - from > MAX_CALLEE ? headAndEnd(text.slice(from, to)) : text.slice(from, to));
  };
  const endOf = (openTok: number): number => (match[openTok] >= 0 ? tokens[match[openTok]].end : text.length);
  const sc: ScanState = { file, text, facts, tokens, match, pos, range, src };

  const funcs: FuncSpan[] = [];
  const loops: LoopSpan[] = [];
  const calls: CallRec[] = [];
  const pendingSites: PendingSite[] = [];
  const consumed = new Uint8Array(n);
  const braceRole = new Map<number, { func?: FuncSpan; loop?: LoopSpan; pkg?: string }>();
  const bindings = new Map<string, Binding>();
  /** Per block depth: bindings changed or shadowed inside that block. */
  const saved: Saved[][] = [];
  /** Names bound at each frame depth, so closing a block visits only its own variables. */
  const scopes: string[][] = [];
  const frames: Frame[] = [{ open: -1, role: 'file', stmtStart: 0, endsStatement: true }];

  const top = (): Frame => frames[frames.length - 1];
  const stmtFrame = (): Frame => { for (let k = frames.length - 1; ; k--) if (frames[k].role === 'file' || frames[k].role === 'block') return frames[k]; };
  /** Depth of the innermost statement frame: a variable declared there lives until that block closes. */
  const stmtDepth = (): number => frames.lastIndexOf(stmtFrame()) + 1;
  const pkg = (): string | undefined => { for (let k = frames.length - 1; k >= 0; k--) if (frames[k].pkg !== undefined) return frames[k].pkg; return undefined; };

  /** The call whose argument list holds the current token (sprintf looked through), not crossing a block. */
  function enclosingCall(): CallRec | undefined {
    for (let k = frames.length - 1; k > 0; k--) {
      const f = frames[k];
      if (f.role === 'block' || f.role === 'file') return undefined;
      if (f.call && f.call.name !== 'sprintf') return f.call;
    }
    return undefined;
  }

  /** A query variable (or constant) used inside a call's arguments: the query flows into that call (one site per call). */
  function flowInto(b: Binding, i: number): void {
    const call = enclosingCall();
    if (!call || NOT_DB_CALLS.test(call.name) || b.flows.some((f) => f.call === call)) return;
    // One flow per value the variable may hold here (a branch that appended gives two).
    for (const a of b.alts) b.flows.push({ call, tok: i, parts: a.parts.slice(), lits: a.lits.slice() });
  }

  function finishBinding(b: Binding): void {
    if (b.flows.length) {
      for (const f of b.flows) if (f.lits.length) pendingSites.push({ parts: f.parts, lits: f.lits, ctx: tokens[f.tok].start, call: f.call });
    } else if (!b.used) for (const a of b.alts) if (a.lits.length) pendingSites.push({ parts: a.parts, lits: a.lits, ctx: tokens[a.lits[0]].start });
  }

  /** Remembers a binding's values before the block at `depth` changes them (once per block). */
  /**
   * `$sql .= join ', ', map { '(?, ?)' } @rows;`, `$sql .= $where;`: what is appended is not a literal (a literal is
   * read by chainAt). A variable holding a query part adds its values; anything else adds a part built at run time.
   */
  function appendTo(name: string, b: Binding, at: number): void {
    if (b.flows.length) return;
    const v = tokens[at];
    const held = v.kind === 'var' && isOp(tokens[at + 1], ';') ? bindings.get(v.text) : undefined;
    const depth = stmtDepth();
    if (b.depth < depth) save(name, b, depth);
    b.alts = held ? altProduct([b.alts, held.alts]) : b.alts.map((a) => ({ ...a, parts: [...a.parts, { dynamic: true }] }));
    if (held) held.used = true;
  }

  function save(name: string, b: Binding, depth: number): void {
    const list = (saved[depth] ??= []);
    if (!list.some((x) => x.b === b)) list.push({ name, b, alts: b.alts });
  }

  /**
   * Gives `name` new values. A `my` declaration in a nested block shadows the outer variable until the
   * block closes; an assignment in a nested block changes the outer one only on that path (see closeBlock);
   * at the variable's own level the new value replaces the old.
   */
  function bind(name: string, alts: Alt[], depth: number, declared = false): void {
    const old = bindings.get(name);
    if (old && old.depth < depth && !declared) {
      save(name, old, depth);
      old.alts = alts;
      return;
    }
    if (old && old.depth < depth && declared) (saved[depth] ??= []).push({ name, b: old, shadowed: old });
    else if (old) finishBinding(old);
    bindings.set(name, { alts, depth, flows: [], used: false });
    (scopes[depth] ??= []).push(name);
  }

  /** A block at `depth` closes: what its branch did to outer variables reaches on only if it did not leave. */
  function closeBlock(depth: number, f: Frame): void {
    const list = saved[depth];
    if (!list?.length) return;
    saved[depth] = [];
    for (const x of list) {
      if (x.shadowed) { bindings.set(x.name, x.shadowed); continue; }
      if (!x.alts || bindings.get(x.name) !== x.b) continue;
      if (f.exits) x.b.alts = x.alts;
      else if (!f.loop && f.role === 'block') x.b.alts = altUnion(x.alts, x.b.alts);
    }
  }

  /** True when the statement from `i` to its `;` carries a trailing `if`/`unless` modifier. */
  function hasModifier(i: number): boolean {
    for (let k = i + 1; k < n; k++) {
      const t = tokens[k];
      if (isOpener(t)) { if (match[k] < 0) return false; k = match[k]; continue; }
      if (isCloser(t) || isOp(t, ';')) return false;
      if (t.kind === 'word' && (t.text === 'if' || t.text === 'unless')) return true;
    }
    return false;
  }

  function resultVarBefore(s: number): string | undefined {
    if (!isOp(tokens[s - 1], '=')) return undefined;
    const v = tokens[s - 2];
    if (v?.kind === 'var') return v.text;
    if (isOp(v, ')') && match[s - 2] >= 0) {
      for (let k = match[s - 2] + 1; k < s - 2; k++) if (tokens[k].kind === 'var') return tokens[k].text;
    }
    return undefined;
  }

  /** Values of the operand tokens[s..e] of a concatenation. */
  function operand(s: number, e: number, lits: number[]): Alt[] {
    const t = tokens[s];
    if (s === e && t.kind === 'str' && t.parts) { lits.push(s); consumed[s] = 1; return [{ parts: t.parts, lits: [s] }]; }
    if (s === e && t.kind === 'num') return [{ parts: [{ text: t.text }], lits: [] }];
    if (s === e && (t.kind === 'var' || t.kind === 'word')) {
      const b = bindings.get(t.text);
      if (b) {
        consumed[s] = 1;
        b.used = true;
        for (const a of b.alts) lits.push(...a.lits);
        return b.alts;
      }
    }
    return [{ parts: [{ dynamic: true }], lits: [] }];
  }

  /**
   * A sprintf format's values with its conversions filled: the arguments are the comma-separated terms from
   * `last + 1` (after the format) to `end` (the closing parenthesis, or the end of the list); a conversion
   * that shows its argument's text takes that argument's values when it is one known term.
   */
  function sprintfAlts(formats: Alt[], last: number, end: number): Alt[] {
    const args: [number, number][] = [];
    for (let k = last + 1; k < end && isOp(tokens[k], ','); ) {
      let j = k + 1;
      while (j < end && !isOp(tokens[j], ',')) j = isOpener(tokens[j]) && match[j] > j ? match[j] + 1 : j + 1;
      if (j > k + 1) args.push([k + 1, j - 1]);
      k = j;
    }
    // An array or hash spreads into several arguments: which one a later conversion takes is not known.
    let spread = args.findIndex(([a]) => /^[@%]/.test(tokens[a].text) && (tokens[a].kind === 'var' || isOp(tokens[a], '@') || isOp(tokens[a], '%')));
    if (spread < 0) spread = args.length;
    const values: (Alt[] | undefined)[] = [];
    const argAlts = (k: number | undefined): Alt[] => {
      if (k === undefined || k >= spread) return DYNAMIC_ALT;
      if (!values[k]) {
        const [a, b] = args[k];
        const vs = a === b ? operand(a, b, []) : DYNAMIC_ALT;
        values[k] = vs.some((v) => v.lits.length) ? vs : DYNAMIC_ALT;
      }
      return values[k]!;
    };
    const out: Alt[] = [];
    for (const f of formats) {
      const pieces: Alt[][] = [];
      let leads: boolean | undefined;
      for (const p of readFormat(f.parts, 'printf').pieces) {
        if (p.kind === 'text') { pieces.push([{ parts: [{ text: p.text }], lits: [] }]); continue; }
        const v = p.kind === 'hole' && p.asText ? argAlts(p.arg) : DYNAMIC_ALT;
        leads ??= !pieces.length && v.some((x) => x.lits.length > 0);
        pieces.push(v);
      }
      for (const v of altProduct(pieces)) keepAlternative(out, { parts: v.parts, lits: leads ? [...v.lits, ...f.lits] : [...f.lits, ...v.lits] }, MAX_ALTS, altParts);
    }
    return out;
  }

  /** Builds the concatenation around the string at `i` and files it as a binding or a site. */
  function chainAt(i: number): void {
    // why: most strings are hash keys and messages; a lone one without a statement word and not assigned needs no chain.
    const prev = tokens[i - 1];
    const next = tokens[i + 1];
    // `$maker->insert('users', { name => $n })`: a builder's call makes the statement from the table and the hash.
    if (isOp(prev, '(') && tokens[i - 2]?.kind === 'word') {
      const built = builderStatement(tokens, match, i, src, (t) => text.slice(t.start, t.end));
      if (built) { pendingSites.push({ parts: built, lits: [i], ctx: tokens[i].start, call: enclosingCall() }); return; }
    }
    const formatted = (isOp(prev, '(') && tokens[i - 2]?.text === 'sprintf') || prev?.text === 'sprintf';
    if (!isOp(prev, '.') && !isOp(prev, '=') && !isOp(prev, '.=') && !isOp(prev, '=>') && !isOp(next, '.') && !formatted
      && !(tokens[i].parts ?? []).some((p) => !p.dynamic && QUICK.test(p.text))) return;
    const lits: number[] = [];
    const ops: Alt[][] = [];
    let first = i;
    while (isOp(tokens[first - 1], '.')) {
      const s = termStartBack(tokens, match, first - 2);
      if (s < 0) break;
      ops.push(operand(s, first - 2, lits));
      first = s;
    }
    ops.reverse();
    const dropLits = (count: number): void => { lits.length = count; };
    let litMark = lits.length;
    ops.push(operand(i, i, lits));
    let last = i;
    for (;;) {
      const nx = tokens[last + 1];
      if (nx && ((nx.kind === 'word' && nx.text === 'x') || (nx.kind === 'op' && (nx.text === '*' || nx.text === '/' || nx.text === '%' || nx.text === '**')))) {
        const e = termEndForward(tokens, match, last + 2);
        if (e < 0) break;
        ops[ops.length - 1] = [{ parts: [{ dynamic: true }], lits: [] }];
        dropLits(litMark);
        last = e;
        continue;
      }
      if (isOp(nx, '.')) {
        const e = termEndForward(tokens, match, last + 2);
        if (e < 0) break;
        litMark = lits.length;
        ops.push(operand(last + 2, e, lits));
        last = e;
        continue;
      }
      break;
    }
    let alts = altProduct(ops);
    if (!lits.length) return;
    // sprintf("… %s …", …): each conversion shows its argument (its text where known); the statement's context is the sprintf call's.
    let ctxStart = first;
    if (isOp(tokens[first - 1], '(') && tokens[first - 2]?.text === 'sprintf' && tokens[first - 2].kind === 'word') {
      alts = sprintfAlts(alts, last, match[first - 1] >= 0 ? match[first - 1] : listEnd(tokens, match, last + 1) + 1); ctxStart = first - 2;
    } else if (tokens[first - 1]?.kind === 'word' && tokens[first - 1].text === 'sprintf') {
      alts = sprintfAlts(alts, last, listEnd(tokens, match, last + 1) + 1); ctxStart = first - 1;
    }
    const p1 = tokens[ctxStart - 1];
    const p2 = tokens[ctxStart - 2];
    if (isOp(p1, '=') && p2?.kind === 'var' && p2.text.startsWith('$')) {
      const w = tokens[ctxStart - 3];
      bind(p2.text, alts, stmtDepth(), w?.kind === 'word' && (w.text === 'my' || w.text === 'our' || w.text === 'local' || w.text === 'state'));
      return;
    }
    if (isOp(p1, '.=') && p2?.kind === 'var') {
      const b = bindings.get(p2.text);
      const depth = stmtDepth();
      if (b && !b.flows.length) {
        if (b.depth < depth) save(p2.text, b, depth);
        // Appended in a loop to a value from before it: one part per iteration, how many is not known.
        const grows = b.depth < depth && frames.some((f, k) => k + 1 > b.depth && f.loop);
        b.alts = grows ? b.alts.map((a) => ({ ...a, parts: [...a.parts, { dynamic: true }] })) : altProduct([b.alts, alts]);
      } else bind(p2.text, alts.map((a) => ({ ...a, parts: [{ dynamic: true }, ...a.parts] })), depth);
      return;
    }
    if (isOp(p1, '=>') && p2?.kind === 'word' && (tokens[ctxStart - 3]?.text === 'constant' || (isOp(tokens[ctxStart - 3], '{') && tokens[ctxStart - 4]?.text === 'constant')
      || (isOp(tokens[ctxStart - 3], ',') && top().open > 0 && tokens[top().open - 1]?.text === 'constant'))) {
      bind(p2.text, alts, 0);
      return;
    }
    let call = enclosingCall();
    // `warn "…"`, `die "…"`, `$log->info("…")`: a message about SQL, not a statement
    const named = p1?.kind === 'word' ? p1 : isOp(p1, '(') && p2?.kind === 'word' ? p2 : undefined;
    if ((call && isReportingCall(call.text)) || (!call && named && isReportingCall(named.text))) return;
    if (!call && p1?.kind === 'word' && !NOT_CALLS.has(p1.text) && !isOp(p2, '->')) call = { name: p1.text, text: p1.text, start: p1.start, end: p1.end, tok: ctxStart - 1, resultVar: resultVarBefore(ctxStart - 1) };
    for (const a of alts) if (a.lits.length) pendingSites.push({ parts: a.parts, lits: a.lits, ctx: tokens[i].start, call });
  }

  function anonName(i: number): string {
    const p1 = tokens[i - 1];
    if (isOp(p1, '=') && tokens[i - 2]?.kind === 'var') return tokens[i - 2].text;
    if (isOp(p1, '=>') || isOp(p1, ',')) {
      let j = i - 2;
      if (isOp(tokens[j], ']') && match[j] > 0 && (isOp(tokens[match[j] - 1], '=>') || isOp(tokens[match[j] - 1], ','))) j = match[j] - 2;
      const key = tokens[j];
      if (key && (key.kind === 'str' || key.kind === 'word')) {
        const keyText = key.kind === 'str' ? joinSqlParts(key.parts ?? []).sql : key.text;
        let verb = tokens[j - 1];
        if ((isOp(verb, '=>') || isOp(verb, ',')) && isOp(tokens[j - 2], ']') && match[j - 2] > 0) verb = tokens[match[j - 2] - 1];
        if (verb?.kind === 'word' && ROUTE_VERBS.has(verb.text)) return `${verb.text === 'router' || verb.text === 'any' ? 'ANY' : verb.text === 'del' ? 'DELETE' : verb.text.toUpperCase()} ${keyText}`;
        return keyText;
      }
    }
    return '__ANON__';
  }

  function subAt(i: number): void {
    let j = i + 1;
    let name: string | undefined;
    let nameTok = i;
    if (tokens[j]?.kind === 'word') { name = tokens[j].text; nameTok = j; j++; }
    // prototype / signature and attributes up to the body
    while (j < n && !isOp(tokens[j], '{') && !isOp(tokens[j], ';')) {
      if (isOpener(tokens[j]) && match[j] > 0) j = match[j];
      j++;
    }
    if (!isOp(tokens[j], '{')) return; // a forward declaration
    let owner: string | undefined;
    if (name?.includes('::')) { const k = name.lastIndexOf('::'); owner = name.slice(0, k); name = name.slice(k + 2); }
    else if (name) owner = pkg();
    const anonymous = name === undefined;
    const fname = name ?? anonName(i);
    const span: FuncSpan = {
      anonymous, name: fname, owner: anonymous ? undefined : owner, qualified: !anonymous && owner && owner !== 'main' ? `${owner}::${fname}` : fname,
      start: tokens[i].start, end: endOf(j), nameStart: tokens[anonymous ? Math.max(0, i - 2) : nameTok].start, nameEnd: tokens[anonymous ? Math.max(0, i - 2) : nameTok].end,
    };
    if (anonymous && !(isOp(tokens[i - 1], '=') || isOp(tokens[i - 1], '=>') || isOp(tokens[i - 1], ','))) { span.nameStart = tokens[i].start; span.nameEnd = tokens[i].end; }
    funcs.push(span);
    braceRole.set(j, { func: span });
  }

  /** `for my $x (LIST) {`, `while (COND) {` at the start of a statement. */
  function compoundLoop(i: number, kind: string): void {
    let j = i + 1;
    while (tokens[j] && (tokens[j].kind === 'var' || (tokens[j].kind === 'word' && (tokens[j].text === 'my' || tokens[j].text === 'our' || tokens[j].text === 'state')))) j++;
    if (!isOp(tokens[j], '(') || match[j] < 0 || !isOp(tokens[match[j] + 1], '{')) return;
    const close = match[j];
    let iterable: string | undefined;
    let noCondition = false;
    if (close > j + 1) {
      let cStyle = false;
      for (let k = j + 1; k < close; k++) {
        if (isOp(tokens[k], ';')) {
          cStyle = true;
          // `for (my $p = 0; ; $p++) {`: an empty condition, so only `last` ends it.
          noCondition = isOp(tokens[k + 1], ';');
          break;
        }
      }
      if (kind === 'for' || kind === 'foreach') iterable = cStyle ? undefined : src(j + 1, close - 1);
      else {
        let k = j + 1;
        while (k < close && (tokens[k].kind === 'var' || tokens[k].text === 'my')) k++;
        if (isOp(tokens[k], '=') && k > j + 1 && k + 1 < close) iterable = src(k + 1, close - 1);
      }
    }
    const loop: LoopSpan = { kind, start: tokens[i].start, end: endOf(close + 1), iterable };
    // `while (1) {`: no condition that can end it: a poll or stream loop (analysis/loopKinds.ts).
    if ((kind === 'while' || kind === 'until') && close === j + 2 && tokens[j + 1].kind === 'num' && (tokens[j + 1].text === '1') === (kind === 'while')) loop.endless = true;
    if (noCondition && (kind === 'for' || kind === 'foreach')) loop.endless = true;
    if ((kind === 'for' || kind === 'foreach') && iterable !== undefined) loop.head = { start: tokens[j].start, end: tokens[close].end };
    if (perlRetryBody(tokens, match, close + 1)) loop.retry = true;
    // `last` / `return` in the body: with a small counted bound, a retry loop (decided in analysis/loopKinds.ts).
    const bodyEnd = match[close + 1];
    for (let k = close + 2; bodyEnd > 0 && k < bodyEnd; k++) if (tokens[k].kind === 'word' && (tokens[k].text === 'last' || tokens[k].text === 'return')) { loop.breaks = true; break; }
    const vars: string[] = [];
    for (let k = i + 1; k < j; k++) if (tokens[k].kind === 'var') vars.push(tokens[k].text.replace(/^[$@%]/, ''));
    if (vars.length) loop.vars = vars;
    loops.push(loop);
    braceRole.set(close + 1, { loop });
  }

  /** `EXPR for LIST;` / `do {…} while COND;`: the loop is the whole statement. */
  function modifierLoop(i: number, kind: string, stmtStart: number): void {
    let k = i + 1;
    while (k < n) {
      const t = tokens[k];
      if (isOpener(t)) { if (match[k] < 0) { k = n; break; } k = match[k] + 1; continue; }
      if (isCloser(t) || isOp(t, ';')) break;
      k++;
    }
    const lastTok = Math.min(k, n) - 1;
    const list = (kind === 'for' || kind === 'foreach') && lastTok > i;
    loops.push({
      kind, start: tokens[stmtStart].start, end: k < n && isOp(tokens[k], ';') ? tokens[k].end : tokens[lastTok].end,
      iterable: list ? src(i + 1, lastTok) : undefined,
      ...(list ? { head: { start: tokens[i + 1].start, end: tokens[lastTok].end } } : {}),
    });
  }

  /** `use My::Util qw(next_id);` brings in the names listed, `use My::Util;` its default exports, `use My::Util ();` nothing. */
  function useAt(i: number): void {
    const m = tokens[i + 1];
    // Pragmas (`strict`, `parent`, `lib`) and versions are not modules of the app.
    if (m?.kind !== 'word' || !/^[A-Z]/.test(m.text) || i !== stmtFrame().stmtStart) return;
    const out = facts.imports!;
    let k = i + 2;
    if (tokens[k]?.kind === 'num') k++;
    if (!tokens[k] || isOp(tokens[k], ';')) { out.push({ local: '*', name: '*', from: m.text }); return; }
    for (; k < n && !isOp(tokens[k], ';'); k++) {
      const t = tokens[k];
      // `qw(a b)` is lexed as an opaque term: its words are read from the source between the delimiters.
      const words = t.kind === 'str' ? (t.parts ?? []).map((p) => (p.dynamic ? '' : p.text)) : t.kind === 'opaque' && t.text === 'qw' ? [text.slice(t.start, t.end).replace(/^qw\s*\S/, '').slice(0, -1)] : [];
      for (const ws of words) {
        for (const w of ws.split(/[\s,]+/)) {
          if (/^&?[A-Za-z_]\w*$/.test(w)) out.push({ local: w.replace(/^&/, ''), name: w.replace(/^&/, ''), from: m.text });
          else if (w.startsWith(':')) out.push({ local: '*', name: '*', from: m.text }); // an export tag (`:all`)
        }
      }
    }
  }

  function callAt(i: number): CallRec | undefined {
    const w = tokens[i - 1];
    if (!w) return undefined;
    if (w.kind === 'word' && isOp(tokens[i - 2], '->')) {
      const s = termStartBack(tokens, match, i - 3);
      if (s < 0) return undefined;
      const receiver = src(s, i - 3);
      return { name: w.text, receiver, text: `${receiver}->${w.text}`, start: tokens[s].start, end: 0, tok: s, resultVar: resultVarBefore(s), open: i };
    }
    if (w.kind === 'word' && !NOT_CALLS.has(w.text) && tokens[i - 2]?.text !== 'sub') {
      const s = isOp(tokens[i - 2], '&') ? i - 2 : i - 1;
      const k = w.text.lastIndexOf('::');
      return { name: k < 0 ? w.text : w.text.slice(k + 2), receiver: k < 0 ? undefined : w.text.slice(0, k), text: w.text, start: tokens[s].start, end: 0, tok: s, resultVar: resultVarBefore(s), open: i };
    }
    if (w.kind === 'word' && w.text === 'sprintf') return { name: 'sprintf', text: 'sprintf', start: w.start, end: 0, tok: i - 1 };
    if (isOp(w, '->')) {
      const s = termStartBack(tokens, match, i - 2);
      if (s < 0) return undefined;
      const callee = src(s, i - 2);
      return { name: callee, text: `${callee}->`, start: tokens[s].start, end: 0, tok: s, resultVar: resultVarBefore(s) };
    }
    return undefined;
  }

  for (let i = 0; i < n; i++) {
    const t = tokens[i];
    if (t.kind === 'op') {
      switch (t.text) {
        case ';': { const f = top(); if (f.role === 'file' || f.role === 'block') f.stmtStart = i + 1; break; }
        case '(': case '[': {
          const call = t.text === '(' ? callAt(i) : undefined;
          frames.push({ open: i, role: t.text === '(' ? 'paren' : 'bracket', stmtStart: i + 1, call, endsStatement: false });
          break;
        }
        case '{': {
          const role = braceRole.get(i);
          const p = tokens[i - 1];
          let kind: Frame['role'] = 'block';
          let endsStatement = true;
          if (role?.func) endsStatement = !role.func.anonymous;
          else if (role?.loop) endsStatement = !BLOCK_LOOPS.has(role.loop.kind);
          else if (t.block === false) { kind = 'expr'; endsStatement = false; }
          else if (p && (p.kind === 'word' && (p.text === 'do' || p.text === 'eval' || p.text === 'sort' || p.text === 'constant'))) endsStatement = false;
          else if (p && !(p.kind === 'op' && (p.text === ')' || p.text === ';' || p.text === '{' || p.text === '}' || p.text === ':')) && p.kind !== 'word') { kind = 'expr'; endsStatement = false; }
          frames.push({ open: i, role: kind, stmtStart: i + 1, endsStatement, pkg: role?.pkg, loop: !!role?.loop });
          break;
        }
        case ')': case ']': case '}': {
          if (frames.length > 1 && match[i] >= 0 && frames[frames.length - 1].open === match[i]) {
            const f = frames.pop() as Frame;
            if (f.call) { f.call.end = t.end; if (f.call.name !== 'sprintf') calls.push(f.call); }
            for (let d = frames.length + 1; d < scopes.length; d++) {
              for (const name of scopes[d] ?? []) {
                const b = bindings.get(name);
                if (b && b.depth === d) { finishBinding(b); bindings.delete(name); }
              }
              scopes[d] = [];
            }
            for (let d = saved.length - 1; d >= frames.length + 1; d--) closeBlock(d, f);
            if (t.text === '}' && f.endsStatement) { const s = top(); if (s.role === 'file' || s.role === 'block') s.stmtStart = i + 1; }
          }
          break;
        }
      }
      continue;
    }
    if (t.kind === 'str') { if (!consumed[i]) chainAt(i); continue; }
    if (t.kind === 'var') {
      const b = bindings.get(t.text);
      const nx = tokens[i + 1];
      const pv = tokens[i - 1];
      if (pv?.kind === 'word' && pv.text === 'my' && isOp(nx, ';')) { bind(t.text, [{ parts: [], lits: [] }], stmtDepth(), true); continue; }
      if (!b) continue;
      if (isOp(nx, '=')) {
        // why: a new value replaces the query, unless it is built from the old one (`$sql = $sql . …`); a value
        // built from literals and query variables is bound by chainAt (in a nested block, only on that path).
        const v = tokens[i + 2];
        const built = v && (v.kind === 'str' || (v.kind === 'var' && bindings.has(v.text)));
        if (v?.text !== t.text && !built) { finishBinding(b); bindings.delete(t.text); }
        continue;
      }
      if (consumed[i]) continue;
      // `$sql = $base . $where`, `$db->query($base . ' LIMIT 1')`: a statement built from query variables.
      if (isOp(nx, '.') || (isOp(pv, '=') && (isOp(nx, ';') || isOp(nx, ')')) && tokens[i - 2]?.kind === 'var')) { chainAt(i); continue; }
      if (!isOp(nx, '.=')) flowInto(b, i);
      // (a literal, and `sprintf('…', …)`, are read by chainAt from their string)
      else if (tokens[i + 2] && tokens[i + 2].kind !== 'str' && tokens[i + 2].text !== 'sprintf') appendTo(t.text, b, i + 2);
      continue;
    }
    if (t.kind !== 'word') continue;
    const nx = tokens[i + 1];
    // `return …;`, `die …;`, `$c->halt(…);` standing alone: the rest of this block is not reached, nor what follows it.
    if ((EXIT_WORDS.has(t.text) && i === stmtFrame().stmtStart) || (EXIT_METHODS.has(t.text) && isOp(tokens[i - 1], '->'))) {
      const f = stmtFrame();
      if (top() === f && !hasModifier(i)) f.exits = true;
    }
    if (isOp(nx, '=>') || isOp(tokens[i - 1], '->') || (top().role === 'expr' && isOp(nx, '}'))) {
      if (isOp(tokens[i - 1], '->') && !isOp(nx, '(')) {
        const s = termStartBack(tokens, match, i - 2);
        if (s >= 0) { const receiver = src(s, i - 2); calls.push({ name: t.text, receiver, text: `${receiver}->${t.text}`, start: tokens[s].start, end: t.end, tok: s }); }
      }
      continue;
    }
    const b = bindings.get(t.text);
    if (b) { flowInto(b, i); continue; }
    switch (t.text) {
      case 'package': {
        const nameTok = tokens[i + 1];
        if (nameTok?.kind !== 'word') break;
        if (isOp(tokens[i + 2], '{')) braceRole.set(i + 2, { pkg: nameTok.text });
        else stmtFrame().pkg = nameTok.text;
        break;
      }
      case 'sub': subAt(i); break;
      case 'use': useAt(i); break;
      default:
        if (LOOP_WORDS.has(t.text)) {
          const f = stmtFrame();
          const atStart = i === f.stmtStart || (isOp(tokens[i - 1], ':') && i - 2 === f.stmtStart);
          if (top() !== f) break;
          if (atStart) compoundLoop(i, t.text);
          else if (f.stmtStart < i) modifierLoop(i, t.text, f.stmtStart);
        } else if (BLOCK_LOOPS.has(t.text) && isOp(nx, '{') && match[i + 1] > 0) {
          const close = match[i + 1];
          const e = listEnd(tokens, match, close + 1);
          const loop: LoopSpan = { kind: t.text, start: t.start, end: tokens[close].end, iterable: e >= close + 1 ? src(close + 1, e) : undefined };
          loops.push(loop);
          braceRole.set(i + 1, { loop });
        }
    }
  }
  for (const b of bindings.values()) finishBinding(b);

  const deep = tooDeep([...funcs, ...loops]);
  if (deep.size) {
    let first = Infinity;
    for (const x of deep) first = Math.min(first, x.start);
    facts.errors.push({ file, message: NESTING_NOTE, line: pos(first).line + 1 });
    for (const xs of [funcs, loops] as Span[][]) {
      let w = 0;
      for (const x of xs) if (!deep.has(x)) xs[w++] = x;
      xs.length = w;
    }
  }
  const loopInfo = new Map<LoopSpan, LoopInfo>();
  const loopCtx = enclosing(funcs, [], loops.map((l) => l.start));
  const loopIndex = new Map(loops.map((l, k) => [l, k]));
  const infoOf = (l: LoopSpan): LoopInfo => {
    let info = loopInfo.get(l);
    if (!info) {
      info = uniformLoop(l.kind, range(l.start, l.end), l.iterable);
      if (l.retry) info.retry = true;
      if (l.breaks) info.breaks = true;
      if (l.endless) info.endless = true;
      if (l.vars) info.vars = l.vars;
      const fn = loopCtx[loopIndex.get(l)!]?.fn;
      const from = perlLoopSources(text, tokens, match, l, loops, fn ? fn.start : 0, fn ? fn.end : text.length);
      if (from) info.from = { names: from.names, values: from.values.map((v) => range(v.start, v.end)) };
      loopInfo.set(l, info);
    }
    return info;
  };
  const loopLists = new SharedLists<LoopInfo>();
  const infosOf = (ls: readonly LoopSpan[]): LoopInfo[] => loopLists.share(ls.map(infoOf));
  const siteCtx = enclosing(funcs, loops, pendingSites.map((p) => p.ctx));
  calls.sort((a, b) => a.start - b.start);
  const callCtx = enclosing(funcs, loops, calls.map((c) => c.start));

  /** A whole number a token stands for: a number, or a variable every assignment of which before `before` sets that number. */
  const numberOf = (i: number, before: number): number | undefined => {
    const t = tokens[i];
    if (t.kind === 'num') return /^\d+$/.test(t.text) ? Number(t.text) : undefined;
    if (t.kind !== 'var') return undefined;
    let value: number | undefined;
    for (let j = 0; j < before; j++) {
      if (tokens[j].kind !== 'var' || tokens[j].text !== t.text || !isOp(tokens[j + 1], '=')) continue;
      const v = tokens[j + 2];
      if (v?.kind !== 'num' || !/^\d+$/.test(v.text) || !isOp(tokens[j + 3], ';') || (value !== undefined && value !== Number(v.text))) return undefined;
      value = Number(v.text);
    }
    return value;
  };
  /** The number a call passes for the statement's `LIMIT ?` (limitValue.ts), the statement being the argument at offset `at`. */
  const limitOf = (sql: string, call: CallRec, at: number): number | undefined => {
    const k = limitPlaceholderIndex(sql);
    // The call's argument list: the first `(` from where the call is written (`$self->dbh->select_all(`).
    let open = call.tok;
    while (open < n && !isOp(tokens[open], '(') && !isOp(tokens[open], ';') && tokens[open].start < at) open++;
    if (k === undefined || !isOp(tokens[open], '(') || match[open] < 0) return undefined;
    const groups: number[][] = [[]];
    for (let i = open + 1; i < match[open]; i++) {
      if (isOp(tokens[i], ',') || isOp(tokens[i], '=>')) { groups.push([]); continue; }
      groups[groups.length - 1].push(i);
      if (isOpener(tokens[i]) && match[i] >= 0) i = match[i];
    }
    const own = groups.findIndex((g) => g.some((i) => tokens[i].start <= at && tokens[i].end > at));
    const arg = own < 0 ? undefined : groups[own + 1 + k];
    return arg?.length === 1 ? numberOf(arg[0], open) : undefined;
  };

  perlSiteFacts(sc, pendingSites, siteCtx, infosOf, limitOf);
  facts.sites.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);

  const paramsOf = new Map<FuncSpan, string[] | undefined>();
  for (const f of funcs) {
    const def: FunctionDef = { name: f.name, range: range(f.start, f.end), nameRange: range(f.nameStart, f.nameEnd) };
    if (f.owner) def.owner = f.owner;
    const params = perlParams(text.slice(f.start, f.end));
    paramsOf.set(f, params);
    if (params) def.params = params;
    facts.functions.push(uniformFunction(def));
  }
  const branches = perlBranches(tokens, match, src);
  perlCallFacts(sc, calls, callCtx, branches, paramsOf, infosOf);
}

/** What the phases of one file's scan after its token walk share (each phase a function of its own; see perlSiteFacts). */
interface ScanState {
  file: string; text: string; facts: FileFacts; tokens: readonly Token[]; match: ArrayLike<number>;
  pos: (offset: number) => Position; range: (s: number, e: number) => Range; src: (a: number, b: number) => string;
}

/**
 * The file's sites, from the statements the token walk found.
 * why: this and perlCallFacts are functions of their own, not loops at the end of scan(): V8 compiles a function
 * whole, and scan() is the largest of the readers; a shape seen late in one of these loops sent the whole of scan()
 * back to be compiled again, twice in a scan of the bench's files.
 */
function perlSiteFacts(sc: ScanState, pendingSites: readonly PendingSite[], siteCtx: readonly Enclosing<FuncSpan, LoopSpan>[],
  infosOf: (ls: readonly LoopSpan[]) => LoopInfo[], limitOf: (sql: string, call: CallRec, at: number) => number | undefined): void {
  const { file, text, facts, tokens, pos, range } = sc;
  for (let si = 0; si < pendingSites.length; si++) {
    const p = pendingSites[si];
    const { sql, dynamic } = joinSqlParts(p.parts);
    if (!looksLikeSql(sql)) continue;
    const lits = [...new Set(p.lits)].sort((a, b) => litStart(tokens[a]) - litStart(tokens[b]));
    const literalRanges = lits.map((k) => range(litStart(tokens[k]), litEnd(tokens[k])));
    const fn = siteCtx[si].fn;
    // The statement is reported at the literal its text starts with (p.lits is in the order of the text it gives),
    // the first one in the sub that runs it when there is one (a shared constant stays in the list of ranges).
    const local = fn ? p.lits.filter((k) => litStart(tokens[k]) >= fn.start && litEnd(tokens[k]) <= fn.end) : p.lits;
    const first = tokens[(local.length ? local : p.lits)[0]];
    let end = litEnd(first);
    for (const k of local) if (litStart(tokens[k]) >= litStart(first) && litEnd(tokens[k]) > end) end = litEnd(tokens[k]);
    const site: SqlSite = {
      file, language: 'perl', range: range(litStart(first), end),
      literalRanges, sql: intern(sql), placeholders: placeholdersOf(sql), dynamic, loops: infosOf(siteCtx[si].loops),
    };
    const content = first.contentStart ?? litStart(first);
    let ts = content;
    while (ts < litEnd(first) && /\s/.test(text[ts])) ts++;
    site.textStart = pos(ts < litEnd(first) - (first.litEnd !== undefined ? 0 : 1) ? ts : content);
    if (p.call) {
      site.call = p.call.text;
      site.callRange = range(p.call.start, p.call.end || tokens[p.call.tok].end);
      if (p.call.resultVar) site.resultVar = p.call.resultVar;
      if (fn && memoised(text, fn, p.call.start, p.call.end || tokens[p.call.tok].end)) site.memoised = true;
      const limit = limitOf(sql, p.call, p.ctx);
      if (limit !== undefined) site.limit = limit;
    }
    if (fn) { site.function = fn.qualified; site.functionRange = range(fn.start, fn.end); }
    facts.sites.push(uniformSite(site));
  }
}

/** The file's calls, with the loops they run in, the branches on their sub's parameters around them, and how often a pass runs them. */
function perlCallFacts(sc: ScanState, calls: readonly CallRec[], callCtx: readonly Enclosing<FuncSpan, LoopSpan>[],
  branches: ReturnType<typeof perlBranches>, paramsOf: ReadonlyMap<FuncSpan, string[] | undefined>, infosOf: (ls: readonly LoopSpan[]) => LoopInfo[]): void {
  const { text, facts, tokens, match, range, src } = sc;
  for (let ci = 0; ci < calls.length; ci++) {
    const c = calls[ci];
    const fn = callCtx[ci].fn;
    const loopInfos = infosOf(callCtx[ci].loops);
    const site: CallSite = { name: intern(c.name), range: range(c.start, c.end), loops: loopInfos };
    if (c.receiver !== undefined) site.receiver = intern(c.receiver);
    if (fn) site.function = fn.qualified;
    if (c.open !== undefined && match[c.open] > c.open + 1) site.args = perlArgs(tokens, match, c.open, src);
    const params = fn ? paramsOf.get(fn) : undefined;
    const around = branches.filter((b) => b.bodyStart <= c.start && c.end <= b.bodyEnd && (!fn || (fn.start <= b.bodyStart && b.bodyEnd <= fn.end))).reverse();
    if (params) {
      const guards = around.filter((b) => params.some((p) => new RegExp(`[$@]${p}\\b`).test(b.condition))).map((b) => ({ condition: b.condition, otherwise: b.negated || undefined }));
      if (guards.length) site.guards = guards;
    }
    if (loopInfos.length) {
      const inner = callCtx[ci].loops[callCtx[ci].loops.length - 1];
      const innerInfo = loopInfos[loopInfos.length - 1];
      // `…; last;` / `…; return …;` right after the statement, in the same block: it runs once. Not so with a
      // modifier (`last unless @$rows;`): that leaves only when its condition holds.
      const after = /^[^;{}]*;\s*(?:#[^\n]*\n\s*)*(last|return)\b([^;]*)/.exec(text.slice(c.end, inner.end));
      if (after && !/\b(?:if|unless)\b/.test(after[2])) site.once = after[1] === 'last' ? [innerInfo] : loopInfos;
      if (around.some((b) => b.bodyStart >= inner.start && isKeyDispatch(b.condition))) site.dispatched = [innerInfo];
    }
    facts.calls.push(uniformCall(site));
  }
}

/**
 * A lookup kept for the request: `$c->stash->{me} //= $db->select_row(…)`, or a guard returning the kept
 * value first (`return $c->stash->{me} if $c->stash->{me};`) with the value stored after the call.
 */
function memoised(text: string, fn: { start: number; end: number }, callStart: number, callEnd: number): boolean {
  const stmt = text.lastIndexOf(';', callStart);
  if (/(?:\/\/|\|\|)=\s*$/.test(text.slice(Math.max(stmt + 1, fn.start), callStart))) return true;
  const before = text.slice(fn.start, callStart);
  const guards = [...before.matchAll(/\breturn\b[^;]*?\b(?:if|unless)\b([^;]*)/g)].map((m) => m[1]);
  if (!guards.length) return false;
  const after = text.slice(callEnd, fn.end);
  for (const m of after.matchAll(/(?:\{\s*['"]?(\$?)(\w+)['"]?\s*\}|->\s*(\w+)|\$(\w+))\s*(?:\/\/|\|\|)?=(?![=~>])/g)) {
    const key = m[2] ?? m[3] ?? m[4];
    const word = new RegExp(`\\b${key}\\b`);
    // why: a key held in a variable (`$CACHE{$id}`) is kept only where the guard or a copy reads that same hash;
    // the bare name `id` in a guard (`return unless $id`) tells nothing about what is kept.
    const holder = m[2] !== undefined ? /(\w+)\s*(?:->)?\s*$/.exec(after.slice(0, m.index))?.[1] : undefined;
    if (!m[1]) {
      if (guards.some((g) => word.test(g))) return true;
    } else if (holder && guards.some((g) => word.test(g) && new RegExp(`\\b${holder}\\b`).test(g))) return true;
    // A copy of the kept entry into a name before the call (`my $u = $CACHE{$id}; return $u if $u;`) guards it too.
    if (holder && copiedInto(before, holder, word).some((name) => guards.some((g) => new RegExp(`\\$${name}\\b`).test(g)))) return true;
  }
  return false;
}

/** The names that `text` assigns a value naming both `holder` and `key` (`my $u = $CACHE{$id}`, `my ($u) = $c{$id}`). */
function copiedInto(text: string, holder: string, key: RegExp): string[] {
  const holderWord = new RegExp(`\\b${holder}\\b`);
  const names: string[] = [];
  for (const m of text.matchAll(/(?:\bmy\s*)?\(?\s*\$(\w+)\s*\)?\s*=(?![=~>])([^;]*)/g)) {
    if (holderWord.test(m[2]) && key.test(m[2])) names.push(m[1]);
  }
  return names;
}

function litStart(t: Token): number {
  return t.litStart ?? t.start;
}

function litEnd(t: Token): number {
  return t.litEnd ?? t.end;
}

/** The sub an offset is in (innermost) and the loops around it, outermost first. */
type Enclosing<F, L> = { fn?: F; loops: L[] };

/**
 * For each offset, the innermost function holding it and the loops holding it inside that
 * function (outermost first). One sweep over spans sorted by start, so a file with thousands of
 * subs and calls stays linear.
 */
function enclosing<F extends Span, L extends Span & { head?: Span }>(funcs: readonly F[], loops: readonly L[], offs: readonly number[]): Enclosing<F, L>[] {
  const byStart = <T extends Span>(xs: readonly T[]): T[] => xs.slice().sort((a, b) => a.start - b.start || b.end - a.end);
  const fs = byStart(funcs);
  const ls = byStart(loops);
  const order = offs.map((_, i) => i).sort((a, b) => offs[a] - offs[b]);
  const out: Enclosing<F, L>[] = new Array(offs.length);
  let fi = 0;
  let li = 0;
  let activeF: F[] = [];
  let activeL: L[] = [];
  for (const q of order) {
    const off = offs[q];
    while (fi < fs.length && fs[fi].start <= off) activeF.push(fs[fi++]);
    while (li < ls.length && ls[li].start <= off) activeL.push(ls[li++]);
    if (activeF.some((f) => f.end <= off)) activeF = activeF.filter((f) => f.end > off);
    if (activeL.some((l) => l.end <= off)) activeL = activeL.filter((l) => l.end > off);
    const fn = activeF.length ? activeF[activeF.length - 1] : undefined;
    // The list a `for` walks is read once, before its iterations: what is written there is not in the loop.
    out[q] = { fn, loops: activeL.filter((l) => (!fn || l.start >= fn.start) && !(l.head && off >= l.head.start && off < l.head.end)) };
  }
  return out;
}

interface Span { start: number; end: number }

/**
 * The spans nested deeper than MAX_NESTING in one another. why: each offset looks through the spans open around it
 * (enclosing()); those nested deeper are read as part of the level above, so no nesting makes that quadratic.
 */
function tooDeep(spans: readonly Span[]): Set<Span> {
  const deep = new Set<Span>();
  const open: Span[] = [];
  for (const s of spans.slice().sort((a, b) => a.start - b.start || b.end - a.end)) {
    while (open.length && open[open.length - 1].end <= s.start) open.pop();
    if (open.length >= MAX_NESTING) deep.add(s);
    else open.push(s);
  }
  return deep;
}

function oneSpaced(s: string): string {
  return /\s/.test(s) ? s.replace(/\s+/g, ' ') : s;
}

/** `my ($a, $b) = @_;` or `my $a = shift;` lines at the start of a sub's body: its parameter names (`$self` left out). */
function perlParams(body: string): string[] | undefined {
  const list = /^[^{]*\{\s*my\s*\(([^)]*)\)\s*=\s*@_\s*;/.exec(body);
  let names: string[] = [];
  if (list) names = list[1].split(',').map((x) => x.trim().replace(/^[$@%]/, ''));
  else {
    const shifts = /^[^{]*\{((?:\s*my\s+\$\w+\s*=\s*shift(?:\s*\(\s*@_\s*\))?\s*;)+)/.exec(body);
    if (shifts) names = [...shifts[1].matchAll(/\$(\w+)/g)].map((m) => m[1]);
  }
  names = names.filter((x) => x && x !== 'self' && x !== 'class');
  return names.length ? names : undefined;
}

/** The argument texts of a call whose `(` is token `open` (split at its own commas). */
function perlArgs(tokens: readonly Token[], match: ArrayLike<number>, open: number, src: (a: number, b: number) => string): string[] | undefined {
  const close = match[open];
  const out: string[] = [];
  let from = open + 1;
  for (let k = open + 1; k <= close; k++) {
    if (k === close || isOp(tokens[k], ',') || isOp(tokens[k], '=>')) {
      if (k > from) out.push(intern(src(from, k - 1)));
      from = k + 1;
      if (out.length > 8) return undefined;
      continue;
    }
    if (match[k] > k && (isOp(tokens[k], '(') || isOp(tokens[k], '[') || isOp(tokens[k], '{'))) k = match[k];
  }
  return out.length ? out : undefined;
}

/** Every `if (…) {…}` / `elsif` / `unless` block with its condition's text, and `else {…}` blocks with the condition they negate. */
function perlBranches(tokens: readonly Token[], match: ArrayLike<number>, src: (a: number, b: number) => string): { condition: string; negated: boolean; bodyStart: number; bodyEnd: number }[] {
  const out: { condition: string; negated: boolean; bodyStart: number; bodyEnd: number }[] = [];
  let last: { condition: string; negated: boolean } | undefined;
  for (let i = 0; i < tokens.length - 1; i++) {
    const t = tokens[i];
    if (t.kind !== 'word') continue;
    if ((t.text === 'if' || t.text === 'elsif' || t.text === 'unless') && isOp(tokens[i + 1], '(')) {
      const close = match[i + 1];
      if (close < 0 || !isOp(tokens[close + 1], '{') || match[close + 1] < 0) continue;
      const condition = close > i + 2 ? src(i + 2, close - 1) : '';
      if (condition.length > 120) continue;
      last = { condition, negated: t.text === 'unless' };
      out.push({ ...last, bodyStart: tokens[close + 1].start, bodyEnd: tokens[match[close + 1]].end });
    } else if (t.text === 'else' && isOp(tokens[i + 1], '{') && match[i + 1] > 0 && last) {
      out.push({ condition: last.condition, negated: !last.negated, bodyStart: tokens[i + 1].start, bodyEnd: tokens[match[i + 1]].end });
    }
  }
  return out;
}
