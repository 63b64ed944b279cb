/**
 * Access log → per-endpoint statistics. Feed lines (as byte ranges) to `AccessAnalyzer.line`,
 * then call `finish()`. Pure: the caller reads the bytes (src/node/accessLogFile.ts for files).
 */
import { spanOf, TimeSpanTracker } from './logTime';
import type { Route } from '../model';
import { AccessRecord } from './accessBytes';
import { createAccessParser, timeFieldNames, type AccessLineParser, type AccessParserOptions } from './accessParsers';
import { EndpointAccumulator, SampleBudget, type EndpointPart, type TimingSummary } from './endpointStats';
import { HostTally } from './hostTally';
import { GROUP_LIMIT, Grouper, OVERFLOW_GROUP, type Group, type GroupKind, type GroupingOptions } from './grouping';
import { defaultDecoder, forEachLine, type ByteDecoder, type LineSink } from './lineSource';

/** Longest line searched for a request glued after a cut (two long requests; longer lines are damage). */
const MAX_JOINED_LINE = 64 * 1024;

/** Which time a request is measured by. */
export type TimeField = 'auto' | 'reqtime' | 'apptime';

export interface AccessAnalysisOptions extends AccessParserOptions, GroupingOptions {
  /** `auto` (default, as alp): the upstream time when logged, else $request_time. */
  time?: TimeField;
  /** Endpoints beyond this many (method + group) are counted together in one overflow row (default 5000). */
  maxEndpoints?: number;
  /** Bytes of exact values kept for percentiles, all endpoints together, before switching to ±1 % histograms (default 128 MiB). */
  exactMemoryLimit?: number;
  /** Malformed lines kept as examples (default 10). */
  malformedExamples?: number;
}

export interface MalformedLine {
  line: number;
  reason: string;
  /** The start of the line (at most 200 characters). */
  text: string;
}

/** One endpoint's figures; times in seconds. */
export interface EndpointStats extends TimingSummary {
  method: string;
  /** The route pattern, the user's regex, or the normalised path. */
  uri: string;
  kind: GroupKind;
  route?: Route;
  /** Count by exact status code, keys are codes (`"200"`, `"499"`). */
  status: Record<string, number>;
  /** Count by class. */
  s1xx: number;
  s2xx: number;
  s3xx: number;
  s4xx: number;
  s5xx: number;
  /** Client closed the request (nginx 499). */
  s499: number;
  /** Response time summed per status class: what each class of answers cost. */
  time1xx: number;
  time2xx: number;
  time3xx: number;
  time4xx: number;
  time5xx: number;
  bytes: { sum: number; min: number; max: number; avg: number };
  /** Request bytes ($request_length), when logged. */
  requestBytes?: { sum: number; avg: number };
  /** Requests per host, when the lines came from several boxes and the reader named them (`setHost`). */
  hosts?: Record<string, number>;
}

export interface AccessReport {
  /** Lines seen: requests + blank + malformed (each line counted once). */
  lines: number;
  requests: number;
  blank: number;
  malformed: number;
  /** Malformed lines by reason (the reasons are fixed phrases); the counts add up to `malformed`. */
  malformedByReason: Record<string, number>;
  malformedExamples: MalformedLine[];
  /**
   * Lines that held two requests, the first cut short (a writer killed mid-line, a rotated log):
   * the request after the cut is counted in `requests`, the one before it is lost.
   */
  joined: number;
  /** Which field gave the response time: its name in this layout, and how many requests took it. */
  timeFrom: { field: string; requests: number }[];
  /** Matching-group expressions retired by the regex guard because they were too slow. */
  retiredRegexes: string[];
  endpoints: EndpointStats[];
  /** False when the sample budget ran out and percentiles came from histograms (within 1 %). */
  exactPercentiles: boolean;
  /** Requests counted in the overflow row because of maxEndpoints. */
  overflowRequests: number;
  rejectedRoutes: { route: Route; reason: string }[];
  /** When the first and the last request counted were logged; absent when the layout logs no time. */
  window?: { from: string; to: string };
}

/**
 * What one reader of a byte range of the log counted (AccessAnalyzer.toPart), as plain data that
 * crosses threads; line numbers count from the range's first line.
 */
export interface AccessPart {
  lines: number;
  requests: number;
  blank: number;
  malformed: number;
  joined: number;
  fromReqtime: number;
  fromApptime: number;
  malformedByReason: Record<string, number>;
  malformedExamples: MalformedLine[];
  retiredRegexes: string[];
  /** A cap was reached in the range (endpoints, distinct groups, the exact-sample budget): merging would not be exact. */
  capped: boolean;
  endpoints: { method: string; uri: string; kind: GroupKind; route: number; acc: EndpointPart }[];
  /** The time texts of the range's first and last request. */
  times?: { first: string; last: string };
}

