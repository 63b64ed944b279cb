/** `query-insight slow LOG`: a pt-query-digest-like ranking of a MySQL / MariaDB slow query log. */
import { formatCount } from '../../core/format/numbers';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command';
import { escapeControls } from '../../core/format/controlChars';
import { oneLine, parseFormat, renderJsonLines, renderRows, UsageError, type Column } from '../output';
import { sortStats, type QueryStats, type SortKey } from '../../core/logs/slowStats';
import { indexSites, sitesFor } from '../../core/logs/slowMapping';
import type { SqlSite } from '../../core/model';
import { analyzeSlowSources } from '../../node/logSources';
import { sniffFile } from '../../node/runFile';
import { checkLocalSources, hostsCell, LOG_SOURCE_HELP, LOG_SOURCE_OPTIONS, parseLogArgs, rangesOf, remoteReaderFor, reportDamagedSources, reportSourceErrors } from '../logArgs';

const SORTS: readonly SortKey[] = ['sum', 'count', 'avg', 'p95', 'max'];

const HELP = `usage: query-insight slow LOG... [options]

Reads a MySQL 5.7 / 8 or MariaDB slow query log (plain or .gz; run the benchmark with
long_query_time = 0 to see every statement), groups statements by fingerprint (literals -> ?,
IN and VALUES lists collapsed, case, spacing and comments folded) and ranks them.

options:
  --sort sum|count|avg|p95|max    ranking key, descending (default sum = total query time)
  --limit N                       print the first N fingerprints (default 30; 0 = all)
  --source DIR                    find the SQL in the app's source under DIR and show each
                                  fingerprint's site(s) as file:line (unmapped ones say so)
  --format table|md|json|csv|tsv  output (json = JSON Lines, one object per fingerprint)
  --quiet                         no summary on stderr

${LOG_SOURCE_HELP}

exit status: 0 done; 1 a log could not be read (the report covers the others); 2 usage error, or a
file that is an access log (use \`endpoints\`); 3 a gzip file is damaged: the report covers the
entries before the damage, and stderr says where.`;

interface Row { rank: number; s: QueryStats; share: number; sites: SqlSite[]; how: string }

function ms(v: number): string { return (v * 1000).toFixed(2); }
function sec(v: number): string { return v.toFixed(3); }
function where(r: Row): string {
  if (r.how === 'none') return '(unmapped)';
  return r.sites.map((x) => `${x.file}:${x.range.start.line + 1}`).join(' ') + (r.how === 'pattern' ? ' (dynamic)' : '');
}

function columns(withSites: boolean, table: boolean, byHost = false): Column<Row>[] {
  const cols: Column<Row>[] = [
    { header: 'RANK', value: (r) => r.rank, right: true },
    { header: 'COUNT', value: (r) => r.s.count, right: true },
    { header: 'SUM(s)', value: (r) => sec(r.s.queryTime.total), right: true },
    { header: 'SHARE', value: (r) => `${(r.share * 100).toFixed(1)}%`, right: true },
    { header: 'AVG(ms)', value: (r) => ms(r.s.queryTime.mean), right: true },
    { header: 'MIN(ms)', value: (r) => ms(r.s.queryTime.min), right: true },
    { header: 'P95(ms)', value: (r) => ms(r.s.queryTime.p95), right: true },
    { header: 'MAX(ms)', value: (r) => ms(r.s.queryTime.max), right: true },
    { header: 'LOCK(ms)', value: (r) => ms(r.s.lockTime.total), right: true },
    { header: 'SENT', value: (r) => r.s.rowsSent.mean.toFixed(1), right: true },
    { header: 'EXAMINED', value: (r) => r.s.rowsExamined.mean.toFixed(1), right: true },
    { header: 'EXAM/SENT', value: (r) => r.s.examinedPerSent === null ? '-' : r.s.examinedPerSent.toFixed(1), right: true },
  ];
  if (withSites) cols.push({ header: 'SITE', value: where });
  if (byHost) cols.push({ header: 'HOSTS', value: (r) => hostsCell(r.s.hosts) });
  const max = 120;
  cols.push({ header: 'FINGERPRINT', value: (r) => table && r.s.fingerprint.length > max ? r.s.fingerprint.slice(0, max - 1) + '…' : r.s.fingerprint });
  return cols;
}

