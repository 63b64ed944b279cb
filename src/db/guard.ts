/**
 * The one place that decides what may be sent to the user's database. Every statement goes
 * through `guardStatement` with the purpose the caller claims; anything that does not match that
 * purpose's shape is refused before it leaves the process:
 *   explain — EXPLAIN [FORMAT=JSON|EXTENDED|PARTITIONS] of SELECT / WITH / UPDATE / DELETE / INSERT / REPLACE
 *             (never EXPLAIN ANALYZE or ANALYZE, which execute the statement)
 *   schema  — the read-only SHOW forms listed in SHOW_READS, or SELECT reading only information_schema
 *             (PROCESSLIST included: the state of a waiting statement) / performance_schema
 *             (server-stats snapshots), or SELECT VERSION() / @@variables
 *   sample  — exactly the bounded reads built by sampleQuery() and columnStatsQuery()
 *   set     — SET [SESSION] of session variables, SET SESSION TRANSACTION READ ONLY
 *   ddl     — ALTER TABLE … ADD INDEX|KEY / DROP INDEX|KEY, only with `confirmed: true`
 *   analyze — the user's explicit Measure of one SELECT, only with `confirmed: true`, in the two shapes
 *             measureStatement() builds: MariaDB `SET STATEMENT max_statement_time=N FOR ANALYZE
 *             FORMAT=JSON SELECT … LIMIT … ROWS EXAMINED N`, MySQL `EXPLAIN ANALYZE SELECT /*+
 *             MAX_EXECUTION_TIME(N) *\/ …`; never a locking read, INTO or anything but SELECT / WITH
 * Whatever the purpose, a statement with an executable comment or a call of a side-effect function
 * (statementHazards.ts) is refused: the optimizer evaluates constant calls even in EXPLAIN.
 */
import { kw, tokenize, type Token } from '../core/sql/fillScan';
import { hazardOf } from './statementHazards';

export type Purpose = 'explain' | 'schema' | 'sample' | 'set' | 'ddl' | 'analyze';

export class GuardError extends Error {
  readonly kind = 'refused' as const;
  constructor(message: string) { super(message); this.name = 'GuardError'; }
}

/** SHOW statements that only read the schema, session state or the caller's own threads. */
const SHOW_READS = /^SHOW\s+(?:(?:FULL\s+)?(?:PROCESSLIST|COLUMNS|FIELDS|TABLES)|INDEX|INDEXES|KEYS|CREATE\s+(?:TABLE|VIEW)|TABLE\s+STATUS|(?:SESSION\s+|GLOBAL\s+)?(?:VARIABLES|STATUS)|WARNINGS|ERRORS)\b/i;

const EXPLAINABLE = new Set(['SELECT', 'WITH', 'UPDATE', 'DELETE', 'INSERT', 'REPLACE', 'TABLE']);

