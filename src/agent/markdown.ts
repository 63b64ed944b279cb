/**
 * The Markdown the agent tools answer in: short, with file:line links, and safe for text that came
 * from source, logs or the database (escaped for where it goes: prose, a code span, a table cell).
 */

/** Text in prose or a table cell: every character that could start markup is backslash-escaped; line breaks become spaces. */
export function mdText(s: string): string {
  return s.replace(/[\\`*_[\]<>|!~#]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, ' ');
}

/** Inline code: one line, fenced by more backticks than any run inside it (and `|` escaped: a table cell ends there even in code). */
export function mdCode(s: string, max = 0): string {
  let t = s.replace(/\s+/g, ' ').trim();
  if (max > 0 && t.length > max) t = `${t.slice(0, max - 1)}…`;
  t = t.replace(/\|/g, '\\|');
  const runs = t.match(/`+/g) ?? [];
  const fence = '`'.repeat(Math.max(0, ...runs.map((r) => r.length)) + 1);
  const pad = t.startsWith('`') || t.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

/** A fenced code block (a fence longer than any run of backticks inside). */
export function mdBlock(s: string, lang = ''): string {
  const runs = s.match(/`{3,}/g) ?? [];
  const fence = '`'.repeat(Math.max(3, ...runs.map((r) => r.length + 1)));
  return `${fence}${lang}\n${s.trimEnd()}\n${fence}`;
}

/** A Markdown table: headers and rows of cells already escaped (mdText / mdCode / links). */
export function mdTable(headers: readonly string[], rows: readonly (readonly string[])[], right: readonly number[] = []): string {
  const rule = headers.map((_, i) => (right.includes(i) ? '---:' : '---'));
  return [headers, rule, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** The closing line of a bounded list: how many more there are, and how to see them. */
export function moreLine(shown: number, total: number, what: string): string {
  return total > shown ? `\n_${total - shown} more ${what} not shown (raise \`limit\`, or narrow \`path\`)._` : '';
}
