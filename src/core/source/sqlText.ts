/**
 * Recognising SQL by its content, independent of the host language: is a string literal a
 * statement the app sends to the database, which placeholders does it carry, and how literal
 * and dynamic parts combine into the text stored in SqlSite.sql.
 *
 * Used by the tree-sitter extractor and by the Perl lexer; the exported signatures are stable.
 */
import { DYNAMIC_MARK } from '../model';
import { cursorOf, T_COMMENT, T_DYNAMIC, T_EOF, T_EXEC_COMMENT, T_NUMBER, T_OP, T_PLACEHOLDER, T_PUNCT, T_STRING, T_WORD } from '../sql/sqlLexer';

/** One piece of a statement as written in source: literal text, or a part known only at run time. */
export type SqlPart = { text: string; dynamic?: false } | { dynamic: true };

/** Words that open a statement we report. */
const STATEMENT_WORDS = new Set(['select', 'insert', 'update', 'delete', 'replace', 'with', 'truncate', 'lock', 'unlock']);

/** Words that, right after FROM / INTO / UPDATE, mean English prose rather than a table. */
const PROSE_WORDS = new Set([
  'the', 'a', 'an', 'this', 'that', 'these', 'those', 'my', 'your', 'our', 'their', 'his', 'her', 'its',
  'which', 'here', 'there', 'now', 'it', 'all', 'one', 'some', 'any', 'each', 'every', 'list', 'menu',
]);

/** Keywords that may follow a table reference in FROM / DELETE FROM / INTO. */
const AFTER_TABLE = new Set([
  'where', 'using', 'order', 'limit', 'group', 'having', 'as', 'inner', 'left', 'right', 'cross', 'join',
  'straight_join', 'natural', 'outer', 'partition', 'force', 'use', 'ignore', 'union', 'for', 'lock',
  'on', 'window', 'into', 'set', 'values', 'value', 'select', 'returning', 'offset', 'except', 'intersect',
]);

const IDENT = /^(?:`[^`]+`|"[^"]+"|\[[^\]]+\]|[A-Za-z_][\w$]*)(?:\.(?:`[^`]+`|"[^"]+"|[A-Za-z_][\w$]*|\*))*/;

/** Skips whitespace, SQL comments (`--`, `#`, `/* *\/`) and opening parentheses at `i`. */
function skipNoise(s: string, i: number, parens: boolean): number {
  const cur = cursorOf(s, i);
  for (let k = cur.next(); k !== T_EOF; k = cur.next()) {
    if (k === T_COMMENT || k === T_EXEC_COMMENT) continue;
    if (parens && k === T_PUNCT && s.charCodeAt(cur.start) === 40 /* ( */) continue;
    return cur.start;
  }
  return s.length;
}

/** The index of the first top-level (paren depth 0, outside quotes and comments) occurrence of `word` at or after `from`, or -1. */
function findTopLevelWord(s: string, word: string, from: number): number {
  let depth = 0;
  const cur = cursorOf(s, from);
  for (let k = cur.next(); k !== T_EOF; k = cur.next()) {
    if (k === T_PUNCT) {
      const c = s.charCodeAt(cur.start);
      if (c === 40) depth++;
      else if (c === 41) depth = Math.max(0, depth - 1);
    } else if (k === T_WORD && depth === 0 && cur.is(word)) return cur.start;
  }
  return -1;
}

/**
 * Checks that what follows FROM / INTO / DELETE FROM reads like a table reference: a subquery,
 * a dynamic part, a placeholder, or an identifier that is not an English word like "the",
 * followed by the end, punctuation, a clause keyword, or an alias and then one of those.
 */
function tableRefOk(s: string, i: number): boolean {
  i = skipNoise(s, i, false);
  if (i >= s.length) return false;
  if (s[i] === '(' || s.startsWith(DYNAMIC_MARK, i) || s[i] === '%' || s[i] === '?' || s[i] === ':' || s[i] === '$' || s[i] === '{') return true;
  const m = IDENT.exec(s.slice(i, i + 200));
  if (!m) return false;
  if (PROSE_WORDS.has(m[0].toLowerCase())) return false;
  return followerOk(s, i + m[0].length, true);
}

function followerOk(s: string, i: number, aliasAllowed: boolean): boolean {
  i = skipNoise(s, i, false);
  if (i >= s.length) return true;
  const c = s[i];
  if (c === ';' || c === ',' || c === ')' || c === '(' || s.startsWith(DYNAMIC_MARK, i)) return true;
  const m = /^[A-Za-z_]\w*/.exec(s.slice(i, i + 64));
  if (!m) return false;
  if (AFTER_TABLE.has(m[0].toLowerCase())) return true;
  return aliasAllowed && followerOk(s, i + m[0].length, false);
}

