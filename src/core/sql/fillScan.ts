/**
 * Token helpers for placeholder filling and its token-scan fallback, over the one SQL lexer
 * (sqlLexer.ts): the same placeholders as everywhere else (`?`, `$1`, `:name`, `%s`, `%(name)s`,
 * list placeholders after IN), user variables as their own kind, comments left out.
 */
import { lexSql, type SqlToken, type SqlTokenKind } from './sqlLexer';

export type TokenKind = SqlTokenKind;
export type Token = SqlToken;

/** Tokenizes `sql`; comments vanish (`/*! … *\/` stays), DYNAMIC_MARK becomes a `dynamic` token. */
export function tokenize(sql: string): Token[] {
  return lexSql(sql).filter((t) => t.kind !== 'exec-comment');
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
