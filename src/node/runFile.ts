/**
 * A run from a file: an nginx access log, a MySQL / MariaDB slow log (plain or gzip) or a saved run
 * (JSON written by `serializeRun`). Shared by the CLI's `diff` and the extension's "Add run" command,
 * so both compute the same figures from the same file.
 */
import { readFile } from 'node:fs/promises';
import type { AccessAnalysisOptions } from '../core/logs/accessAnalysis';
import { sniffLog, type LogSniff } from '../core/logs/logKind';
import { parseRun, runFromAccessReport, runFromSlowStats, type Run, type RunKind, type RunLimits, type RunMeta } from '../core/report/runs';
import { analyzeAccessLogFile } from './accessLogFile';
import { isPiped, localLogHead, readPipedText } from './pipedLog';
import { analyzeSlowLogFile } from './slowLogFile';

/**
 * The kind and layout of the file at `path`, from the one log sniffer (core/logs/logKind.ts) over its
 * head, decompressed when gzip. A file that cannot be read throws.
 */
export async function sniffFile(path: string): Promise<LogSniff> {
  return sniffLog(await localLogHead(path));
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
    const run = parseRun(isPiped(path) ? await readPipedText(path) : await readFile(path, 'utf8'));
    return options.meta.label ? { ...run, label: options.meta.label } : run;
  }
  const kind = options.kind ?? (sniff.kind === 'slow' ? 'slow' : 'access');
  if (kind === 'slow') {
    const r = await analyzeSlowLogFile(path, {}, { signal: options.signal });
    return runFromSlowStats({ stats: r.stats, lines: r.summary.lines, malformed: r.summary.malformed }, options.meta, options.limits);
  }
  const format = options.access?.format ?? sniff.format ?? 'combined';
  const report = await analyzeAccessLogFile(path, { ...options.access, format } as AccessAnalysisOptions, { signal: options.signal });
  return runFromAccessReport(report, options.meta, options.limits);
}
