/**
 * performance_schema digest text → the slow log's fingerprint. The server already normalised the
 * statement, in its own notation; these rewrites turn that notation into SQL the shared
 * `fingerprint` (src/core/sql/fingerprint.ts) folds exactly as it folds the logged statement:
 *
 * - `(...)`, the server's collapsed list of values (`IN (...)`, `VALUES (...)`), becomes `(?)`, which
 *   the fingerprint folds into `in(?+)` / `values(?+)` like a list of any length;
 * - `?, ...`, the server's run of values inside a longer list (`VALUES ( ?, ... , NOW ( ) )`),
 *   becomes `?`: the fingerprint folds a VALUES row of any content, and an IN list of values only;
 * - `/* , ... *\/` after a multi-row VALUES is a comment and is dropped by the fingerprint;
 * - `- ?` where a value is expected (MariaDB and MySQL keep the sign of a negative literal as a
 *   token) becomes `?`, as `-5` does in the slow log;
 * - keywords in upper case (MariaDB prints `ID`, `NAME`, `STATUS` — identifiers that are also
 *   keywords — unquoted and upper case), backquotes and the spaces around every token are folded
 *   by the fingerprint itself;
 * - a digest text cut at performance_schema_max_digest_length ends in `...` (no closing paren):
 *   it is marked truncated, since its fingerprint is only a prefix of the statement's.
 */
import { fingerprint } from '../sql/fingerprint';

export interface DigestFingerprint {
  fingerprint: string;
  /** The server cut the digest text (performance_schema_max_digest_length): the fingerprint is a prefix. */
  truncated: boolean;
}

// A value position before `- ?`: an operator, `(`, `,`, or a keyword that takes a value.
const NEGATIVE = /((?:^|[=<>(,*/+%]|\b(?:IN|AND|OR|NOT|LIKE|BETWEEN|THEN|ELSE|WHEN|LIMIT|OFFSET|VALUES?|SELECT|RETURN|INTERVAL|IS|DIV|MOD)))\s*-\s*\?/gi;

/** Rewrites digest notation into SQL the fingerprint folds like the original statement. */
export function normalizeDigestText(digestText: string): { sql: string; truncated: boolean } {
  let sql = digestText.trim();
  let truncated = false;
  // why: the server appends `...` to a digest text it cut; a collapsed list is `(...)`, with its paren.
  if (/\.\.\.$/.test(sql) && !/\(\s*\.\.\.\s*\)$/.test(sql)) {
    truncated = true;
    sql = sql.replace(/\s*\.\.\.$/, '');
  }
  sql = sql.replace(/\(\s*\.\.\.\s*\)/g, '(?)').replace(/\?\s*,\s*\.\.\./g, '?');
  // twice: `- ?` lists (`IN (- ?, - ?)`) overlap at their commas
  sql = sql.replace(NEGATIVE, '$1 ?').replace(NEGATIVE, '$1 ?');
  return { sql, truncated };
}

/** The fingerprint of a digest text, as `fingerprint()` gives for the statements it stands for. */
export function digestFingerprint(digestText: string): DigestFingerprint {
  const { sql, truncated } = normalizeDigestText(digestText);
  return { fingerprint: fingerprint(sql), truncated };
}
