/**
 * EXPLAIN / ANALYZE FORMAT=JSON text as servers really print it. MariaDB copies string literals of
 * the statement into `attached_condition` with SQL escapes, not JSON ones: `'D\'Angelo'` holds `\'`,
 * which JSON does not know, and a tab or newline inside a sampled value arrives raw. Both make
 * JSON.parse fail on a plan that is otherwise fine, so the text is repaired first, in one pass.
 */

const JSON_ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't', 'u']);

/**
 * Rewrites what JSON rejects inside string values: an unknown escape `\X` becomes `X` (the server
 * meant the character itself), a raw control character becomes `\u00XX`. Text outside strings is
 * copied as is. Linear in the input.
 */
export function repairJsonText(text: string): string {
  let out = '';
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!inString) {
      if (c === 0x22) inString = true;
      continue;
    }
    if (c === 0x22) { inString = false; continue; }
    if (c === 0x5c) {
      const next = text[i + 1];
      if (next !== undefined && JSON_ESCAPES.has(next) && (next !== 'u' || /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)))) { i++; continue; }
      // why: MariaDB prints `\'`, `\0`, `\Z`, `\%` from SQL literals; the character after the backslash is what was meant.
      out += text.slice(from, i);
      from = i + 1;
      if (next !== undefined) i++;
      continue;
    }
    if (c < 0x20) {
      out += text.slice(from, i) + `\\u${c.toString(16).padStart(4, '0')}`;
      from = i + 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Parses EXPLAIN JSON text, repairing non-JSON escapes first when the plain parse fails. Throws on text that is not JSON at all. */
export function parseExplainJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return JSON.parse(repairJsonText(text)) as unknown;
  }
}
