/**
 * A small LRU cache for explain results, keyed by (statement text, schema generation): a schema
 * refresh bumps the generation, so every older entry misses without an explicit flush.
 */
export class PlanCache<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly capacity = 500) {}

  private static key(sql: string, generation: number): string {
    return `${generation}\u0000${sql}`;
  }

  get(sql: string, generation: number): V | undefined {
    const k = PlanCache.key(sql, generation);
    const v = this.map.get(k);
    if (v !== undefined) { this.map.delete(k); this.map.set(k, v); }
    return v;
  }

  set(sql: string, generation: number, value: V): void {
    const k = PlanCache.key(sql, generation);
    this.map.delete(k);
    this.map.set(k, value);
    while (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as string);
  }

  /** Drops entries of older generations (they can never hit again). */
  prune(generation: number): void {
    for (const k of [...this.map.keys()]) if (!k.startsWith(`${generation}\u0000`)) this.map.delete(k);
  }

  get size(): number { return this.map.size; }
}
