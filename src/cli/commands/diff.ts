/** `query-insight diff BEFORE AFTER`: compares two runs (access logs, slow logs or saved runs) per endpoint or query. */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command';
import { parseFormat, renderJsonLines, renderRows, UsageError, type Column } from '../output';
import { compareRuns, formatDelta, formatRatio, type Change, type Comparison, type ComparisonRow } from '../../core/report/compare';
import { comparisonMarkdown } from '../../core/report/markdown';
import { serializeRun, type Run, type RunKind } from '../../core/report/runs';
import { ACCESS_LOG_FORMATS, type AccessLogFormat } from '../../core/logs/accessParsers';
import { splitMatchingGroups } from '../../core/logs/grouping';
import { bufferDecoder } from '../../node/accessLogFile';
import { loadRunFromSources } from '../../node/runSources';
import { LOG_SOURCE_OPTIONS, parseLogArgs, remoteReaderFor, reportSourceErrors } from '../logArgs';

const HELP = `usage: query-insight diff BEFORE AFTER [options]

Compares two benchmark runs, before -> after. Each of BEFORE and AFTER is an nginx access log, a
MySQL / MariaDB slow log (plain or .gz) or a run saved as JSON (by --save, or exported by the
extension). Both must be of the same kind. Either may be several logs joined by commas, local or
on other boxes (HOST:/PATH or ssh://[USER@]HOST[:PORT]/PATH), read into one run: e.g.
isu1:/var/log/nginx/access.log,isu2:/var/log/nginx/access.log. The comparison says when the two
sides did not read the same hosts.

Access logs: one row per endpoint (method + URI, ids in paths folded as in \`endpoints\`) with count,
total, mean and p99 response time. Slow logs: one row per query fingerprint with count, total, mean
and p95 query time (the slow-log statistics keep p95). Each figure before -> after with the delta;
rows found in one run only are marked new / gone. Rows are sorted by the largest change of total
time, regression or gain.

options:
  --kind access|slow              the kind of both logs (default: recognised from each file's start)
  --log-format ltsv|json|combined access-log layout (default: guessed)
  -m, --matching-groups RE,...    alp-compatible URI grouping expressions
  --limit N                       rows shown (default 0 = all; md: 50)
  --save DIR                      also write both runs as JSON into DIR (<file>.run.json)
  --format table|md|json          output (json = JSON Lines, one object per row)
  --quiet                         no summary on stderr
  --ssh-key FILE                  private key for logs on other boxes (default: the agent and
                                  ~/.ssh/id_*; host keys checked against ~/.ssh/known_hosts)`;

/** Seconds for the table: access logs in s (3 decimals), slow logs in ms (2 decimals). */
function timeCell(kind: RunKind, v: number | null): string {
  if (v === null) return '-';
  return kind === 'access' ? v.toFixed(3) : (v * 1000).toFixed(2);
}

function columns(c: Comparison): Column<ComparisonRow>[] {
  const unit = c.kind === 'access' ? 's' : 'ms';
  const t = (v: number | null) => timeCell(c.kind, v);
  const n = (x: Change) => `${x.before ?? '-'} -> ${x.after ?? '-'}`;
  const tail = c.tailLabel.toUpperCase();
  return [
    { header: 'STATUS', value: (r) => r.status },
    { header: 'COUNT', value: (r) => n(r.count), right: true },
    { header: `SUM(${unit}) BEFORE`, value: (r) => t(r.total.before), right: true },
    { header: 'AFTER', value: (r) => t(r.total.after), right: true },
    { header: 'DELTA', value: (r) => formatDelta(r.total.delta, 's'), right: true },
    { header: 'RATIO', value: (r) => formatRatio(r.total), right: true },
    { header: `AVG(${unit}) BEFORE`, value: (r) => t(r.mean.before), right: true },
    { header: 'AFTER', value: (r) => t(r.mean.after), right: true },
    { header: `${tail}(${unit}) BEFORE`, value: (r) => t(r.tail.before), right: true },
    { header: 'AFTER', value: (r) => t(r.tail.after), right: true },
    { header: c.kind === 'access' ? 'ENDPOINT' : 'FINGERPRINT', value: (r) => (r.key.length > 120 ? r.key.slice(0, 119) + '…' : r.key) },
  ];
}

