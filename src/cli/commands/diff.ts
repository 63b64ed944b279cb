/** `query-insight diff BEFORE AFTER`: compares two runs (access logs, slow logs or saved runs) per endpoint or query. */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command';
import { parseFormat, renderJsonLines, renderRows, UsageError, type Column } from '../output';
import { compareRuns, formatIn, formatRatio, STATUS_CLASSES, timeUnitFor, type Change, type Comparison, type ComparisonRow, type CompareSort, type TimeUnit, type Verdict } from '../../core/report/compare';
import { comparisonMarkdown } from '../../core/report/markdown';
import { serializeRun, type Run, type RunKind } from '../../core/report/runs';
import { isAccessLogFormat, type AccessLogFormat } from '../../core/logs/accessParsers';
import { splitMatchingGroups } from '../../core/logs/grouping';
import { bufferDecoder } from '../../node/accessLogFile';
import type { SourceRead } from '../../node/logSources';
import { loadRunFromSources } from '../../node/runSources';
import { checkLocalSources, LOG_SOURCE_OPTIONS, parseLogArgs, remoteReaderFor, reportDamagedSources, reportSourceErrors } from '../logArgs';
import { loadRoutes } from './endpoints';

const HELP = `usage: query-insight diff BEFORE AFTER [options]

Compares two benchmark runs, before -> after. Each of BEFORE and AFTER is an nginx access log, a
MySQL / MariaDB slow log (plain or .gz) or a run saved as JSON (by --save, or exported by the
extension). Both must be of the same kind. Either may be several logs joined by commas, local or
on other boxes (HOST:/PATH or ssh://[USER@]HOST[:PORT]/PATH), read into one run: e.g.
isu1:/var/log/nginx/access.log,isu2:/var/log/nginx/access.log. One side may be - (standard
input). The comparison says when the two sides did not read the same hosts.

Access logs: one row per endpoint (method + URI, grouped as in \`endpoints\`: --routes, -m, ids in
paths folded) with count, responses per status class (2xx 3xx 4xx 5xx 499) and total, mean and p99
response time. Slow logs: one row per query fingerprint with count, total, mean and p95 query time
and the rows examined and sent per execution. Each figure before -> after with the delta; rows
found in one run only are marked new / gone. VERDICT says faster / slower by the time per request
(per call): the mean (Welch's test, p < 0.01, each run's own spread) or the tail (the runs' 95 %
intervals of the percentile do not overlap), and by at least 5 %; mixed when they disagree, noise
when neither moved, too-few under 2 requests. Total time grows with the load a faster app is sent,
so it never decides. Rows are sorted by the largest change of total time
(or of the mean: --sort mean), regression or gain. Each time column has one unit, chosen from its
figures (s, ms or µs); JSON gives seconds, rounded to the microsecond.

options:
  --kind access|slow              the kind of both logs (default: recognised from each file's start)
  --log-format FORMAT             access-log layout: ltsv, json, combined, combined-alp or the nginx
                                  log_format string itself (default: guessed)
  --routes DIR|FILE               group access-log URIs by the app's routes (as in \`endpoints\`)
  -m, --matching-groups RE,...    alp-compatible URI grouping expressions
  --sort total|mean|count         order by the largest change of this figure (default total)
  --limit N                       rows shown (default 0 = all; md: 50)
  --save DIR                      also write both runs as JSON into DIR (<file>.run.json)
  --format table|md|json          output (json = JSON Lines, one object per row)
  --quiet                         no summary on stderr
  --ssh-key FILE                  private key for logs on other boxes (default: ~/.ssh/config, the
                                  agent, ~/.ssh/id_*; host keys checked against ~/.ssh/known_hosts)
  --accept-new-host-key           trust (and record) a box's host key known_hosts does not list yet

exit status: 0 done; 1 a log could not be read (the comparison covers the others); 2 usage error;
3 a gzip file is damaged: the comparison covers the lines before the damage, and stderr says where.`;

/** The verdict in a table cell. */
const VERDICT_WORDS: Record<Verdict, string> = { faster: 'faster', slower: 'slower', mixed: 'mixed', noise: 'noise', unknown: 'too-few', new: 'new', gone: 'gone' };

/** `before -> after` of counts; `after (+delta)` when compact. */
function counts(x: Change, compact = false): string {
  if (compact) {
    if (x.after === null) return `- (${x.before ?? 0} gone)`;
    return x.before === null ? `${x.after} (new)` : `${x.after} (${x.delta > 0 ? '+' : x.delta < 0 ? '−' : '±'}${Math.abs(x.delta)})`;
  }
  return `${x.before ?? '-'} -> ${x.after ?? '-'}`;
}

