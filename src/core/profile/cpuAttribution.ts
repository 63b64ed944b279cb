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
  /** Call paths from the handler down, when asked for (ProfileReportOptions.flame). */
  flame?: FlameNode;
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
  /** Seconds whose call path was cut short in the flame graphs (MAX_FLAME_NODES reached); 0 normally. */
  flameCutSeconds: number;
}

export interface ProfileReportOptions {
  /** Requests for a handler's routes (from an access log), for CPU per request. */
  requests?: (routes: readonly { method: string; pattern: string }[]) => number | undefined;
  /** Functions listed per endpoint and bucket (default 10). */
  top?: number;
  /** Build each endpoint's flame graph (the editor's report draws it; the CLI does not print it). */
  flame?: boolean;
  /** Flame graph nodes below this share of their endpoint are left out (default 0.005: narrower than a pixel in most views). */
  flameMinShare?: number;
}

/**
 * Call-path nodes kept for the flame graphs, all endpoints together. Past it a sample's path stops
 * at the deepest node that exists (its time shows as that node's own), so memory stays bounded
 * however varied the stacks; `flameCut` in the report says when it happened.
 */
export const MAX_FLAME_NODES = 400_000;

interface Acc {
  seconds: number;
  driver: number;
  self: Map<number, number>;
  total: Map<number, number>;
  /** The handler's call-path root node. */
  root: number;
}

