/**
 * The API the extension, the CLI and the index advisor call to explain statements:
 *
 *   const svc = new ExplainService(new DbConnection({ socket, user, password, database }));
 *   const r = await svc.explainSite(site);   // { plan?, findings, substitutions, filledSql?, skipped?, error? }
 *   await svc.schema();                      // cached Schema (generation n)
 *   await svc.refreshSchema();               // after DDL: generation n+1, plan cache misses
 *
 * explainSite never throws for a statement's own problems: an unparsable statement, a missing
 * table or a timeout come back as `error` (with a kind), and the next call works again.
 */
import { DYNAMIC_MARK, type Schema, type SqlSite } from '../core/model';
import { adviseStatement, type Advice } from '../core/analysis/advisor';
import { columnsToSample } from '../core/analysis/columnStats';
import { adviseWorkload, indexesFor, type WorkloadAdvice, type WorkloadStatement } from '../core/analysis/workloadAdvice';
import { readColumnStats } from './columnStats';
import { planFindings, type PlanFinding } from '../core/analysis/planFindings';
import { statementFacts } from '../core/analysis/planFindingsQuery';
import { readPartAsSelect } from '../core/plan/explainable';
import { judgeExplainFailure, type SchemaFileTables } from '../core/plan/explainFailure';
import { prepareStatement } from '../core/plan/statementPrep';
import { mergeJsonDetail, normalizeJson } from '../core/plan/normalizeJson';
import { normalizeTabular } from '../core/plan/normalizeTabular';
import { PlanCache } from '../core/plan/planCache';
import type { Plan } from '../core/plan/planModel';
import { fillPlaceholders, type Substitution } from '../core/sql/fillPlaceholders';
import { DbError, classifyError, type DbConnection, type DbErrorKind } from './connection';
import { SampleReader } from './sampleReader';
import { SchemaCache } from './schemaReader';

export interface ExplainResult {
  plan?: Plan;
  findings: PlanFinding[];
  /** What replaced each placeholder / dynamic part, for the hover. */
  substitutions: Substitution[];
  /** The statement with placeholders filled. */
  filledSql?: string;
  /** What was sent after EXPLAIN when it differs from filledSql: the SELECT a data-changing statement reads with. */
  explainedSql?: string;
  /** Clauses left out of what was sent, as written (`FOR UPDATE`, `LOCK IN SHARE MODE`, `INTO @total`): the plan is the same without them. */
  explainedWithout?: string[];
  /** The locking clause of a locking read (`FOR UPDATE SKIP LOCKED`), when the statement has one. */
  lockingClause?: string;
  /** The index advice for the same statement: findings name the indexes it suggests, so explain, hover and advise agree. */
  advice?: Advice;
  /** Something about how the plan was read that a person should know (the JSON plan was unreadable, the tabular one is shown). */
  planNote?: string;
  /** Why no plan exists (INSERT … VALUES, a dynamic table name …); not an error. */
  skipped?: string;
  /**
   * Why EXPLAIN failed. `notExplained` is set when the failure says nothing against the statement (a
   * table of another database, a refusal, a lock, a missing grant …): shown as information, never as
   * a warning on the statement (src/core/plan/explainFailure.ts).
   */
  error?: { kind: DbErrorKind | 'fill'; message: string; notExplained?: string };
  /** True when served from the plan cache. */
  cached: boolean;
  /** Schema generation the result belongs to. */
  generation: number;
}

export interface ExplainServiceOptions {
  /** Also run EXPLAIN FORMAT=JSON (default true): adds MariaDB's `filtered`, costs and the raw document. */
  json?: boolean;
  cacheSize?: number;
  /**
   * The tables the workspace's schema files define, asked when EXPLAIN fails: a table the connected
   * database lacks but another database's schema file defines makes the statement "not explained",
   * not wrong. Without it, such failures stay warnings.
   */
  workspaceTables?: () => Promise<readonly SchemaFileTables[]> | readonly SchemaFileTables[];
  /**
   * Every statement of the app (the workspace's or the scanned directory's sites). When given, the advice
   * of each statement is its share of the workload's index set (workloadAdvice.ts), the same set `advise`
   * prints, and tables the code never writes outside its initialiser count as static. Return the same
   * array while the code is unchanged: the set is chosen again only for a new array or a new schema.
   */
  workload?: () => readonly WorkloadStatement[];
}