/** The JSON Lines shape of one row (times in seconds). */
export function rowJson(c: Comparison, r: ComparisonRow): Record<string, unknown> {
  return {
    kind: c.kind, key: r.key, ...(r.method !== undefined ? { method: r.method, uri: r.uri } : { fingerprint: r.fingerprint }),
    status: r.status, count: r.count, total: r.total, mean: r.mean, tail: r.tail, tailLabel: c.tailLabel,
  };
}

async function run(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true, strict: true,
    options: {
      kind: { type: 'string' }, 'log-format': { type: 'string' }, 'matching-groups': { type: 'string', short: 'm' },
      limit: { type: 'string' }, save: { type: 'string' }, format: { type: 'string' }, quiet: { type: 'boolean' },
      'ssh-key': LOG_SOURCE_OPTIONS['ssh-key'],
    },
  });
  if (positionals.length !== 2) throw new UsageError('give two files: BEFORE and AFTER');
  const format = parseFormat(values.format, ['table', 'md', 'json']);
  const kind = values.kind as RunKind | undefined;
  if (kind !== undefined && kind !== 'access' && kind !== 'slow') throw new UsageError(`--kind must be access or slow (got "${values.kind}")`);
  const logFormat = values['log-format'] as AccessLogFormat | undefined;
  if (logFormat !== undefined && !ACCESS_LOG_FORMATS.includes(logFormat)) throw new UsageError(`--log-format must be one of ${ACCESS_LOG_FORMATS.join(', ')} (got "${logFormat}")`);
  const limit = values.limit === undefined ? (format === 'md' ? 50 : 0) : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 0) throw new UsageError(`--limit must be a whole number >= 0 (got "${values.limit}")`);
  const matchingGroups = values['matching-groups'] !== undefined ? splitMatchingGroups(values['matching-groups']) : undefined;

  const sides = positionals.map((p) => parseLogArgs(p.split(','), io.cwd));
  for (const s of sides.flat()) {
    if (s.kind === 'local' && !(await stat(s.path).catch(() => undefined))?.isFile()) throw new Error(`cannot read ${s.path}: no such file`);
  }
  const remote = remoteReaderFor(sides.flat(), values, io);
  const runs: Run[] = [];
  let failedSource = false;
  try {
    for (const [i, sources] of sides.entries()) {
      const { run: r, reads } = await loadRunFromSources(sources, {
        kind, remote, meta: { id: i === 0 ? 'before' : 'after', source: positionals[i], label: i === 0 ? 'before' : 'after' },
        access: { decode: bufferDecoder, ...(logFormat ? { format: logFormat } : {}), ...(matchingGroups ? { matchingGroups } : {}) },
      });
      if (reportSourceErrors(reads, io)) failedSource = true;
      runs.push(r);
    }
  } finally {
    await remote?.close();
  }
  const [before, after] = runs;
  if (before.kind !== after.kind) throw new Error(`${positionals[0]} is ${before.kind === 'access' ? 'an access log' : 'a slow log'} but ${positionals[1]} is ${after.kind === 'access' ? 'an access log' : 'a slow log'}: compare two of the same kind (or pass --kind)`);
  const c = compareRuns(before, after);

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
  else io.stdout.write(renderRows(rows, columns(c), 'table'));

  if (!values.quiet) {
    const what = c.kind === 'access' ? 'requests' : 'statements';
    const changed = (s: ComparisonRow['status']) => c.rows.filter((r) => r.status === s).length;
    io.stderr.write(`# ${c.kind} runs: ${what} ${c.totals.count.before} -> ${c.totals.count.after}, total time ${timeCell(c.kind, c.totals.total.before)} -> ${timeCell(c.kind, c.totals.total.after)} ${c.kind === 'access' ? 's' : 'ms'} (${formatRatio(c.totals.total)}); `
      + `${c.rows.length} rows: ${changed('changed')} changed, ${changed('same')} same, ${changed('new')} new, ${changed('gone')} gone${rows.length < c.rows.length ? `; showing ${rows.length}` : ''}\n`);
    for (const r of runs) if (r.summary.malformed) io.stderr.write(`#   ${r.source}: ${r.summary.malformed} malformed lines skipped\n`);
    if (c.hostsNote) io.stderr.write(`# note: ${c.hostsNote}\n`);
  }
  return failedSource ? 1 : 0;
}

export const diffCommand: Command = { name: 'diff', summary: 'compare two runs (access logs, slow logs or saved runs) per endpoint or query', help: HELP, run };
