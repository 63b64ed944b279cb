/**
 * core's SampleSource over a DbConnection: distinct non-null values of one column, read with the
 * bounded query that the guard accepts (sampleQuery), cached per schema generation.
 */
import type { SampleSource, SampleValue } from '../core/sql/fillPlaceholders';
import type { DbConnection } from './connection';
import { sampleQuery } from './guard';

export class SampleReader implements SampleSource {
  private readonly cache = new Map<string, Promise<SampleValue[]>>();
  private generation = -1;

  constructor(private readonly db: DbConnection, private readonly currentGeneration: () => number) {}

  sample(table: string, column: string, count: number): Promise<SampleValue[]> {
    const g = this.currentGeneration();
    if (g !== this.generation) { this.cache.clear(); this.generation = g; }
    const want = Math.max(count, 5);
    const key = `${table}\u0000${column}`;
    let p = this.cache.get(key);
    if (!p) {
      p = this.db.query<Record<string, unknown>>('sample', sampleQuery(this.db.options.database, table, column, want))
        .then((rows) => rows.map((r) => toSample(Object.values(r)[0])).filter((v): v is SampleValue => v !== undefined));
      // why: a failed read (timeout, lost connection) must not stay cached.
      p.catch(() => this.cache.delete(key));
      this.cache.set(key, p);
    }
    return p.then((vals) => vals.slice(0, count));
  }
}

function toSample(v: unknown): SampleValue | undefined {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'string') return v;
  // why: binary and JSON values do not round-trip as literals; the filler falls back to a typed literal.
  return undefined;
}