const ENGLISH_SELECT_START = new Set(['the', 'a', 'an', 'your', 'my', 'our', 'this', 'that', 'these', 'those', 'one', 'from', 'to', 'and', 'or', 'which']);

function selectOk(s: string, start: number): boolean {
  const fromAt = findTopLevelWord(s, 'from', start);
  const list = (fromAt < 0 ? s.slice(start) : s.slice(start, fromAt)).trim();
  if (list === '') return false;
  const firstWord = /^[A-Za-z_]\w*(?=\s|$)/.exec(list);
  if (firstWord && ENGLISH_SELECT_START.has(firstWord[0].toLowerCase())) return false;
  if (fromAt >= 0) return tableRefOk(s, fromAt + 4);
  // why: "SELECT 1", "SELECT NOW()", "SELECT LAST_INSERT_ID()", "SELECT @@version" have no FROM;
  // English ("select a user", "select failed: %v") has none of these marks.
  if (!/^[\s\w(),.*@?'":$+\-/`=<>]+$/.test(list.replace(DYNAMIC_MARK, ' '))) return false;
  return /[\d(@?'*]/.test(list) || list.includes(DYNAMIC_MARK);
}

/**
 * True when `text` is a SQL statement an app would send: after whitespace, comments and
 * opening parentheses it starts with SELECT / INSERT / UPDATE / DELETE / REPLACE / WITH and
 * is shaped like that statement (UPDATE … SET x =, INSERT INTO t …, DELETE FROM t, SELECT … FROM t,
 * WITH name AS ( …). Rejects prose and log messages that merely start with those words
 * ("Select a user", "update failed: %v", "Delete from the list"). Keywords may be in any case,
 * but Title-case ("Select …") needs SQL punctuation somewhere, as sentences start that way.
 */
export function looksLikeSql(text: string): boolean {
  // why: each value of a statement is judged where it is written and again where it flows, and an app sends the
  // same text from many places; judging lexes the whole text, a look-up hashes it once. Long texts are judged each time.
  return remembered(judged, text, judgeSql);
}

function judgeSql(text: string): boolean {
  return statementShaped(text) && !readsAsMessage(text);
}

/** Answers kept per process for the texts asked most (judged by looksLikeSql, read by placeholdersOf, callees). */
const MEMO_ENTRIES = 4096, MEMO_TEXT_MAX = 2000;
const judged = new Map<string, boolean>();
const placeholderLists = new Map<string, readonly string[]>();

/** `read(key)`, kept in `memo` (at most MEMO_ENTRIES keys, emptied when full); a key longer than MEMO_TEXT_MAX is read each time. */
function remembered<V>(memo: Map<string, V>, key: string, read: (key: string) => V): V {
  if (key.length > MEMO_TEXT_MAX) return read(key);
  let r = memo.get(key);
  if (r === undefined) {
    if (memo.size >= MEMO_ENTRIES) memo.clear();
    memo.set(key, r = read(key));
  }
  return r;
}

function statementShaped(text: string): boolean {
  // why: most text starts with its first word; only then is there no comment, space or parenthesis to skip.
  const c0 = text.charCodeAt(0) | 32;
  const i = c0 >= 97 && c0 <= 122 ? 0 : skipNoise(text, 0, true);
  const m = /^[A-Za-z]+/.exec(text.slice(i, i + 8));
  if (!m) return false;
  const word = m[0];
  const kw = word.toLowerCase();
  if (!STATEMENT_WORDS.has(kw)) return false;
  const rest = i + word.length;
  if (rest < text.length && !/[\s(/`*]/.test(text[rest])) return false;
  const titleCase = word.length > 1 && word[0] !== word[0].toLowerCase() && word.slice(1) === word.slice(1).toLowerCase();
  if (titleCase && !/[*=?(,`]/.test(text.slice(rest))) return false;
  const after = text.slice(rest);
  switch (kw) {
    case 'select':
      return selectOk(text, rest);
    case 'update': {
      const mm = /^\s+(?:low_priority\s+)?(?:ignore\s+)?([\s\S]*?)\bset\s+(?:`[^`]+`|[A-Za-z_][\w.]*|\(|\/\*\?dynamic\*\/)/i.exec(after);
      if (!mm) return false;
      const target = mm[1].trim();
      const tm = IDENT.exec(target);
      if (!target.startsWith(DYNAMIC_MARK) && !target.startsWith('%') && (!tm || PROSE_WORDS.has(tm[0].toLowerCase()))) return false;
      return /\bset\s+[\s\S]*?(=|\/\*\?dynamic\*\/|%s|\?)/i.test(after);
    }
    case 'insert':
    case 'replace': {
      const mm = /^\s+(?:(?:low_priority|delayed|high_priority|ignore)\s+)*(into\s+)?/i.exec(after);
      if (!mm) return false;
      const at = rest + mm[0].length;
      if (mm[1]) return tableRefOk(text, at);
      const t = IDENT.exec(text.slice(at, at + 200));
      if (!t || PROSE_WORDS.has(t[0].toLowerCase())) return false;
      return /^\s*(?:\(|values?\b|set\b|select\b|\/\*\?dynamic\*\/)/i.test(text.slice(at + t[0].length));
    }
    case 'delete': {
      const fromAt = findTopLevelWord(text, 'from', rest);
      if (fromAt < 0) return false;
      const between = text.slice(rest, fromAt).trim();
      if (between !== '' && !/^(?:(?:low_priority|quick|ignore)\s+)*(?:[\w`.*]+(?:\s*,\s*[\w`.*]+)*)?$/i.test(between)) return false;
      return tableRefOk(text, fromAt + 4);
    }
    case 'with':
      return /^\s+(?:recursive\s+)?(?:`[^`]+`|[A-Za-z_]\w*)\s*(?:\([^)]*\)\s*)?as\s*\(/i.test(after);
    // Recorded as statements (an app that empties or locks tables per request shows it), never explained.
    case 'truncate':
      return /^\s+(?:table\s+)?(?:`[^`]+`|[A-Za-z_][\w.]*|\/\*\?dynamic\*\/)\s*;?\s*$/i.test(after);
    case 'lock':
      return /^\s+tables?\s+(?:`[^`]+`|[A-Za-z_][\w.]*|\/\*\?dynamic\*\/)(?:\s+(?:as\s+)?[A-Za-z_]\w*)?\s+(?:read|write|low_priority\s+write)\b/i.test(after);
    case 'unlock':
      return /^\s+tables?\s*;?\s*$/i.test(after);
  }
  return false;
}

/** Words that may follow a value inside a condition, an assignment or a LIMIT (anything else there is prose). */
const AFTER_VALUE = new Set([
  'and', 'or', 'xor', 'not', 'is', 'in', 'like', 'between', 'order', 'group', 'limit', 'offset', 'having', 'union', 'for',
  'lock', 'on', 'where', 'set', 'as', 'asc', 'desc', 'then', 'else', 'end', 'when', 'collate', 'escape', 'div', 'mod',
  'regexp', 'rlike', 'sounds', 'from', 'into', 'join', 'inner', 'left', 'right', 'cross', 'straight_join', 'natural',
  'using', 'window', 'returning', 'with', 'rows', 'range', 'separator', 'member', 'intersect', 'except', 'values', 'value',
  'select', 'update', 'null', 'true', 'false', 'unknown', 'interval', 'outer', 'partition', 'nowait', 'skip', 'share',
  'mode', 'do', 'ignore', 'procedure', 'microsecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year',
  'second_microsecond', 'minute_microsecond', 'minute_second', 'hour_microsecond', 'hour_second', 'hour_minute',
  'day_microsecond', 'day_second', 'day_minute', 'day_hour', 'year_month', 'binary', 'unsigned', 'signed', 'char',
]);

/** Clauses in which a value is followed by an operator, a keyword or the end, never by an ordinary word. */
const VALUE_CLAUSES = new Set(['where', 'having', 'on', 'set', 'values', 'value', 'limit', 'and', 'or']);
/** The longest word readsAsMessage takes as a clause (`values`, `select`, `having`). */
const CLAUSE_WORD_MAX = 6;

/**
 * True when statement-shaped text is a message about SQL rather than SQL: a value in a condition,
 * assignment or LIMIT followed by an ordinary word (`… where id = %d failed`, `… set price = 3 done`),
 * or a formatting verb no driver reads (`%v`, `%w`, `%+v`, `%q`), which only log and error
 * formatting gives meaning to. Read by the one SQL lexer, so quoted text never counts.
 */
function readsAsMessage(text: string): boolean {
  const cur = cursorOf(text);
  let clause = '';
  let depth = 0;
  let prevValue = false;
  let prevPercent = -1;
  for (let k = cur.next(); k !== T_EOF; k = cur.next()) {
    if (k === T_COMMENT || k === T_EXEC_COMMENT) continue;
    const c = text.charCodeAt(cur.start);
    if (k === T_WORD) {
      if (prevPercent === cur.start && cur.end - cur.start === 1 && 'vwqT'.includes(text[cur.start])) return true;
      // why: words inside parentheses, and words longer than any clause word, need no lower-cased copy.
      if (depth === 0 && (prevValue || cur.end - cur.start <= CLAUSE_WORD_MAX)) {
        const w = text.slice(cur.start, cur.end).toLowerCase();
        if (prevValue && VALUE_CLAUSES.has(clause) && !AFTER_VALUE.has(w)) return true;
        if (VALUE_CLAUSES.has(w) || w === 'select' || w === 'from' || w === 'order' || w === 'group' || w === 'by') clause = w;
      }
      prevValue = false;
    } else if (k === T_OP) {
      if (c === 37 && cur.end === cur.start + 1) { prevPercent = cur.end; prevValue = false; continue; }
      if ((c === 43 || c === 35) && prevPercent === cur.start && text[cur.end] === 'v') return true;  // %+v, %#v
      prevValue = false;
    } else if (k === T_PUNCT) {
      if (c === 40) depth++;
      else if (c === 41) depth = Math.max(0, depth - 1);
      prevValue = c === 41 && depth === 0;
    } else prevValue = k === T_NUMBER || k === T_STRING || k === T_PLACEHOLDER;
    if (k === T_DYNAMIC) prevValue = false;
    prevPercent = -1;
  }
  return false;
}

/** Name segments of calls that report (log, print, raise) rather than run what they are given. */
const REPORTING_NAME = /^(?:(?:log|debug|info|notice|warn|warning|error|err|fatal|panic|crit|critical|alert|emerg|emergency|trace|exception|verbose)(?:f|ln|w|_log)?|print(?:f|ln)?|fprint(?:f|ln)?|puts|pp?|echo|say|error_log|syslog|die|croak|confess|carp|cluck|raise|fail|throw|bail|abort|eprint(?:ln)?|format_err|anyhow|unimplemented|todo|unreachable|assert\w*|errorf|new\w*error|\w*(?:error|exception))$/i;

/** Receivers that are loggers or error packages (`logger.info`, `$this->log->warn`, `errors.New`, `console.log`). */
const REPORTING_RECEIVER = /^[$@]*(?:\w*_)?(?:log|logger|logging|slog|logrus|zap|zerolog|console|syslog|x?errors|tracing)$/i;

/**
 * True when a call reports what it is given instead of sending it to a database: a logging, printing
 * or error-raising call (`log.Infof`, `logger.warning`, `fmt.Errorf`, `errors.New`, `console.log`,
 * `raise`, `die`, `error_log`, `eprintln!`, `new ValueError`). `call` is the callee as written in source.
 */
export function isReportingCall(call: string): boolean {
  // why: asked for every statement written in a call; an app names few callees (`db.Query`, `$dbh->prepare`) many times.
  return remembered(reportingCalls, call, reports);
}

const reportingCalls = new Map<string, boolean>();

function reports(call: string): boolean {
  const segs = call.replace(/!$/, '').split(/::|->|\.|\s+/).filter(Boolean);
  if (!segs.length) return false;
  const name = segs[segs.length - 1];
  if (/^(?:format|sprintf|printf_sql)$/i.test(name)) return false;   // builders of strings, SQL included
  if (REPORTING_NAME.test(name)) return true;
  return segs.slice(0, -1).some((s) => REPORTING_RECEIVER.test(s));
}

/**
 * Placeholders in order of appearance, outside quotes and comments, as the one SQL lexer reads
 * them: `?`, `$1`, `:name`, `%s` / `%d` / `%f` / `%(name)s`. Not `::type` casts, `:=` assignments,
 * `%%`, nor MySQL variables (`@v`, `@@system`): no driver of the supported languages binds `@name`.
 */
export function placeholdersOf(sql: string): readonly string[] {
  // why: the sites of one statement text share its list, as they share the text; readonly keeps any reader from changing it.
  return remembered(placeholderLists, sql, readPlaceholders);
}

function readPlaceholders(sql: string): string[] {
  const out: string[] = [];
  const cur = cursorOf(sql);
  for (let k = cur.next(); k !== T_EOF; k = cur.next()) if (k === T_PLACEHOLDER) out.push(sql.slice(cur.start, cur.end));
  return out;
}

/**
 * Combines the pieces of a statement into the text the database receives: literal text kept
 * verbatim, each run of dynamic parts replaced by one DYNAMIC_MARK. `dynamic` is true when any
 * part is dynamic.
 */
export function joinSqlParts(parts: readonly SqlPart[]): { sql: string; dynamic: boolean } {
  let sql = '';
  let dynamic = false;
  let lastDynamic = false;
  for (const p of parts) {
    if (p.dynamic) {
      dynamic = true;
      if (!lastDynamic) sql += DYNAMIC_MARK;
      lastDynamic = true;
    } else {
      sql += p.text;
      lastDynamic = false;
    }
  }
  return { sql, dynamic };
}
