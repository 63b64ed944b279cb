/**
 * The statements of a window: the difference of two digest snapshots, per digest, then per
 * fingerprint (statement shape).
 *
 * performance_schema's counters only grow, except when a row is reset (TRUNCATE of the table,
 * FLUSH …) or evicted and created again. A row is matched across snapshots by (schema, digest):
 * - in the second snapshot only: it appeared during the window, all its figures are the window's;
 * - in both, same FIRST_SEEN and no counter went down: the difference is the window's;
 * - in both but FIRST_SEEN moved or a counter went down: the row was reset and re-created during the
 *   window — its second-snapshot figures are what the window did since then (a lower bound), and
 *   it is reported as `reset`, never as a negative count;
 * - in the first snapshot only: evicted or reset and not executed again; no figure is known.
 * The row with a NULL digest collects statements the server could not give a row (the digest table
 * was full): its growth is reported as `lost`.
 * Timers are picoseconds; times here are seconds.
 */
import { DIGEST_COUNTERS, type DigestCounter, type DigestRow, type ServerSnapshot } from './snapshot';
import { digestFingerprint } from './digestText';

/** What the window did for one digest. */
export interface DigestDelta {
  schema: string | null;
  digest: string;
  text: string;
  fingerprint: string;
  truncated: boolean;
  /** `grown`: the exact difference; `new`: the row appeared in the window; `reset`: re-created in the window (figures since then). */
  status: 'grown' | 'new' | 'reset';
  count: number;
  /** Seconds. */
  totalTime: number;
  lockTime: number;
  /** Slowest execution, seconds; exact when `maxExact`, else an upper bound (the row's maximum since before the window). */
  maxTime: number;
  maxExact: boolean;
  rowsSent: number;
  rowsExamined: number;
  rowsAffected: number;
  tmpDiskTables: number;
  tmpTables: number;
  sortRows: number;
  noIndexUsed: number;
  noGoodIndexUsed: number;
  selectScan: number;
  errors: number;
}

/** A digest of the first snapshot missing from the second. */
export interface EvictedDigest { schema: string | null; digest: string; text: string; fingerprint: string }

export interface DigestDiffOptions {
  /** Keep only rows of these schemas. Default: every schema. */
  schemas?: readonly string[];
  /**
   * With `schemas`, also keep statements run with no default database (default false: those come
   * from admin sessions — the mysql client, a harness's SET GLOBAL — rarely from the app).
   */
  withoutSchema?: boolean;
  /**
   * Leave out statements that read performance_schema or information_schema, or are EXPLAIN:
   * what this tool itself sends while measuring (default true).
   */
  skipOwn?: boolean;
}

export interface DigestDiff {
  /** Digests executed in the window (count > 0), largest total time first. */
  digests: DigestDelta[];
  evicted: EvictedDigest[];
  /** Statements counted in the server's overflow row (digest table full) during the window. */
  lost: number;
  /** Digests left out as the tool's own statements. */
  skipped: number;
  /** Seconds between the snapshots (by their takenAt). */
  windowSeconds: number;
}

const PS_PER_S = 1e12;

function big(s: string): bigint { return BigInt(s); }

const OWN = /\b(?:performance_schema|information_schema)\b/i;

function keyOf(r: DigestRow): string { return `${r.schema ?? ''}\0${r.digest ?? ''}`; }

function figures(after: DigestRow, before: DigestRow | undefined): Record<DigestCounter, number> {
  const out = {} as Record<DigestCounter, number>;
  for (const c of DIGEST_COUNTERS) {
    const d = big(after.counters[c]) - (before ? big(before.counters[c]) : 0n);
    out[c] = c === 'timerWait' || c === 'lockTime' ? Number(d) / PS_PER_S : Number(d);
  }
  return out;
}

function wasReset(before: DigestRow, after: DigestRow): boolean {
  if (before.firstSeen !== after.firstSeen) return true;
  return DIGEST_COUNTERS.some((c) => big(after.counters[c]) < big(before.counters[c]));
}

