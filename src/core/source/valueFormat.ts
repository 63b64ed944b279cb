/**
 * Format strings as values: `fmt.Sprintf`, `sprintf`, `util.format`, `format!`, `"…".format()`, `"…" % (…)`.
 * Each hole that shows its argument's text takes that text when it is known (a literal, or a variable
 * holding one) and is a dynamic part otherwise (see formatHoles.ts for which hole takes which argument).
 */
import type { SyntaxNode as Node } from './syntaxTree';
import type { FormatStyle } from './lang/treeSitter/langSpec';
import type { SqlPart } from './sqlText';
import { readFormat } from './formatHoles';
import { product, type Variant } from './valueFlow';

/** A dynamic part that stands for an interpolated expression (readLiteral with holes). */
export type HolePart = SqlPart & { hole?: Node };

const DYNAMIC: Variant[] = [{ parts: [{ dynamic: true }], literals: [], helper: undefined }];
/** Argument node types that spread a list into several arguments (`*xs`, `...xs`, `@xs` in Perl is the lexer's). */
const SPREADS = /splat|spread|unpacking/;

/**
 * Fills the holes of each format variant. `evalArg` gives an argument's values; `byName` those of a
 * variable named in the format itself (Rust's `{name}`), undefined when unknown. With `appendRest`
 * (Node's util.format), the arguments no hole took follow the text, each after a space.
 */
export function evalFormat(fmt: Variant[], style: FormatStyle, args: Node[], evalArg: (n: Node) => Variant[],
  byName: (name: string) => Variant[] | undefined, appendRest = false): Variant[] {
  const positional: Node[] = [];
  const named = new Map<string, Node>();
  for (const a of args) {
    if (a.type !== 'keyword_argument') { positional.push(a); continue; }
    const n = a.childForFieldName('name'), v = a.childForFieldName('value');
    if (n && v) named.set(n.text, v);
  }
  // After an argument that spreads a list, which argument a hole takes is not known.
  let spread = positional.findIndex((a) => SPREADS.test(a.type));
  if (spread < 0) spread = positional.length;
  const known = (vs: Variant[]) => (vs.some((v) => v.literals.length) ? vs : DYNAMIC);
  const argText = (k: number | undefined): Variant[] => (k !== undefined && k < spread ? known(evalArg(positional[k])) : DYNAMIC);
  const out: Variant[] = [];
  for (const f of fmt) {
    const reading = readFormat(f.parts, style);
    const pieces: Variant[][] = [];
    // `format!("{} LIMIT {}", query, n)`: the statement starts with an argument's text, so its literals come first.
    let leads: boolean | undefined;
    for (const p of reading.pieces) {
      if (p.kind === 'text') { pieces.push([{ parts: [{ text: p.text }], literals: [], helper: undefined }]); continue; }
      if (p.kind === 'dynamic') { pieces.push(DYNAMIC); continue; }
      let value = DYNAMIC;
      if (p.asText) {
        if (p.arg !== undefined) value = argText(p.arg);
        else if (p.name !== undefined) {
          const v = named.get(p.name);
          const vs = v ? undefined : byName(p.name);
          value = v ? known(evalArg(v)) : vs ? known(vs) : DYNAMIC;
        }
      }
      leads ??= !pieces.length && value.some((v) => v.literals.length > 0);
      pieces.push(value);
    }
    if (appendRest && reading.aligned) {
      for (let k = reading.taken; k < positional.length; k++) pieces.push([{ parts: [{ text: ' ' }], literals: [], helper: undefined }], argText(k));
    }
    for (const v of product(pieces)) out.push({ parts: v.parts, literals: leads ? [...v.literals, ...f.literals] : [...f.literals, ...v.literals], helper: f.helper || v.helper });
  }
  return out.length ? out : DYNAMIC;
}
