/**
 * Measure: the one path that runs a statement, and only when the user asked for it (the hover's
 * Measure link, the code action, `explain --analyze`). It sends, for one SELECT:
 *   MariaDB  SET STATEMENT max_statement_time=<s> FOR ANALYZE FORMAT=JSON <select> [LIMIT …] ROWS EXAMINED <cap>
 *   MySQL 8  EXPLAIN ANALYZE SELECT /*+ MAX_EXECUTION_TIME(<ms>) *\/ …
 * in the same read-only session as EXPLAIN. Locking reads, SELECT … INTO, UPDATE / DELETE / INSERT
 * and statements that could not be explained are never measured. The guard accepts these shapes
 * only with `confirmed: true`, which only this module passes.
 */
import { formatCount } from '../core/format/numbers';
import type { PlanFinding } from '../core/analysis/planFindings';
import { measuredFindings } from '../core/analysis/planFindingsMeasured';
import { statementFacts } from '../core/analysis/planFindingsQuery';
import { parseMariaDbAnalyze, parseMySqlExplainAnalyze, type Measurement } from '../core/plan/measured';
import { kw, tokenize } from '../core/sql/fillScan';
import { DbError, classifyError } from './connection';
import type { ExplainResult, ExplainService } from './explainService';

/** Most rows a measured run may examine (MariaDB `LIMIT ROWS EXAMINED`); MySQL has no such cap, its time limit bounds the run. */
export const MEASURE_ROW_CAP = 1_000_000;

export interface MeasureLimits {
  /** Row cap (MariaDB only). */
  rowCap?: number;
  /** Time limit, ms (the connection's statement time limit). */
  ms: number;
}

export interface MeasureResult {
  explain: ExplainResult;
  measurement?: Measurement;
  /** `measured-over-estimate` findings from the measurement. */
  findings: PlanFinding[];
  /** The statement sent, when one was. */
  sent?: string;
  /** Why the statement was not measured (not a SELECT, a locking read …). */
  refused?: string;
  error?: { kind: string; message: string };
  limits: MeasureLimits;
}

/** How the limits read in a UI: `at most 1,000,000 rows examined and 5 s`. */
export function describeLimits(l: MeasureLimits): string {
  const secs = `${Number((l.ms / 1000).toFixed(1))} s`;
  return l.rowCap !== undefined ? `at most ${formatCount(l.rowCap)} rows examined and ${secs}` : `at most ${secs} (MySQL has no row cap)`;
}

/** The MariaDB statement: the time limit in front, the row cap in the LIMIT clause. */
export function mariaDbAnalyzeSql(select: string, ms: number, rowCap: number): string {
  const sql = select.trim().replace(/;\s*$/, '');
  const toks = tokenize(sql);
  let depth = 0;
  let limitAt = -1;
  toks.forEach((t, k) => {
    if (t.text === '(') depth++;
    else if (t.text === ')') depth--;
    else if (depth === 0 && kw(t) === 'LIMIT') limitAt = k;
  });
  const limitEnds = limitAt >= 0 && toks.slice(limitAt + 1).every((t) => t.kind === 'number' || t.text === ',' || kw(t) === 'OFFSET');
  const secs = Number((ms / 1000).toFixed(3));
  return `SET STATEMENT max_statement_time=${secs} FOR ANALYZE FORMAT=JSON ${sql}${limitEnds ? '' : ' LIMIT'} ROWS EXAMINED ${Math.floor(rowCap)}`;
}

/** The MySQL 8 statement: the MAX_EXECUTION_TIME hint right after the top-level SELECT. */
export function mySqlAnalyzeSql(select: string, ms: number): string | undefined {
  const sql = select.trim().replace(/;\s*$/, '');
  const toks = tokenize(sql);
  let depth = 0;
  for (const t of toks) {
    if (t.text === '(') depth++;
    else if (t.text === ')') depth--;
    else if (depth === 0 && kw(t) === 'SELECT') return `EXPLAIN ANALYZE ${sql.slice(0, t.end)} /*+ MAX_EXECUTION_TIME(${Math.floor(ms)}) */${sql.slice(t.end)}`;
  }
  return undefined;
}

/** True for MySQL 8.0.18 and later, where EXPLAIN ANALYZE exists. */
export function explainAnalyzeSupported(version: string): boolean {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return major > 8 || (major === 8 && (minor > 0 || patch >= 18));
}

/** Why a statement's explain result rules out measuring it, or undefined when it may be measured. */
export function measureRefusal(r: ExplainResult): string | undefined {
  if (r.error) return `it could not be explained (${r.error.message})`;
  if (r.skipped) return r.skipped;
  if (!r.plan || !r.filledSql) return 'it has no plan';
  if (r.lockingClause) return `a locking read (${r.lockingClause}) is never measured: it would take locks`;
  if (r.explainedWithout?.length) return `it was explained without ${r.explainedWithout.join(', ')}, so what would run is not the statement`;
  if (r.explainedSql) return 'only SELECT statements are measured (this one changes data)';
  return undefined;
}

/**
 * Measures one statement the user asked to measure: explains it (cached), then runs it under
 * ANALYZE within the limits and compares what it read with the estimates.
 */
export async function measureStatement(svc: ExplainService, sql: string, opts: { rowCap?: number; limit?: number } = {}): Promise<MeasureResult> {
  const ms = svc.db.options.queryTimeoutMs ?? 5000;
  const explain = await svc.explainSql(sql, opts.limit);
  const server = svc.db.server;
  const rowCap = server?.flavor === 'mariadb' ? opts.rowCap ?? MEASURE_ROW_CAP : undefined;
  const limits: MeasureLimits = { ms, ...(rowCap !== undefined ? { rowCap } : {}) };
  const base = { explain, findings: [] as PlanFinding[], limits };
  const refused = measureRefusal(explain);
  if (refused) return { ...base, refused };
  if (!server) return { ...base, refused: 'not connected' };
  const schema = await svc.schema();
  let sent: string | undefined;
  if (server.flavor === 'mariadb') {
    sent = mariaDbAnalyzeSql(explain.filledSql!, ms, rowCap!);
  } else if (explainAnalyzeSupported(server.version)) {
    sent = mySqlAnalyzeSql(explain.filledSql!, ms);
  } else {
    return { ...base, refused: `EXPLAIN ANALYZE needs MySQL 8.0.18 or later (the server is ${server.version})` };
  }
  if (!sent) return { ...base, refused: 'no top-level SELECT to measure' };
  try {
    const rows = await svc.db.query('analyze', sent, { confirmed: true });
    const cell = rows[0] ? Object.values(rows[0])[0] : undefined;
    if (typeof cell !== 'string') return { ...base, sent, error: { kind: 'other', message: 'the server returned no measurement' } };
    const facts = statementFacts(explain.filledSql!, schema);
    const measurement = server.flavor === 'mariadb'
      ? parseMariaDbAnalyze(cell, { ...(facts.limit !== undefined ? { limit: facts.limit } : {}), ...(facts.oneRow ? { oneRow: true } : {}), rowCap })
      : parseMySqlExplainAnalyze(cell);
    const findings = measuredFindings(explain.plan!, measurement, { advice: explain.advice, aliases: facts.aliases });
    return { ...base, sent, measurement, findings };
  } catch (err) {
    const e = err instanceof DbError ? err : err instanceof Error && !('code' in err) ? new DbError('other', err.message) : classifyError(err, svc.db.options);
    const message = e.kind === 'timeout' ? `stopped at the time limit (${describeLimits(limits)}): it reads more than that allows` : e.message;
    return { ...base, sent, error: { kind: e.kind, message } };
  }
}