/** Streams an access log into endpoint statistics. */
export class AccessAnalyzer {
  private readonly parse: AccessLineParser;
  private readonly grouper: Grouper;
  private readonly rec = new AccessRecord();
  private budget: SampleBudget;
  private readonly byMethod = new Map<string, Map<Group, EndpointAccumulator>>();
  /** The method of the request counted last and its map in byMethod. */
  private lastMethod = '';
  private lastGroups: Map<Group, EndpointAccumulator> | undefined = undefined;
  private readonly maxEndpoints: number;
  private readonly maxExamples: number;
  private readonly timeField: TimeField;
  private readonly decode: ByteDecoder;
  private endpointCount = 0;
  private hosts = new HostTally<EndpointAccumulator>();
  private readonly timeNames: { reqtime: string; apptime: string };
  private fromReqtime = 0;
  private fromApptime = 0;
  private span = new TimeSpanTracker();
  /** The endpoints of the ranges read before (startOver), reused when the next range sees them. */
  private spare = new Map<string, Map<Group, EndpointAccumulator>>();
  lines = 0;
  requests = 0;
  blank = 0;
  malformed = 0;
  joined = 0;
  malformedByReason: Record<string, number> = {};
  overflowRequests = 0;
  malformedExamples: MalformedLine[] = [];
  /** Bound `line` for handing to a line reader. */
  readonly line: LineSink;
  /** Groups of merged parts, by kind, uri and route; expressions retired in them. */
  private readonly partGroups = new Map<string, Group>();
  private readonly partRetired = new Set<string>();
  private partsCapped = false;

  constructor(readonly options: AccessAnalysisOptions) {
    this.parse = createAccessParser(options);
    this.grouper = new Grouper(options);
    this.budget = new SampleBudget(options.exactMemoryLimit ?? 128 * 1024 * 1024);
    this.maxEndpoints = options.maxEndpoints ?? 5000;
    this.maxExamples = options.malformedExamples ?? 10;
    this.timeField = options.time ?? 'auto';
    this.decode = options.decode ?? defaultDecoder;
    this.timeNames = timeFieldNames(options);
    this.line = (b, s, e, lineNo) => this.onLine(b, s, e, lineNo);
  }

  /** Counts a line as malformed for `reason` (a fixed phrase), keeping the first few as examples. */
  addMalformed(lineNo: number, reason: string, text: string): void {
    this.malformed++;
    this.malformedByReason[reason] = (this.malformedByReason[reason] ?? 0) + 1;
    if (this.malformedExamples.length < this.maxExamples) this.malformedExamples.push({ line: lineNo, reason, text });
  }

  /** A line the reader skipped because it is longer than its limit (its bytes never reach the parser). */
  tooLong(lineNo: number, length: number): void {
    if (lineNo > this.lines) this.lines = lineNo;
    this.addMalformed(lineNo, 'line too long', `(${length} bytes)`);
  }

  private onLine(b: Uint8Array, s: number, e: number, lineNo: number): void {
    this.lines = lineNo;
    if (s === e) { this.blank++; return; }
    const rec = this.rec;
    let err = this.parse(b, s, e, rec);
    if (err) {
      // why: a line cut short and glued to the next holds that next request whole; read it from where it starts.
      // (not on lines longer than two requests can be: each attempt reads to the end of the line)
      const rejoin = e - s <= MAX_JOINED_LINE ? this.parse.rejoin : undefined;
      let at = s;
      for (let k = 0; k < 4 && rejoin; k++) {
        at = rejoin(b, s, e, at);
        if (at < 0) break;
        if (!this.parse(b, at, e, rec)) { err = ''; this.joined++; break; }
      }
    }
    let t = NaN;
    let fromApp = false;
    if (!err) {
      const tf = this.timeField;
      fromApp = tf === 'apptime' || (tf === 'auto' && rec.appTime === rec.appTime);
      t = fromApp ? rec.appTime : rec.reqTime;
    }
    if (err || t !== t) {
      let text = '';
      if (this.malformedExamples.length < this.maxExamples) {
        let ascii = true;
        const end = Math.min(e, s + 200);
        for (let i = s; i < end; i++) if (b[i] >= 128) { ascii = false; break; }
        text = this.decode(b, s, end, ascii);
      }
      this.addMalformed(lineNo, err || `no ${this.timeField === 'apptime' ? this.timeNames.apptime : this.timeNames.reqtime} time`, text);
      return;
    }
    if (fromApp) this.fromApptime++; else this.fromReqtime++;
    this.requests++;
    if (rec.timeStart >= 0) this.span.see(rec.timeBytes!, rec.timeStart, rec.timeEnd);
    const method = rec.method;
    // why: most requests share their method with the one before (GET): its map is kept at hand.
    let groups = this.lastGroups;
    if (method !== this.lastMethod || groups === undefined) {
      groups = this.byMethod.get(method);
      if (!groups) { groups = new Map(); this.byMethod.set(method, groups); }
      this.lastMethod = method;
      this.lastGroups = groups;
    }
    const g = this.grouper.groupBytes(method, rec);
    let acc = groups.get(g);
    if (!acc) {
      if (this.endpointCount >= this.maxEndpoints) {
        this.overflowRequests++;
        acc = groups.get(OVERFLOW_GROUP);
        if (!acc) { acc = this.newAccumulator(method, OVERFLOW_GROUP); groups.set(OVERFLOW_GROUP, acc); }
      } else {
        acc = this.newAccumulator(method, g);
        groups.set(g, acc);
        this.endpointCount++;
      }
    }
    rec.seconds = t;
    acc.addRequest(rec);
    if (this.hosts.active) this.hosts.add(acc);
  }

