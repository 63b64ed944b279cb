/**
 * Per-fingerprint statistics over slow-log entries (pt-query-digest's "profile"), in bounded memory:
 * exact query-time samples up to a limit per fingerprint, the latency histogram (1 % buckets)
 * beyond; at most `maxFingerprints` distinct fingerprints (later new ones are counted as overflow).
 */
import { ExactSum } from './exactSum';
import { HostTally } from './hostTally';
import { decodeFingerprint, fingerprintInto, lastFingerprintBytes } from '../sql/fingerprint';
import { entrySql, type SlowLogEntry } from './slowLogParser';
import { histogramLayout, LatencyHistogram } from './latencyHistogram';
import { quantileRanks, type QuantileInterval } from './quantileInterval';

export interface Figures {
  total: number; mean: number; max: number;
  /** Population standard deviation (query time and rows examined; absent where not measured). */
  stddev?: number;
}

/** Everything known about one fingerprint. Times in seconds, timestamps in epoch ms. */
export interface QueryStats {
  fingerprint: string;
  count: number;
  /** `p95Range`: the p95's 95 % confidence interval (src/core/logs/quantileInterval.ts), absent where not measured. */
  queryTime: Figures & { min: number; p95: number; p95Range?: QuantileInterval };
  lockTime: Figures;
  rowsSent: Figures;
  rowsExamined: Figures;
  /** Total rows examined per row sent (null when nothing was sent). */
  examinedPerSent: number | null;
  firstSeen?: number;
  lastSeen?: number;
  /** The slowest execution's statement, its time and database. */
  example: string;
  exampleQueryTime: number;
  exampleSchema: string;
  /** True for `administrator command: …` entries. */
  admin: boolean;
  /** Most executions within one wall-clock second, and the number of seconds with at least one. */
  peakPerSecond: number;
  activeSeconds: number;
  /**
   * Executions that followed an execution of the same fingerprint on the same connection, with at
   * most 3 other statements and `repeatWindowMs` in between: the signature of a loop.
   */
  repeats: number;
  /** Entries flagged by MariaDB's log_slow_verbosity (0 when not logged). */
  fullScan: number;
  filesort: number;
  tmpTableOnDisk: number;
  /** Executions per host, when the entries came from several boxes and the reader named them (`setHost`). */
  hosts?: Record<string, number>;
  /** Set when the figures come from performance_schema (src/core/serverStats): min and p95 are not measured. */
  fromServer?: true;
}

export interface SlowStatsOptions {
  /** Distinct fingerprints kept (default 50,000). */
  maxFingerprints?: number;
  /** Exact samples kept per fingerprint before switching to the histogram (default 1,024). */
  exactSamples?: number;
  /** Window for `repeats` when timestamps have sub-second resolution (default 20 ms). */
  repeatWindowMs?: number;
  /** The collector reads one byte range of a log, to be merged with the others' (toPart). */
  partial?: boolean;
}

/** One fingerprint's state in a SlowStatsPart. */
export interface SlowAccPart {
  fingerprint: string; key: Uint8Array; admin: boolean; count: number;
  qtSum: number[]; qtSq: number[]; qtMin: number; qtMax: number; ltSum: number[]; ltMax: number;
  rsSum: number; rsMax: number; reSum: number; reSq: number[]; reMax: number; first: number; last: number;
  example: string; exampleTime: number; exampleSchema: string;
  samples: Float64Array | undefined; hist: Uint32Array | undefined;
  curSec: number; curCount: number; peak: number; activeSeconds: number; firstSec: number; firstRun: number;
  repeats: number; fullScan: number; filesort: number; tmpDisk: number;
}

/** What a partial collector counted on one range, as plain data that crosses threads. */
export interface SlowStatsPart {
  entries: number;
  overflowEntries: number;
  accs: SlowAccPart[];
  /**
   * Per connection: the executions of the range's first four on it that found no repeat within the
   * range (`id` = index in accs, `prior` = executions before it in the range), and its last four (oldest first).
   */
  threads: { thread: number; pending: { id: number; time: number; window: number; prior: number }[]; ring: { id: number; time: number }[] }[];
}

