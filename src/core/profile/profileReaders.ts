/**
 * The three profile formats read into a CpuAttribution:
 *
 * - folded stacks, one `frame;frame;…;leaf COUNT` per line (perf script | stackcollapse-perf.pl,
 *   py-spy record --format raw, rbspy's collapsed output, PHP and Perl samplers), read line by line;
 * - V8's `.cpuprofile` (node --cpu-prof): a call tree of nodes, samples and the time between them;
 * - pprof's protobuf (Go's net/http/pprof), decoded by the pprof-format package.
 */
import { Profile } from 'pprof-format';
import type { CpuAttribution } from './cpuAttribution';
import type { ProfileFrame } from './handlerFrames';

/**
 * One frame of a folded line: `get_item (app.py:12)` (py-spy), `get_item - /app/app.rb:12` (rbspy),
 * `getItem /app/app.js:12:5`, or a bare name (`main.getItem`, perf); perf's `_[k]`-style
 * annotations are dropped.
 */
export function parseFrameText(text: string): ProfileFrame {
  const t = text.trim().replace(/_\[[kwij]\]$/, '');
  let m = /^(.*?) \(([^()]+):(\d+)\)$/.exec(t);
  if (m) return { name: m[1], file: m[2], line: Number(m[3]) };
  m = /^(.*?) - (\S.*?)(?::(\d+))?$/.exec(t);
  if (m && /[./]/.test(m[2])) return m[3] ? { name: m[1], file: m[2], line: Number(m[3]) } : { name: m[1], file: m[2] };
  m = /^(.*?) (\S*[./]\S*?\.[A-Za-z]{1,5}):(\d+)(?::\d+)?$/.exec(t);
  if (m) return { name: m[1], file: m[2], line: Number(m[3]) };
  return { name: t };
}

/** Reads folded stacks line by line; counts every line, and each malformed one by reason. */
export class FoldedReader {
  lines = 0;
  samples = 0;
  malformed = 0;
  readonly malformedByReason: Record<string, number> = {};
  readonly malformedExamples: { line: number; reason: string }[] = [];
  private readonly stack: number[] = [];

  /** `hz`: the sampling frequency, so that a count becomes seconds (py-spy and rbspy: 100). */
  constructor(private readonly into: CpuAttribution, private readonly hz: number) {}

  line(text: string): void {
    const n = ++this.lines;
    if (!text.trim() || text.startsWith('#')) return;
    const sp = text.lastIndexOf(' ');
    if (sp <= 0) { this.bad(n, 'no sample count after the stack'); return; }
    const count = Number(text.slice(sp + 1));
    if (!Number.isFinite(count) || count < 0 || text.length - sp - 1 === 0) { this.bad(n, 'sample count is not a number'); return; }
    const stack = this.stack;
    stack.length = 0;
    let start = 0;
    for (;;) {
      let end = text.indexOf(';', start);
      if (end < 0 || end > sp) end = sp;
      if (end > start) {
        const frame = text.slice(start, end);
        stack.push(this.into.knownFrame(frame) ?? this.into.addFrame(frame, parseFrameText(frame)));
      }
      if (end === sp) break;
      start = end + 1;
    }
    if (!stack.length) { this.bad(n, 'empty stack'); return; }
    this.samples += count;
    this.into.addSample(stack, count / this.hz);
  }

  private bad(line: number, reason: string): void {
    this.malformed++;
    this.malformedByReason[reason] = (this.malformedByReason[reason] ?? 0) + 1;
    if (this.malformedExamples.length < 5) this.malformedExamples.push({ line, reason });
  }
}

/** Thrown for input that is not a profile of the format it claims. */
export class ProfileFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProfileFormatError';
  }
}

interface CpuNode { id: number; callFrame: { functionName?: string; url?: string; lineNumber?: number }; parent?: number; hitCount?: number; children?: number[] }

