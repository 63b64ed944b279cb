/**
 * What the syntax tree says about one statement's place in its function, the same for every tree-sitter grammar:
 * - the branches it sits in (their conditions, and whether it is in the `else` side), so a caller's known
 *   arguments can settle them (src/core/analysis/callContext.ts);
 * - whether the statement list holding it ends the loop after it (`db.Exec(…); break`): it runs once, not per pass;
 * - whether it sits in one branch of a dispatch on a key (`switch key { case "name": … }`) inside the loop;
 * - a loop's own traits: endless (`for {}`, `while True`, `loop {}`), its counter's bound, whether it can break,
 *   and the names its header binds.
 * Node types are matched by shape (`if_statement`, `if_expression`, `if`, …), never by language.
 */
import type { Guard } from '../model';
import type { GrammarTables, SyntaxNode as Node } from './syntaxTree';

const IFS = /^(?:if|unless|elsif|if_statement|if_expression|if_let_expression|elif_clause|else_if_clause|if_modifier|unless_modifier|conditional_expression|ternary_expression)$/;
const ELSE = /^(?:else|else_clause)$/;
const CASES = /^(?:expression_case|case_clause|switch_case|case_statement|when|match_arm|case_block|switch_block_statement_group)$/;
const SWITCHES = /^(?:expression_switch_statement|switch_statement|switch_expression|match_statement|match_expression|case|case_statement)$/;
const BREAK = /^break(?:_statement|_expression)?$/;
const LEAVE_ALL = /^(?:return|raise|throw)(?:_statement|_expression)?$/;
const STATEMENT_WRAP = /^(?:expression_statement)$/;
/** A case label or comparison with a literal key: `case "name":`, `when 'bio'`, `"icon" =>`, `key == "name"`. */
const LITERAL_KEY = /^\s*(?:case\s+|when\s+)?["'`:][^"'`]*["'`]?\s*(?:,\s*["'`][^"'`]*["'`]\s*)*(?:=>|:|then)?\s*$/;
/** A subject that names a key: a form field's name, a map's key. */
const KEY_SUBJECT = /(?:^|[^\w$])\$?(?:k|key|name|field|field_?name|form_?name|param)\b|FormName\s*\(|\.name\b|\[\s*["']name["']\s*\]|->\{\s*["']?name["']?\s*\}/i;

const K_IF = 1, K_ELSE = 2, K_CASE = 4, K_SWITCH = 8, K_BREAK = 16, K_LEAVE_ALL = 32, K_WRAP = 64;
const kindTables = new WeakMap<GrammarTables, Uint8Array>();
let lastTables: GrammarTables | undefined;
let lastKinds: Uint8Array = new Uint8Array(0);

/**
 * What a node's type is to these walks (K_* bits: the patterns above), read from a table by type id.
 * why: asked of every node of a loop's body and every ancestor of every call; one read of a table per grammar
 * (built once) instead of up to three regular expressions on the type's name each time.
 */
function kindOf(n: Node): number {
  const tables = n.tree.tables;
  if (tables !== lastTables) {
    let k = kindTables.get(tables);
    if (!k) {
      k = new Uint8Array(tables.types.length);
      for (let id = 0; id < k.length; id++) {
        const t = tables.types[id];
        k[id] = (IFS.test(t) ? K_IF : 0) | (ELSE.test(t) ? K_ELSE : 0) | (CASES.test(t) ? K_CASE : 0) | (SWITCHES.test(t) ? K_SWITCH : 0)
          | (BREAK.test(t) ? K_BREAK : 0) | (LEAVE_ALL.test(t) ? K_LEAVE_ALL : 0) | (STATEMENT_WRAP.test(t) ? K_WRAP : 0);
      }
      kindTables.set(tables, k);
    }
    lastTables = tables;
    lastKinds = k;
  }
  // ERROR nodes (type id 65535) are past the end of the table: their type matches none of the patterns.
  return lastKinds[n.typeId] ?? 0;
}

/** At most this many branches are recorded per statement (the innermost ones). */
const MAX_GUARDS = 4;

/** The text of a node, at most `max` characters (longer conditions are never settled by a caller). */
function short(n: Node, max = 120): string | undefined {
  return n.endIndex - n.startIndex > max ? undefined : n.text;
}

/** The condition of an `if`-like node (its field, or the first named child that is neither block nor body). */
function conditionOf(n: Node): Node | null {
  return n.childForFieldName('condition') ?? n.childForFieldName('value') ?? null;
}

/**
 * The branches between `node` and `fn` (the function holding it), innermost first: each condition's text and
 * whether `node` is on its `else` side. `unless` branches are recorded negated.
 */
export function guardsOf(node: Node, fn: Node | null): Guard[] | undefined {
  let out: Guard[] | undefined;
  let child = node;
  for (let p = node.parent; p && p !== fn; child = p, p = p.parent) {
    if (!(kindOf(p) & K_IF)) continue;
    const cond = conditionOf(p);
    if (!cond || cond === child || (child.startIndex >= cond.startIndex && child.endIndex <= cond.endIndex)) continue;
    const text = short(cond);
    if (text === undefined) continue;
    // In the alternative (an else child, or after the consequence) the condition is false.
    const cons = p.childForFieldName('consequence') ?? p.childForFieldName('body');
    let otherwise = (kindOf(child) & K_ELSE) !== 0 || child.field === 'alternative'
      || (cons !== null && child.startIndex >= cons.endIndex && p.type !== 'if_modifier' && p.type !== 'unless_modifier');
    if (/unless/.test(p.type)) otherwise = !otherwise;
    (out ??= []).push({ condition: text, otherwise: otherwise || undefined });
    if (out.length >= MAX_GUARDS) break;
  }
  return out;
}

/** How a statement leaves the loops around it right after it runs: `break` leaves the innermost, `return` all of them. */
export type Leaves = 'break' | 'all' | undefined;

/**
 * Per tree, for the long statement lists leavesAfter has read: for each position, the position of the first statement
 * at or after it that leaves (a `break`, `return`, an exit call), or the list's length when none does; -1 not yet read.
 * why: each call of a long loop body asks about the rest of the same list: read once, a list costs its length in all,
 * not its length per call in it.
 */
export type LeavingMemo = Map<number, Int32Array>;

/** Lists up to this many children after the statement are read again each time (cheaper than remembered). */
const SHORT_REST = 32;

const STAYS = 0, BREAKS = 1, LEAVES_ALL = 2;

/** Whether statement `s` of a list leaves the loop: by a plain `break` (BREAKS), `return` / an exit (LEAVES_ALL), or not. */
function leaving(s: Node, isExit: (n: Node) => boolean): number {
  if (!s.isNamed) return STAYS;
  const k = kindOf((kindOf(s) & K_WRAP) !== 0 && s.firstNamedChild ? s.firstNamedChild : s);
  if ((k & K_BREAK) !== 0 && !/\w/.test(s.text.replace(/^break\b/, '').replace(/[;\s]/g, ''))) return BREAKS;
  return (k & K_LEAVE_ALL) !== 0 || isExit(s) ? LEAVES_ALL : STAYS;
}

/** The position of the first child of `p` after `child` that leaves the loop (see leaving), or the number of children. */
function nextLeaving(p: Node, child: Node, isExit: (n: Node) => boolean, memo: LeavingMemo): number {
  const cs = p.children;
  let t = child.index + 1;
  if (cs.length - t <= SHORT_REST) {
    while (t < cs.length && leaving(cs[t], isExit) === STAYS) t++;
    return t;
  }
  let next = memo.get(p.id);
  if (!next) memo.set(p.id, next = new Int32Array(cs.length + 1).fill(-1));
  const from = t;
  while (t < cs.length && next[t] < 0 && leaving(cs[t], isExit) === STAYS) t++;
  const found = next[t] >= 0 ? next[t] : t;
  for (let i = from; i <= t; i++) next[i] = found;
  return found;
}

/**
 * Whether the statement list holding `node`, up to `body` (the innermost loop's body), goes on unconditionally to
 * `break` or `return` after it: then the statement runs at most once per run of the loop.
 */
export function leavesAfter(node: Node, body: Node, isExit: (n: Node) => boolean, isFunction: (n: Node) => boolean, memo: LeavingMemo): Leaves {
  // A closure in the loop (a task started per element): its `return` ends the closure, not the loop.
  for (let p = node.parent; p && p.id !== body.id; p = p.parent) if (isFunction(p)) return undefined;
  let child = node;
  for (let p = node.parent; p; child = p, p = p.parent) {
    // A branch or a case: what follows it in the list around it is on every path; keep climbing.
    // (An anonymous child is not among the named children: nothing after it was read.)
    if (child.isNamed) {
      const at = nextLeaving(p, child, isExit, memo);
      // A `break` in a case of a switch leaves the switch, not the loop.
      if (at < p.children.length) return leaving(p.children[at], isExit) === BREAKS ? ((kindOf(p) & K_CASE) !== 0 ? undefined : 'break') : 'all';
    }
    if (p.id === body.id) return undefined;
    // Leaving a branch: what follows the `if` runs only on some paths through the branch's siblings; a loop inside stops.
    if ((kindOf(p) & (K_IF | K_CASE | K_ELSE)) !== 0) return undefined;
  }
  return undefined;
}

/** True when `node` sits, below `body`, in one case of a switch (or an `if` comparison) on a literal key of what the loop walks. */
export function dispatchedIn(node: Node, body: Node): boolean {
  for (let p = node.parent; p && p.id !== body.id; p = p.parent) {
    const kind = kindOf(p);
    if (kind & K_CASE) {
      const sw = p.parent && (kindOf(p.parent) & K_SWITCH) !== 0 ? p.parent : p.parent?.parent;
      const subject = sw?.childForFieldName('value') ?? sw?.childForFieldName('condition') ?? sw?.childForFieldName('subject') ?? null;
      const label = caseLabel(p);
      if (subject && KEY_SUBJECT.test(subject.text) && label !== undefined && LITERAL_KEY.test(label)) return true;
    } else if (kind & K_IF) {
      const cond = conditionOf(p);
      const text = cond ? short(cond) : undefined;
      if (text && isKeyDispatch(text)) return true;
    }
  }
  return false;
}

/** A condition comparing a key (a form field's name, a map's key) with one literal: `key == "name"`, `$key eq 'bio'`. */
export function isKeyDispatch(text: string): boolean {
  return KEY_SUBJECT.test(text) && /(?:==|===|\beq\b)\s*["'`:]|["'`]\s*(?:==|===|\beq\b)/.test(text) && !/&&|\|\||\band\b|\bor\b/.test(text);
}

/** The label of a case: its text up to the first `:` / `=>` / `then`, or the pattern / value field. */
function caseLabel(c: Node): string | undefined {
  const f = c.childForFieldName('pattern') ?? c.childForFieldName('value');
  if (f) return f.text;
  const m = /^[^\n]*?(?::|=>|then|\n)/.exec(c.text);
  return m ? m[0] : undefined;
}

/** Characters past which canBreak steps over a nested loop or function instead of reading it. */
const STEP_OVER = 256;

/** Whether the loop's body can leave it by `break` (not inside a nested loop or function). */
export function canBreak(body: Node, isLoopOrFunction: (n: Node) => boolean): boolean {
  // why: the body's nodes sit together in the tree's pre-order list: one pass over them, a table read each, and only a
  // `break` or `return` found climbs to see what holds it. A nested loop or function longer than STEP_OVER is stepped
  // over whole (nothing in it leaves this loop), so loops nested in loops are not read again at every level; a
  // shorter node costs less to read than to ask about.
  if ((kindOf(body) & (K_BREAK | K_LEAVE_ALL)) !== 0 && body.isNamed) return true;
  const nodes = body.tree.nodes;
  const end = lastBelow(body).id;
  for (let i = body.id + 1; i <= end; i++) {
    const x = nodes[i];
    if ((kindOf(x) & (K_BREAK | K_LEAVE_ALL)) !== 0) {
      if (x.isNamed && reachedFrom(body, x, isLoopOrFunction)) return true;
    } else if (x.endIndex - x.startIndex > STEP_OVER && x.isNamed && isLoopOrFunction(x)) i = lastBelow(x).id;
  }
  return false;
}

/** The last node of `x`'s subtree in pre-order (`x` itself when it has no children). */
function lastBelow(x: Node): Node {
  for (let c = x.children; c.length !== 0; c = x.children) x = c[c.length - 1];
  return x;
}

/** True when the walk from `body` down its named children reaches `x` without entering a nested loop or function. */
function reachedFrom(body: Node, x: Node, isLoopOrFunction: (n: Node) => boolean): boolean {
  for (let a: Node | null = x; a; a = a.parent) {
    if (a === body) return true;
    if (!a.isNamed || isLoopOrFunction(a)) return false;
  }
  return false;
}

/** An endless loop: no iterable, and its condition is absent or constant true (`for {}`, `while True:`, `loop {}`, `for (;;)`). */
export function isEndless(loop: Node, body: Node | null, iterable: string | undefined): boolean {
  if (iterable !== undefined && !/^[\s;()]*(?:true|True|TRUE|1)?[\s;()]*$/.test(iterable)) return noCondition(iterable);
  const cond = loop.childForFieldName('condition');
  if (cond) return /^[\s;()]*(?:true|True|TRUE|1)?[\s;()]*$/.test(cond.text);
  // No condition field: the header between the keyword and the body must be empty (`for {`, `loop {`, `for (;;)`).
  const head = loop.text.slice(0, body ? body.startIndex - loop.startIndex : loop.text.length);
  return /^\s*(?:for|loop|while|do)\s*(?:\(\s*;\s*;\s*\)|\(\s*(?:true|1)\s*\)|true|1)?\s*(?:do)?\s*$/.test(head);
}

/** A counted header whose condition is empty (`page := 0; ; page++`, `let i = 0; ; i++`): only a `break` ends the loop. */
function noCondition(header: string): boolean {
  const parts = header.split(';');
  return parts.length === 3 && /^\s*(?:true|True|TRUE|1)?\s*$/.test(parts[1]);
}

/** Words of a loop's header that are not names it binds. */
const HEADER_WORDS = new Set(['for', 'foreach', 'in', 'of', 'range', 'let', 'const', 'var', 'my', 'our', 'mut', 'do', 'each', 'as', 'while', 'loop', '_']);

/** The names a loop's header binds (`for _, o := range orders`, `for o in orders`, `|o|`, `(o) =>`), without the iterable's. */
export function headerNames(loop: Node, body: Node | null, iterable: Node | undefined): string[] {
  let head = '';
  if (body && body.startIndex > loop.startIndex) head = loop.tree.text.slice(loop.startIndex, body.startIndex);
  if (iterable && iterable.startIndex >= loop.startIndex && iterable.endIndex <= (body?.startIndex ?? loop.endIndex)) {
    const a = iterable.startIndex - loop.startIndex, b = iterable.endIndex - loop.startIndex;
    head = head.slice(0, a) + ' ' + head.slice(b);
  }
  // A block's or closure's own parameters (`do |o|`, `(o) => …`, `function (o) {`, `|o| …`).
  const params = body ? (body.childForFieldName('parameters') ?? body.namedChildren.find((c) => /parameters$/.test(c.type))) : undefined;
  if (params) head += ' ' + params.text;
  const out: string[] = [];
  const words = /[$@]?([A-Za-z_]\w*)/g;
  for (let m = words.exec(head); m; m = words.exec(head)) {
    const w = m[1];
    if (!HEADER_WORDS.has(w) && !out.includes(w)) out.push(w);
  }
  return out;
}