/** The last four executions on one connection: fingerprint ids and times, `pos` the next slot. */
interface Ring {
  ids: Int32Array; times: Float64Array; pos: number;
  /** Executions pushed so far (the ring is full from four). */
  seen: number;
  pending?: { id: number; time: number; window: number; prior: number }[];
}

function newRing(): Ring {
  return { ids: new Int32Array(4).fill(-1), times: new Float64Array(4), pos: 0, seen: 0 };
}

function pushRing(r: Ring, id: number, t: number): void {
  r.ids[r.pos] = id;
  r.times[r.pos] = t;
  r.pos = (r.pos + 1) & 3;
  r.seen++;
}

/** Whether one of the `last` newest executions in the ring is `id` within `win` ms before `t` (or either time unknown). */
function repeatsIn(r: Ring, id: number, t: number, win: number, last: number): boolean {
  for (let j = 1; j <= last; j++) {
    const k = (r.pos - j) & 3;
    if (r.ids[k] === id) {
      const dt = t - r.times[k];
      // without timestamps the ring distance alone decides
      if (t !== t || (dt >= 0 && dt <= win)) return true;
    }
  }
  return false;
}

/** The ring's executions, oldest first. */
function ringOrder(r: Ring): { id: number; time: number }[] {
  const out: { id: number; time: number }[] = [];
  for (let j = Math.min(4, r.seen); j >= 1; j--) {
    const k = (r.pos - j) & 3;
    out.push({ id: r.ids[k], time: r.times[k] });
  }
  return out;
}

function latin1(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i += 4096) s += String.fromCharCode(...b.subarray(i, i + 4096));
  return s;
}

/** Adds one range's figures of a fingerprint to the merged ones (ranges in the log's order). */
function mergeAcc(a: Acc, p: SlowAccPart, exact: number, exampleSchema: string): void {
  const n = a.count;
  a.count += p.count;
  a.qtSum.addSum(ExactSum.fromWire(p.qtSum));
  a.qtSq.addSum(ExactSum.fromWire(p.qtSq));
  if (p.qtMin < a.qtMin) a.qtMin = p.qtMin;
  if (p.qtMax > a.qtMax) a.qtMax = p.qtMax;
  a.ltSum.addSum(ExactSum.fromWire(p.ltSum)); if (p.ltMax > a.ltMax) a.ltMax = p.ltMax;
  a.rsSum += p.rsSum; if (p.rsMax > a.rsMax) a.rsMax = p.rsMax;
  a.reSum += p.reSum; a.reSq.addSum(ExactSum.fromWire(p.reSq)); if (p.reMax > a.reMax) a.reMax = p.reMax;
  if (p.exampleTime > a.exampleTime) { a.exampleTime = p.exampleTime; a.example = p.example; a.exampleSchema = exampleSchema; }
  if (!(p.first >= a.first)) a.first = p.first === p.first ? p.first : a.first;
  if (!(p.last <= a.last)) a.last = p.last === p.last ? p.last : a.last;
  // the executions per second: a run of one second may go on across the cut
  if (p.activeSeconds > 0) {
    if (a.activeSeconds > 0 && a.curSec === p.firstSec) {
      const joined = a.curCount + p.firstRun;
      a.activeSeconds += p.activeSeconds - 1;
      if (joined > a.peak) a.peak = joined;
      if (p.activeSeconds === 1) a.curCount = joined; else { a.curSec = p.curSec; a.curCount = p.curCount; }
    } else {
      a.activeSeconds += p.activeSeconds;
      a.curSec = p.curSec;
      a.curCount = p.curCount;
    }
    if (p.peak > a.peak) a.peak = p.peak;
  }
  a.repeats += p.repeats;
  a.fullScan += p.fullScan; a.filesort += p.filesort; a.tmpDisk += p.tmpDisk;
  // exact samples while the whole count fits, else the histogram of every value (as one reader's)
  if (a.samples !== undefined && p.samples !== undefined && a.count <= exact) {
    if (a.samples.length < a.count) {
      const next = new Float64Array(Math.min(exact, Math.max(a.count, a.samples.length * 4)));
      next.set(a.samples.subarray(0, n));
      a.samples = next;
    }
    a.samples.set(p.samples, n);
    return;
  }
  if (a.samples !== undefined) {
    a.hist = new LatencyHistogram(LAYOUT);
    for (let i = 0; i < n; i++) a.hist.add(a.samples[i]);
    a.samples = undefined;
  }
  if (p.samples) for (const v of p.samples) a.hist!.add(v);
  else a.hist!.addCounts(p.hist!);
}

