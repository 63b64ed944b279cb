/**
 * The whole of `query-insight scan` after its arguments: lists, reads and extracts the files, then renders the
 * statements, the N+1 report and the summary. It runs where the files are read (the scan thread,
 * scanThread.ts), so only the rendered text leaves that thread, never a file's facts.
 */
import { escapeControls } from '../core/format/controlChars';
import type { FileFacts, Language, SqlSite } from '../core/model';
import { extractFacts } from '../core/source/readFacts';
import { traitsOf } from '../core/source/lang/languages';
import { ParserSet } from '../core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../node/grammars';
import { ignoredDirNote, scanProject, type FactsExtractor, type ProjectScan, type ScanOptions } from '../node/scanDir';
import type { CommandIo } from './command';
import { writeNPlusOne } from './nPlusOneOutput';
import { JsonLinesBytes, oneLine, renderRows, type Column, type Format } from './output';

/** One statement as the CLI prints it (1-based lines and columns). */
export interface ScanRow {
  file: string;
  line: number;
  endLine: number;
  column: number;
  language: string;
  function?: string;
  loops: { kind: string; line: number; endLine: number; iterable?: string }[];
  sql: string;
  dynamic: boolean;
  placeholders: readonly string[];
  call?: string;
  resultVar?: string;
  helper?: string;
  detached?: boolean;
}

/** Converts a site to its printed form: `line` is where the SQL text starts. */
export function scanRow(s: SqlSite): ScanRow {
  const start = s.textStart ?? s.range.start;
  const row: ScanRow = {
    file: s.file,
    line: start.line + 1,
    endLine: s.range.end.line + 1,
    column: start.character + 1,
    language: s.language,
    function: s.function,
    loops: s.loops.map((l) => ({ kind: l.kind, line: l.range.start.line + 1, endLine: l.range.end.line + 1, ...(l.iterable ? { iterable: l.iterable } : {}) })),
    sql: s.sql,
    dynamic: s.dynamic,
    placeholders: s.placeholders,
  };
  if (s.call) row.call = s.call;
  if (s.resultVar) row.resultVar = s.resultVar;
  if (s.helper) row.helper = s.helper;
  if (s.detached) row.detached = true;
  return row;
}

/** What a scan is asked: the parsed command line, and when the command started (Date.now()). */
export interface ScanJob {
  root: string;
  format: Format;
  width: number;
  includeVendored: boolean;
  grammarDir?: string;
  started: number;
  /** Files given up on by an earlier attempt (relative path → reason): named, not read. */
  skip?: [string, string][];
}

/** Where a file is in its reading, told before each step so a watcher can give up on it (see scanThread.ts). */
export interface ScanProgress {
  /** The files in reading order, before the first is read. */
  listed?(files: readonly string[]): void;
  /** File number `index` (in the listed order) loads its grammar (`loading`) or is read. */
  reading?(index: number, loading: boolean): void;
  /** No file is being read. */
  idle?(): void;
}

/** One write of the command's output, in order. */
export interface ScanChunk { stderr: boolean; text: string | Uint8Array }

/**
 * Reads every file of the job once (its facts are not kept past the report: a scan asks about each file once)
 * and returns what the command prints, in order.
 */
export async function runScan(job: ScanJob, progress: ScanProgress = {}): Promise<ScanChunk[]> {
  const parsers = new ParserSet(fsGrammarSource(job.grammarDir));
  const order = new Map<string, number>();
  const extractor: FactsExtractor = {
    async update(file: string, text: string, language?: Language): Promise<FileFacts | undefined> {
      if (!language) return undefined;
      const index = order.get(file) ?? -1;
      // why: only the grammar this file needs, compiled once; its compile is not part of the file's budget.
      const grammar = traitsOf(language).grammarFor(file);
      if (grammar && !parsers.get(grammar)) {
        progress.reading?.(index, true);
        await parsers.load(grammar);
      }
      progress.reading?.(index, false);
      // why: scan reports statements and N+1 loops, never routes; skipping their walk spares a tenth of the time.
      const facts = extractFacts(file, text, language, parsers, { routes: false });
      progress.idle?.();
      return facts;
    },
  };
  const options: ScanOptions = {
    includeVendored: job.includeVendored,
    skip: job.skip ? new Map(job.skip) : undefined,
    listed: (files) => {
      files.forEach((f, i) => order.set(f.rel, i));
      progress.listed?.(files.map((f) => f.rel));
    },
  };
  const scan = await scanProject(job.root, extractor, options);
  return renderScan(scan, job, Date.now() - job.started);
}

/** What the command prints of a finished scan that took `ms`: statements, N+1 findings, then the summary on stderr. */
export function renderScan(scan: ProjectScan, job: Pick<ScanJob, 'format' | 'width' | 'root'>, ms: number): ScanChunk[] {
  const chunks: ScanChunk[] = [];
  const sink = (stderr: boolean) => ({ write: (text: string | Uint8Array) => { chunks.push({ stderr, text }); return true; } }) as unknown as NodeJS.WritableStream;
  const io: CommandIo = { stdout: sink(false), stderr: sink(true), env: {}, cwd: job.root };
  const { format, width } = job;
  let statements = 0;
  if (format === 'json') {
    // why: each row is made and written at once, as bytes: no list of 30,000 rows, no 20 MB string to flatten and encode.
    const out = new JsonLinesBytes();
    for (const f of scan.facts) for (const s of f.sites) out.add(scanRow(s));
    statements = out.count;
    io.stdout.write(out.bytes());
  } else {
    const rows = scan.facts.flatMap((f) => f.sites).map(scanRow);
    statements = rows.length;
    const cut = (s: string) => (width > 0 && s.length > width ? s.slice(0, width - 1) + '…' : s);
    const columns: Column<ScanRow>[] = [
      { header: 'location', value: (r) => `${r.file}:${r.line}` },
      { header: 'function', value: (r) => r.function ?? '' },
      { header: 'loops', value: (r) => r.loops.length, right: true },
      { header: 'sql', value: (r) => (format === 'table' ? cut(oneLine(r.sql)) : oneLine(r.sql)) },
    ];
    io.stdout.write(renderRows(rows, columns, format));
  }
  writeNPlusOne(scan.facts, format, io, width);

  const errors = scan.facts.flatMap((f) => f.errors);
  const skipped = [...scan.skipped].map(([why, n]) => `${n} ${why}`).join(', ');
  const notes = [`scanned ${scan.files} files (${(scan.bytes / 1048576).toFixed(1)} MiB) in ${ms} ms: ${statements} statements`
    + `${skipped ? `; skipped ${skipped}` : ''}${errors.length ? `; ${errors.length} parse errors` : ''}\n`];
  for (const d of scan.ignoredDirs) notes.push(`  ${ignoredDirNote(d, scan.git)}\n`);
  for (const s of scan.skippedFiles ?? []) notes.push(`  ${escapeControls(s.file)}: skipped, ${s.reason}\n`);
  for (const e of errors) notes.push(`  ${escapeControls(e.file)}${e.line ? `:${e.line}` : ''}: ${escapeControls(e.message)}\n`);
  io.stderr.write(notes.join(''));
  return chunks;
}
