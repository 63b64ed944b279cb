/**
 * Reading one string literal node into SQL parts: literal text with escapes decoded (unless the
 * literal is raw), interpolations as dynamic parts, heredoc framing and indentation removed.
 */
import type { SyntaxNode as Node } from './syntaxTree';
import type { SqlPart } from './sqlText';
import type { LangSpec } from './lang/treeSitter/langSpec';

/** A literal as found in source: its parts, its [start, end) offsets and where its text starts. */
export interface Literal {
  parts: SqlPart[];
  range: [number, number];
  /** Offset of the first non-blank character of the literal's text (for the reported line). */
  textStart: number;
}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', f: '\f', v: '\v', e: '\x1b', a: '\x07', s: ' ' };

/** Decodes one escape sequence (`\n`, `\x41`, `\u00e9`, `\u{1F600}`, `\\`, `\"`); unknown ones are kept. */
export function decodeEscape(esc: string): string {
  if (esc.length < 2 || esc[0] !== '\\') return esc;
  const c = esc[1];
  if (c in SIMPLE_ESCAPES && esc.length === 2) return SIMPLE_ESCAPES[c];
  if (c === '\n' || c === '\r') return '';
  let m = /^\\x([0-9a-fA-F]{1,2})$/.exec(esc);
  if (m) return String.fromCharCode(parseInt(m[1], 16));
  m = /^\\u\{?([0-9a-fA-F]{1,6})\}?$/.exec(esc) ?? /^\\U([0-9a-fA-F]{8})$/.exec(esc);
  if (m) { const cp = parseInt(m[1], 16); return cp <= 0x10ffff ? String.fromCodePoint(cp) : esc; }
  if (esc.length === 2) return c;
  return esc;
}

const DYN = '\u0000';

/** Applies a text transformation to literal parts, keeping dynamic parts where they were. */
function transform(parts: SqlPart[], fn: (s: string) => string): SqlPart[] {
  const joined = parts.map((p) => (p.dynamic ? DYN : p.text.replace(/\u0000/g, ''))).join('');
  const out: SqlPart[] = [];
  fn(joined).split(DYN).forEach((s, i) => {
    if (i > 0) out.push({ dynamic: true });
    if (s) out.push({ text: s });
  });
  return out;
}

/**
 * Reads a string literal node (or, for Ruby, a heredoc body with its opener) into parts.
 * `heredocOpener` is the opener's text (`<<~SQL`) when `node` is a Ruby heredoc body; with `holes`,
 * each interpolation's dynamic part carries its node.
 */
export function readLiteral(node: Node, text: string, spec: LangSpec, heredocOpener?: string, holes = false): Literal {
  const raw = spec.rawStrings.has(node.type) || (spec.rawPrefix ? spec.rawPrefix(node) : false) || (heredocOpener !== undefined && /^<<[~-]?'/.test(heredocOpener));
  let parts: SqlPart[] = [];
  let contentStart = -1;
  const add = (s: string) => { if (s) parts.push({ text: s }); };
  const visit = (n: Node) => {
    // why: namedChildren is the named ones of children, fetched in one call instead of asking each child.
    for (const ch of n.namedChildren) {
      if (!ch) continue;
      const t = ch.type;
      if (spec.skip.has(t)) continue;
      if (spec.containers.has(t)) {
        if (t === 'heredoc_body') {
          // why: tree-sitter-php leaves the line breaks of a heredoc body outside its string_content
          // nodes, so the body is read from the source with its children's parts spliced in.
          if (contentStart < 0) contentStart = ch.startIndex;
          let at = ch.startIndex;
          if (text[at] === '\r') at++;
          if (text[at] === '\n') at++;
          for (const e of ch.namedChildren) {
            if (!e) continue;
            add(text.slice(at, Math.max(at, e.startIndex)));
            if (spec.content.has(e.type)) add(text.slice(Math.max(at, e.startIndex), e.endIndex));
            else if (spec.escape.has(e.type)) add(decodeEscape(e.text));
            else parts.push({ dynamic: true });
            at = Math.max(at, e.endIndex);
          }
          add(text.slice(at, ch.endIndex));
        } else visit(ch);
        continue;
      }
      if (spec.content.has(t)) {
        if (contentStart < 0) contentStart = ch.startIndex;
        if (!raw && ch.namedChildCount > 0) {
          let at = ch.startIndex;
          for (const e of ch.namedChildren) {
            if (!e) continue;
            add(text.slice(at, e.startIndex));
            add(spec.escape.has(e.type) ? decodeEscape(e.text) : e.text);
            at = e.endIndex;
          }
          add(text.slice(at, ch.endIndex));
        } else add(text.slice(ch.startIndex, ch.endIndex));
      } else if (spec.escape.has(t)) {
        if (contentStart < 0) contentStart = ch.startIndex;
        add(raw ? ch.text : decodeEscape(ch.text));
      } else {
        if (contentStart < 0) contentStart = ch.startIndex;
        // With `holes`, the dynamic part keeps its expression so value flow can fill it in (valueFormat.ts HolePart).
        parts.push(holes ? ({ dynamic: true, hole: ch } as SqlPart) : { dynamic: true });
      }
    }
  };
  visit(node);
  let start = node.startIndex;
  if (heredocOpener !== undefined && spec.heredocText) {
    const opener = heredocOpener;
    parts = transform(parts, (s) => spec.heredocText!(opener, s));
    const nl = text.indexOf('\n', node.startIndex);
    if (nl >= 0 && nl < node.endIndex) start = nl + 1;
    if (contentStart < start) contentStart = start;
  } else if (node.type === 'heredoc' || node.type === 'nowdoc') {
    // why: PHP 7.3+ removes the closing marker's indentation from every line of the body.
    const end = node.childForFieldName('end_tag');
    const indent = end ? end.startPosition.column : 0;
    if (indent > 0) parts = transform(parts, (s) => s.split('\n').map((l) => l.replace(new RegExp(`^[ \\t]{0,${indent}}`), '')).join('\n'));
  }
  let ts = contentStart < 0 ? start : contentStart;
  while (ts < node.endIndex && /\s/.test(text[ts])) ts++;
  if (ts >= node.endIndex) ts = contentStart < 0 ? start : contentStart;
  return { parts, range: [start, node.endIndex], textStart: ts };
}
