/**
 * The guard's own reading of a statement, as the server would read it, for what the general
 * tokenizer drops: executable comments (`/*! … *\/`, MariaDB's `/*M! … *\/`) are kept, `--` starts a
 * comment only before whitespace or a control character (MySQL and MariaDB both read `1--1` as
 * `1 - -1`), and strings are read either with backslash escapes or without them
 * (sql_mode NO_BACKSLASH_ESCAPES), so that a caller can check both readings: text that one reading
 * takes for a string literal may be code in the other.
 *
 * One pass over the characters, no regular expressions on the input: linear in its length.
 * Kept small on purpose so that it can give way to a shared SQL tokenizer with these rules.
 */

export type ScanKind = 'name' | 'quoted' | 'string' | 'punct' | 'exec-comment';

export interface ScanToken {
  kind: ScanKind;
  /** Names as written (quotes removed and doubled quotes undone for `quoted`); punctuation as is. */
  text: string;
  start: number;
}

function isNameChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || c >= 128;
}

/** Whitespace or a control character: what must follow `--` for it to start a comment. */
function isSpaceOrControl(c: number): boolean {
  return c <= 32 || c === 127;
}

/** End of a line comment: the earliest line end (\n or \r), so that nothing after it is taken for comment. */
function lineEnd(s: string, i: number): number {
  for (let j = i; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === 10 || c === 13) return j + 1;
  }
  return s.length;
}

/** Index after the closing quote of the literal or identifier opened at `i`. */
function closeQuote(s: string, i: number, backslash: boolean): number {
  const q = s.charCodeAt(i);
  for (let j = i + 1; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === 92 && backslash && q !== 96) { j++; continue; }
    if (c === q) {
      if (s.charCodeAt(j + 1) === q) { j++; continue; }
      return j + 1;
    }
  }
  return s.length;
}

/**
 * Splits `sql` into the tokens the guard looks at; ordinary comments and whitespace vanish.
 * `backslashEscapes`: read `\'` inside a string as an escaped quote (the default sql_mode) or as a
 * backslash followed by the closing quote (NO_BACKSLASH_ESCAPES).
 */
export function scanStatement(sql: string, backslashEscapes: boolean): ScanToken[] {
  const out: ScanToken[] = [];
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const c = sql.charCodeAt(i);
    const next = sql.charCodeAt(i + 1);
    if (c <= 32) { i++; continue; }
    if (c === 47 && next === 42) { // /*
      const close = sql.indexOf('*/', i + 2);
      const end = close < 0 ? n : close + 2;
      const third = sql.charCodeAt(i + 2);
      if (third === 33 || ((third === 77 || third === 109) && sql.charCodeAt(i + 3) === 33)) {
        out.push({ kind: 'exec-comment', text: sql.slice(i, end), start: i });
      }
      i = end;
      continue;
    }
    if (c === 35 || (c === 45 && next === 45 && (i + 2 >= n || isSpaceOrControl(sql.charCodeAt(i + 2))))) { i = lineEnd(sql, i); continue; }
    if (c === 39 || c === 34) { // ' "
      const end = closeQuote(sql, i, backslashEscapes);
      out.push({ kind: 'string', text: sql.slice(i, end), start: i });
      i = end;
      continue;
    }
    if (c === 96) { // `
      const end = closeQuote(sql, i, false);
      out.push({ kind: 'quoted', text: sql.slice(i + 1, Math.max(i + 1, end - 1)).replace(/``/g, '`'), start: i });
      i = end;
      continue;
    }
    if (isNameChar(c)) {
      let e = i + 1;
      while (e < n && isNameChar(sql.charCodeAt(e))) e++;
      out.push({ kind: 'name', text: sql.slice(i, e), start: i });
      i = e;
      continue;
    }
    out.push({ kind: 'punct', text: sql[i], start: i });
    i++;
  }
  return out;
}