function perExec(x: Change): string {
  const f = (v: number | null) => (v === null ? '-' : v.toFixed(v >= 100 ? 0 : 1));
  return `${f(x.before)} -> ${f(x.after)}`;
}

/** One unit per time column, chosen from the figures shown in it. */
function units(rows: readonly ComparisonRow[]): Record<'total' | 'delta' | 'mean' | 'tail', TimeUnit> {
  return {
    total: timeUnitFor(rows.flatMap((r) => [r.total.before, r.total.after])),
    delta: timeUnitFor(rows.map((r) => r.total.delta)),
    mean: timeUnitFor(rows.flatMap((r) => [r.mean.before, r.mean.after])),
    tail: timeUnitFor(rows.flatMap((r) => [r.tail.before, r.tail.after])),
  };
}

function columns(c: Comparison, rows: readonly ComparisonRow[]): Column<ComparisonRow>[] {
  const u = units(rows);
  const tail = c.tailLabel.toUpperCase();
  const cols: Column<ComparisonRow>[] = [
    { header: 'STATUS', value: (r) => r.status },
    { header: 'VERDICT', value: (r) => VERDICT_WORDS[r.verdict] },
    { header: 'COUNT', value: (r) => counts(r.count), right: true },
  ];
  if (c.kind === 'access') {
    for (const k of STATUS_CLASSES) cols.push({ header: k.toUpperCase(), value: (r) => (r.classes ? counts(r.classes[k], true) : '-'), right: true });
  }
  cols.push(
    { header: `SUM(${u.total.name}) BEFORE`, value: (r) => formatIn(r.total.before, u.total), right: true },
    { header: 'AFTER', value: (r) => formatIn(r.total.after, u.total), right: true },
    { header: `DELTA(${u.delta.name})`, value: (r) => formatIn(r.total.delta, u.delta, true), right: true },
    { header: 'RATIO', value: (r) => formatRatio(r.total), right: true },
    { header: `AVG(${u.mean.name}) BEFORE`, value: (r) => formatIn(r.mean.before, u.mean), right: true },
    { header: 'AFTER', value: (r) => formatIn(r.mean.after, u.mean), right: true },
    { header: `${tail}(${u.tail.name}) BEFORE`, value: (r) => formatIn(r.tail.before, u.tail), right: true },
    { header: 'AFTER', value: (r) => formatIn(r.tail.after, u.tail), right: true },
  );
  if (c.kind === 'slow') {
    cols.push(
      { header: 'EXAMINED/EXEC', value: (r) => (r.rowsExamined ? perExec(r.rowsExamined) : '-'), right: true },
      { header: 'SENT/EXEC', value: (r) => (r.rowsSent ? perExec(r.rowsSent) : '-'), right: true },
    );
  }
  cols.push({ header: c.kind === 'access' ? 'ENDPOINT' : 'FINGERPRINT', value: (r) => (r.key.length > 120 ? r.key.slice(0, 119) + '…' : r.key) });
  return cols;
}

/** The JSON Lines shape of one row (times in seconds). */
export function rowJson(c: Comparison, r: ComparisonRow): Record<string, unknown> {
  return {
    kind: c.kind, key: r.key, ...(r.method !== undefined ? { method: r.method, uri: r.uri } : { fingerprint: r.fingerprint }),
    status: r.status, verdict: r.verdict, shifts: r.shifts, count: r.count, ...(r.rate ? { rate: r.rate } : {}), total: r.total, mean: r.mean, tail: r.tail, tailLabel: c.tailLabel,
    ...(r.classes ? { classes: r.classes } : {}),
    ...(r.rowsExamined ? { rowsExamined: r.rowsExamined, rowsSent: r.rowsSent } : {}),
  };
}

