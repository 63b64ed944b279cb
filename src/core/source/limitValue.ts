/**
 * The value the code passes for a statement's `LIMIT ?`: the bound argument in the placeholder's place,
 * when it is a whole-number literal, a variable every reaching assignment of which sets the same number
 * (`const perPage = 30`, `limit := 50`), or a parameter with such a default (`def list(limit=50)`).
 * Anything else is unknown, and the fill takes a realistic page (fillPlaceholders' DEFAULT_PAGE), the
 * same in every language.
 */
import type { SyntaxNode as Node } from './syntaxTree';
import type { LangSpec } from './lang/treeSitter/langSpec';
import { argNodes, type ValueFlow } from './valueFlow';

/** A whole number written as a literal (`int_literal`, `integer`, `number`, `integer_literal` …). */
const NUMBER = /^(?:int(?:eger)?(?:_literal)?|number|decimal_integer_literal)$/;
/** List literals whose elements are the bound values (`[a, b]`, `(a, b)`, `array(a, b)`). */
const LISTS = /^(?:array|list|tuple|array_creation_expression|array_expression|parenthesized_expression)$/;

/** A positional placeholder of any driver (`?`, `%s`, `$1`); named ones (`:n`, `%(n)s`) are bound by name, not place. */
const POSITIONAL = /\?|%s|\$\d+/g;

/** The index of the positional placeholder that LIMIT takes among the statement's, or undefined. */
export function limitPlaceholderIndex(sql: string): number | undefined {
  const m = /\bLIMIT\s+(?:(?:\?|%s|\$\d+)\s*,\s*)?(?:\?|%s|\$\d+)/i.exec(sql);
  if (!m) return undefined;
  // `LIMIT ?, ?` is offset, count: the count is the last placeholder of the clause.
  const upTo = sql.slice(0, m.index + m[0].length);
  return (upTo.match(POSITIONAL) ?? []).length - 1;
}

/** A whole number the node stands for where it is written, or undefined. */
function numberAt(node: Node, flow: ValueFlow, depth = 0): number | undefined {
  if (depth > 4) return undefined;
  if (NUMBER.test(node.type) && /^\d+$/.test(node.text)) return Number(node.text);
  if (node.namedChildCount === 1 && !/identifier|name|variable/.test(node.type)) return numberAt(node.firstNamedChild!, flow, depth + 1);
  const key = flow.keyOf(node);
  if (!key) return undefined;
  const defs = flow.reaching(key, node);
  if (defs.length) {
    const values = defs.map((d) => (d.kind === 'set' && d.value ? numberAt(d.value, flow, depth + 1) : undefined));
    return values.every((v) => v !== undefined && v === values[0]) ? values[0] : undefined;
  }
  return parameterDefault(flow.functionOf(node), node.text.replace(/^[$@]+/, ''));
}

/** The whole-number default of the parameter `name` of `fn` (`limit=50`, `$limit = 50`, `limit = 50`), or undefined. */
function parameterDefault(fn: Node, name: string): number | undefined {
  const params = fn.childForFieldName('parameters');
  if (!params) return undefined;
  for (const p of params.namedChildren) {
    const named = p.namedChildren;
    if (named.length < 2) continue;
    const id = named[0].text.replace(/^[$@]+/, '');
    const last = named[named.length - 1];
    if (id === name && NUMBER.test(last.type) && /^\d+$/.test(last.text)) return Number(last.text);
  }
  return undefined;
}

/**
 * The number passed for `LIMIT ?` of `sql` by a call whose arguments are `args`, the statement being
 * `args[sqlArg]` (the bound values follow it, or sit in one list literal after it; -1: all of `args` are bound
 * values, as those of a prepared statement's run), or undefined.
 */
export function limitPassed(sql: string, args: readonly Node[], sqlArg: number, flow: ValueFlow, spec: LangSpec): number | undefined {
  const k = limitPlaceholderIndex(sql);
  if (k === undefined || sqlArg < -1) return undefined;
  let bound = args.slice(sqlArg + 1);
  if (bound.length === 1 && LISTS.test(bound[0].type)) bound = argNodes(bound[0], spec);
  const arg = bound[k];
  return arg ? numberAt(arg, flow) : undefined;
}

/** Methods that bind the next placeholder's value on a statement (`sqlx::query(…).bind(v)`). */
const BINDS = new Set(['bind']);

/** The values bound by a chain of `.bind(v)` calls on the call `call`, in order. */
export function boundInChain(call: Node, spec: LangSpec): Node[] {
  const out: Node[] = [];
  let cur = call;
  for (let member = cur.parent; member && member.namedChildren[0]?.id === cur.id; member = cur.parent) {
    const name = member.childForFieldName('field') ?? member.childForFieldName('property') ?? member.childForFieldName('name');
    const outer = member.parent;
    if (!name || !BINDS.has(name.text) || !outer || !spec.calls.has(outer.type)) break;
    const args = outer.childForFieldName('arguments');
    out.push(...argNodes(args, spec).slice(0, 1));
    cur = outer;
  }
  return out;
}
