/**
 * Per-endpoint statistics: counts by status, response time (min, max, sum, mean, stddev,
 * percentiles) and bytes.
 *
 * Percentiles are exact (nearest rank). nginx logs times in whole milliseconds, so an endpoint
 * first counts its values per millisecond (a Uint32Array indexed by ms: a few KB, however many
 * requests). A value that is not a whole number of ms (µs-resolution logs, summed upstream
 * times) switches that endpoint to keeping every value as a Float64. All endpoints together stay
 * under a memory budget (SampleBudget, 128 MB by default); past it every endpoint switches to the
 * latency histogram (latencyHistogram.ts) with buckets 2 % wide, so a percentile is then within 1 %
 * of the exact value (and clamped to the exact min and max).
 */
import { ExactSum } from './exactSum';
import { histogramLayout, LatencyHistogram } from './latencyHistogram';
import { quantileRanks, type QuantileInterval } from './quantileInterval';

/** Buckets 2 % wide (a percentile within 1 %), up to ~1e5 s. */
const LAYOUT = histogramLayout(1.02, 1e5);

export const PERCENTILES = [50, 90, 95, 99] as const;

/** Largest millisecond value counted on the grid (~17 minutes); larger values go to samples. */
const GRID_MAX = 1 << 20;

/** Shared memory allowance (bytes) for exact values across endpoints. */
export class SampleBudget {
  used = 0;
  exhausted = false;
  constructor(readonly limit: number) {}
  take(bytes: number): void {
    this.used += bytes;
    if (this.used > this.limit) this.exhausted = true;
  }
}

/** Accumulates one endpoint's figures; `add` is on the hot path. */
export class EndpointAccumulator {
  count = 0;
  /** Totals kept exactly, so that a log read in ranges on several threads sums to the same figures. */
  total = new ExactSum();
  totalSq = new ExactSum();
  min = Infinity;
  max = -Infinity;
  /** Index = status code (100–599); others are counted in `statusOther`. */
  readonly status = new Uint32Array(600);
  statusOther = 0;
  /** Response time summed per status class (index 1–5 = 1xx–5xx, 0 = anything else). */
  timeByClass: ExactSum[] = [new ExactSum(), new ExactSum(), new ExactSum(), new ExactSum(), new ExactSum(), new ExactSum()];
  bytesSum = 0;
  bytesMin = Infinity;
  bytesMax = 0;
  reqBytesSum = 0;
  reqBytesCount = 0;
  /** Count per whole millisecond, while every value so far is one: the start of gridMemory. */
  private grid: Uint32Array | undefined;
  /** The largest grid this accumulator allocated; zero past `grid` (restart keeps it for the next range). */
  private gridMemory = new Uint32Array(256);
  /** The longest grid this endpoint held (for the bound on memory in memoryBound). */
  private gridPeak = 256;
  private samples: Float64Array | undefined;
  private hist: LatencyHistogram | undefined;

  constructor(private budget: SampleBudget) {
    this.begin();
  }

  private begin(): void {
    if (this.budget.exhausted) { this.grid = undefined; this.hist = new LatencyHistogram(LAYOUT); return; }
    this.budget.take(1024);
    this.grid = this.gridMemory.subarray(0, 256);
  }

  /**
   * Starts over as a new accumulator on `budget` would, keeping the memory of its grid: a thread that
   * reads one range of a log after another counts each range's requests anew, and reusing the
   * arrays spares it an allocation per endpoint and range (which the allocator did not give back).
   */
  restart(budget: SampleBudget): void {
    this.budget = budget;
    this.count = 0;
    this.total = new ExactSum();
    this.totalSq = new ExactSum();
    this.min = Infinity;
    this.max = -Infinity;
    this.status.fill(0);
    this.statusOther = 0;
    this.timeByClass = [new ExactSum(), new ExactSum(), new ExactSum(), new ExactSum(), new ExactSum(), new ExactSum()];
    this.bytesSum = 0;
    this.bytesMin = Infinity;
    this.bytesMax = 0;
    this.reqBytesSum = 0;
    this.reqBytesCount = 0;
    this.gridMemory.fill(0);
    this.gridPeak = 256;
    this.samples = undefined;
    this.hist = undefined;
    this.begin();
  }