function quoteIdent(name: string): string {
  return '`' + name.replace(/`/g, '``') + '`';
}

/** The sampling read: distinct non-null values of one column, bounded. The guard accepts only this shape. */
export function sampleQuery(database: string, table: string, column: string, count: number): string {
  const n = Math.max(1, Math.min(50, Math.floor(count)));
  return `SELECT DISTINCT ${quoteIdent(column)} FROM ${quoteIdent(database)}.${quoteIdent(table)} WHERE ${quoteIdent(column)} IS NOT NULL LIMIT ${n}`;
}

const SAMPLE_SHAPE = /^SELECT DISTINCT (`(?:[^`]|``)+`) FROM `(?:[^`]|``)+`\.`(?:[^`]|``)+` WHERE (`(?:[^`]|``)+`) IS NOT NULL LIMIT \d{1,2}$/;

/** Most rows the statistics sample reads. */
export const STATS_SAMPLE_ROWS = 20000;

/**
 * The statistics sample of one column: how many distinct values, and how many seen once, among the
 * first rows of the table (at most STATS_SAMPLE_ROWS), for the rows-per-value estimate. One row back.
 */
export function columnStatsQuery(database: string, table: string, column: string): string {
  const c = quoteIdent(column);
  return `SELECT COUNT(*) AS d, SUM(k) AS n, SUM(k = 1) AS f1 FROM (SELECT COUNT(*) AS k FROM (SELECT ${c} FROM ${quoteIdent(database)}.${quoteIdent(table)} LIMIT ${STATS_SAMPLE_ROWS}) AS s GROUP BY ${c}) AS g`;
}

const STATS_SHAPE = new RegExp(`^SELECT COUNT\\(\\*\\) AS d, SUM\\(k\\) AS n, SUM\\(k = 1\\) AS f1 FROM \\(SELECT COUNT\\(\\*\\) AS k FROM \\(SELECT (\`(?:[^\`]|\`\`)+\`) FROM \`(?:[^\`]|\`\`)+\`\\.\`(?:[^\`]|\`\`)+\` LIMIT ${STATS_SAMPLE_ROWS}\\) AS s GROUP BY (\`(?:[^\`]|\`\`)+\`)\\) AS g$`);

/** The schemas a `schema` read may name: metadata, and the server's own counters (never user data). */
const READABLE_SCHEMAS = new Set(['information_schema', 'performance_schema']);

function onlyInformationSchema(tokens: Token[]): boolean {
  for (let k = 0; k < tokens.length; k++) {
    const w = kw(tokens[k]);
    if (w !== 'FROM' && w !== 'JOIN') continue;
    const t = tokens[k + 1];
    const db = t ? (t.kind === 'qident' ? t.text.slice(1, -1) : t.text) : '';
    if (!READABLE_SCHEMAS.has(db.toLowerCase()) || tokens[k + 2]?.text !== '.') return false;
  }
  return true;
}

/**
 * Throws GuardError unless `sql` is allowed for `purpose`. `confirmed` must be true for DDL
 * (the caller has asked the user).
 */
export function guardStatement(sql: string, purpose: Purpose, opts: { confirmed?: boolean } = {}): void {
  const text = sql.trim();
  const tokens = tokenize(text);
  if (tokens.length === 0) throw new GuardError('empty statement');
  // why: one statement per call; multipleStatements is off too, this catches it before the wire.
  if (tokens.some((t, i) => t.text === ';' && i < tokens.length - 1)) throw new GuardError('more than one statement');
  if (/\binto\s+(?:out|dump)file\b/i.test(text)) throw new GuardError('INTO OUTFILE / DUMPFILE is never sent');
  const hazard = hazardOf(text);
  if (hazard) throw new GuardError(hazard);
  const w0 = kw(tokens[0]);
  switch (purpose) {
    case 'explain': {
      if (w0 !== 'EXPLAIN' && w0 !== 'DESCRIBE' && w0 !== 'DESC') break;
      let k = 1;
      if (['EXTENDED', 'PARTITIONS'].includes(kw(tokens[k]))) k++;
      if (kw(tokens[k]) === 'FORMAT' && tokens[k + 1]?.text === '=') k += 3;
      if (kw(tokens[k]) === 'ANALYZE') throw new GuardError('EXPLAIN ANALYZE executes the statement; it is not sent');
      while (tokens[k]?.text === '(') k++;
      if (EXPLAINABLE.has(kw(tokens[k]))) return;
      break;
    }
    case 'schema':
      if (w0 === 'SHOW' && SHOW_READS.test(text)) return;
      if (w0 === 'SELECT' && !tokens.some((t) => ['UPDATE', 'SHARE', 'INTO'].includes(kw(t))) && onlyInformationSchema(tokens)) {
        const hasFrom = tokens.some((t) => kw(t) === 'FROM');
        if (hasFrom || /^SELECT\s+(?:VERSION\(\)|@@[\w.]+)(?:\s*,\s*(?:VERSION\(\)|@@[\w.]+))*$/i.test(text)) return;
      }
      break;
    case 'sample':
      if (SAMPLE_SHAPE.test(text)) return;
      { const m = STATS_SHAPE.exec(text); if (m && m[1] === m[2]) return; }
      break;
    case 'set':
      if (w0 === 'SET' && !/^SET\s+(?:GLOBAL|PERSIST|PERSIST_ONLY|PASSWORD|ROLE|DEFAULT\s+ROLE)\b/i.test(text)
        && !tokens.some((t) => t.text.startsWith('@@global') || /^@@(?!session\.)\w+\.\w+/i.test(t.text))) return;
      break;
    case 'analyze': {
      if (!opts.confirmed) throw new GuardError('ANALYZE runs the statement: it is sent only when the user asked to measure it');
      const maria = /^SET STATEMENT max_statement_time\s*=\s*\d+(?:\.\d+)? FOR ANALYZE FORMAT=JSON (?:SELECT|WITH)\b[\s\S]* ROWS EXAMINED \d+$/i.test(text);
      const mysql8 = /^EXPLAIN ANALYZE (?:SELECT \/\*\+ MAX_EXECUTION_TIME\(\d+\) \*\/|WITH\b[\s\S]*\bSELECT \/\*\+ MAX_EXECUTION_TIME\(\d+\) \*\/)/i.test(text);
      const locks = tokens.some((t, i) => (kw(t) === 'FOR' && ['UPDATE', 'SHARE'].includes(kw(tokens[i + 1]))) || (kw(t) === 'LOCK' && kw(tokens[i + 1]) === 'IN') || kw(t) === 'INTO');
      if ((maria || mysql8) && !locks && !tokens.some((t) => ['UPDATE', 'DELETE', 'INSERT', 'REPLACE'].includes(kw(t)))) return;
      break;
    }
    case 'ddl':
      if (!opts.confirmed) throw new GuardError('DDL is sent only after the user confirmed it');
      if (/^ALTER\s+TABLE\s+(?:`(?:[^`]|``)+`|\w+)(?:\.(?:`(?:[^`]|``)+`|\w+))?\s+(?:ADD\s+(?:UNIQUE\s+)?(?:INDEX|KEY)\b|DROP\s+(?:INDEX|KEY)\b)/i.test(text)
        && !tokens.some((t, i) => t.text === ',' && ['DROP', 'ADD', 'MODIFY', 'CHANGE', 'RENAME', 'ALTER'].includes(kw(tokens[i + 1])) && !['INDEX', 'KEY', 'UNIQUE'].includes(kw(tokens[i + 2])))) return;
      break;
  }
  throw new GuardError(`refused to send a ${purpose} statement of this shape: ${text.slice(0, 80)}`);
}