export class ExplainService {
  private readonly schemas: SchemaCache;
  private readonly samples: SampleReader;
  private readonly cache: PlanCache<ExplainResult>;
  private chosen: { statements: readonly WorkloadStatement[]; generation: number; advice: Promise<WorkloadAdvice> } | undefined;

  constructor(readonly db: DbConnection, private readonly options: ExplainServiceOptions = {}) {
    this.schemas = new SchemaCache(db);
    this.samples = new SampleReader(db, () => this.schemas.peek()?.generation ?? 0);
    this.cache = new PlanCache(options.cacheSize ?? 1000);
  }

  /** The cached schema (read on first use). */
  schema(): Promise<Schema> { return this.schemas.get(); }

  /** Re-reads the schema; plans cached for the old generation are dropped. */
  async refreshSchema(): Promise<Schema> {
    const s = await this.schemas.refresh();
    this.cache.prune(s.generation);
    return s;
  }

  /**
   * The workload's index set for the current schema (undefined without `options.workload`): chosen once per
   * array of statements and schema generation, after sampling rows per value of the columns its first pass uses.
   */
  workloadAdvice(): Promise<WorkloadAdvice | undefined> {
    const statements = this.options.workload?.();
    if (!statements) return Promise.resolve(undefined);
    return this.schemas.get().then((schema) => {
      if (this.chosen && this.chosen.statements === statements && this.chosen.generation === schema.generation) return this.chosen.advice;
      const advice = (async () => {
        const first = adviseWorkload(statements, { schema, fromDatabase: true });
        await readColumnStats(this.db, schema, columnsToSample([...first.perStatement.values()].flatMap((a) => a.suggestions), schema.tables));
        return adviseWorkload(statements, { schema, fromDatabase: true });
      })();
      this.chosen = { statements, generation: schema.generation, advice };
      // why: a failed choice (a lost connection while sampling) must not stay cached.
      advice.catch(() => { if (this.chosen?.advice === advice) this.chosen = undefined; });
      return advice;
    });
  }

  /** Explains one SQL site (its `sql` with placeholders and dynamic marks, `LIMIT ?` at the number the code passes). */
  explainSite(site: Pick<SqlSite, 'sql' | 'limit'>): Promise<ExplainResult> {
    return this.explainSql(site.sql, site.limit);
  }

  /**
   * Explains one statement, its `LIMIT ?` filled with `limit` when the code's value is known, else a page
   * (fillPlaceholders' DEFAULT_PAGE); results are cached by (statement, limit, schema generation).
   */
  explainSql(sql: string, limit?: number): Promise<ExplainResult> {
    // why: sampling and EXPLAIN share one time limit, so a statement blocked by a lock waits once, not twice.
    return this.db.withBudget(() => this.explainOnce(sql, limit));
  }

