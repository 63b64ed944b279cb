/**
 * Shows what a suggested index would do before the user keeps it: EXPLAIN before, create the index,
 * EXPLAIN after, drop it again unless kept. MySQL 8 creates it INVISIBLE and lets only this session
 * see it (`optimizer_switch='use_invisible_indexes=on'`), so the application's plans never change;
 * MariaDB has no session-only visibility, so the index exists for the moments between ADD and DROP.
 * Nothing is sent without `confirmed: true`; progress is reported and an AbortSignal cancels between
 * steps (an index already created is always dropped on cancel or failure).
 */
import type { Flavor, IndexSuggestion } from '../core/model';
import { addIndexDdl, dropIndexDdl } from '../core/analysis/ddl';
import { normalizeTabular } from '../core/plan/normalizeTabular';
import type { Plan } from '../core/plan/planModel';

/** What the verifier needs from a connection (src/db/connection.ts's DbConnection provides it). */
export interface VerifierDb {
  connect(): Promise<{ flavor: Flavor; major: number; minor: number }>;
  query<T = Record<string, unknown>>(purpose: 'explain' | 'set' | 'ddl', sql: string, opts?: { confirmed?: boolean }): Promise<T[]>;
}

export interface VerifyOptions {
  /** Must be true: the user confirmed that DDL may be sent. */
  confirmed: boolean;
  /** Keep the index (apply the suggestion's DDL for real) instead of dropping it after the EXPLAIN. */
  keep?: boolean;
  signal?: AbortSignal;
  onProgress?: (step: string) => void;
  database?: string;
}

export interface PlanSummary {
  /** Estimated rows examined: per SELECT, the nested-loop sum of row products. */
  rowsExamined: number;
  /** `table:type(key)` per plan row, in plan order. */
  access: string[];
  filesort: boolean;
  temporary: boolean;
  plan: Plan;
}

export interface VerifyResult {
  /** Names of the verified indexes. */
  indexes: string[];
  table: string;
  before: PlanSummary;
  after: PlanSummary;
  /** before.rowsExamined / after.rowsExamined (Infinity when after is 0). */
  factor: number;
  filesortRemoved: boolean;
  temporaryRemoved: boolean;
  kept: boolean;
  /** Every DDL statement sent, in order. */
  ddl: string[];
  /** MySQL: the index was created INVISIBLE for the comparison. */
  invisible: boolean;
}

export class VerifyCancelled extends Error {
  constructor() { super('index verification cancelled'); this.name = 'VerifyCancelled'; }
}

/** Summarises a plan: rows examined (Σ over each SELECT of running products), access types, filesort/temporary. */
export function summarizePlan(plan: Plan): PlanSummary {
  let total = 0;
  const product = new Map<number | null, number>();
  const access: string[] = [];
  let filesort = false, temporary = false;
  for (const r of plan.rows) {
    const rows = r.rows ?? 1;
    const p = (product.get(r.id) ?? 1) * Math.max(rows, 1);
    product.set(r.id, p);
    if (r.rows !== null) total += p;
    access.push(`${r.table ?? '-'}:${r.type ?? '-'}${r.key ? `(${r.key})` : ''}`);
    if (r.extra.some((e) => /filesort/i.test(e))) filesort = true;
    if (r.extra.some((e) => /temporary/i.test(e))) temporary = true;
  }
  return { rowsExamined: total, access, filesort, temporary, plan };
}

/**
 * Verifies `suggestions` (one index, or the indexes of one index-merge group) for one statement.
 * `explainSql` is the statement with its placeholders already filled (ExplainResult.filledSql).
 * Throws before sending anything unless `confirmed`.
 */
export async function verifyIndex(db: VerifierDb, suggestions: IndexSuggestion | readonly IndexSuggestion[], explainSql: string, opts: VerifyOptions): Promise<VerifyResult> {
  if (opts.confirmed !== true) throw new Error('index verification sends DDL: it needs the user\'s confirmation (confirmed: true)');
  const list = Array.isArray(suggestions) ? suggestions as readonly IndexSuggestion[] : [suggestions as IndexSuggestion];
  if (!list.length) throw new Error('no index to verify');
  const progress = opts.onProgress ?? (() => undefined);
  const check = () => { if (opts.signal?.aborted) throw new VerifyCancelled(); };
  check();
  const server = await db.connect();
  const invisible = server.flavor === 'mysql' && server.major >= 8;
  const explain = async (): Promise<PlanSummary> => summarizePlan(normalizeTabular(await db.query('explain', `EXPLAIN ${explainSql}`), server.flavor));
  const sent: string[] = [];
  const ddl = async (sql: string) => {
    sent.push(sql);
    // why: the connection's session is READ ONLY, which also refuses DDL (ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION);
    // it is lifted for this one confirmed statement and restored right after, even when the statement fails.
    await db.query('set', 'SET SESSION TRANSACTION READ WRITE');
    try {
      await db.query('ddl', sql, { confirmed: true });
    } finally {
      await db.query('set', 'SET SESSION TRANSACTION READ ONLY');
    }
  };
  const created = new Set<IndexSuggestion>();
  const drop = async (s: IndexSuggestion) => { await ddl(dropIndexDdl(s.table, s.name, opts.database)); created.delete(s); };

  progress('EXPLAIN before');
  const before = await explain();
  try {
    for (const s of list) {
      check();
      progress(`creating ${s.name}${invisible ? ' (invisible)' : ''}`);
      await ddl(addIndexDdl(s.table, s.columns, s.name, { database: opts.database, invisible }).ddl);
      created.add(s);
    }
    check();
    if (invisible) await db.query('set', "SET SESSION optimizer_switch = 'use_invisible_indexes=on'");
    progress('EXPLAIN after');
    const after = await explain();
    if (invisible) await db.query('set', "SET SESSION optimizer_switch = 'use_invisible_indexes=off'");
    check();
    for (const s of list) {
      if (!opts.keep) {
        progress(`dropping ${s.name}`);
        await drop(s);
      } else if (invisible) {
        // Make the trial index the real one: MySQL re-creates it visible (dropping the index it extends).
        progress(`re-creating ${s.name} visible`);
        await drop(s);
        await ddl(addIndexDdl(s.table, s.columns, s.name, { database: opts.database, replaces: s.replaces }).ddl);
      } else if (s.replaces) {
        progress(`dropping ${s.replaces}, which ${s.name} extends`);
        await ddl(dropIndexDdl(s.table, s.replaces, opts.database));
      }
    }
    return {
      indexes: list.map((s) => s.name), table: list[0].table, before, after,
      factor: after.rowsExamined === 0 ? Infinity : before.rowsExamined / after.rowsExamined,
      filesortRemoved: before.filesort && !after.filesort,
      temporaryRemoved: before.temporary && !after.temporary,
      kept: !!opts.keep, ddl: sent, invisible,
    };
  } catch (err) {
    // Never leave a trial index behind: a failed or cancelled verification drops what it created.
    for (const s of [...created]) {
      progress(`dropping ${s.name} (${err instanceof VerifyCancelled ? 'cancelled' : 'failed'})`);
      await drop(s).catch(() => undefined);
    }
    throw err;
  }
}
