/**
 * Records one benchmark round: reads every access and slow log (local or on a box) from where the
 * previous round stopped, noticing a file that was rotated or truncated in between (its first bytes
 * differ, or it is shorter than the offset) and then reading it from its start; finds the window
 * (the last `POST /initialize`, or --since/--until, or everything new); cuts the slow log to the
 * same span; and keeps the figures, the score, the git state, the memo and the round's health.
 *
 * Two linear passes over each access log's new bytes: the first finds the window (only lines that
 * hold `initialize` are parsed), the second analyses what lies inside it. Every line is counted:
 * read into the figures, malformed for a named reason, or outside the window.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import type { AccessAnalysisOptions } from '../../core/logs/accessAnalysis';
import type { AccessLogFormat } from '../../core/logs/accessParsers';
import { sniffLog } from '../../core/logs/logKind';
import { describeLogSource, type LogSource } from '../../core/logs/logSource';
import type { Route } from '../../core/model';
import { runFromAccessReport, runFromSlowStats, type Run } from '../../core/report/runs';
import { healthOf, typicalSeconds } from '../../core/runs/health';
import { recordId, RECORD_FORMAT, RECORD_VERSION, type RecordSource, type RecordWindow, type RunRecord } from '../../core/runs/record';
import { lineTime, slowSpan, WindowScanner, type WindowScan } from '../../core/runs/window';
import { localLogHead } from '../pipedLog';
import { accessAnalyzer, analyzeAccessSources, analyzeSlowSources, type SourceRead } from '../logSources';
import { readLogSource, type RemoteLogReader } from '../remoteLog';
import { gitState } from './git';
import type { RecordStore } from './recordStore';

/** Bytes of a file's start that identify it across rounds. */
const HEAD_BYTES = 256;

export interface RecordRoundOptions {
  /** The workspace (git, the store's place for exclusion). */
  root: string;
  store: RecordStore;
  access: readonly LogSource[];
  slow: readonly LogSource[];
  score?: number | null;
  failed?: string;
  memo?: string;
  /** Epoch ms: a window given by hand (overrides /initialize). */
  since?: number;
  until?: number;
  logFormat?: AccessLogFormat;
  routes?: Route[];
  remote?: RemoteLogReader;
  /** Seconds the benchmark usually takes (else from the previous rounds). */
  benchSeconds?: number;
  now?: Date;
  signal?: AbortSignal;
}

export interface RecordedRound {
  record: RunRecord;
  file: string;
}

function hashOf(b: Uint8Array): string {
  return createHash('sha1').update(b).digest('hex').slice(0, 16);
}

/** The first bytes of a file (raw for a local file, the text for a remote one), at most HEAD_BYTES; undefined when unreadable. */
async function headOf(s: LogSource, remote: RemoteLogReader | undefined): Promise<{ bytes: Uint8Array; size?: number; inode?: number } | undefined> {
  try {
    if (s.kind === 'local') {
      const st = statSync(s.path);
      const size = st.size;
      const fd = openSync(s.path, 'r');
      try {
        const b = Buffer.alloc(Math.min(HEAD_BYTES, size));
        const n = readSync(fd, b, 0, b.length, 0);
        return { bytes: b.subarray(0, n), size, inode: st.ino };
      } finally {
        closeSync(fd);
      }
    }
    if (!remote) return undefined;
    return { bytes: Buffer.from(await remote.head(s, HEAD_BYTES), 'utf8').subarray(0, HEAD_BYTES) };
  } catch {
    return undefined;
  }
}

interface Start {
  offset: number;
  restarted?: 'rotated' | 'truncated';
  head?: { bytes: number; hash: string };
  inode?: number;
}

/** Where to start reading a source, from what the previous round read of it. */
async function startOf(s: LogSource, kind: 'access' | 'slow', previous: RunRecord | undefined, remote: RemoteLogReader | undefined): Promise<Start> {
  const name = describeLogSource(s);
  const prev = previous?.sources.find((p) => p.kind === kind && p.file === name && !p.error);
  const now = await headOf(s, remote);
  const known = { ...(now && now.bytes.length ? { head: { bytes: now.bytes.length, hash: hashOf(now.bytes) } } : {}), ...(now?.inode !== undefined ? { inode: now.inode } : {}) };
  if (!prev || prev.gzip || !now) return { offset: 0, ...known };
  // why: logrotate's default moves the file (a new inode); copytruncate empties it in place (the same inode, shorter or rewritten).
  if (now.inode !== undefined && prev.inode !== undefined && now.inode !== prev.inode) return { offset: 0, restarted: 'rotated', ...known };
  const sameHead = prev.head ? now.bytes.length >= prev.head.bytes && hashOf(now.bytes.subarray(0, prev.head.bytes)) === prev.head.hash : prev.to === 0;
  if (now.size !== undefined && now.size < prev.to) return { offset: 0, restarted: 'truncated', ...known };
  if (!sameHead) return { offset: 0, restarted: now.inode !== undefined || now.bytes.length === 0 ? 'truncated' : 'rotated', ...known };
  return { offset: prev.to, ...known };
}

