/**
 * What is sent after EXPLAIN for a statement found in source, before its placeholders are filled:
 * - locking reads (`FOR UPDATE`, `FOR SHARE`, `LOCK IN SHARE MODE`, with `OF …`, `NOWAIT`,
 *   `SKIP LOCKED`, `WAIT n`) lose their locking clause: the session is read-only and the server
 *   refuses a locking read there, while the plan is the same without it;
 * - `SELECT … INTO @a, @b` loses its INTO list (a variable is not a value to fill), and
 *   `INTO OUTFILE / DUMPFILE` is never sent at all;
 * - a statement whose text ends where more must follow (`… IN (`, `… WHERE`, an open parenthesis),
 *   typically because the rest is built at run time, is not explainable and is not sent.
 */
import { kw, tokenize, type Token } from '../sql/fillScan';
import { explainability, type ExplainKind } from './explainable';

export type PreparedStatement =
  | {
    ok: true; kind: ExplainKind; sql: string; lockingClause?: string; without: string[];
    /** The top-level LIMIT's offset: a number written in the text, or `run-time` (a placeholder or a part built at run time). */
    offset?: number | 'run-time';
  }
  | { ok: false; reason: string };

/** The offset of the statement's own LIMIT (`LIMIT a, b` / `LIMIT b OFFSET a`), not of a subquery's. */
function limitOffset(toks: Token[]): number | 'run-time' | undefined {
  let depth = 0;
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k];
    if (t.text === '(') depth++;
    else if (t.text === ')') depth--;
    else if (depth === 0 && kw(t) === 'LIMIT') {
      const at = toks[k + 2]?.text === ',' ? k + 1 : kw(toks[k + 2]) === 'OFFSET' ? k + 3 : -1;
      const o = at >= 0 ? toks[at] : undefined;
      if (!o) return undefined;
      if (o.kind === 'number') return Number(o.text);
      return o.kind === 'placeholder' || o.kind === 'dynamic' || o.kind === 'uservar' ? 'run-time' : undefined;
    }
  }
  return undefined;
}

/** Words after which a statement cannot end: an operand or a clause body must follow. */
const OPEN_WORDS = new Set([
  'WHERE', 'AND', 'OR', 'XOR', 'NOT', 'IN', 'ON', 'BY', 'SET', 'FROM', 'JOIN', 'SELECT', 'VALUES', 'VALUE', 'LIKE',
  'BETWEEN', 'LIMIT', 'OFFSET', 'HAVING', 'INTO', 'UPDATE', 'AS', 'IS', 'CASE', 'WHEN', 'THEN', 'ELSE', 'USING',
  'DISTINCT', 'UNION', 'EXISTS', 'REGEXP', 'RLIKE', 'DIV', 'MOD', 'INNER', 'LEFT', 'RIGHT', 'STRAIGHT_JOIN',
]);

const LOCK_TAIL = new Set(['NOWAIT']);

/** The locking clause starting at token k (`FOR UPDATE …`, `LOCK IN SHARE MODE …`): its last token index, or -1. */
function lockingClauseAt(toks: Token[], k: number): number {
  let j: number;
  if (kw(toks[k]) === 'FOR' && (kw(toks[k + 1]) === 'UPDATE' || kw(toks[k + 1]) === 'SHARE')) j = k + 1;
  else if (kw(toks[k]) === 'LOCK' && kw(toks[k + 1]) === 'IN' && kw(toks[k + 2]) === 'SHARE' && kw(toks[k + 3]) === 'MODE') j = k + 3;
  else return -1;
  if (kw(toks[j + 1]) === 'OF') {
    j += 2;
    while (toks[j + 1]?.text === ',' || toks[j + 1]?.text === '.') j += 2;
  }
  if (LOCK_TAIL.has(kw(toks[j + 1]))) j++;
  else if (kw(toks[j + 1]) === 'SKIP' && kw(toks[j + 2]) === 'LOCKED') j += 2;
  else if (kw(toks[j + 1]) === 'WAIT' && toks[j + 2]?.kind === 'number') j += 2;
  return j;
}

const CLAUSE_WORDS = new Set(['FOR', 'UPDATE', 'SHARE', 'OF', 'LOCK', 'IN', 'MODE', 'NOWAIT', 'SKIP', 'LOCKED', 'WAIT']);

function words(toks: Token[], from: number, to: number): string {
  return toks.slice(from, to + 1).map((t) => (CLAUSE_WORDS.has(kw(t)) ? kw(t) : t.text)).join(' ').replace(/ ([,.]) /g, '$1 ').replace(/ \./g, '.');
}

const VALUE_OPS = new Set(['=', '<', '>', '<=', '>=', '<>', '!=', '<=>']);

