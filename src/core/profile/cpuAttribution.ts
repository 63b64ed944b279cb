/**
 * CPU profile samples folded onto the app's handlers. Each sample belongs to the innermost frame
 * that is a handler; samples under no handler go to named buckets (runtime/GC, the database driver,
 * other). Frames are interned once (a folded file repeats the same few thousand frames millions of
 * times), so the work per sample is a scan of its frame ids, and memory grows with the distinct
 * frames and call paths, not with the samples.
 */
import type { Route } from '../model';
import { framePath, HandlerMatcher, handlersOf, type FrameClass, type ProfileFrame, type ProfileHandler } from './handlerFrames';

export type CpuBucket = 'runtime' | 'driver' | 'other';

export const BUCKET_LABELS: Record<CpuBucket, string> = { runtime: 'runtime/GC', driver: 'database driver', other: 'other' };

/** A function's CPU: self (it was the leaf) and total (it was on the stack). */
export interface FunctionCpu {
  name: string;
  file?: string;
  selfSeconds: number;
  totalSeconds: number;
}

/** One node of a flame graph: a function called on this path, with the seconds below it. */
export interface FlameNode {
  name: string;
  file?: string;
  seconds: number;
  children: FlameNode[];
}

export interface EndpointCpu {
  /** `GET /items/:id` (the first of its routes). */
  endpoint: string;
  routes: { method: string; pattern: string }[];
  handler: { name: string; file: string; line: number };
  cpuSeconds: number;
  /** 0–1 of the CPU under handlers. */
  share: number;
  /** 0–1 of all CPU in the profile. */
  shareOfTotal: number;
  /** Seconds under the handler spent in the database driver's frames. */
  driverSeconds: number;
  /** The rest: the app's own code and what it calls other than the driver. */
  appSeconds: number;
  /** Requests the access log counted for the handler's routes, when one was given. */
  requests?: number;
  /** CPU milliseconds per request, when `requests` is known. */
  msPerRequest?: number;
  /** Functions under the handler, by self time. */
  top: FunctionCpu[];
  /** Call paths from the handler down. */
  flame: FlameNode;
}

export interface BucketCpu {
  bucket: CpuBucket;
  label: string;
  cpuSeconds: number;
  /** 0–1 of all CPU in the profile. */
  share: number;
  top: FunctionCpu[];
}

export interface ProfileReport {
  /** CPU seconds of every sample (idle left out). */
  totalSeconds: number;
  /** CPU seconds under some handler. */
  handlerSeconds: number;
  /** Seconds of samples whose leaf is an idle frame (left out of every figure). */
  idleSeconds: number;
  samples: number;
  /** Handlers with CPU, most first. */
  endpoints: EndpointCpu[];
  buckets: BucketCpu[];
  /** Handlers the routes name that no sample reached. */
  handlersWithoutSamples: number;
}

export interface ProfileReportOptions {
  /** Requests for a handler's routes (from an access log), for CPU per request. */
  requests?: (routes: readonly { method: string; pattern: string }[]) => number | undefined;
  /** Functions listed per endpoint and bucket (default 10). */
  top?: number;
  /** Flame graph nodes below this share of their endpoint are merged away (default 0.002). */
  flameMinShare?: number;
}

interface Trie { fn: number; seconds: number; children: Map<number, Trie> | undefined }

interface Acc {
  seconds: number;
  driver: number;
  self: Map<number, number>;
  total: Map<number, number>;
  trie: Trie;
}

function newAcc(): Acc {
  return { seconds: 0, driver: 0, self: new Map(), total: new Map(), trie: { fn: -1, seconds: 0, children: undefined } };
}

function bump(m: Map<number, number>, k: number, v: number): void {
  m.set(k, (m.get(k) ?? 0) + v);
}

/** Collects samples for one set of routes; `report()` any time. */
export class CpuAttribution {
  private readonly matcher: HandlerMatcher;
  private readonly frameIds = new Map<string, number>();
  private readonly frames: (FrameClass & { fn: number })[] = [];
  private readonly fnIds = new Map<string, number>();
  private readonly fns: { name: string; file?: string }[] = [];
  /** Per function: the last sample that counted it in a total (recursion counts once). */
  private readonly stamp: number[] = [];
  private readonly perHandler: (Acc | undefined)[] = [];
  private readonly buckets: Record<CpuBucket, { seconds: number; self: Map<number, number> }> = {
    runtime: { seconds: 0, self: new Map() }, driver: { seconds: 0, self: new Map() }, other: { seconds: 0, self: new Map() },
  };
  private total = 0;
  private idle = 0;
  private samples = 0;

  constructor(routes: readonly Route[] | readonly ProfileHandler[]) {
    const list = routes.length && 'pattern' in routes[0] ? handlersOf(routes as readonly Route[]) : routes as readonly ProfileHandler[];
    this.matcher = new HandlerMatcher(list);
  }

  /**
   * The id of a frame, made from `make()` the first time `key` is seen. `key` must identify the
   * frame's name, file and line (a folded frame's text, a pprof location and line).
   */
  frameId(key: string, make: () => ProfileFrame): number {
    let id = this.frameIds.get(key);
    if (id !== undefined) return id;
    const frame = make();
    const file = frame.file ? framePath(frame.file) : undefined;
    const fnKey = `${frame.name}\0${file ?? ''}`;
    let fn = this.fnIds.get(fnKey);
    if (fn === undefined) {
      fn = this.fns.length;
      this.fns.push(file ? { name: frame.name, file } : { name: frame.name });
      this.fnIds.set(fnKey, fn);
      this.stamp.push(-1);
    }
    id = this.frames.length;
    this.frames.push({ ...this.matcher.classify(frame), fn });
    this.frameIds.set(key, id);
    return id;
  }