/** ISO 8601, or null for a time no Date can hold (one bad value never aborts the report). */
function iso(ms: number | undefined): string | null {
  if (ms === undefined || !(Math.abs(ms) <= 8.64e15)) return null;
  return new Date(ms).toISOString();
}

function jsonOf(r: Row, withSites: boolean): Record<string, unknown> {
  const s = r.s;
  return {
    rank: r.rank, fingerprint: s.fingerprint, count: s.count, share: r.share,
    queryTime: s.queryTime, lockTime: s.lockTime, rowsSent: s.rowsSent, rowsExamined: s.rowsExamined,
    examinedPerSent: s.examinedPerSent,
    firstSeen: iso(s.firstSeen), lastSeen: iso(s.lastSeen),
    peakPerSecond: s.peakPerSecond, activeSeconds: s.activeSeconds, repeats: s.repeats,
    ...(s.fullScan || s.filesort || s.tmpTableOnDisk ? { fullScan: s.fullScan, filesort: s.filesort, tmpTableOnDisk: s.tmpTableOnDisk } : {}),
    example: s.example, exampleSchema: s.exampleSchema || null,
    ...(s.hosts ? { hosts: s.hosts } : {}),
    ...(withSites ? { mapped: r.how !== 'none', sites: r.sites.map((x) => ({ file: x.file, line: x.range.start.line + 1, ...(x.function ? { function: x.function } : {}) })) } : {}),
  };
}