/** Buckets 1 % wide, 1 µs … ~1.7e5 s (2,600 buckets). */
const LAYOUT = histogramLayout(1.01, 1.7e5);

class Acc {
  count = 0;
  // why: sums of times kept exactly, so that the ranges of one log read on several threads sum to the same figures
  readonly qtSum = new ExactSum(); readonly qtSq = new ExactSum(); qtMin = Infinity; qtMax = -Infinity;
  readonly ltSum = new ExactSum(); ltMax = 0;
  rsSum = 0; rsMax = 0;
  reSum = 0; readonly reSq = new ExactSum(); reMax = 0;
  /**
   * Squares of rows examined not yet in reSq, summed plainly while the sum stays a safe integer (then
   * exact, as reSq would have it): an integer square over 2048 took ExactSum's slow path on every entry.
   */
  reSqPlain = 0;
  first = NaN; last = NaN;
  example = ''; exampleTime = -1; exampleSchema = '';
  samples: Float64Array | undefined = new Float64Array(16);
  hist: LatencyHistogram | undefined;
  curSec = NaN; curCount = 0; peak = 0; activeSeconds = 0;
  /** The first run of executions within one second (its second and count), for joining ranges read apart. */
  firstSec = NaN; firstRun = 0;
  repeats = 0;
  fullScan = 0; filesort = 0; tmpDisk = 0;
  admin = false;
  constructor(readonly id: number, readonly fingerprint: string, readonly hash: number, readonly key: Uint8Array) {}
}

/** Statement shapes remembered by lookup before it starts over. */
const MAX_SHAPES = 8192;
/** Shape ids remembered from shapeBase on (the array stays within 256 KiB). */
const MAX_SHAPE_ID = 1 << 16;

/** FNV-1a style hash over the fingerprint b[s, s + n), four bytes at a time. */
function hashOf(b: Uint8Array, s: number, n: number): number {
  let h = 0x811c9dc5 ^ n;
  const words = n >> 2;
  for (let i = 0, k = s; i < words; i++, k += 4) {
    h = Math.imul(h ^ (b[k] | (b[k + 1] << 8) | (b[k + 2] << 16) | (b[k + 3] << 24)), 0x01000193);
  }
  for (let k = s + (words << 2); k < s + n; k++) h = Math.imul(h ^ b[k], 0x01000193);
  return (h ^ (h >>> 15)) >>> 0;
}

/** Accumulates entries; `add` is the hot path. */
export class SlowStatsCollector {
  /** Open-addressing table of acc index + 1 by fingerprint hash (no string per entry on the hot path). */
  private table = new Int32Array(1024);
  private readonly accs: Acc[] = [];
  private readonly maxFp: number;
  private readonly exact: number;
  private readonly window: number;
  /** Per connection: ring of the last 4 (fingerprint id, time). */
  private readonly recent = new Map<number, Ring>();
  /** A collector of one range of a log (see toPart). */
  private readonly partial: boolean;
  /** Fingerprints by the id of a statement shape (see lookup, remember): acc index + 1 at the shape id less shapeBase, 0 for none yet. */
  private byShape = new Int32Array(64);
  private shapeBase = -1;
  /** Shapes remembered in byShape (it starts over at MAX_SHAPES). */
  private shapesKnown = 0;
  /** Merged fingerprints by their bytes (absorb). */
  private readonly byKey = new Map<string, Acc>();
  private readonly hosts = new HostTally<Acc>();
  /** Entries whose fingerprint was new after maxFingerprints was reached. */
  overflowEntries = 0;
  entries = 0;

