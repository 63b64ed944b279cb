/**
 * Retry loops: `for i := 0; i < 100; i++ { if _, err := db.Exec(…); err != nil { continue }; break }`. Every pass
 * through the body that gets to its end leaves the loop (`break`, `return`, `raise`), and only an error path
 * (`continue`, a `catch` / `rescue` / `except` clause) goes round again, so the statements in it run once when
 * they succeed: not once per element. Read from the syntax tree, the same for every tree-sitter grammar.
 */
import type { SyntaxNode as Node } from './syntaxTree';

const BREAK = /^(?:break|return)(?:_statement|_expression)?$/;
/** Leaving by an error: not the way a retry loop ends when the statement succeeds. */
const FAIL = /^(?:raise|throw|exit)(?:_statement|_expression)?$/;
const CONTINUE = /^(?:continue|next)(?:_statement|_expression)?$/;
/** Nodes that hold a list of statements, the last of which decides where the list goes. */
const LISTS = new Set(['block', 'statement_block', 'compound_statement', 'body_statement', 'do_block', 'statement_list',
  'expression_statement', 'else_clause', 'else', 'then', 'begin_block', 'parenthesized_statements']);
/** Error paths inside a try: they may fall through (the loop goes round again: a retry). */
const HANDLERS = /(?:^|_)(?:catch|rescue|except|ensure|finally|finalizer)(?:_|$)|^(?:else|else_clause)$/;
const IFS = new Set(['if_statement', 'if_expression', 'if', 'unless', 'elsif']);

/** Whether a path can run past the end, and whether one leaves the loop by `break` / `return`. */
interface Paths { falls: boolean; leaves: boolean }
const FALLS: Paths = { falls: true, leaves: false };
const LEAVES: Paths = { falls: false, leaves: true };
/** `continue`, or an error thrown: neither runs past the end nor ends the retries by succeeding. */
const GOES_ROUND: Paths = { falls: false, leaves: false };

/**
 * True when `body` never runs to its end (every path breaks, returns, continues or throws) and some path
 * breaks or returns: the loop repeats only through `continue` or an error handler. `exits(n)` tells a call
 * that never returns (`panic`, `die`, `halt`).
 */
export function isRetryBody(body: Node, exits: (n: Node) => boolean): boolean {
  const p = paths(body, exits, false, 0);
  return !p.falls && p.leaves;
}

function paths(n: Node, exits: (n: Node) => boolean, inTry: boolean, depth: number): Paths {
  if (depth > 20) return FALLS;
  const t = n.type;
  if (BREAK.test(t)) return LEAVES;
  if (CONTINUE.test(t) || FAIL.test(t) || exits(n)) return GOES_ROUND;
  if (t === 'try_statement' || t === 'begin') {
    // Only the body is the path of success; the handlers are where it goes round again.
    const body = n.childForFieldName('body');
    return body ? paths(body, exits, true, depth + 1) : last(n, exits, true, depth);
  }
  if (t === 'elif_clause' || t === 'else_if_clause') {
    const cons = n.childForFieldName('consequence') ?? n.childForFieldName('body');
    return cons ? paths(cons, exits, inTry, depth + 1) : FALLS;
  }
  if (IFS.has(t)) {
    const branches: Node[] = [];
    const cons = n.childForFieldName('consequence') ?? n.childForFieldName('body');
    if (cons) branches.push(cons);
    const alts = n.childrenForFieldName('alternative').filter((a): a is Node => !!a);
    branches.push(...alts);
    if (!branches.length) return FALLS;
    let falls = alts.length === 0 || alts.every((a) => /elif|elsif|else_if/.test(a.type) && !a.childForFieldName('alternative'));
    let leaves = false;
    for (const b of branches) {
      const p = paths(b, exits, inTry, depth + 1);
      if (p.falls) falls = true;
      if (p.leaves) leaves = true;
    }
    // A try ending in `if ok { return }`: the check of the result that ends the retries.
    if (inTry && alts.length === 0 && leaves) return LEAVES;
    return { falls, leaves };
  }
  if (t === 'with_statement') {
    const body = n.childForFieldName('body');
    return body ? paths(body, exits, inTry, depth + 1) : FALLS;
  }
  if (t === 'match_expression') {
    const arms = n.childForFieldName('body')?.namedChildren.filter((a) => a.type === 'match_arm') ?? [];
    if (!arms.length) return FALLS;
    let falls = false, leaves = false;
    for (const a of arms) {
      // `Err(e) => …` is Rust's error handler: it may run on into the next pass (a retry).
      if (/^Err\b/.test(a.childForFieldName('pattern')?.text ?? '')) continue;
      const v = a.childForFieldName('value');
      const p = v ? paths(v, exits, inTry, depth + 1) : FALLS;
      if (p.falls) falls = true;
      if (p.leaves) leaves = true;
    }
    return { falls, leaves };
  }
  if (LISTS.has(t)) return last(n, exits, inTry, depth);
  return FALLS;
}

/** Where a statement list goes: where its last statement goes (handlers and comments aside). */
function last(n: Node, exits: (n: Node) => boolean, inTry: boolean, depth: number): Paths {
  const cs = n.namedChildren;
  for (let i = cs.length - 1; i >= 0; i--) {
    const c = cs[i];
    if (c.type === 'comment' || c.type === 'block_parameters' || c.type === 'parameters') continue;
    if (HANDLERS.test(c.type)) { inTry = true; continue; }
    return paths(c, exits, inTry, depth + 1);
  }
  return FALLS;
}
