/**
 * A run from several logs at once, local and on other boxes (the CLI's `diff`, the editor's
 * "Import from boxes"): the kind is sniffed from the first readable source, every source streams
 * into one analysis, and the run records which hosts, files and byte ranges it read. A single
 * local saved run is read as it is (loadRunFromFile).
 */
import type { AccessAnalysisOptions } from '../core/logs/accessAnalysis';
import { describeLogSource, type LogSource } from '../core/logs/logSource';
import { runFromAccessReport, runFromSlowStats, type Run, type RunRead } from '../core/report/runs';
import { accessAnalyzer, analyzeAccessSources, analyzeSlowSources, type SourceRead } from './logSources';
import type { RemoteLogReader } from './remoteLog';
import { loadRunFromFile, sniffFile, type LoadRunOptions } from './runFile';
import { sniffLog, type LogSniff } from '../core/logs/logKind';

export interface LoadSourcesOptions extends LoadRunOptions {
  remote?: RemoteLogReader;
  /** Count per host on every row (kept on the analysis; the run records the hosts it read). */
  byHost?: boolean;
}

/** The run and what was read from each source (a source that failed has `error`). */
export interface SourcesRun {
  run: Run;
  reads: SourceRead[];
}

async function sniffSources(sources: readonly LogSource[], remote: RemoteLogReader | undefined): Promise<LogSniff | undefined> {
  for (const s of sources) {
    try {
      if (s.kind === 'local') return await sniffFile(s.path);
      if (remote) return sniffLog(Buffer.from(await remote.head(s)));
    } catch { /* unreadable: its read says why */ }
  }
  return undefined;
}

/** What a run records of its reads: host, file, byte range, lines, gzip, error. */
export function runReads(reads: readonly SourceRead[]): RunRead[] {
  return reads.map((r) => ({
    host: r.host, file: r.source.path, from: 0, to: r.bytes, lines: r.lines,
    ...(r.gzip ? { gzip: true } : {}), ...(r.error ? { error: r.error } : {}),
  }));
}

/** Reads logs from several places into one run. Throws when no source can be read at all. */
export async function loadRunFromSources(sources: readonly LogSource[], options: LoadSourcesOptions): Promise<SourcesRun> {
  if (sources.length === 0) throw new Error('no log to read');
  const only = sources.length === 1 ? sources[0] : undefined;
  await options.remote?.connect(sources);
  const sniff = await sniffSources(sources, options.remote);
  if (only?.kind === 'local' && sniff?.kind === 'run' && options.kind === undefined) {
    const run = await loadRunFromFile(only.path, options);
    return { run, reads: [] };
  }
  if (!sniff && options.kind === undefined) {
    throw new Error(`none of ${sources.map(describeLogSource).join(', ')} can be read`);
  }
  const kind = options.kind ?? (sniff?.kind === 'slow' ? 'slow' : 'access');
  const multi = { remote: options.remote, byHost: options.byHost, signal: options.signal };
  if (kind === 'slow') {
    const r = await analyzeSlowSources(sources, {}, multi);
    const meta = { ...options.meta, reads: runReads(r.sources) };
    return { run: runFromSlowStats({ stats: r.stats, lines: r.summary.lines, malformed: r.summary.malformed }, meta, options.limits), reads: r.sources };
  }
  const format = options.access?.format ?? sniff?.format ?? 'combined';
  const analyzer = accessAnalyzer({ ...options.access, format } as AccessAnalysisOptions);
  const report = await analyzeAccessSources(sources, analyzer, multi);
  const meta = { ...options.meta, reads: runReads(report.sources) };
  return { run: runFromAccessReport(report, meta, options.limits), reads: report.sources };
}