  constructor(options: SlowStatsOptions = {}) {
    this.maxFp = options.maxFingerprints ?? 50_000;
    this.exact = options.exactSamples ?? 1024;
    this.window = options.repeatWindowMs ?? 20;
    this.partial = options.partial ?? false;
  }

  /** Adds one parsed entry (as handed out by SlowLogParser). */
  add(e: SlowLogEntry): void {
    const a = this.lookup(e);
    if (a === undefined) { this.overflowEntries++; return; }
    this.entries++;
    if (this.hosts.active) this.hosts.add(a);
    const qt = e.queryTime;
    a.count++;
    a.qtSum.add(qt);
    a.qtSq.add(qt * qt);
    if (qt < a.qtMin) a.qtMin = qt;
    if (qt > a.qtMax) a.qtMax = qt;
    a.ltSum.add(e.lockTime); if (e.lockTime > a.ltMax) a.ltMax = e.lockTime;
    a.rsSum += e.rowsSent; if (e.rowsSent > a.rsMax) a.rsMax = e.rowsSent;
    a.reSum += e.rowsExamined;
    const sq = e.rowsExamined * e.rowsExamined;
    const plain = a.reSqPlain + sq;
    // why: integers sum exactly below 2⁵³ (a rounded sum at or past it fails the test and takes reSq)
    if (plain <= Number.MAX_SAFE_INTEGER && Math.floor(sq) === sq) a.reSqPlain = plain; else a.reSq.add(sq);
    if (e.rowsExamined > a.reMax) a.reMax = e.rowsExamined;
    if (qt > a.exampleTime) {
      a.exampleTime = qt;
      a.example = entrySql(e);
      a.exampleSchema = e.schema;
    }
    this.sample(a, qt);
    if (e.fullScan) a.fullScan++;
    if (e.filesort) a.filesort++;
    if (e.tmpTableOnDisk) a.tmpDisk++;
    const t = e.time;
    if (t === t) { // not NaN
      if (!(t >= a.first)) a.first = t;
      if (!(t <= a.last)) a.last = t;
      const sec = Math.floor(t / 1000);
      if (sec === a.curSec) a.curCount++;
      else { a.curSec = sec; a.curCount = 1; a.activeSeconds++; }
      if (a.curCount > a.peak) a.peak = a.curCount;
      if (a.activeSeconds === 1) { a.firstSec = sec; a.firstRun = a.curCount; }
    }
    if (e.threadId >= 0) this.repeat(a, e.threadId, t, e.preciseTime);
  }

  /**
   * The fingerprint of an entry found before, by its statement shape (fingerprintShape): one array
   * read instead of hashing and comparing the fingerprint's bytes.
   */
  private lookup(e: SlowLogEntry): Acc | undefined {
    const shape = !e.admin && e.fingerprintLength > 0 ? e.fingerprintShape : -1;
    const k = shape - this.shapeBase;
    if (shape >= 0 && k >= 0 && k < this.byShape.length) {
      const known = this.byShape[k];
      if (known !== 0) return this.accs[known - 1];
    }
    const a = this.find(e);
    if (shape >= 0 && a !== undefined) this.remember(shape, a);
    return a;
  }

