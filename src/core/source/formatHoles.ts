/**
 * Reading a format string into text and holes, the way each family of format functions does at run
 * time: printf verbs (`%s`, `%-5d`, `%*d`, `%2$s`, Go's `%[2]s`), Node's util.format (`%s %d %j`, the
 * arguments left over appended after a space) and braces (`{}`, `{0}`, `{name}`, `{!r}`, `{:.*}`).
 * Each hole says which argument it shows and whether it shows that argument's text unchanged, so a
 * caller fills it from what it knows of that argument (tree-sitter value flow, the Perl lexer).
 */
import type { SqlPart } from './sqlText';
import type { FormatStyle } from './lang/treeSitter/langSpec';

/** A piece of a read format: its text, a dynamic part the format itself had, or a hole. */
export type FormatPiece =
  | { kind: 'text'; text: string }
  | { kind: 'dynamic' }
  | {
    kind: 'hole';
    /** The positional argument (0-based) it shows; undefined for a named one or where the count is lost. */
    arg: number | undefined;
    /** The named argument or variable it shows (`{name}`, Python's `name=`). */
    name: string | undefined;
    /** True when the hole shows that argument's text as it is (`%s`, `{}`), not a number, a quoted or padded form. */
    asText: boolean;
  };

export interface FormatReading {
  pieces: FormatPiece[];
  /** Positional arguments taken in order (util.format appends the ones after them). */
  taken: number;
  /** False once a dynamic part of the format came before a hole taken in order: how many it took is unknown. */
  aligned: boolean;
}

// why: the argument-consuming regexes are built per call site of exec, never shared across a recursion:
// a format argument may itself be a format, and a shared /g regex's lastIndex would be reset under the outer loop.
const PRINTF_SOURCE = String.raw`%%|%(?:(\d+)\$)?([-+# 0']*)(?:\[(\d+)\])?(\*|\d+)?(?:\.(?:\[(\d+)\])?(\*|\d+)?)?(?:\[(\d+)\])?([vTtbBcdiouxXeEfFgGsqprU])`;
const NODE_SOURCE = String.raw`%%|%([sdifjoOc])`;
const BRACE_SOURCE = String.raw`\{\{|\}\}|\{([^{}:]*)(?::([^{}]*))?\}`;
const BRACE_FIELD = /^([^.[!]*)((?:\.[^.[!]*|\[[^\]]*\])*)(?:!(\w))?$/;

/** Reads a format's parts (its dynamic parts kept) into pieces. */
export function readFormat(parts: readonly SqlPart[], style: FormatStyle): FormatReading {
  const pieces: FormatPiece[] = [];
  let next = 0;
  let aligned = true;
  let buf = '';
  const flush = () => { if (buf) pieces.push({ kind: 'text', text: buf }); buf = ''; };
  const hole = (arg: number | undefined, name: string | undefined, asText: boolean) => { flush(); pieces.push({ kind: 'hole', arg, name, asText }); };
  /** The next argument taken in order (undefined once the count is lost). */
  const inOrder = (): number | undefined => { const k = next++; return aligned ? k : undefined; };
  for (const p of parts) {
    if (p.dynamic) { flush(); pieces.push({ kind: 'dynamic' }); aligned = false; continue; }
    const text = p.text;
    const re = new RegExp(style === 'brace' ? BRACE_SOURCE : style === 'node' ? NODE_SOURCE : PRINTF_SOURCE, 'g');
    let at = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      buf += text.slice(at, m.index);
      at = m.index + m[0].length;
      const whole = m[0];
      if (whole === '%%') { buf += '%'; continue; }
      if (whole === '{{') { buf += '{'; continue; }
      if (whole === '}}') { buf += '}'; continue; }
      if (style === 'node') { hole(inOrder(), undefined, m[1] === 's'); continue; }
      if (style === 'printf') {
        const [, dollar, flags, widthIndex, width, precIndex, prec, index, verb] = m;
        // Go's `%[n]…` sets the argument counter (1-based) for what follows; `*` takes an argument for the width or precision.
        if (widthIndex) next = Number(widthIndex) - 1;
        if (width === '*') inOrder();
        if (precIndex) next = Number(precIndex) - 1;
        if (prec === '*') inOrder();
        if (index) next = Number(index) - 1;
        const arg = dollar ? Number(dollar) - 1 : inOrder();
        hole(arg, undefined, (verb === 's' || verb === 'v') && !flags && !width && !whole.includes('.'));
        continue;
      }
      const field = BRACE_FIELD.exec(m[1]);
      const spec = m[2];
      const ref = field ? field[1].trim() : m[1];
      if (spec?.includes('.*')) inOrder();
      const plain = !!field && !field[2] && (field[3] === undefined || field[3] === 's') && !spec;
      if (ref === '') hole(inOrder(), undefined, plain);
      else if (/^\d+$/.test(ref)) hole(Number(ref), undefined, plain);
      else hole(undefined, ref, plain && /^[A-Za-z_]\w*$/.test(ref));
    }
    buf += text.slice(at);
  }
  flush();
  return { pieces, taken: next, aligned };
}

/** A format's parts with every hole a dynamic part (`%%`, `{{`, `}}` read as the text they give). */
export function formatAsDynamic(parts: readonly SqlPart[], style: FormatStyle): SqlPart[] {
  const out: SqlPart[] = [];
  for (const p of readFormat(parts, style).pieces) {
    if (p.kind === 'text') out.push({ text: p.text });
    else out.push({ dynamic: true });
  }
  return out;
}