  /** A grid of `size` counts that starts with `grid`'s (the memory reused when it is large enough). */
  private growGrid(grid: Uint32Array, size: number): Uint32Array {
    if (this.gridMemory.length < size) {
      const memory = new Uint32Array(size);
      memory.set(grid);
      this.gridMemory = memory;
    }
    this.budget.take((size - grid.length) * 4);
    const grown = this.gridMemory.subarray(0, size);
    this.grid = grown;
    if (size > this.gridPeak) this.gridPeak = size;
    return grown;
  }

  add(seconds: number, status: number, bytes: number, reqBytes: number): void {
    const r = ONE;
    r.seconds = seconds;
    r.status = status;
    r.size = bytes;
    r.reqSize = reqBytes;
    this.addRequest(r);
  }

  /**
   * Adds one request, its figures read from `r` (the hot path's form: doubles passed to a function the
   * JIT does not inline are a heap object each; read from an object's fields they are not).
   */
  addRequest(r: RequestFigures): void {
    const seconds = r.seconds, status = r.status, bytes = r.size, reqBytes = r.reqSize;
    const n = this.count++;
    let cls = 0;
    if (status >= 100 && status < 600) { this.status[status]++; cls = (status / 100) | 0; } else this.statusOther++;
    // why: the time goes to two sums, split once; three calls of add were more than the JIT inlines
    // into the reading loop, and a double passed to a call not inlined is a heap object per request.
    if (ExactSum.split(seconds)) { this.total.addSplit(); this.timeByClass[cls].addSplit(); } else { this.total.add(seconds); this.timeByClass[cls].add(seconds); }
    this.totalSq.add(seconds * seconds);
    if (seconds < this.min) this.min = seconds;
    if (seconds > this.max) this.max = seconds;
    this.bytesSum += bytes;
    if (bytes < this.bytesMin) this.bytesMin = bytes;
    if (bytes > this.bytesMax) this.bytesMax = bytes;
    if (reqBytes === reqBytes) { this.reqBytesSum += reqBytes; this.reqBytesCount++; }
    const grid = this.grid;
    if (grid) {
      const ms = Math.round(seconds * 1000);
      // why: the exact test (not a tolerance) guarantees ms / 1000 gives back the very same double.
      if (ms / 1000 === seconds && ms >= 0 && ms < GRID_MAX) {
        if (ms < grid.length) { grid[ms]++; return; }
        if (!this.budget.exhausted) {
          let size = grid.length * 2;
          while (size <= ms) size *= 2;
          this.growGrid(grid, size)[ms]++;
          return;
        }
      }
      this.gridToSamples(n);
    }
    const s = this.samples;
    if (s) {
      if (n === s.length) {
        if (this.budget.exhausted) { this.toHistogram(n); this.hist!.add(seconds); return; }
        const grown = new Float64Array(n * 2);
        grown.set(s);
        this.budget.take(n * 8);
        this.samples = grown;
        grown[n] = seconds;
      } else s[n] = seconds;
    } else this.hist!.add(seconds);
  }

  /** Leaves the millisecond grid: its first `n` values become samples (or a histogram past the budget). */
  private gridToSamples(n: number): void {
    const grid = this.grid!;
    this.grid = undefined;
    this.budget.take(-grid.length * 4);
    if (this.budget.exhausted) {
      const h = new LatencyHistogram(LAYOUT);
      for (let ms = 0; ms < grid.length; ms++) if (grid[ms]) h.add(ms / 1000, grid[ms]);
      this.hist = h;
      return;
    }
    let size = 16;
    while (size <= n) size *= 2;
    const s = new Float64Array(size);
    let k = 0;
    for (let ms = 0; ms < grid.length; ms++) for (let c = grid[ms]; c > 0; c--) s[k++] = ms / 1000;
    this.budget.take(size * 8);
    this.samples = s;
  }

  /** Moves the exact values into the histogram (frees their memory); `n` = values recorded so far. */
  private toHistogram(n: number): void {
    if (!this.samples) return;
    const h = new LatencyHistogram(LAYOUT);
    for (let i = 0; i < n; i++) h.add(this.samples[i]);
    this.budget.take(-this.samples.length * 8);
    this.samples = undefined;
    this.hist = h;
  }

  /** The state as plain data (typed arrays and numbers), for handing from a reading thread to the one that merges. */
  toPart(): EndpointPart {
    return {
      count: this.count, total: this.total.toWire(), totalSq: this.totalSq.toWire(), min: this.min, max: this.max,
      statusCells: cellsOf(this.status), statusOther: this.statusOther, timeByClass: this.timeByClass.map((t) => t.toWire()),
      bytesSum: this.bytesSum, bytesMin: this.bytesMin, bytesMax: this.bytesMax, reqBytesSum: this.reqBytesSum, reqBytesCount: this.reqBytesCount,
      ...gridPart(this.grid), gridPeak: this.gridPeak, samples: this.samples?.subarray(0, this.count), histogram: this.hist !== undefined, histogramCounts: this.hist?.countsView,
    };
  }