/** The access-log layout: given, or sniffed from the first readable source. */
async function formatOf(sources: readonly LogSource[], remote: RemoteLogReader | undefined, given: AccessLogFormat | undefined): Promise<AccessLogFormat> {
  if (given) return given;
  for (const s of sources) {
    try {
      const head = s.kind === 'local' ? await localLogHead(s.path) : remote ? Buffer.from(await remote.head(s)) : undefined;
      const f = head ? sniffLog(head).format : undefined;
      if (f) return f;
    } catch { /* unreadable: its read says why */ }
  }
  return 'combined';
}

/** The window pass over each access source; a source that cannot be read gives no scan. */
async function scanWindows(sources: readonly LogSource[], offsets: readonly number[], format: AccessLogFormat, remote: RemoteLogReader | undefined, signal: AbortSignal | undefined): Promise<Array<WindowScan | undefined>> {
  const out: Array<WindowScan | undefined> = [];
  for (const [i, s] of sources.entries()) {
    const scanner = new WindowScanner({ format });
    try {
      await readLogSource(s, scanner.line as (b: Buffer, st: number, e: number, n: number) => void, { signal, onLongLine: (n) => scanner.tooLong(n), ...(offsets[i] > 0 ? { offset: offsets[i] } : {}) }, remote);
      out.push(scanner.result());
    } catch (err) {
      if (signal?.aborted) throw err;
      out.push(undefined);
    }
  }
  return out;
}

