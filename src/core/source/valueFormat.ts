/**
 * Format strings as values: `fmt.Sprintf`, `sprintf`, `format!`, `"…".format()`, `"…" % (…)`. Each
 * hole takes the text of its argument when that is known (a literal, or a variable holding one) and
 * is a dynamic part otherwise; `%%`, `{{`, `}}` stay literal.
 */
import type { SyntaxNode as Node } from './syntaxTree';
import type { FormatStyle } from './langSpec';
import type { SqlPart } from './sqlText';
import { product, type Variant } from './valueFlow';

/** A dynamic part that stands for an interpolated expression (readLiteral with holes). */
export type HolePart = SqlPart & { hole?: Node };

const PRINTF = /%%|%(?:\d+\$)?[-+# 0']*(?:\d+|\*)?(?:\.(?:\d+|\*))?([vTtbcdoOqxXUeEfFgGsp])/g;
const BRACE = /\{\{|\}\}|\{([^{}:]*)(?::([^{}]*))?\}/g;
const DYNAMIC: Variant[] = [{ parts: [{ dynamic: true }], literals: [], helper: undefined }];

/**
 * Fills the holes of each format variant. `evalArg` gives an argument's values; `byName` those of a
 * variable named in the format itself (Rust's `{name}`), undefined when unknown.
 */
export function evalFormat(fmt: Variant[], style: FormatStyle, args: Node[], evalArg: (n: Node) => Variant[],
  byName: (name: string) => Variant[] | undefined): Variant[] {
  const positional = args.filter((a) => a.type !== 'keyword_argument');
  const named = new Map<string, Node>();
  for (const a of args) if (a.type === 'keyword_argument') { const n = a.childForFieldName('name'), v = a.childForFieldName('value'); if (n && v) named.set(n.text, v); }
  const known = (vs: Variant[]) => (vs.some((v) => v.literals.length) ? vs : DYNAMIC);
  const out: Variant[] = [];
  for (const f of fmt) {
    const pieces: Variant[][] = [];
    // `format!("{} LIMIT {}", query, n)`: the statement starts with an argument's text, so its literals come first.
    let leads: boolean | undefined;
    let next = 0;
    let buf = '';
    const flush = () => { if (buf) pieces.push([{ parts: [{ text: buf }], literals: [], helper: undefined }]); buf = ''; };
    for (const p of f.parts) {
      if (p.dynamic) { flush(); pieces.push(DYNAMIC); continue; }
      const re = style === 'printf' ? PRINTF : BRACE;
      re.lastIndex = 0;
      let at = 0;
      for (let m = re.exec(p.text); m; m = re.exec(p.text)) {
        buf += p.text.slice(at, m.index);
        at = m.index + m[0].length;
        if (m[0] === '%%') { buf += '%'; continue; }
        if (m[0] === '{{') { buf += '{'; continue; }
        if (m[0] === '}}') { buf += '}'; continue; }
        flush();
        let value: Variant[] = DYNAMIC;
        if (style === 'printf') {
          const arg = positional[next++];
          if (arg && (m[1] === 's' || m[1] === 'v') && !m[0].includes('$')) value = known(evalArg(arg));
        } else {
          const ref = m[1].trim();
          const spec = m[2];
          let arg: Node | undefined;
          let vs: Variant[] | undefined;
          if (ref === '') arg = positional[next++];
          else if (/^\d+$/.test(ref)) arg = positional[Number(ref)];
          else if (named.has(ref)) arg = named.get(ref);
          else if (/^[A-Za-z_]\w*$/.test(ref)) vs = byName(ref);
          if (!spec) value = arg ? known(evalArg(arg)) : vs ? known(vs) : DYNAMIC;
        }
        leads ??= !buf && !pieces.length && value.some((v) => v.literals.length > 0);
        pieces.push(value);
      }
      buf += p.text.slice(at);
    }
    flush();
    for (const v of product(pieces)) out.push({ parts: v.parts, literals: leads ? [...v.literals, ...f.literals] : [...f.literals, ...v.literals], helper: f.helper || v.helper });
  }
  return out.length ? out : DYNAMIC;
}