  /**
   * Remembers the fingerprint of a shape. The ids a parser's cache hands out run from some number
   * up, so they index an array from the first one remembered (shapeBase); an id outside its bounds
   * (another parser's, or past MAX_SHAPE_ID or MAX_SHAPES) starts it over from that id.
   */
  private remember(shape: number, a: Acc): void {
    let k = shape - this.shapeBase;
    if (this.shapeBase < 0 || k < 0 || k >= MAX_SHAPE_ID || this.shapesKnown >= MAX_SHAPES) {
      this.byShape = new Int32Array(64);
      this.shapeBase = shape;
      this.shapesKnown = 0;
      k = 0;
    }
    if (k >= this.byShape.length) {
      const next = new Int32Array(Math.min(MAX_SHAPE_ID, Math.max(k + 1, this.byShape.length * 2)));
      next.set(this.byShape);
      this.byShape = next;
    }
    if (this.byShape[k] === 0) this.shapesKnown++;
    this.byShape[k] = a.id + 1;
  }

  private find(e: SlowLogEntry): Acc | undefined {
    let out: Uint8Array;
    let at = 0;
    let n: number;
    if (e.admin) {
      // why: pt-query-digest's class for `# administrator command: Quit;` is the command as logged
      out = e.sqlBytes;
      n = e.sqlLength;
    } else {
      const made = e.fingerprintLength >= 0;
      n = made ? e.fingerprintLength : fingerprintInto(e.sqlBytes, 0, e.sqlLength, e.fingerprintPart);
      out = made ? e.fingerprintBytes : lastFingerprintBytes();
      at = made ? e.fingerprintStart : 0;
      if (n === 0) {
        // A statement that is only a comment (`/* ping */`) has an empty fingerprint: its class is its text.
        out = this.commentKey(e.sqlBytes, e.sqlLength);
        at = 0;
        n = out.length;
      }
    }
    const h = hashOf(out, at, n);
    const t = this.table;
    const mask = t.length - 1;
    let slot = h & mask;
    for (;;) {
      const v = t[slot];
      if (v === 0) break;
      const a = this.accs[v - 1];
      if (a.hash === h && a.key.length === n) {
        const k = a.key;
        let i = 0;
        while (i < n && k[i] === out[at + i]) i++;
        if (i === n) return a;
      }
      slot = (slot + 1) & mask;
    }
    if (this.accs.length >= this.maxFp) return undefined;
    const key = out.slice(at, at + n);
    const a = new Acc(this.accs.length, decodeFingerprint(key, n), h, key);
    a.admin = e.admin;
    this.accs.push(a);
    t[slot] = this.accs.length;
    if (this.accs.length * 2 > t.length) this.rehash();
    return a;
  }

  /** b[0, n) with each run of whitespace made one space, trimmed. */
  private commentKey(b: Uint8Array, n: number): Uint8Array {
    const out = new Uint8Array(n);
    let o = 0;
    let space = false;
    for (let i = 0; i < n; i++) {
      const c = b[i];
      if (c === 32 || c === 9 || c === 10 || c === 13) { space = o > 0; continue; }
      if (space) { out[o++] = 32; space = false; }
      out[o++] = c;
    }
    return out.subarray(0, o);
  }

  private rehash(): void {
    const t = new Int32Array(this.table.length * 2);
    const mask = t.length - 1;
    for (const a of this.accs) {
      let slot = a.hash & mask;
      while (t[slot] !== 0) slot = (slot + 1) & mask;
      t[slot] = a.id + 1;
    }
    this.table = t;
  }

  private sample(a: Acc, qt: number): void {
    if (a.samples !== undefined) {
      const n = a.count - 1;
      if (n < this.exact) {
        if (n >= a.samples.length) {
          const next = new Float64Array(Math.min(this.exact, a.samples.length * 4));
          next.set(a.samples);
          a.samples = next;
        }
        a.samples[n] = qt;
        return;
      }
      a.hist = new LatencyHistogram(LAYOUT);
      for (let i = 0; i < n; i++) a.hist.add(a.samples[i]);
      a.samples = undefined;
    }
    a.hist!.add(qt);
  }

