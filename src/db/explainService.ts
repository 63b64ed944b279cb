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
import type { Schema, SqlSite } from '../core/model';
import { planFindings, type PlanFinding } from '../core/analysis/planFindings';
import { statementFacts } from '../core/analysis/planFindingsQuery';
import { explainability, readPartAsSelect } from '../core/plan/explainable';
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
  /** Why no plan exists (INSERT … VALUES, a dynamic table name …); not an error. */
  skipped?: string;
  error?: { kind: DbErrorKind | 'fill'; message: string };
  /** True when served from the plan cache. */
  cached: boolean;
  /** Schema generation the result belongs to. */
  generation: number;
}

export interface ExplainServiceOptions {
  /** Also run EXPLAIN FORMAT=JSON (default true): adds MariaDB's `filtered`, costs and the raw document. */
  json?: boolean;
  cacheSize?: number;
}

export class ExplainService {
  private readonly schemas: SchemaCache;
  private readonly samples: SampleReader;
  private readonly cache: PlanCache<ExplainResult>;

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

  /** Explains one SQL site (its `sql` with placeholders and dynamic marks). */
  explainSite(site: Pick<SqlSite, 'sql'>): Promise<ExplainResult> {
    return this.explainSql(site.sql);
  }

  /** Explains one statement; results are cached by (statement, schema generation). */
  async explainSql(sql: string): Promise<ExplainResult> {
    let schema: Schema;
    try {
      schema = await this.schemas.get();
    } catch (err) {
      const e = classifyError(err, this.db.options);
      return { findings: [], substitutions: [], error: { kind: e.kind, message: e.message }, cached: false, generation: 0 };
    }
    const generation = schema.generation;
    const hit = this.cache.get(sql, generation);
    if (hit) return { ...hit, cached: true };
    const base = { findings: [] as PlanFinding[], substitutions: [] as Substitution[], cached: false, generation };
    const can = explainability(sql);
    if (!can.explain) return this.remember(sql, { ...base, skipped: can.reason });
    const filled = await fillPlaceholders(sql, schema, this.samples, { flavor: schema.flavor });
    if (!filled.ok) return this.remember(sql, { ...base, skipped: filled.reason });
    const result: ExplainResult = { ...base, substitutions: filled.substitutions, filledSql: filled.sql };
    let target = filled.sql;
    if (can.kind !== 'select') {
      const read = readPartAsSelect(filled.sql);
      if (!read) return this.remember(sql, { ...result, skipped: `${can.kind.toUpperCase()} without a read part has no plan to explain` });
      target = read;
      result.explainedSql = read;
    }
    try {
      const rows = await this.db.query('explain', `EXPLAIN ${target}`);
      let plan = normalizeTabular(rows, schema.flavor);
      if (this.options.json !== false) {
        const j = await this.db.query('explain', `EXPLAIN FORMAT=JSON ${target}`);
        const doc = j[0] ? Object.values(j[0])[0] : undefined;
        if (typeof doc === 'string') plan = mergeJsonDetail(plan, normalizeJson(doc, schema.flavor));
      }
      result.plan = plan;
      const facts = statementFacts(target, schema);
      result.findings = planFindings(plan, facts, schema);
    } catch (err) {
      const e = err instanceof DbError ? err : classifyError(err, this.db.options);
      // why: a timeout or a dropped connection is not a property of the statement: do not cache it.
      const transient = e.kind === 'timeout' || e.kind === 'connection-lost' || e.kind === 'unreachable' || e.kind === 'auth';
      const r = { ...result, error: { kind: e.kind, message: e.message } };
      return transient ? r : this.remember(sql, r);
    }
    return this.remember(sql, result);
  }

  private remember(sql: string, r: ExplainResult): ExplainResult {
    this.cache.set(sql, r.generation, r);
    return r;
  }

  async close(): Promise<void> { await this.db.close(); }
}
