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