  /**
   * Adds the figures of the same endpoint read from another part of the log. Exact while neither
   * side fell back to the histogram (the caller checks that with `histogram` and memoryBound).
   */
  absorb(part: EndpointPart): void {
    if (!part.count) return;
    const n = this.count;
    this.count += part.count;
    this.total.addSum(ExactSum.fromWire(part.total));
    this.totalSq.addSum(ExactSum.fromWire(part.totalSq));
    if (part.min < this.min) this.min = part.min;
    if (part.max > this.max) this.max = part.max;
    const sc = part.statusCells;
    for (let i = 0; i < sc.length; i += 2) this.status[sc[i]] += sc[i + 1];
    this.statusOther += part.statusOther;
    for (let i = 0; i < 6; i++) this.timeByClass[i].addSum(ExactSum.fromWire(part.timeByClass[i]));
    this.bytesSum += part.bytesSum;
    if (part.bytesMin < this.bytesMin) this.bytesMin = part.bytesMin;
    if (part.bytesMax > this.bytesMax) this.bytesMax = part.bytesMax;
    this.reqBytesSum += part.reqBytesSum;
    this.reqBytesCount += part.reqBytesCount;
    if (part.gridPeak > this.gridPeak) this.gridPeak = part.gridPeak;
    const grid = this.grid;
    const cells = part.gridCells;
    if (grid && cells && !this.hist) {
      // why: both grids are 256·2^k long, the shortest that holds their largest value: the longer one is what one reader grows.
      const g = part.gridLength > grid.length ? this.growGrid(grid, part.gridLength) : grid;
      for (let i = 0; i < cells.length; i += 2) g[cells[i]] += cells[i + 1];
      return;
    }
    // The values of both sides, as one list (or histogram).
    const values = part.samples ?? gridValues(cells);
    if (this.grid) this.gridToSamples(n);
    if (part.histogram || this.hist) {
      this.toHistogram(n);
      if (!this.hist) this.hist = new LatencyHistogram(LAYOUT);
      if (values) for (const v of values) this.hist.add(v);
      if (part.histogram) this.hist.addCounts(part.histogramCounts!);
      return;
    }
    let s = this.samples!;
    if (s.length < this.count) {
      let size = s.length;
      while (size < this.count) size *= 2;
      const grown = new Float64Array(size);
      grown.set(s.subarray(0, n));
      this.budget.take((size - s.length) * 8);
      this.samples = s = grown;
    }
    s.set(values!, n);
  }

  /**
   * An upper bound of the memory one reader would have held for this endpoint at any moment: its
   * fixed part, the longest grid, and the samples. Where the sum over endpoints stays under the
   * budget, one reader never ran out of it, so its figures are the exact ones merged here.
   */
  memoryBound(): number {
    return 1024 + this.gridPeak * 4 + (this.grid ? 0 : this.count * 16);
  }

  /** True when the percentiles come from the histogram (the budget ran out). */
  get histogram(): boolean { return this.hist !== undefined; }