/** Reads a V8 `.cpuprofile` (already parsed JSON); returns the samples read. */
export function readCpuProfile(json: unknown, into: CpuAttribution): { samples: number } {
  const p = json as { nodes?: unknown; samples?: unknown; timeDeltas?: unknown; startTime?: unknown; endTime?: unknown };
  if (!p || typeof p !== 'object' || !Array.isArray(p.nodes)) throw new ProfileFormatError('not a V8 .cpuprofile: no "nodes" array');
  const nodes = new Map<number, CpuNode>();
  for (const raw of p.nodes as CpuNode[]) {
    if (!raw || typeof raw.id !== 'number' || !raw.callFrame || typeof raw.callFrame !== 'object') throw new ProfileFormatError('not a V8 .cpuprofile: a node without id or callFrame');
    nodes.set(raw.id, raw);
  }
  for (const n of nodes.values()) for (const c of n.children ?? []) { const child = nodes.get(c); if (child) child.parent = n.id; }
  const self = new Map<number, number>();
  const samples = Array.isArray(p.samples) ? p.samples as number[] : [];
  const deltas = Array.isArray(p.timeDeltas) ? p.timeDeltas as number[] : [];
  if (samples.length && deltas.length === samples.length) {
    const span = deltas.slice(1).reduce((s, d) => s + (d > 0 ? d : 0), 0);
    const mean = samples.length > 1 ? span / (samples.length - 1) : 1000;
    // why: timeDeltas[i] is the time before sample i; the time until the next sample is what sample i stands for.
    for (let i = 0; i < samples.length; i++) {
      const us = i + 1 < deltas.length ? deltas[i + 1] : mean;
      self.set(samples[i], (self.get(samples[i]) ?? 0) + (us > 0 ? us : 0) / 1e6);
    }
  } else {
    const hits = [...nodes.values()].reduce((s, n) => s + (n.hitCount ?? 0), 0);
    const span = typeof p.endTime === 'number' && typeof p.startTime === 'number' ? (p.endTime - p.startTime) / 1e6 : hits / 1000;
    for (const n of nodes.values()) if (n.hitCount) self.set(n.id, (n.hitCount / (hits || 1)) * span);
  }
  const ids = new Map<number, number>();
  const idOf = (n: CpuNode): number => {
    let id = ids.get(n.id);
    if (id === undefined) {
      const cf = n.callFrame;
      const line = typeof cf.lineNumber === 'number' && cf.lineNumber >= 0 ? cf.lineNumber + 1 : undefined;
      const frame: ProfileFrame = { name: cf.functionName || '(anonymous)', ...(cf.url ? { file: cf.url } : {}), ...(line !== undefined ? { line } : {}) };
      id = into.frameId(`v8\0${frame.name}\0${frame.file ?? ''}\0${frame.line ?? ''}`, () => frame);
      ids.set(n.id, id);
    }
    return id;
  };
  let count = 0;
  for (const [nodeId, seconds] of self) {
    const stack: number[] = [];
    for (let n = nodes.get(nodeId); n; n = n.parent === undefined ? undefined : nodes.get(n.parent)) {
      if (n.parent === undefined && n.callFrame.functionName === '(root)') break;
      stack.push(idOf(n));
      if (stack.length > 10_000) throw new ProfileFormatError('not a V8 .cpuprofile: the node tree has a cycle');
    }
    stack.reverse();
    into.addSample(stack, seconds);
    count++;
  }
  return { samples: samples.length || count };
}

const num = (v: number | bigint | undefined): number => (typeof v === 'bigint' ? Number(v) : v ?? 0);

/**
 * Reads a pprof profile (the protobuf, gunzipped). The CPU value is the sample type whose unit is
 * nanoseconds (Go's `cpu`), else the sample count times the period.
 */
export function readPprof(bytes: Uint8Array, into: CpuAttribution): { samples: number; durationSeconds: number } {
  let p: Profile;
  try {
    p = Profile.decode(bytes);
  } catch (err) {
    throw new ProfileFormatError(`not a pprof profile: ${(err as Error).message}`);
  }
  const str = (i: number | bigint): string => p.stringTable.strings[num(i)] ?? '';
  let index = p.sampleType.findIndex((t) => str(t.type) === 'cpu' && str(t.unit) === 'nanoseconds');
  if (index < 0) index = p.sampleType.findIndex((t) => str(t.unit) === 'nanoseconds');
  const period = num(p.period);
  const periodNs = p.periodType && str(p.periodType.unit) === 'nanoseconds' && period > 0 ? period : 1e7;
  if (!p.sampleType.length) throw new ProfileFormatError('not a pprof CPU profile: no sample types');
  const functions = new Map<number, { name: string; file: string }>();
  for (const f of p.function) functions.set(num(f.id), { name: str(f.name) || str(f.systemName), file: str(f.filename) });
  const locations = new Map<number, number[]>();
  for (const loc of p.location) {
    // why: a location's lines list inlined calls innermost first, the function they were inlined into last.
    const ids: number[] = [];
    for (let i = loc.line.length - 1; i >= 0; i--) {
      const l = loc.line[i];
      const fn = functions.get(num(l.functionId));
      const name = fn?.name || `0x${num(loc.address).toString(16)}`;
      const line = num(l.line);
      const frame: ProfileFrame = { name, ...(fn?.file ? { file: fn.file } : {}), ...(line > 0 ? { line } : {}) };
      ids.push(into.frameId(`pp\0${name}\0${frame.file ?? ''}\0${line}`, () => frame));
    }
    if (!ids.length) ids.push(into.frameId(`pp\0addr\0${num(loc.address)}`, () => ({ name: `0x${num(loc.address).toString(16)}` })));
    locations.set(num(loc.id), ids);
  }
  let samples = 0;
  const stack: number[] = [];
  for (const s of p.sample) {
    stack.length = 0;
    for (let i = s.locationId.length - 1; i >= 0; i--) stack.push(...(locations.get(num(s.locationId[i])) ?? []));
    const seconds = index >= 0 ? num(s.value[index]) / 1e9 : (num(s.value[0]) * periodNs) / 1e9;
    samples += index >= 0 && s.value.length > 1 ? num(s.value[0]) : 1;
    into.addSample(stack, seconds);
  }
  return { samples, durationSeconds: num(p.durationNanos) / 1e9 };
}

/** What a profile's first bytes (gunzipped) say it is. */
export function sniffProfile(head: Uint8Array): 'cpuprofile' | 'folded' | 'pprof' {
  let i = 0;
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
  if (head[i] === 0x7b) return 'cpuprofile';
  // why: folded stacks are text; a protobuf starts with a field key (Profile.sample_type is field 1: 0x0a) and holds control bytes.
  const n = Math.min(head.length, 4096);
  let control = 0;
  for (let j = 0; j < n; j++) { const c = head[j]; if (c < 0x09 || (c > 0x0d && c < 0x20)) control++; }
  return control === 0 && n > 0 ? 'folded' : 'pprof';
}