async function run(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true, strict: true,
    options: {
      sort: { type: 'string' }, limit: { type: 'string' }, source: { type: 'string' },
      format: { type: 'string' }, quiet: { type: 'boolean' }, ...LOG_SOURCE_OPTIONS,
    },
  });
  if (positionals.length === 0) throw new UsageError('give at least one slow-log file');
  const format = parseFormat(values.format, ['table', 'md', 'json', 'csv', 'tsv']);
  const sort = (values.sort ?? 'sum') as SortKey;
  if (!SORTS.includes(sort)) throw new UsageError(`--sort must be one of ${SORTS.join(', ')} (got "${values.sort}")`);
  const limit = values.limit === undefined ? 30 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 0) throw new UsageError(`--limit must be a whole number >= 0 (got "${values.limit}")`);
  const sources = parseLogArgs(positionals, io.cwd);
  await checkLocalSources(sources);
  for (const [i, s] of sources.entries()) {
    if (s.kind === 'local' && (await sniffFile(s.path).then((k) => k.kind === 'access'))) {
      io.stderr.write(`query-insight slow: ${escapeControls(oneLine(positionals[i] ?? s.path))}: this looks like an access log; use \`query-insight endpoints\`\n`);
      return 2;
    }
  }

  const started = Date.now();
  const remote = remoteReaderFor(sources, values, io);
  let analyzed: Awaited<ReturnType<typeof analyzeSlowSources>>;
  try {
    await remote?.connect(sources);
    analyzed = await analyzeSlowSources(sources, {}, { remote, byHost: values['by-host'], ranges: rangesOf(values) });
  } finally {
    await remote?.close();
  }
  const { stats, summary, overflowEntries, sources: reads } = analyzed;
  const read = { bytes: reads.reduce((a, r) => a + r.bytes, 0), gzip: reads.some((r) => r.gzip) };
  const elapsed = (Date.now() - started) / 1000;
  let sites: SqlSite[] = [];
  if (values.source !== undefined) {
    const root = resolve(io.cwd, values.source);
    if (!(await stat(root).catch(() => undefined))?.isDirectory()) throw new UsageError(`--source ${values.source} is not a directory`);
    // why: loaded only for --source (the parsers and git), so reading a log alone starts lighter.
    const { sqlSitesInDir } = await import('../../node/routesDir');
    sites = await sqlSitesInDir(root);
  }
  const index = indexSites(sites);
  const total = stats.reduce((a, s) => a + s.queryTime.total, 0) || 1;
  const ranked = sortStats(stats, sort);
  const shown = limit === 0 ? ranked : ranked.slice(0, limit);
  const withSites = values.source !== undefined;
  const rows: Row[] = shown.map((s, i) => {
    const m = withSites ? sitesFor(index, s.fingerprint) : { sites: [], how: 'none' as const };
    return { rank: i + 1, s, share: s.queryTime.total / total, sites: m.sites, how: m.how };
  });

  if (format === 'json') io.stdout.write(renderJsonLines(rows.map((r) => jsonOf(r, withSites))));
  else io.stdout.write(renderRows(rows, columns(withSites, format === 'table', values['by-host']), format));

  if (!values.quiet) {
    const lines = [
      `# ${formatCount(summary.entries)} statements, ${stats.length} fingerprints, ${(read.bytes / 1e6).toFixed(1)} MB${read.gzip ? ' (gzip)' : ''} in ${elapsed.toFixed(2)} s`
        + (ranked.length > shown.length ? `; showing ${shown.length} (--limit 0 for all)` : ''),
    ];
    if (withSites) {
      const all = ranked.map((s) => sitesFor(index, s.fingerprint));
      const unmapped = all.filter((m) => m.how === 'none').length;
      lines.push(`# ${sites.length} SQL sites under ${values.source}; ${ranked.length - unmapped} fingerprints mapped, ${unmapped} unmapped`);
    }
    if (summary.banners) lines.push(`# ${summary.banners} server start-up banner(s) skipped`);
    if (overflowEntries) lines.push(`# ${overflowEntries} entries with further new fingerprints not kept (limit reached)`);
    if (summary.truncatedStatements) lines.push(`# ${summary.truncatedStatements} statements cut: a literal longer than the limit (64 MiB) holds no place to split them`);
    if (summary.tooLong) lines.push(`# ${summary.tooLong} lines too long, skipped unread`);
    if (summary.reread) lines.push(`# ${summary.reread} string literal(s) left open (log cut inside?): the lines after were read again as entries`);
    if (summary.damaged) {
      lines.push(`# ${summary.damaged} entries read with a damaged header; the first ones:`);
      for (const p of summary.damagedSamples) lines.push(`#   line ${p.line}: ${p.reason}${p.text ? `: ${oneLine(p.text).slice(0, 100)}` : ''}`);
    }
    if (summary.malformed) {
      lines.push(`# ${summary.malformed} malformed entries, skipped; the first ones:`);
      for (const p of summary.problems) lines.push(`#   line ${p.line}: ${p.reason}${p.text ? `: ${oneLine(p.text).slice(0, 100)}` : ''}`);
    }
    if (reads.length > 1) for (const r of reads) lines.push(`#   ${r.name}: ${r.lines} lines${r.gzip ? ' (gzip)' : ''}${r.error ? ', incomplete' : ''}`);
    // why: the samples and reasons quote the log (a bad number, a line's start): its control bytes are shown escaped.
    io.stderr.write(escapeControls(lines.join('\n')) + '\n');
  }
  // why: the report of what could be read comes first; a source that failed still makes the exit non-zero.
  if (reportSourceErrors(reads, io)) return 1;
  // why: after the output, so the report of the entries before the damage is whole; a distinct code for scripts.
  return reportDamagedSources(reads, io, 'slow') ? 3 : 0;
}

export const slowCommand: Command = {
  name: 'slow',
  summary: 'rank the statements of a MySQL/MariaDB slow query log by fingerprint (pt-query-digest-like)',
  help: HELP,
  run,
};