function iso(ms: number): string | undefined {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

function recordSources(kind: 'access' | 'slow', reads: readonly SourceRead[], starts: readonly Start[], outside: readonly number[]): RecordSource[] {
  return reads.map((r, i) => ({
    kind, host: r.host, file: describeLogSource(r.source), from: r.gzip ? 0 : starts[i].offset, to: r.gzip ? r.bytes : starts[i].offset + r.bytes,
    lines: r.lines, outside: outside[i] ?? 0,
    ...(starts[i].head ? { head: starts[i].head } : {}), ...(starts[i].inode !== undefined ? { inode: starts[i].inode } : {}), ...(starts[i].restarted ? { restarted: starts[i].restarted } : {}),
    ...(r.gzip ? { gzip: true } : {}), ...(r.error ? { error: r.error } : {}),
  }));
}

/** Reads the round's logs, builds its record and saves it in the store. */
export async function recordRound(o: RecordRoundOptions): Promise<RecordedRound> {
  const { records: earlier } = await o.store.all();
  const previous = earlier[earlier.length - 1];
  const remote = o.remote;
  await remote?.connect([...o.access, ...o.slow]);
  const accessStarts = await Promise.all(o.access.map((s) => startOf(s, 'access', previous, remote)));
  const slowStarts = await Promise.all(o.slow.map((s) => startOf(s, 'slow', previous, remote)));
  const accessOffsets = accessStarts.map((s) => s.offset);

  // The window.
  const format = await formatOf(o.access, remote, o.logFormat);
  const byHand = o.since !== undefined || o.until !== undefined;
  const scans = o.access.length && !byHand ? await scanWindows(o.access, accessOffsets, format, remote, o.signal) : [];
  let initAt: number | undefined;
  scans.forEach((sc, i) => {
    if (!sc?.initialize) return;
    const cur = initAt === undefined ? undefined : scans[initAt]!.initialize!;
    // why: with several boxes the latest /initialize by time is the round's start; without times, the last source's.
    if (!cur || !(cur.time > sc.initialize.time)) initAt = i;
  });
  const init = initAt !== undefined ? scans[initAt]!.initialize! : undefined;
  const lastTime = Math.max(...scans.map((s) => (s && s.lastTime === s.lastTime ? s.lastTime : -Infinity)));
  const span = byHand ? { from: o.since ?? -Infinity, to: o.until ?? Infinity } : slowSpan(init, lastTime);
  const window: RecordWindow = byHand
    ? { origin: 'since', ...(o.since !== undefined ? { from: iso(o.since) } : {}), ...(o.until !== undefined ? { to: iso(o.until) } : {}) }
    : init
      ? { origin: 'initialize', ...(iso(init.time) ? { from: iso(init.time) } : {}), ...(iso(lastTime) ? { to: iso(lastTime) } : {}), initialize: { file: describeLogSource(o.access[initAt!]), line: init.line } }
      : { origin: 'whole', ...(iso(Math.min(...scans.map((s) => (s && s.firstTime === s.firstTime ? s.firstTime : Infinity)))) ? { from: iso(Math.min(...scans.map((s) => (s && s.firstTime === s.firstTime ? s.firstTime : Infinity)))) } : {}), ...(iso(lastTime) ? { to: iso(lastTime) } : {}) };
  if (window.origin === 'since' && window.to === undefined && Number.isFinite(lastTime)) window.to = iso(lastTime);

  const inSpan = (t: number): boolean => t !== t || (t >= span.from && t <= span.to);
  const sources: RecordSource[] = [];
  let access: Run | undefined;
  const id = recordId(o.now ?? new Date(), (x) => earlier.some((r) => r.id === x));
  const label = (what: string) => `${id} ${what}`;

  if (o.access.length) {
    const outside = new Array<number>(o.access.length).fill(0);
    const keep = byHand
      ? (i: number, b: Buffer, s: number, e: number) => { const ok = s === e || inSpan(lineTime(b, s, e)); if (!ok) outside[i]++; return ok; }
      : init
        ? (i: number, b: Buffer, s: number, e: number, n: number) => {
          const ok = i === initAt ? n >= init.line : s === e || inSpan(lineTime(b, s, e));
          if (!ok) outside[i]++;
          return ok;
        }
        : undefined;
    const options: AccessAnalysisOptions = { format, ...(o.routes ? { routes: o.routes } : {}) };
    const report = await analyzeAccessSources(o.access, accessAnalyzer(options), { remote, offsets: accessOffsets, signal: o.signal, ...(keep ? { keep } : {}) });
    const rs = recordSources('access', report.sources, accessStarts, outside);
    sources.push(...rs);
    // why: the figures count only the window's lines; the lines outside it are counted on each source.
    const inWindow = { ...report, lines: report.lines - (report.outside ?? 0) };
    access = runFromAccessReport(inWindow, {
      id: `${id}-access`, source: o.access.map(describeLogSource).join(','), label: label('access'),
      reads: rs.map((r) => ({ host: r.host, file: r.file, from: r.from, to: r.to, lines: r.lines, ...(r.error ? { error: r.error } : {}) })),
    });
    if (window.from && window.to) access.window = { from: window.from, to: window.to };
  }

  let slow: Run | undefined;
  if (o.slow.length) {
    const cut = Number.isFinite(span.from) || Number.isFinite(span.to);
    const r = await analyzeSlowSources(o.slow, {}, {
      remote, signal: o.signal, offsets: slowStarts.map((s) => s.offset),
      ...(cut ? { accept: (e: { time: number }) => inSpan(e.time) } : {}),
    });
    // why: outside entries are counted per run, not per file (one collector); they are put on the first source.
    const rs = recordSources('slow', r.sources, slowStarts, [r.outside]);
    sources.push(...rs);
    slow = runFromSlowStats({ stats: r.stats, lines: r.summary.lines, malformed: r.summary.malformed }, {
      id: `${id}-slow`, source: o.slow.map(describeLogSource).join(','), label: label('slow'),
      reads: rs.map((x) => ({ host: x.host, file: x.file, from: x.from, to: x.to, lines: x.lines, ...(x.error ? { error: x.error } : {}) })),
    });
  }

  const storeRel = relative(o.root, o.store.dir);
  const exclude = storeRel && !storeRel.startsWith('..') ? ['.query-insight'] : [];
  const git = await gitState(o.root, previous?.git?.commit, exclude);
  const health = healthOf({
    sources, window, requests: access ? access.summary.count : null, statements: slow ? slow.summary.count : null,
    typicalSeconds: o.benchSeconds ?? typicalSeconds(earlier),
  });
  const record: RunRecord = {
    format: RECORD_FORMAT, version: RECORD_VERSION, id, createdAt: (o.now ?? new Date()).toISOString(),
    window, sources, ...(access ? { access } : {}), ...(slow ? { slow } : {}),
    score: o.score ?? null, ...(o.failed ? { failed: o.failed } : {}), ...(git ? { git } : {}), ...(o.memo ? { memo: o.memo } : {}), health,
  };
  const file = await o.store.save(record);
  return { record, file };
}