/** A node with more children than this finds them through a Map rather than along its sibling list. */
const LIST_CHILDREN = 8;

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
  private flameCut = 0;
  /** The call-path nodes of every handler, in flat arrays (a node per distinct path from a handler down). */
  private readonly nodeFn: number[] = [];
  private readonly nodeParent: number[] = [];
  private readonly nodeSeconds: number[] = [];
  /** Children of a node as a list (first child, next sibling), and a Map by function once there are many. */
  private readonly firstChild: number[] = [];
  private readonly nextSibling: number[] = [];
  private readonly childCount: number[] = [];
  private readonly childMaps = new Map<number, Map<number, number>>();

  private newNode(fn: number, parent: number): number {
    const id = this.nodeFn.length;
    this.nodeFn.push(fn);
    this.nodeParent.push(parent);
    this.nodeSeconds.push(0);
    this.firstChild.push(-1);
    this.childCount.push(0);
    this.nextSibling.push(parent >= 0 ? this.firstChild[parent] : -1);
    if (parent >= 0) {
      this.firstChild[parent] = id;
      const n = ++this.childCount[parent];
      const map = this.childMaps.get(parent);
      if (map) map.set(fn, id);
      else if (n > LIST_CHILDREN) {
        const m = new Map<number, number>();
        for (let c = id; c >= 0; c = this.nextSibling[c]) m.set(this.nodeFn[c], c);
        this.childMaps.set(parent, m);
      }
    }
    return id;
  }

  /** The child of `node` for function `fn`, made when new; -1 once MAX_FLAME_NODES are made. */
  private child(node: number, fn: number): number {
    if (this.childCount[node] > LIST_CHILDREN) {
      const found = this.childMaps.get(node)!.get(fn);
      if (found !== undefined) return found;
    } else {
      for (let c = this.firstChild[node]; c >= 0; c = this.nextSibling[c]) if (this.nodeFn[c] === fn) return c;
    }
    return this.nodeFn.length >= MAX_FLAME_NODES ? -1 : this.newNode(fn, node);
  }
  private samples = 0;

  /** `paths: false` keeps no call paths (no flame graphs), for a reader that only prints the figures. */
  constructor(routes: readonly Route[] | readonly ProfileHandler[], private readonly options: { paths?: boolean } = {}) {
    const list = routes.length && 'pattern' in routes[0] ? handlersOf(routes as readonly Route[]) : routes as readonly ProfileHandler[];
    this.matcher = new HandlerMatcher(list);
  }

  /**
   * The id of a frame, made from `make()` the first time `key` is seen. `key` must identify the
   * frame's name, file and line (a folded frame's text, a pprof location and line).
   */
  frameId(key: string, make: () => ProfileFrame): number {
    return this.frameIds.get(key) ?? this.addFrame(key, make());
  }

  /** The id of a frame seen before under `key`, else undefined (then addFrame). */
  knownFrame(key: string): number | undefined {
    return this.frameIds.get(key);
  }

  /** Adds a frame not seen before under `key`; returns its id. */
  addFrame(key: string, frame: ProfileFrame): number {
    const file = frame.file ? framePath(frame.file) : undefined;
    const fnKey = `${frame.name}\0${file ?? ''}`;
    let fn = this.fnIds.get(fnKey);
    if (fn === undefined) {
      fn = this.fns.length;
      this.fns.push(file ? { name: frame.name, file } : { name: frame.name });
      this.fnIds.set(fnKey, fn);
      this.stamp.push(-1);
    }
    const id = this.frames.length;
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
    const acc = this.perHandler[h] ??= { seconds: 0, driver: 0, self: new Map(), total: new Map(), root: this.newNode(-1, -1) };
    acc.seconds += seconds;
    let driver = false;
    let node = this.options.paths === false ? -1 : acc.root;
    if (node >= 0) this.nodeSeconds[node] += seconds;
    for (let i = at; i < n; i++) {
      const f = this.frames[stack[i]];
      if (f.driver) driver = true;
      if (this.stamp[f.fn] !== sample) { this.stamp[f.fn] = sample; bump(acc.total, f.fn, seconds); }
      if (node < 0) continue;
      const child = this.child(node, f.fn);
      if (child < 0) { this.flameCut += seconds; node = -1; continue; }
      this.nodeSeconds[child] += seconds;
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
        ...(options.flame && this.options.paths !== false ? { flame: this.flame(acc.root, acc.seconds * (options.flameMinShare ?? 0.005), h.name) } : {}),
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
      endpoints, buckets, handlersWithoutSamples: handlers.length - endpoints.length, flameCutSeconds: this.flameCut,
    };
  }

  private topFunctions(self: Map<number, number>, total: Map<number, number>, n: number): FunctionCpu[] {
    const ids = [...total.keys()];
    for (const fn of self.keys()) if (!total.has(fn)) ids.push(fn);
    const name = (fn: number) => this.fns[fn].name;
    // why: plain comparisons; localeCompare on thousands of tied names took most of a report's time.
    ids.sort((a, b) => (self.get(b) ?? 0) - (self.get(a) ?? 0) || (total.get(b) ?? 0) - (total.get(a) ?? 0) || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
    return ids.slice(0, n).map((fn) => ({ ...this.fns[fn], selfSeconds: self.get(fn) ?? 0, totalSeconds: total.get(fn) ?? 0 }));
  }

  private flame(root: number, min: number, name: string): FlameNode {
    const kidsOf = (node: number): number[] => {
      const out: number[] = [];
      for (let c = this.firstChild[node]; c >= 0; c = this.nextSibling[c]) out.push(c);
      return out;
    };
    const ordered = (node: number): number[] => kidsOf(node).filter((c) => this.nodeSeconds[c] >= min).sort((a, b) => this.nodeSeconds[b] - this.nodeSeconds[a]);
    const build = (node: number, depth: number): FlameNode => {
      const f = this.fns[this.nodeFn[node]];
      const out: FlameNode = { ...f, seconds: this.nodeSeconds[node], children: [] };
      if (depth < 128) for (const c of ordered(node)) out.children.push(build(c, depth + 1));
      return out;
    };
    // why: the root is above the handler; its one child per distinct handler frame (a handler reached
    // again from itself is still one function) is what the graph starts from.
    const top = kidsOf(root);
    if (top.length === 1) return build(top[0], 0);
    return { name, seconds: this.nodeSeconds[root], children: ordered(root).map((c) => build(c, 1)) };
  }
}
