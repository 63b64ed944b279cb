/**
 * A small SQL tokenizer with source offsets, for placeholder filling and its token-scan fallback.
 * Recognises the same placeholders as source/sqlText.placeholdersOf (`?`, `$1`, `:name`, `%s`,
 * `%(name)s`, `@name`) and DYNAMIC_MARK, and skips quotes and comments.
 */
import { DYNAMIC_MARK } from '../model';

export type TokenKind = 'word' | 'qident' | 'string' | 'number' | 'placeholder' | 'dynamic' | 'op' | 'punct';

export interface Token {
  kind: TokenKind;
  text: string;
  start: number;
  end: number;
}

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[\w$]/.test(c);
}

function closeQuote(s: string, i: number): number {
  const q = s[i];
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\' && q !== '`') { j++; continue; }
    if (s[j] === q) {
      if (s[j + 1] === q) { j++; continue; }
      return j + 1;
    }
  }
  return s.length;
}

/** Tokenizes `sql`; comments vanish, DYNAMIC_MARK becomes a `dynamic` token. */
export function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  const n = sql.length;
  let i = 0;
  const push = (kind: TokenKind, end: number): void => { out.push({ kind, text: sql.slice(i, end), start: i, end }); i = end; };
  while (i < n) {
    const c = sql[i];
    if (/\s/.test(c)) { i++; continue; }
    if (sql.startsWith(DYNAMIC_MARK, i)) { push('dynamic', i + DYNAMIC_MARK.length); continue; }
    if (c === '/' && sql[i + 1] === '*') { const e = sql.indexOf('*/', i + 2); i = e < 0 ? n : e + 2; continue; }
    if ((c === '-' && sql[i + 1] === '-') || c === '#') { const e = sql.indexOf('\n', i); i = e < 0 ? n : e + 1; continue; }
    if (c === "'" || c === '"') { push('string', closeQuote(sql, i)); continue; }
    if (c === '`') { push('qident', closeQuote(sql, i)); continue; }
    const prev = sql[i - 1];
    if (c === '?') { push('placeholder', i + 1); continue; }
    if (c === '$') {
      const m = /^\$\d+/.exec(sql.slice(i, i + 8));
      if (m && !isWordChar(prev)) { push('placeholder', i + m[0].length); continue; }
    }
    if (c === ':' && sql[i + 1] !== ':' && prev !== ':' && !isWordChar(prev) && sql[i + 1] !== '=') {
      const m = /^:[A-Za-z_]\w*/.exec(sql.slice(i, i + 64));
      if (m) { push('placeholder', i + m[0].length); continue; }
    }
    if (c === '%') {
      const m = /^%(?:\([A-Za-z_]\w*\))?[sd]/.exec(sql.slice(i, i + 64));
      if (m) { push('placeholder', i + m[0].length); continue; }
    }
    if (c === '@' && sql[i + 1] !== '@' && !isWordChar(prev)) {
      const m = /^@[A-Za-z_]\w*/.exec(sql.slice(i, i + 64));
      if (m) { push('placeholder', i + m[0].length); continue; }
    }
    if (c === '@' && sql[i + 1] === '@') { const m = /^@@[\w.]+/.exec(sql.slice(i)); push('word', i + (m ? m[0].length : 2)); continue; }
    if (/\d/.test(c) || (c === '.' && /\d/.test(sql[i + 1] ?? ''))) {
      const m = /^(?:0x[0-9a-f]+|\d*\.?\d+(?:e[+-]?\d+)?)/i.exec(sql.slice(i));
      push('number', i + (m ? m[0].length : 1));
      continue;
    }
    if (isWordChar(c)) { let e = i + 1; while (isWordChar(sql[e])) e++; push('word', e); continue; }
    const op = /^(?:<=>|<>|!=|<=|>=|:=|\|\||&&|[=<>+\-*/%!|&^~])/.exec(sql.slice(i, i + 3));
    if (op) { push('op', i + op[0].length); continue; }
    push('punct', i + 1);
  }
  return out;
}

/** Upper-case text of a word token, '' for other kinds. */
export function kw(t: Token | undefined): string {
  return t && t.kind === 'word' ? t.text.toUpperCase() : '';
}

/** An identifier's bare name (backticks removed). */
export function identName(t: Token): string {
  return t.kind === 'qident' ? t.text.slice(1, -1).replace(/``/g, '`') : t.text;
}

export function isIdent(t: Token | undefined): boolean {
  return !!t && (t.kind === 'qident' || (t.kind === 'word' && !RESERVED.has(t.text.toUpperCase())));
}

/** Words that end a table reference or cannot be an alias. */
export const RESERVED = new Set([
  'SELECT', 'FROM', 'WHERE', 'AND', 'OR', 'NOT', 'IN', 'IS', 'NULL', 'LIKE', 'BETWEEN', 'JOIN', 'INNER', 'LEFT', 'RIGHT',
  'OUTER', 'CROSS', 'STRAIGHT_JOIN', 'NATURAL', 'ON', 'USING', 'GROUP', 'ORDER', 'BY', 'HAVING', 'LIMIT', 'OFFSET',
  'UNION', 'ALL', 'DISTINCT', 'AS', 'SET', 'VALUES', 'VALUE', 'INTO', 'UPDATE', 'DELETE', 'INSERT', 'REPLACE', 'FOR',
  'LOCK', 'SHARE', 'MODE', 'ASC', 'DESC', 'CASE', 'WHEN', 'THEN', 'ELSE', 'END', 'EXISTS', 'FORCE', 'USE', 'IGNORE',
  'INDEX', 'KEY', 'DUPLICATE', 'WITH', 'RETURNING', 'WINDOW', 'PARTITION', 'XOR', 'DIV', 'MOD', 'REGEXP', 'RLIKE', 'SOUNDS',
]);