  /** A new endpoint's accumulator: the one it had in a range read before when there is one (see startOver). */
  private newAccumulator(method: string, g: Group): EndpointAccumulator {
    const old = this.spare.get(method)?.get(g);
    if (!old) return new EndpointAccumulator(this.budget);
    this.spare.get(method)!.delete(g);
    old.restart(this.budget);
    return old;
  }

  /**
   * Forgets everything counted (after toPart), so that the next range of the same log is counted as
   * a new analyzer with the same options would count it: a reading thread keeps one analyzer for
   * all its ranges, its parser and groups compiled once and its endpoints' arrays reused. What is
   * kept is what does not change the figures: the grouper's cache of groups (a range's groups are
   * the same objects), and the expressions the time guard retired (one reader keeps them retired).
   */
  startOver(): void {
    for (const [method, groups] of this.byMethod) {
      let spare = this.spare.get(method);
      if (!spare) this.spare.set(method, spare = new Map());
      for (const [g, acc] of groups) spare.set(g, acc);
    }
    this.byMethod.clear();
    this.lastGroups = undefined;
    this.budget = new SampleBudget(this.budget.limit);
    this.endpointCount = 0;
    this.hosts = new HostTally<EndpointAccumulator>();
    this.fromReqtime = 0;
    this.fromApptime = 0;
    this.span = new TimeSpanTracker();
    this.lines = 0;
    this.requests = 0;
    this.blank = 0;
    this.malformed = 0;
    this.joined = 0;
    this.malformedByReason = {};
    this.overflowRequests = 0;
    this.malformedExamples = [];
  }

  /** What was counted so far, as plain data for the thread that merges the ranges of one log (see absorb). */
  toPart(): AccessPart {
    const routes = this.options.routes ?? [];
    const endpoints: AccessPart['endpoints'] = [];
    let capped = this.budget.exhausted || this.overflowRequests > 0;
    for (const [method, groups] of this.byMethod) {
      for (const [g, acc] of groups) {
        if (g === OVERFLOW_GROUP) capped = true;
        endpoints.push({ method, uri: g.uri, kind: g.kind, route: g.route ? routes.indexOf(g.route) : -1, acc: acc.toPart() });
      }
    }
    return {
      lines: this.lines, requests: this.requests, blank: this.blank, malformed: this.malformed, joined: this.joined,
      fromReqtime: this.fromReqtime, fromApptime: this.fromApptime, malformedByReason: this.malformedByReason,
      malformedExamples: this.malformedExamples, retiredRegexes: this.grouper.retiredRegexes, capped, endpoints,
      ...(this.span.texts() ? { times: this.span.texts() } : {}),
    };
  }

  /**
   * Adds what another analyzer with the same options counted on the next range of the same log
   * (parts in the log's order, into an analyzer that read nothing itself); `lineBase` is the number
   * of lines before that range. Every figure then equals one reader's over the whole log, as long
   * as `exact()` holds afterwards.
   */
  absorb(part: AccessPart, lineBase: number): void {
    this.lines = lineBase + part.lines;
    this.requests += part.requests;
    this.blank += part.blank;
    this.malformed += part.malformed;
    this.joined += part.joined;
    this.fromReqtime += part.fromReqtime;
    this.fromApptime += part.fromApptime;
    for (const [reason, n] of Object.entries(part.malformedByReason)) this.malformedByReason[reason] = (this.malformedByReason[reason] ?? 0) + n;
    for (const x of part.malformedExamples) {
      if (this.malformedExamples.length >= this.maxExamples) break;
      this.malformedExamples.push({ ...x, line: x.line + lineBase });
    }
    for (const r of part.retiredRegexes) this.partRetired.add(r);
    this.span.absorb(part.times);
    if (part.capped) this.partsCapped = true;
    const routes = this.options.routes ?? [];
    for (const p of part.endpoints) {
      const key = `${p.kind}\u0000${p.route}\u0000${p.uri}`;
      let g = this.partGroups.get(key);
      if (!g) {
        g = { uri: p.uri, kind: p.kind };
        if (p.route >= 0) g.route = routes[p.route];
        this.partGroups.set(key, g);
      }
      let groups = this.byMethod.get(p.method);
      if (!groups) { groups = new Map(); this.byMethod.set(p.method, groups); }
      let acc = groups.get(g);
      if (!acc) { acc = new EndpointAccumulator(this.budget); groups.set(g, acc); this.endpointCount++; }
      acc.absorb(p.acc);
      if (this.hosts.active) this.hosts.addMany(acc, p.acc.count);
    }
  }

