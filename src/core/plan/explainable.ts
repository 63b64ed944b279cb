/**
 * Which statements have a plan: SELECT (and WITH … SELECT), UPDATE, DELETE, INSERT … SELECT and
 * REPLACE. A plain INSERT … VALUES has none worth showing: the server only inserts.
 */
import { kw, tokenize } from '../sql/fillScan';

export type ExplainKind = 'select' | 'update' | 'delete' | 'insert-select' | 'replace';

export type Explainability = { explain: true; kind: ExplainKind } | { explain: false; reason: string };

/** Decides whether EXPLAIN applies to `sql`, and why not when it does not. */
export function explainability(sql: string): Explainability {
  const toks = tokenize(sql).filter((t) => t.text !== '(');
  const first = kw(toks[0]);
  switch (first) {
    case 'SELECT': case 'WITH': case 'TABLE': return { explain: true, kind: 'select' };
    case 'UPDATE': return { explain: true, kind: 'update' };
    case 'DELETE': return { explain: true, kind: 'delete' };
    case 'REPLACE': return { explain: true, kind: 'replace' };
    case 'INSERT': {
      const hasSelect = toks.some((t) => kw(t) === 'SELECT');
      return hasSelect ? { explain: true, kind: 'insert-select' } : { explain: false, reason: 'INSERT … VALUES has no plan to explain (it reads no table)' };
    }
    case '': return { explain: false, reason: toks.length ? 'the statement does not start with a SQL keyword' : 'the statement is empty' };
    default: return { explain: false, reason: `${first} statements have no EXPLAIN plan` };
  }
}

/**
 * The read a data-changing statement performs, as a SELECT: the session is read-only, and MariaDB
 * refuses even EXPLAIN UPDATE / DELETE there ("Cannot execute statement in a READ ONLY
 * transaction"), so their plans are taken from the equivalent SELECT over the same tables,
 * WHERE, ORDER BY and LIMIT. INSERT / REPLACE … SELECT are explained through their SELECT.
 * Returns undefined for SELECT (nothing to rewrite) and for statements without such a read.
 */
export function readPartAsSelect(sql: string): string | undefined {
  const toks = tokenize(sql);
  const first = kw(toks[0]);
  const topLevel = (word: string, from = 0): number => {
    let depth = 0;
    for (let k = from; k < toks.length; k++) {
      const t = toks[k];
      if (t.text === '(') depth++;
      else if (t.text === ')') depth--;
      else if (depth === 0 && kw(t) === word) return k;
    }
    return -1;
  };
  const tail = (k: number): string => sql.slice(toks[k].start);
  if (first === 'UPDATE') {
    let k = 1;
    while (['LOW_PRIORITY', 'IGNORE'].includes(kw(toks[k]))) k++;
    const set = topLevel('SET', k);
    if (set < 0 || !toks[k]) return undefined;
    const tables = sql.slice(toks[k].start, toks[set].start).trim();
    const rest = ['WHERE', 'ORDER', 'LIMIT'].map((w) => topLevel(w, set)).filter((i) => i >= 0);
    return `SELECT * FROM ${tables}${rest.length ? ' ' + tail(Math.min(...rest)) : ''}`;
  }
  if (first === 'DELETE') {
    const from = topLevel('FROM');
    if (from < 0 || !toks[from + 1]) return undefined;
    const using = topLevel('USING', from);
    return `SELECT * FROM ${tail((using >= 0 ? using : from) + 1)}`;
  }
  if (first === 'INSERT' || first === 'REPLACE') {
    let sel = topLevel('SELECT');
    if (sel < 0) {
      // INSERT … (SELECT …) — the SELECT sits in parentheses after the column list.
      sel = toks.findIndex((t) => kw(t) === 'SELECT');
      if (sel < 0) return undefined;
    }
    if (toks[sel - 1]?.text === '(') {
      // why: a parenthesised SELECT ends at its matching parenthesis, not at the end of the text.
      let depth = 0;
      for (let k = sel; k < toks.length; k++) {
        if (toks[k].text === '(') depth++;
        else if (toks[k].text === ')' && depth-- === 0) return sql.slice(toks[sel].start, toks[k].start).trim();
      }
    }
    const withAt = topLevel('WITH');
    const from = withAt >= 0 && withAt < sel ? withAt : sel;
    const dup = topLevel('DUPLICATE', from);
    const end = dup >= 0 && kw(toks[dup - 1]) === 'ON' ? toks[dup - 1].start : sql.length;
    return sql.slice(toks[from].start, end).trim();
  }
  return undefined;
}