  private repeat(a: Acc, thread: number, t: number, precise: boolean): void {
    let r = this.recent.get(thread);
    if (r === undefined) {
      r = newRing();
      this.recent.set(thread, r);
    }
    const win = precise ? this.window : 1000;
    if (repeatsIn(r, a.id, t, win, 4)) a.repeats++;
    else if (this.partial && r.seen < 4) {
      // why: a range read apart does not know the executions before it on this connection; the merge looks there.
      r.pending ??= [];
      r.pending.push({ id: a.id, time: t, window: win, prior: r.seen });
    }
    pushRing(r, a.id, t);
  }

  /**
   * The state so far as plain data (SlowStatsPart), for the thread that merges the ranges of one
   * log (see absorb). Built with `partial: true`, the collector keeps what the merge needs.
   */
  toPart(): SlowStatsPart {
    const accs = this.accs.map((a): SlowAccPart => ({
      fingerprint: a.fingerprint, key: a.key, admin: a.admin, count: a.count,
      qtSum: a.qtSum.toWire(), qtSq: a.qtSq.toWire(), qtMin: a.qtMin, qtMax: a.qtMax, ltSum: a.ltSum.toWire(), ltMax: a.ltMax,
      rsSum: a.rsSum, rsMax: a.rsMax, reSum: a.reSum, reSq: reSqOf(a).toWire(), reMax: a.reMax, first: a.first, last: a.last,
      example: a.example, exampleTime: a.exampleTime, exampleSchema: a.exampleSchema,
      samples: a.samples?.subarray(0, a.count), hist: a.hist?.countsView,
      curSec: a.curSec, curCount: a.curCount, peak: a.peak, activeSeconds: a.activeSeconds, firstSec: a.firstSec, firstRun: a.firstRun,
      repeats: a.repeats, fullScan: a.fullScan, filesort: a.filesort, tmpDisk: a.tmpDisk,
    }));
    const threads: SlowStatsPart['threads'] = [];
    for (const [thread, r] of this.recent) threads.push({ thread, pending: r.pending ?? [], ring: ringOrder(r) });
    return { entries: this.entries, overflowEntries: this.overflowEntries, accs, threads };
  }

  /**
   * Adds what a partial collector with the same options counted on the next range of the same log
   * (parts in the log's order, into a collector that read nothing itself). `schema` replaces
   * `inheritedSchema` (the marker the range's parser started with) in the examples. The figures are
   * one reader's over the whole log while `mergeIsExact()` holds.
   */
  absorb(part: SlowStatsPart, inheritedSchema: string, schema: string): void {
    this.entries += part.entries;
    this.overflowEntries += part.overflowEntries;
    const merged: Acc[] = [];
    for (const p of part.accs) {
      const key = latin1(p.key);
      let a = this.byKey.get(key);
      if (!a) {
        a = new Acc(this.accs.length, p.fingerprint, 0, p.key);
        a.admin = p.admin;
        this.accs.push(a);
        this.byKey.set(key, a);
      }
      merged.push(a);
      mergeAcc(a, p, this.exact, p.exampleSchema === inheritedSchema ? schema : p.exampleSchema);
      if (this.hosts.active) this.hosts.addMany(a, p.count);
    }
    for (const t of part.threads) {
      let r = this.recent.get(t.thread);
      if (r === undefined) { r = newRing(); this.recent.set(t.thread, r); }
      for (const p of t.pending) if (repeatsIn(r, merged[p.id].id, p.time, p.window, 4 - p.prior)) merged[p.id].repeats++;
      for (const x of t.ring) pushRing(r, merged[x.id].id, x.time);
    }
  }

  /** After absorb: false when a range or the whole passed maxFingerprints (the log is then read again by one reader). */
  mergeIsExact(): boolean {
    return this.overflowEntries === 0 && this.accs.length <= this.maxFp;
  }

  /** The statistics so far, in first-seen order. */
  result(): QueryStats[] {
    if (!this.hosts.active) return this.accs.map(toStats);
    return this.accs.map((a) => {
      const q = toStats(a);
      const hosts = this.hosts.of(a);
      if (hosts) q.hosts = hosts;
      return q;
    });
  }