  /**
   * After absorb: true when the merged figures are exactly one reader's. Not so when a range reached
   * a cap, when together they pass the endpoint or group cap, or when one reader might have run out
   * of the exact-sample budget; the log is then read again by one reader.
   */
  mergeIsExact(): boolean {
    if (this.partsCapped || this.endpointCount > this.maxEndpoints) return false;
    let interned = 0;
    let memory = 0;
    for (const g of this.partGroups.values()) if (g.kind === 'static' || g.kind === 'auto' || g.kind === 'literal') interned++;
    for (const groups of this.byMethod.values()) for (const acc of groups.values()) { memory += acc.memoryBound(); if (acc.histogram) return false; }
    return interned <= GROUP_LIMIT && memory <= this.budget.limit;
  }

  /** The lines fed from now on come from this host: each endpoint then counts its requests per host. */
  setHost(name: string): void { this.hosts.setHost(name); }

  /** The statistics so far (can be called more than once; the sample arrays get sorted in place). */
  finish(): AccessReport {
    const endpoints: EndpointStats[] = [];
    let exact = true;
    for (const [method, groups] of this.byMethod) {
      for (const [g, acc] of groups) {
        const e = toStats(method, g, acc);
        const hosts = this.hosts.of(acc);
        if (hosts) e.hosts = hosts;
        if (!e.exact) exact = false;
        endpoints.push(e);
      }
    }
    endpoints.sort((a, b) => b.sum - a.sum || b.count - a.count || a.uri.localeCompare(b.uri) || a.method.localeCompare(b.method));
    const window = spanOf(this.span.texts());
    const timeFrom = [{ field: this.timeNames.apptime, requests: this.fromApptime }, { field: this.timeNames.reqtime, requests: this.fromReqtime }]
      .filter((x) => x.requests > 0).sort((a, b) => b.requests - a.requests);
    return {
      lines: this.lines, requests: this.requests, blank: this.blank, malformed: this.malformed,
      malformedByReason: { ...this.malformedByReason }, malformedExamples: this.malformedExamples, joined: this.joined, timeFrom,
      retiredRegexes: [...new Set([...this.grouper.retiredRegexes, ...this.partRetired])], endpoints, exactPercentiles: exact,
      overflowRequests: this.overflowRequests, rejectedRoutes: this.grouper.rejectedRoutes,
      ...(window ? { window } : {}),
    };
  }
}

function toStats(method: string, g: Group, acc: EndpointAccumulator): EndpointStats {
  const status: Record<string, number> = {};
  const cls = [0, 0, 0, 0, 0, 0];
  for (let code = 100; code < 600; code++) {
    const n = acc.status[code];
    if (!n) continue;
    status[String(code)] = n;
    cls[Math.floor(code / 100)] += n;
  }
  if (acc.statusOther) status.other = acc.statusOther;
  const t = acc.summary();
  const out: EndpointStats = {
    method, uri: g.uri, kind: g.kind, ...t, status,
    s1xx: cls[1], s2xx: cls[2], s3xx: cls[3], s4xx: cls[4], s5xx: cls[5], s499: acc.status[499],
    time1xx: acc.timeByClass[1].value(), time2xx: acc.timeByClass[2].value(), time3xx: acc.timeByClass[3].value(), time4xx: acc.timeByClass[4].value(), time5xx: acc.timeByClass[5].value(),
    bytes: { sum: acc.bytesSum, min: acc.count ? acc.bytesMin : 0, max: acc.bytesMax, avg: acc.count ? acc.bytesSum / acc.count : 0 },
  };
  if (g.route) out.route = g.route;
  if (acc.reqBytesCount) out.requestBytes = { sum: acc.reqBytesSum, avg: acc.reqBytesSum / acc.reqBytesCount };
  return out;
}

/** Analyses a log already in memory (tests, small files, editor buffers). */
export function analyzeAccessLog(bytes: Uint8Array, options: AccessAnalysisOptions): AccessReport {
  const a = new AccessAnalyzer(options);
  forEachLine(bytes, a.line);
  return a.finish();
}