/** True when what follows token k is a value: after LIMIT, OFFSET, `LIMIT n,`, a comparison or LIKE. */
function valueSlotAfter(toks: Token[], k: number): boolean {
  const t = toks[k];
  if (['LIMIT', 'OFFSET', 'LIKE'].includes(kw(t))) return true;
  if (t.kind === 'op' && VALUE_OPS.has(t.text)) return true;
  return t.text === ',' && (toks[k - 1]?.kind === 'number' || toks[k - 1]?.kind === 'placeholder') && kw(toks[k - 2]) === 'LIMIT';
}

/** Why a statement's text cannot be complete, or undefined when it can be. */
export function incompleteReason(sql: string): string | undefined {
  const toks = tokenize(sql).filter((t) => t.text !== ';');
  let depth = 0;
  for (const t of toks) {
    if (t.text === '(') depth++;
    else if (t.text === ')' && --depth < 0) return `a ")" closes a parenthesis the text never opened`;
  }
  let end = toks.length - 1;
  while (end >= 0 && toks[end].kind === 'dynamic') end--;
  if (end < 0) return undefined;
  // why: a part built at run time right after LIMIT, OFFSET or a comparison can only be a value
  // (`" LIMIT " + strconv.Itoa(n)`), which fill gives one as it does a placeholder: the text is complete.
  if (end < toks.length - 1 && depth === 0 && valueSlotAfter(toks, end)) return undefined;
  const tail = sql.slice(toks[Math.max(0, end - 3)].start, toks[end].end).replace(/\s+/g, ' ');
  if (depth > 0) return `${depth === 1 ? 'a parenthesis is' : `${depth} parentheses are`} left open; the known part ends with "${tail}"`;
  const last = toks[end];
  const lockEnd = kw(last) === 'UPDATE' && kw(toks[end - 1]) === 'FOR';
  if ((last.kind === 'word' && OPEN_WORDS.has(last.text.toUpperCase()) && !lockEnd) || last.text === ',' || (last.kind === 'op' && last.text !== '*')) {
    return `the known part ends with "${tail}"`;
  }
  return undefined;
}

/**
 * Prepares `sql` (as found in source, placeholders unfilled) for EXPLAIN: strips what must not or
 * cannot be sent and says what was stripped, or says why the statement is not explainable.
 */
export function prepareStatement(sql: string): PreparedStatement {
  const can = explainability(sql);
  if (!can.explain) return { ok: false, reason: can.reason };
  const incomplete = incompleteReason(sql);
  if (incomplete) return { ok: false, reason: `not explainable: built at run time (${incomplete})` };
  const toks = tokenize(sql);
  const cuts: [number, number][] = [];
  const without: string[] = [];
  let lockingClause: string | undefined;
  let depth = 0;
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k];
    if (t.text === '(') { depth++; continue; }
    if (t.text === ')') { depth--; continue; }
    const lock = lockingClauseAt(toks, k);
    if (lock >= 0) {
      const clause = words(toks, k, lock);
      lockingClause ??= clause;
      if (!without.includes(clause)) without.push(clause);
      cuts.push([t.start, toks[lock].end]);
      k = lock;
      continue;
    }
    if (kw(t) === 'INTO' && (can.kind === 'select') && depth === 0) {
      const what = kw(toks[k + 1]);
      if (what === 'OUTFILE' || what === 'DUMPFILE') return { ok: false, reason: `SELECT … INTO ${what} writes a file on the server; it is never sent` };
      let j = k + 1;
      while (toks[j] && (toks[j].kind === 'placeholder' || toks[j].kind === 'uservar' || (toks[j].kind === 'word' && !OPEN_WORDS.has(kw(toks[j])) && !['ORDER', 'GROUP', 'FOR', 'LOCK', 'WINDOW'].includes(kw(toks[j]))) || toks[j].kind === 'qident')) {
        if (toks[j + 1]?.text !== ',') break;
        j += 2;
      }
      if (!toks[j] || j === k) return { ok: false, reason: 'SELECT … INTO without a target cannot be explained' };
      const clause = `INTO ${sql.slice(toks[k + 1].start, toks[j].end).replace(/\s+/g, ' ')}`;
      without.push(clause);
      cuts.push([t.start, toks[j].end]);
      k = j;
    }
  }
  let out = sql;
  for (const [a, b] of cuts.reverse()) out = `${out.slice(0, a).trimEnd()} ${out.slice(b).trimStart()}`.trim();
  const offset = limitOffset(tokenize(out));
  return { ok: true, kind: can.kind, sql: out, ...(lockingClause ? { lockingClause } : {}), without, ...(offset !== undefined ? { offset } : {}) };
}
