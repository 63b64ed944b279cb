/**
 * Counts per host for reports that merge the logs of several boxes (`--by-host`): which host each
 * endpoint's requests or each fingerprint's executions came from. The reader says which host the
 * following lines come from; each aggregate keeps a small array indexed by host.
 */
export class HostTally<K> {
  private readonly names: string[] = [];
  private current = -1;
  private readonly counts = new Map<K, number[]>();

  /** Lines counted from now on come from `name`. */
  setHost(name: string): void {
    let i = this.names.indexOf(name);
    if (i < 0) i = this.names.push(name) - 1;
    this.current = i;
  }

  /** True once a host was set: the caller then counts. */
  get active(): boolean { return this.current >= 0; }

  /** One more for `key` from the current host. */
  add(key: K): void {
    const i = this.current;
    if (i < 0) return;
    let c = this.counts.get(key);
    if (!c) this.counts.set(key, c = []);
    c[i] = (c[i] ?? 0) + 1;
  }

  /** `n` more for `key` from the current host. */
  addMany(key: K, n: number): void {
    const i = this.current;
    if (i < 0 || n === 0) return;
    let c = this.counts.get(key);
    if (!c) this.counts.set(key, c = []);
    c[i] = (c[i] ?? 0) + n;
  }

  /** `{ host: count }` for `key` in the order the hosts were first named, or undefined when nothing was counted. */
  of(key: K): Record<string, number> | undefined {
    const c = this.counts.get(key);
    if (!c) return undefined;
    const out: Record<string, number> = {};
    for (let i = 0; i < c.length; i++) if (c[i]) out[this.names[i]] = c[i];
    return out;
  }
}