  /** The entries added from now on come from this host: each fingerprint then counts its executions per host. */
  setHost(name: string): void { this.hosts.setHost(name); }
}

/**
 * Query times at 1-based ranks, by the nearest-rank method over exact samples, or the histogram
 * bucket's middle: the p95 and the two order statistics of its confidence interval.
 */
function timesAtRanks(a: Acc, ranks: readonly number[]): number[] {
  if (a.samples !== undefined) {
    const s = a.samples.slice(0, a.count).sort();
    return ranks.map((r) => s[r - 1]);
  }
  return a.hist!.valuesAt(ranks, a.qtMin, a.qtMax);
}

/** Population standard deviation from a sum and a sum of squares (clamped: rounding can leave a tiny negative). */
function stddevOf(sum: number, sq: number, n: number): number {
  const mean = sum / n;
  return Math.sqrt(Math.max(0, sq / n - mean * mean));
}

/** p95 and its confidence interval. */
function tail(a: Acc): { p95: number; p95Range?: QuantileInterval } {
  if (!a.count) return { p95: 0 };
  const ci = quantileRanks(a.count, 0.95);
  const [p95, low, high] = timesAtRanks(a, [Math.max(1, Math.ceil(0.95 * a.count)), Math.max(1, ci.low), Math.min(a.count, ci.high)]);
  return { p95, p95Range: { low: ci.low >= 1 ? low : 0, high: ci.high <= a.count ? high : null } };
}

/** The exact sum of the squares of rows examined, the plain part moved into it (an exact integer: one exact term). */
function reSqOf(a: Acc): ExactSum {
  if (a.reSqPlain !== 0) { a.reSq.add(a.reSqPlain); a.reSqPlain = 0; }
  return a.reSq;
}

function toStats(a: Acc): QueryStats {
  const n = a.count || 1;
  const qt = a.qtSum.value();
  const lt = a.ltSum.value();
  return {
    fingerprint: a.fingerprint,
    count: a.count,
    queryTime: { total: qt, mean: qt / n, min: a.count ? a.qtMin : 0, max: a.count ? a.qtMax : 0, stddev: stddevOf(qt, a.qtSq.value(), n), ...tail(a) },
    lockTime: { total: lt, mean: lt / n, max: a.ltMax },
    rowsSent: { total: a.rsSum, mean: a.rsSum / n, max: a.rsMax },
    rowsExamined: { total: a.reSum, mean: a.reSum / n, max: a.reMax, stddev: stddevOf(a.reSum, reSqOf(a).value(), n) },
    examinedPerSent: a.rsSum > 0 ? a.reSum / a.rsSum : null,
    firstSeen: Number.isNaN(a.first) ? undefined : a.first,
    lastSeen: Number.isNaN(a.last) ? undefined : a.last,
    example: a.example,
    exampleQueryTime: a.exampleTime,
    exampleSchema: a.exampleSchema,
    admin: a.admin,
    peakPerSecond: a.peak,
    activeSeconds: a.activeSeconds,
    repeats: a.repeats,
    fullScan: a.fullScan,
    filesort: a.filesort,
    tmpTableOnDisk: a.tmpDisk,
  };
}

export type SortKey = 'sum' | 'count' | 'avg' | 'p95' | 'max';

/** Sorts statistics (descending) by total time, count, mean, p95 or max; ties by fingerprint. */
export function sortStats(stats: readonly QueryStats[], key: SortKey): QueryStats[] {
  const v = (s: QueryStats): number => key === 'sum' ? s.queryTime.total : key === 'count' ? s.count
    : key === 'avg' ? s.queryTime.mean : key === 'p95' ? s.queryTime.p95 : s.queryTime.max;
  return [...stats].sort((x, y) => v(y) - v(x) || (x.fingerprint < y.fingerprint ? -1 : 1));
}
