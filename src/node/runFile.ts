/**
 * A run from a file: an nginx access log, a MySQL / MariaDB slow log (plain or gzip) or a saved run
 * (JSON written by `serializeRun`). Shared by the CLI's `diff` and the extension's "Add run" command,
 * so both compute the same figures from the same file.
 */
import { open, readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import type { AccessAnalysisOptions } from '../core/logs/accessAnalysis';
import type { AccessLogFormat } from '../core/logs/accessParsers';
import { looksLikeRun, parseRun, runFromAccessReport, runFromSlowStats, type Run, type RunKind, type RunLimits, type RunMeta } from '../core/report/runs';
import { analyzeAccessLogFile } from './accessLogFile';
import { analyzeSlowLogFile } from './slowLogFile';

export type FileKind = RunKind | 'run';

export interface FileSniff {
  kind: FileKind;
  /** For access logs: the layout guessed from the first line. */
  accessFormat?: AccessLogFormat;
  /**
   * The start of the file shows the kind (a slow-log header, an access-log line of a known layout,
   * a run's marker). False when `kind` is only the default (`access`), e.g. an empty file.
   */
  sure: boolean;
}

async function head(path: string, bytes = 64 * 1024): Promise<string> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    let b = buf.subarray(0, bytesRead);
    if (b[0] === 0x1f && b[1] === 0x8b) {
      // why: only the start of the stream is here; Z_SYNC_FLUSH accepts a cut-off gzip stream.
      try { b = gunzipSync(b, { finishFlush: 2 }); } catch { return ''; }
    }
    return b.toString('utf8');
  } finally {
    await fh.close();
  }
}

/** An nginx combined line: `addr - user [time] "request" status size …`. */
const COMBINED = /^\S+ \S+ \S+ \[[^\]]{10,40}\] "[^"]*" \d{3} /;
/** Keys of an access log's JSON or LTSV lines (nginx variables and alp's labels). */
const ACCESS_KEYS = /(^|[\t{,]\s*"?)(status|request_uri|uri|req|method|request_time|reqtime|apptime|upstream_response_time|remote_addr|host|time_local|time_iso8601)"?\s*:/;

/** Tells a saved run, a slow log and an access log apart by the start of the file. */
export function sniffText(text: string): FileSniff {
  if (looksLikeRun(text)) return { kind: 'run', sure: true };
  if (/^# (Time|User@Host|Query_time):/m.test(text) || /started with:\s*$/m.test(text.slice(0, 2000))) return { kind: 'slow', sure: true };
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  if (line.trimStart().startsWith('{')) return { kind: 'access', accessFormat: 'json', sure: ACCESS_KEYS.test(line) };
  if (/(^|\t)[\w-]+:[^\t]*\t[\w-]+:/.test(line)) return { kind: 'access', accessFormat: 'ltsv', sure: ACCESS_KEYS.test(line) };
  return { kind: 'access', accessFormat: 'combined', sure: COMBINED.test(line) };
}

export async function sniffFile(path: string): Promise<FileSniff> {
  return sniffText(await head(path));
}

export interface LoadRunOptions {
  meta: RunMeta;
  /** Forces the kind of log (otherwise sniffed). */
  kind?: RunKind;
  /** Access-log analysis options (format, routes, grouping); the format is guessed when absent. */
  access?: Partial<AccessAnalysisOptions>;
  limits?: RunLimits;
  signal?: AbortSignal;
}

/** Reads a file into a run. A saved run keeps its own id and label unless `meta.label` is given. */
export async function loadRunFromFile(path: string, options: LoadRunOptions): Promise<Run> {
  const sniff = await sniffFile(path);
  if (sniff.kind === 'run' && options.kind === undefined) {
    const run = parseRun(await readFile(path, 'utf8'));
    return options.meta.label ? { ...run, label: options.meta.label } : run;
  }
  const kind = options.kind ?? (sniff.kind === 'run' ? 'access' : sniff.kind);
  if (kind === 'slow') {
    const r = await analyzeSlowLogFile(path, {}, { signal: options.signal });
    return runFromSlowStats({ stats: r.stats, lines: r.summary.lines, malformed: r.summary.malformed }, options.meta, options.limits);
  }
  const format = options.access?.format ?? sniff.accessFormat ?? 'ltsv';
  const report = await analyzeAccessLogFile(path, { ...options.access, format } as AccessAnalysisOptions, { signal: options.signal });
  return runFromAccessReport(report, options.meta, options.limits);
}