async function run(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true, strict: true,
    options: {
      kind: { type: 'string' }, 'log-format': { type: 'string' }, 'matching-groups': { type: 'string', short: 'm' },
      routes: { type: 'string' }, sort: { type: 'string' },
      limit: { type: 'string' }, save: { type: 'string' }, format: { type: 'string' }, quiet: { type: 'boolean' },
      'ssh-key': LOG_SOURCE_OPTIONS['ssh-key'], 'accept-new-host-key': LOG_SOURCE_OPTIONS['accept-new-host-key'],
    },
  });
  if (positionals.length !== 2) throw new UsageError('give two files: BEFORE and AFTER');
  const format = parseFormat(values.format, ['table', 'md', 'json']);
  const kind = values.kind as RunKind | undefined;
  if (kind !== undefined && kind !== 'access' && kind !== 'slow') throw new UsageError(`--kind must be access or slow (got "${values.kind}")`);
  const logFormat = values['log-format'] as AccessLogFormat | undefined;
  if (logFormat !== undefined && !isAccessLogFormat(logFormat)) throw new UsageError(`--log-format must be ltsv, json, combined, combined-alp or an nginx log_format string (got "${logFormat}")`);
  const limit = values.limit === undefined ? (format === 'md' ? 50 : 0) : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 0) throw new UsageError(`--limit must be a whole number >= 0 (got "${values.limit}")`);
  const matchingGroups = values['matching-groups'] !== undefined ? splitMatchingGroups(values['matching-groups']) : undefined;
  const sort = (values.sort ?? 'total') as CompareSort;
  if (!['total', 'mean', 'count'].includes(sort)) throw new UsageError(`--sort must be total, mean or count (got "${values.sort}")`);
  const routes = values.routes !== undefined ? await loadRoutes(resolve(io.cwd, values.routes)) : undefined;

  const sides = positionals.map((p) => parseLogArgs(p.split(','), io.cwd));
  await checkLocalSources(sides.flat());
  const remote = remoteReaderFor(sides.flat(), values, io);
  const runs: Run[] = [];
  let failedSource = false;
  const allReads: SourceRead[] = [];
  try {
    for (const [i, sources] of sides.entries()) {
      const { run: r, reads } = await loadRunFromSources(sources, {
        kind, remote, meta: { id: i === 0 ? 'before' : 'after', source: positionals[i], label: i === 0 ? 'before' : 'after' },
        access: { decode: bufferDecoder, ...(logFormat ? { format: logFormat } : {}), ...(matchingGroups ? { matchingGroups } : {}), ...(routes ? { routes } : {}) },
      });
      if (reportSourceErrors(reads, io)) failedSource = true;
      allReads.push(...reads);
      runs.push(r);
    }
  } finally {
    await remote?.close();
  }
  const [before, after] = runs;
  if (before.kind !== after.kind) throw new Error(`${positionals[0]} is ${before.kind === 'access' ? 'an access log' : 'a slow log'} but ${positionals[1]} is ${after.kind === 'access' ? 'an access log' : 'a slow log'}: compare two of the same kind (or pass --kind)`);
  const c = compareRuns(before, after, sort);

  if (values.save !== undefined) {
    const dir = resolve(io.cwd, values.save);
    await mkdir(dir, { recursive: true });
    const stem = (i: number) => basename(positionals[i].split(',')[0]).replace(/\.(json|gz)$/, '');
    for (const [i, r] of runs.entries()) {
      const name = `${stem(i)}${stem(0) === stem(1) ? `-${i}` : ''}.run.json`;
      await writeFile(join(dir, name), serializeRun(r));
    }
  }

  const rows = limit > 0 ? c.rows.slice(0, limit) : c.rows;
  if (format === 'json') io.stdout.write(renderJsonLines(rows.map((r) => rowJson(c, r))));
  else if (format === 'md') io.stdout.write(comparisonMarkdown(c, { limit }));
  else io.stdout.write(renderRows(rows, columns(c, rows), 'table'));

  if (!values.quiet) {
    const what = c.kind === 'access' ? 'requests' : 'statements';
    const changed = (s: ComparisonRow['status']) => c.rows.filter((r) => r.status === s).length;
    const tu = timeUnitFor([c.totals.total.before, c.totals.total.after]);
    io.stderr.write(`# ${c.kind} runs: ${what} ${c.totals.count.before} -> ${c.totals.count.after}, total time ${formatIn(c.totals.total.before, tu)} -> ${formatIn(c.totals.total.after, tu)} ${tu.name} (${formatRatio(c.totals.total)}); `
      + `${c.rows.length} rows: ${changed('changed')} changed, ${changed('same')} same, ${changed('new')} new, ${changed('gone')} gone${rows.length < c.rows.length ? `; showing ${rows.length}` : ''}\n`);
    const read = (v: Verdict) => c.rows.filter((r) => r.verdict === v).length;
    io.stderr.write(`# by the time per ${c.kind === 'access' ? 'request' : 'call'} (mean, ${c.tailLabel}) beyond the runs' own spread: ${read('faster')} faster, ${read('slower')} slower, ${read('mixed')} mixed, ${read('noise')} within noise, ${read('unknown')} too few to judge\n`);
    for (const r of runs) if (r.summary.malformed) io.stderr.write(`#   ${r.source}: ${r.summary.malformed} malformed ${r.kind === 'slow' ? 'entries' : 'lines'} skipped\n`);
    if (c.hostsNote) io.stderr.write(`# note: ${c.hostsNote}\n`);
  }
  if (failedSource) return 1;
  // why: after the output, so the comparison of what was read is whole; a distinct code for scripts.
  return reportDamagedSources(allReads, io, 'diff') ? 3 : 0;
}

export const diffCommand: Command = { name: 'diff', summary: 'compare two runs (access logs, slow logs or saved runs) per endpoint or query', help: HELP, run };