  /** Final figures. */
  summary(): TimingSummary {
    const n = this.count;
    const sum = this.total.value();
    const avg = n ? sum / n : 0;
    // why: the p99's confidence interval (src/core/report/compareNoise.ts) needs two more order statistics.
    const ci = n ? quantileRanks(n, 0.99) : { low: 0, high: 1 };
    const ranks = [...PERCENTILES.map((p) => nearestRank(p, n)), Math.max(0, ci.low - 1), Math.min(n - 1, ci.high - 1)];
    const pct: number[] = [];
    let stddev: number;
    if (this.grid) {
      // why: one walk up the grid for the deviations and every rank (six ranks walked it six times,
      // a grid of a million milliseconds when one request took 17 minutes)
      const g = this.grid;
      const order = ranks.map((_, k) => k).sort((a, b) => ranks[a] - ranks[b]);
      const at = ranks.map(() => 0);
      let m2 = 0;
      let acc = 0;
      let next = 0;
      for (let ms = 0; ms < g.length; ms++) {
        const c = g[ms];
        if (c === 0) continue;
        const d = ms / 1000 - avg;
        m2 += c * d * d;
        acc += c;
        while (next < order.length && acc > ranks[order[next]]) at[order[next++]] = ms / 1000;
      }
      stddev = n ? Math.sqrt(m2 / n) : 0;
      for (const v of at) pct.push(n ? v : 0);
    } else if (this.samples) {
      const sorted = this.samples.subarray(0, n).sort();
      let m2 = 0;
      for (let i = 0; i < n; i++) { const d = sorted[i] - avg; m2 += d * d; }
      stddev = n ? Math.sqrt(m2 / n) : 0;
      for (const rank of ranks) pct.push(n ? sorted[rank] : 0);
    } else {
      stddev = n ? Math.sqrt(Math.max(0, this.totalSq.value() / n - avg * avg)) : 0;
      pct.push(...(n ? this.hist!.valuesAt(ranks.map((r) => r + 1), this.min, this.max) : ranks.map(() => 0)));
    }
    const out: TimingSummary = { count: n, min: n ? this.min : 0, max: n ? this.max : 0, sum, avg, stddev, p50: pct[0], p90: pct[1], p95: pct[2], p99: pct[3], exact: !this.hist };
    if (n) out.p99Range = { low: ci.low >= 1 ? pct[4] : 0, high: ci.high <= n ? pct[5] : null };
    return out;
  }
}

/** One request's figures as EndpointAccumulator.addRequest reads them (an AccessRecord is one). */
export interface RequestFigures {
  /** Response time in seconds. */
  seconds: number;
  status: number;
  /** Response body bytes. */
  size: number;
  /** Request bytes, NaN when not logged. */
  reqSize: number;
}

const ONE: RequestFigures = { seconds: NaN, status: 0, size: 0, reqSize: NaN };

/** The state of one endpoint's accumulator as plain data (EndpointAccumulator.toPart). */
export interface EndpointPart {
  count: number;
  total: number[];
  totalSq: number[];
  min: number;
  max: number;
  /** Counts by status code that are not 0, as pairs: code, count, code, count … */
  statusCells: Uint32Array;
  statusOther: number;
  timeByClass: number[][];
  bytesSum: number;
  bytesMin: number;
  bytesMax: number;
  reqBytesSum: number;
  reqBytesCount: number;
  /** The millisecond grid's length (0: the endpoint left the grid), and its counts that are not 0 as pairs: ms, count, ms, count … */
  gridLength: number;
  gridCells: Uint32Array | undefined;
  gridPeak: number;
  samples: Float64Array | undefined;
  histogram: boolean;
  histogramCounts?: Uint32Array;
}

/**
 * A millisecond grid as a part carries it: its length and the cells that are not 0 (a range's grid is
 * mostly zeros: tens of KB for a few hundred distinct times, per endpoint and range).
 */
function gridPart(grid: Uint32Array | undefined): { gridLength: number; gridCells: Uint32Array | undefined } {
  return grid ? { gridLength: grid.length, gridCells: cellsOf(grid) } : { gridLength: 0, gridCells: undefined };
}

/** The counts of `a` that are not 0, as pairs: index, count, index, count … (a copy: the part must not change with `a`). */
function cellsOf(a: Uint32Array): Uint32Array {
  let used = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== 0) used++;
  const cells = new Uint32Array(used * 2);
  let k = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== 0) { cells[k++] = i; cells[k++] = a[i]; }
  return cells;
}

/** The values of a part's grid cells, in order. */
function gridValues(cells: Uint32Array | undefined): Float64Array | undefined {
  if (!cells) return undefined;
  let n = 0;
  for (let i = 1; i < cells.length; i += 2) n += cells[i];
  const out = new Float64Array(n);
  let k = 0;
  for (let i = 0; i < cells.length; i += 2) for (let c = cells[i + 1]; c > 0; c--) out[k++] = cells[i] / 1000;
  return out;
}

/** 0-based index of the p-th percentile by the nearest-rank method: ceil(p/100 · n) − 1. */
export function nearestRank(p: number, n: number): number {
  return Math.max(0, Math.min(n - 1, Math.ceil((p / 100) * n) - 1));
}

export interface TimingSummary {
  count: number;
  min: number;
  max: number;
  sum: number;
  avg: number;
  /** Population standard deviation. */
  stddev: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  /** False when the histogram fallback produced the percentiles. */
  exact: boolean;
  /** 95 % confidence interval of the p99 (order statistics; `high` null when too few values bound it). */
  p99Range?: QuantileInterval;
}