  /** One sample (or several of the same stack): frame ids from the root to the leaf, and its CPU seconds. */
  addSample(stack: readonly number[], seconds: number): void {
    if (!(seconds > 0)) return;
    const n = stack.length;
    const leaf = n ? this.frames[stack[n - 1]] : undefined;
    if (leaf?.idle) { this.idle += seconds; return; }
    const sample = this.samples++;
    this.total += seconds;
    let at = -1;
    for (let i = n - 1; i >= 0; i--) {
      if (this.frames[stack[i]].handler >= 0) { at = i; break; }
    }
    if (at < 0) {
      let bucket: CpuBucket = 'other';
      for (let i = 0; i < n; i++) if (this.frames[stack[i]].driver) { bucket = 'driver'; break; }
      if (bucket === 'other' && leaf?.runtime) bucket = 'runtime';
      const b = this.buckets[bucket];
      b.seconds += seconds;
      if (leaf) bump(b.self, leaf.fn, seconds);
      return;
    }
    const h = this.frames[stack[at]].handler;
    const acc = this.perHandler[h] ??= newAcc();
    acc.seconds += seconds;
    let driver = false;
    let node = acc.trie;
    node.seconds += seconds;
    for (let i = at; i < n; i++) {
      const f = this.frames[stack[i]];
      if (f.driver) driver = true;
      if (this.stamp[f.fn] !== sample) { this.stamp[f.fn] = sample; bump(acc.total, f.fn, seconds); }
      const children = node.children ??= new Map();
      let child = children.get(f.fn);
      if (!child) { child = { fn: f.fn, seconds: 0, children: undefined }; children.set(f.fn, child); }
      child.seconds += seconds;
      node = child;
    }
    if (driver) acc.driver += seconds;
    bump(acc.self, leaf!.fn, seconds);
  }

  report(options: ProfileReportOptions = {}): ProfileReport {
    const topN = options.top ?? 10;
    const handlers = this.matcher.handlers();
    const handlerSeconds = this.perHandler.reduce((s, a) => s + (a?.seconds ?? 0), 0);
    const endpoints: EndpointCpu[] = [];
    this.perHandler.forEach((acc, i) => {
      if (!acc) return;
      const h = handlers[i];
      const requests = options.requests?.(h.routes);
      const e: EndpointCpu = {
        endpoint: `${h.routes[0].method} ${h.routes[0].pattern}`,
        routes: h.routes,
        handler: { name: h.name, file: h.file, line: h.range.start.line + 1 },
        cpuSeconds: acc.seconds,
        share: handlerSeconds ? acc.seconds / handlerSeconds : 0,
        shareOfTotal: this.total ? acc.seconds / this.total : 0,
        driverSeconds: acc.driver,
        appSeconds: acc.seconds - acc.driver,
        ...(requests ? { requests, msPerRequest: (acc.seconds * 1000) / requests } : {}),
        top: this.topFunctions(acc.self, acc.total, topN),
        flame: this.flame(acc.trie, acc.seconds * (options.flameMinShare ?? 0.002), h.name),
      };
      endpoints.push(e);
    });
    endpoints.sort((a, b) => b.cpuSeconds - a.cpuSeconds || a.endpoint.localeCompare(b.endpoint));
    const buckets = (Object.keys(this.buckets) as CpuBucket[]).map((bucket): BucketCpu => {
      const b = this.buckets[bucket];
      return { bucket, label: BUCKET_LABELS[bucket], cpuSeconds: b.seconds, share: this.total ? b.seconds / this.total : 0, top: this.topFunctions(b.self, b.self, topN) };
    });
    return {
      totalSeconds: this.total, handlerSeconds, idleSeconds: this.idle, samples: this.samples,
      endpoints, buckets, handlersWithoutSamples: handlers.length - endpoints.length,
    };
  }

  private topFunctions(self: Map<number, number>, total: Map<number, number>, n: number): FunctionCpu[] {
    const ids = [...new Set([...self.keys(), ...total.keys()])];
    return ids
      .map((fn) => ({ ...this.fns[fn], selfSeconds: self.get(fn) ?? 0, totalSeconds: total.get(fn) ?? 0 }))
      .sort((a, b) => b.selfSeconds - a.selfSeconds || b.totalSeconds - a.totalSeconds || a.name.localeCompare(b.name))
      .slice(0, n);
  }

  private flame(root: Trie, min: number, name: string): FlameNode {
    const build = (t: Trie, depth: number): FlameNode => {
      const f = this.fns[t.fn];
      const node: FlameNode = { ...f, seconds: t.seconds, children: [] };
      if (depth >= 128 || !t.children) return node;
      for (const c of [...t.children.values()].sort((a, b) => b.seconds - a.seconds)) {
        if (c.seconds < min) break;
        node.children.push(build(c, depth + 1));
      }
      return node;
    };
    // why: the trie's root is above the handler; its one child per distinct handler frame (a
    // handler reached from itself again is still one function) is what the graph starts from.
    const kids = root.children ? [...root.children.values()] : [];
    if (kids.length === 1) return build(kids[0], 0);
    return { name, seconds: root.seconds, children: kids.sort((a, b) => b.seconds - a.seconds).filter((c) => c.seconds >= min).map((c) => build(c, 1)) };
  }
}