/** Differences of two snapshots per digest (see the file comment for evicted and reset rows). */
export function diffDigests(before: ServerSnapshot, after: ServerSnapshot, options: DigestDiffOptions = {}): DigestDiff {
  const schemas = options.schemas ? new Set(options.schemas) : undefined;
  const skipOwn = options.skipOwn ?? true;
  const keep = (r: DigestRow): boolean => !schemas || (r.schema === null ? options.withoutSchema === true : schemas.has(r.schema));
  const own = (r: DigestRow): boolean => skipOwn && r.text !== null && (OWN.test(r.text) || /^\s*(?:EXPLAIN|DESCRIBE)\b/i.test(r.text));
  const prev = new Map<string, DigestRow>();
  let lostBefore = 0n;
  for (const r of before.digests) {
    if (r.digest === null) { lostBefore += big(r.counters.count); continue; }
    if (keep(r)) prev.set(keyOf(r), r);
  }
  const digests: DigestDelta[] = [];
  const seen = new Set<string>();
  let lost = 0;
  let skipped = 0;
  for (const r of after.digests) {
    if (r.digest === null) {
      const d = big(r.counters.count) - lostBefore;
      lost += Number(d >= 0n ? d : big(r.counters.count));
      continue;
    }
    if (!keep(r)) continue;
    const key = keyOf(r);
    seen.add(key);
    const b = prev.get(key);
    if (own(r)) { skipped++; continue; }
    const reset = b !== undefined && wasReset(b, r);
    const f = figures(r, reset ? undefined : b);
    if (f.count <= 0) continue;
    const fp = digestFingerprint(r.text ?? '');
    const maxAfter = Number(big(r.maxTimerWait)) / PS_PER_S;
    const maxExact = !b || reset || big(r.maxTimerWait) > big(b.maxTimerWait);
    digests.push({
      schema: r.schema, digest: r.digest, text: r.text ?? '', fingerprint: fp.fingerprint, truncated: fp.truncated,
      status: !b ? 'new' : reset ? 'reset' : 'grown',
      count: f.count, totalTime: f.timerWait, lockTime: f.lockTime, maxTime: maxAfter, maxExact,
      rowsSent: f.rowsSent, rowsExamined: f.rowsExamined, rowsAffected: f.rowsAffected, tmpDiskTables: f.tmpDiskTables,
      tmpTables: f.tmpTables, sortRows: f.sortRows, noIndexUsed: f.noIndexUsed, noGoodIndexUsed: f.noGoodIndexUsed,
      selectScan: f.selectScan, errors: f.errors,
    });
  }
  const evicted: EvictedDigest[] = [];
  for (const [key, r] of prev) {
    if (seen.has(key) || own(r)) continue;
    evicted.push({ schema: r.schema, digest: r.digest!, text: r.text ?? '', fingerprint: digestFingerprint(r.text ?? '').fingerprint });
  }
  digests.sort((a, b) => b.totalTime - a.totalTime || (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0));
  const windowSeconds = Math.max(0, (Date.parse(after.takenAt) - Date.parse(before.takenAt)) / 1000);
  return { digests, evicted, lost, skipped, windowSeconds };
}

/** One statement shape of the window: the digests with the same fingerprint, summed. */
export interface StatementShape {
  fingerprint: string;
  count: number;
  totalTime: number;
  maxTime: number;
  maxExact: boolean;
  lockTime: number;
  rowsSent: number;
  rowsExamined: number;
  rowsAffected: number;
  noIndexUsed: number;
  noGoodIndexUsed: number;
  tmpDiskTables: number;
  tmpTables: number;
  sortRows: number;
  selectScan: number;
  errors: number;
  /** Some digest of this shape was re-created during the window: its figures are a lower bound. */
  reset: boolean;
  truncated: boolean;
  /** One digest text of the shape, as the server printed it. */
  text: string;
  schemas: string[];
  digests: string[];
}

const SUMMED = ['count', 'totalTime', 'lockTime', 'rowsSent', 'rowsExamined', 'rowsAffected', 'noIndexUsed', 'noGoodIndexUsed',
  'tmpDiskTables', 'tmpTables', 'sortRows', 'selectScan', 'errors'] as const;

/**
 * Groups digests by fingerprint (two digests can fold into one shape: `IN (?)` and `IN (...)`, the
 * same statement in two schemas). Largest total time first.
 */
export function statementShapes(digests: readonly DigestDelta[]): StatementShape[] {
  const by = new Map<string, StatementShape>();
  for (const d of digests) {
    let s = by.get(d.fingerprint);
    if (!s) {
      s = { fingerprint: d.fingerprint, count: 0, totalTime: 0, maxTime: 0, maxExact: true, lockTime: 0, rowsSent: 0, rowsExamined: 0, rowsAffected: 0,
        noIndexUsed: 0, noGoodIndexUsed: 0, tmpDiskTables: 0, tmpTables: 0, sortRows: 0, selectScan: 0, errors: 0,
        reset: false, truncated: false, text: d.text, schemas: [], digests: [] };
      by.set(d.fingerprint, s);
    }
    for (const k of SUMMED) s[k] += d[k];
    if (d.maxTime > s.maxTime) { s.maxTime = d.maxTime; s.maxExact = d.maxExact; } else if (d.maxTime === s.maxTime) s.maxExact &&= d.maxExact;
    s.reset ||= d.status === 'reset';
    s.truncated ||= d.truncated;
    if (d.schema !== null && !s.schemas.includes(d.schema)) s.schemas.push(d.schema);
    s.digests.push(d.digest);
  }
  return [...by.values()].sort((a, b) => b.totalTime - a.totalTime || (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0));
}