  private async explainOnce(sql: string, limit: number | undefined): Promise<ExplainResult> {
    const key = limit === undefined ? sql : `${sql}\0LIMIT ${limit}`;
    let schema: Schema;
    try {
      schema = await this.schemas.get();
    } catch (err) {
      const e = classifyError(err, this.db.options);
      return { findings: [], substitutions: [], error: { kind: e.kind, message: e.message }, cached: false, generation: 0 };
    }
    const generation = schema.generation;
    const hit = this.cache.get(key, generation);
    if (hit) return { ...hit, cached: true };
    const base = { findings: [] as PlanFinding[], substitutions: [] as Substitution[], cached: false, generation };
    const prep = prepareStatement(sql);
    if (!prep.ok) return this.remember(key, { ...base, skipped: prep.reason });
    const lockingClause = prep.lockingClause;
    const without = prep.without.length ? { explainedWithout: prep.without } : {};
    const filled = await fillPlaceholders(prep.sql, schema, this.samples, { flavor: schema.flavor, ...(limit !== undefined ? { limit } : {}) });
    if (!filled.ok) return this.remember(key, { ...base, ...without, skipped: filled.reason });
    const result: ExplainResult = { ...base, ...without, ...(lockingClause ? { lockingClause } : {}), substitutions: filled.substitutions, filledSql: filled.sql };
    // why: the advisor reads placeholders as parameters (an IN (?) as a list); a dynamic part is not SQL, so it reads the filled text then.
    let workload: WorkloadAdvice | undefined;
    try {
      workload = await this.workloadAdvice();
    } catch {
      // why: without the workload's set the statement's own advice still stands; the next call tries again.
      workload = undefined;
    }
    const own = workload?.perStatement.get(prep.sql);
    result.advice = own && !own.error
      ? { ...own, suggestions: indexesFor(workload!, sql) }
      : adviseStatement(prep.sql.includes(DYNAMIC_MARK) ? filled.sql : prep.sql, { schema, fromDatabase: true, ...(workload ? { writtenTables: workload.written } : {}) });
    let target = filled.sql;
    if (prep.kind !== 'select') {
      const read = readPartAsSelect(filled.sql);
      if (!read) return this.remember(key, { ...result, skipped: `${prep.kind.toUpperCase()} without a read part has no plan to explain` });
      target = read;
      result.explainedSql = read;
    } else if (prep.without.length) {
      result.explainedSql = filled.sql;
    }
    try {
      const rows = await this.db.query('explain', `EXPLAIN ${target}`);
      let plan = normalizeTabular(rows, schema.flavor);
      if (this.options.json !== false) {
        const j = await this.db.query('explain', `EXPLAIN FORMAT=JSON ${target}`);
        const doc = j[0] ? Object.values(j[0])[0] : undefined;
        if (typeof doc === 'string') {
          try {
            plan = mergeJsonDetail(plan, normalizeJson(doc, schema.flavor));
          } catch (err) {
            // why: the tabular plan is complete on its own; losing the JSON detail must not lose the plan.
            result.planNote = `the JSON plan could not be read (${(err as Error).message}); the tabular plan is shown`;
          }
        }
      }
      result.plan = plan;
      const facts = statementFacts(target, schema);
      result.findings = planFindings(plan, facts, schema, { advice: result.advice, ...(workload ? { writtenTables: workload.written } : {}), ...(prep.offset !== undefined ? { offset: prep.offset } : {}), ...(lockingClause ? { locking: lockingClause } : prep.kind === 'update' || prep.kind === 'delete' ? { locking: prep.kind.toUpperCase() } : {}) });
    } catch (err) {
      const e = err instanceof DbError ? err : classifyError(err, this.db.options);
      // why: a failure is never cached as the statement's plan: the next hover asks the server again
      // (and the schema files it is judged by may have changed since).
      return { ...result, error: await this.judge(e, target, schema, filled.substitutions) };
    }
    return this.remember(key, result);
  }

  /** The failure as the statement's fault (a warning) or not (`notExplained`), by what the workspace defines. */
  private async judge(e: DbError, sql: string, schema: Schema, substitutions: readonly Substitution[]): Promise<NonNullable<ExplainResult['error']>> {
    let files: readonly SchemaFileTables[] | undefined;
    try {
      files = await this.options.workspaceTables?.();
    } catch {
      // why: unreadable schema files leave the failure as the server put it, never lose it.
      files = undefined;
    }
    const runTimeParts = substitutions.filter((s) => s.placeholder === DYNAMIC_MARK).map((s) => s.value);
    const j = judgeExplainFailure({ kind: e.kind, message: e.message, sql, schema, runTimeParts, ...(files ? { files } : {}) });
    return { kind: e.kind, message: j.message, ...(j.notExplained ? { notExplained: j.notExplained } : {}) };
  }

  private remember(key: string, r: ExplainResult): ExplainResult {
    this.cache.set(key, r.generation, r);
    return r;
  }

  async close(): Promise<void> { await this.db.close(); }
}
