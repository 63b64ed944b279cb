/** `query-insight scan DIR`: every SQL statement the app's source sends, with its function and loops. */
import { resolve } from 'node:path';
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command';
import { escapeControls } from '../../core/format/controlChars';
import { FORMATS, oneLine, parseFormat, renderJsonLines, renderRows, UsageError, type Column } from '../output';
import type { SqlSite } from '../../core/model';
import { ParserSet } from '../../core/source/lang/treeSitter/treeSitter';
import { FactsCache } from '../../core/workspace';
import { fsGrammarSource } from '../../node/grammars';
import { ignoredDirNote, scanProject, type FactsExtractor } from '../../node/scanDir';
import { DEFAULT_FILE_BUDGET_MS, FactsWorker, factsThreadScript } from '../../node/factsWorker';
import { writeNPlusOne } from '../nPlusOneOutput';

const HELP = `usage: query-insight scan [DIR] [options]

Finds the SQL statements in the source files under DIR (default: the current directory):
Go, Ruby, Python, PHP, JavaScript/TypeScript, Perl and Rust. Skips node_modules, vendor, .git, build
outputs, files ignored by .gitignore (in a git work tree, tracked files are read even so: git's own
rule), and binary, unreadable or huge (> 1 MiB) files; the skips, each directory of source skipped
as ignored, and any parse errors are summarised on stderr. Minified, generated and vendored files
(a line over 1000 characters, over 200 characters per line, a "Code generated … DO NOT EDIT" or
@generated mark, *.min.js, vendor/ …) are skipped unparsed, each named on stderr with its reason.

options:
  --format table|json|md|csv|tsv   output (default table); json = JSON Lines, one object per statement:
                                   file, line, endLine, column, language, function, loops [{kind, line,
                                   endLine, iterable}], sql, dynamic, placeholders, call, resultVar,
                                   helper, detached
  --width N                        cut the SQL column of tables at N characters (default 100, 0 = no cut)
  --include-vendored               read node_modules, vendor, bower_components and *.min.js paths too
                                   (minified or generated content is still skipped, and named)
  --file-budget SECONDS            time one file may take to read (default ${DEFAULT_FILE_BUDGET_MS / 1000}); files are read on a
                                   thread of their own, and a file past this budget, or one that exhausts
                                   that thread's memory, is skipped and named on stderr with the reason`;

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
  placeholders: string[];
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

export const scanCommand: Command = {
  name: 'scan',
  summary: 'list the SQL statements in an app\'s source (file:line, function, loops)',
  help: HELP,
  async run(args: string[], io: CommandIo): Promise<number> {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { format: { type: 'string' }, width: { type: 'string' }, 'include-vendored': { type: 'boolean' }, 'file-budget': { type: 'string' } } });
    const format = parseFormat(values.format, FORMATS);
    const width = values.width === undefined ? 100 : Number(values.width);
    if (!Number.isInteger(width) || width < 0) throw new UsageError(`--width must be a whole number (got "${values.width}")`);
    const budget = values['file-budget'] === undefined ? DEFAULT_FILE_BUDGET_MS / 1000 : Number(values['file-budget']);
    if (!Number.isFinite(budget) || budget <= 0) throw new UsageError(`--file-budget must be a number of seconds above 0 (got "${values['file-budget']}")`);
    if (positionals.length > 1) throw new UsageError(`one directory, please (got ${positionals.length})`);
    const root = resolve(io.cwd, positionals[0] ?? '.');
    const st = await stat(root).catch(() => undefined);
    if (!st?.isDirectory()) throw new UsageError(`${root} is not a directory`);

    const started = Date.now();
    // why: scan reports statements and N+1 loops, never routes; skipping their walk spares a tenth of the time.
    // why: each file is read on the reader thread, under its budget; without the built thread (never in
    // dist/), in this one.
    const worker = factsThreadScript() ? new FactsWorker({ budgetMs: Math.round(budget * 1000), extract: { routes: false }, keep: false }) : undefined;
    const cache: FactsExtractor = worker ?? new FactsCache(new ParserSet(fsGrammarSource()), { routes: false });
    const scan = await scanProject(root, cache, { includeVendored: values['include-vendored'] === true }).finally(() => worker?.dispose());
    const ms = Date.now() - started;
    const rows = scan.facts.flatMap((f) => f.sites).map(scanRow);
    if (format === 'json') io.stdout.write(renderJsonLines(rows));
    else {
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
    io.stderr.write(`scanned ${scan.files} files (${(scan.bytes / 1048576).toFixed(1)} MiB) in ${ms} ms: ${rows.length} statements`
      + `${skipped ? `; skipped ${skipped}` : ''}${errors.length ? `; ${errors.length} parse errors` : ''}\n`);
    for (const d of scan.ignoredDirs) io.stderr.write(`  ${ignoredDirNote(d, scan.git)}\n`);
    for (const s of scan.skippedFiles ?? []) io.stderr.write(`  ${escapeControls(s.file)}: skipped, ${s.reason}\n`);
    for (const e of errors) io.stderr.write(`  ${escapeControls(e.file)}${e.line ? `:${e.line}` : ''}: ${escapeControls(e.message)}\n`);
    return 0;
  },
};
