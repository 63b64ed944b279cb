/**
 * `query-insight server-stats`: the statements and index usage of a window, from two
 * performance_schema snapshots (no slow log, nothing written to the server).
 */
import { formatCount } from '../../core/format/numbers';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command';
import { parseFormat, renderJsonLines, renderRows, UsageError, type Column } from '../output';
import { SSH_ARG_OPTIONS, SSH_HELP, sshFromArgs } from '../sshArgs';
import { TLS_ARG_OPTIONS, TLS_HELP, tlsFromArgs } from '../tlsArgs';
import type { SqlSite } from '../../core/model';
import { formatSeconds } from '../../core/report/compare';
import { serializeRun } from '../../core/report/runs';
import { parseSnapshot, serializeSnapshot, type ServerSnapshot } from '../../core/serverStats/snapshot';
import { runFromServerStats, serverStatsBetween, statementRecords, unusedIndexRecords, type StatementRecord, type UnusedIndexRecord } from '../../core/serverStats/serverStatsRun';
import { ParserSet } from '../../core/source/lang/treeSitter/treeSitter';
import { FactsCache } from '../../core/workspace';
import { DbConnection } from '../../db/connection';
import { checkServerStats, readServerSnapshot, ServerStatsUnavailable } from '../../db/serverStatsReader';
import { fsGrammarSource } from '../../node/grammars';
import { scanProject } from '../../node/scanDir';
import { portFromArgs, timeoutFromArgs } from '../connectionArgs';

const HELP = `usage: query-insight server-stats --user U --database D [--host H --port P | --socket S] [--ssh USER@HOST] [options]

Measures a window (a benchmark) from the server's own counters: takes a snapshot of
performance_schema's statement digests and per-index I/O, waits, takes another, and prints what
happened in between, per statement shape (the slow log's fingerprint), plus the indexes of tables
read in the window that no statement read. Only SELECTs on performance_schema and
information_schema are sent. performance_schema must be ON (MySQL's default; on MariaDB set
performance_schema = ON in my.cnf and restart).

options:
  --host H / --port P / --socket S / --user U / --database D   the connection (as explain)
${SSH_HELP}
${TLS_HELP}
  --password-env NAME      read the password from environment variable NAME (default MYSQL_PWD)
  --timeout MS             per-statement time limit (default 5000)
  --seconds N              the window: snapshot, wait N seconds, snapshot (Ctrl+C ends the wait
                           early); without it (and without --since) the wait lasts until Ctrl+C
  --save FILE              keep the (last) snapshot in FILE; alone, just take and save one
  --since FILE             the window starts at the snapshot saved in FILE and ends now
  --run FILE               also write the window as a run file (for \`diff\` and the editor's report)
  --source DIR             find the SQL in the app under DIR and show each shape's site(s) as file:line
  --limit N                print the first N shapes (default 30; 0 = all)
  --format table|md|json|csv|tsv   json = JSON Lines: {"kind":"statement",…} per shape, then
                           {"kind":"unused-index",…} per unused index
  --quiet                  no summary on stderr`;

function waitWindow(seconds: number | undefined, io: CommandIo): Promise<'time' | 'interrupt'> {
  return new Promise((done) => {
    const onInt = (): void => { clearTimeout(timer); done('interrupt'); };
    const timer = seconds === undefined ? undefined : setTimeout(() => { process.off('SIGINT', onInt); done('time'); }, seconds * 1000);
    process.once('SIGINT', onInt);
    io.stderr.write(seconds === undefined ? '# measuring until Ctrl+C …\n' : `# measuring for ${seconds} s (Ctrl+C ends it early) …\n`);
  });
}

const ms = (s: number): string => (s * 1000).toFixed(2);

function statementColumns(withSites: boolean, table: boolean): Column<StatementRecord>[] {
  const cols: Column<StatementRecord>[] = [
    { header: 'COUNT', value: (r) => r.count, right: true },
    { header: 'SUM(s)', value: (r) => r.totalTime.toFixed(3), right: true },
    { header: 'AVG(ms)', value: (r) => ms(r.count ? r.totalTime / r.count : 0), right: true },
    { header: 'MAX(ms)', value: (r) => (r.maxExact ? '' : '≤') + ms(r.maxTime), right: true },
    { header: 'EXAMINED', value: (r) => r.rowsExamined, right: true },
    { header: 'SENT', value: (r) => r.rowsSent, right: true },
    { header: 'NO_INDEX', value: (r) => r.noIndexUsed, right: true },
    { header: 'TMP_DISK', value: (r) => r.tmpDiskTables, right: true },
    { header: 'SORT_ROWS', value: (r) => r.sortRows, right: true },
  ];
  if (withSites) cols.push({ header: 'SITE', value: (r) => (r.sites.length ? r.sites.map((s) => `${s.file}:${s.line}`).join(' ') : r.truncated ? '(digest text cut)' : '(unmapped)') });
  cols.push({ header: 'FINGERPRINT', value: (r) => (r.reset ? '[reset] ' : '') + (table && r.fingerprint.length > 120 ? r.fingerprint.slice(0, 119) + '…' : r.fingerprint) });
  return cols;
}

const INDEX_COLUMNS: Column<UnusedIndexRecord>[] = [
  { header: 'TABLE', value: (r) => r.table },
  { header: 'UNUSED INDEX', value: (r) => r.index },
  { header: 'COLUMNS', value: (r) => r.columns.join(', ') },
  { header: 'TABLE READS', value: (r) => r.tableReads, right: true },
  { header: 'ROWS WRITTEN', value: (r) => r.tableWrites, right: true },
];

async function run(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true, strict: true,
    options: {
      host: { type: 'string' }, port: { type: 'string' }, socket: { type: 'string' }, user: { type: 'string' }, database: { type: 'string' },
      'password-env': { type: 'string' }, password: { type: 'string' }, timeout: { type: 'string' }, ...SSH_ARG_OPTIONS, ...TLS_ARG_OPTIONS,
      seconds: { type: 'string' }, save: { type: 'string' }, since: { type: 'string' }, run: { type: 'string' }, source: { type: 'string' },
      limit: { type: 'string' }, format: { type: 'string' }, quiet: { type: 'boolean' },
    },
  });
  if (values.password !== undefined) throw new UsageError('--password is not accepted (it would show in the process list): set MYSQL_PWD or use --password-env');
  if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  if (!values.user) throw new UsageError('--user is required');
  if (!values.database) throw new UsageError('--database is required');
  const format = parseFormat(values.format, ['table', 'md', 'json', 'csv', 'tsv']);
  const port = portFromArgs(values.port);
  const timeout = timeoutFromArgs(values.timeout);
  const seconds = values.seconds === undefined ? undefined : Number(values.seconds);
  if (seconds !== undefined && !(Number.isFinite(seconds) && seconds > 0)) throw new UsageError(`--seconds must be a number of seconds > 0 (got "${values.seconds}")`);
  if (seconds !== undefined && values.since !== undefined) throw new UsageError('give --seconds or --since, not both');
  const limit = values.limit === undefined ? 30 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 0) throw new UsageError(`--limit must be a whole number >= 0 (got "${values.limit}")`);
  let since: ServerSnapshot | undefined;
  if (values.since !== undefined) {
    const path = resolve(io.cwd, values.since);
    const text = await readFile(path, 'utf8').catch(() => { throw new Error(`cannot read ${path}: no such file`); });
    since = parseSnapshot(text);
    if (since.database !== values.database) throw new UsageError(`${values.since} is a snapshot of database "${since.database}", not "${values.database}"`);
  }
  let sites: SqlSite[] = [];
  if (values.source !== undefined) {
    const root = resolve(io.cwd, values.source);
    if (!(await stat(root).catch(() => undefined))?.isDirectory()) throw new UsageError(`--source ${values.source} is not a directory`);
    const scan = await scanProject(root, new FactsCache(new ParserSet(fsGrammarSource()), { routes: false }));
    sites = scan.facts.flatMap((f) => f.sites);
  }
  const db = new DbConnection({
    host: values.host, port, socket: values.socket, user: values.user, password: io.env[values['password-env'] ?? 'MYSQL_PWD'],
    database: values.database, queryTimeoutMs: timeout, ssh: sshFromArgs(values, io), tls: await tlsFromArgs(values, io),
  });
  let before: ServerSnapshot;
  let after: ServerSnapshot;
  try {
    try {
      await checkServerStats(db);
    } catch (err) {
      if (err instanceof ServerStatsUnavailable) { io.stderr.write(`query-insight server-stats: ${err.message}\n`); return 1; }
      throw err;
    }
    if (since) before = since;
    else {
      before = await readServerSnapshot(db);
      if (values.save !== undefined && seconds === undefined) {
        // alone: take one snapshot and keep it for a later --since
        await writeFile(resolve(io.cwd, values.save), serializeSnapshot(before));
        if (!values.quiet) io.stderr.write(`# snapshot of ${before.digests.length} digests and ${before.indexUsage.length} index counters saved to ${values.save}\n`);
        return 0;
      }
      await waitWindow(seconds, io);
    }
    after = await readServerSnapshot(db);
  } finally {
    await db.close();
  }
  if (values.save !== undefined) await writeFile(resolve(io.cwd, values.save), serializeSnapshot(after));
  const result = serverStatsBetween(before, after);
  const records = statementRecords(result.shapes, sites);
  const shown = limit === 0 ? records : records.slice(0, limit);
  const indexes = unusedIndexRecords(result.indexes);
  if (values.run !== undefined) {
    const runObj = runFromServerStats(result, { id: `server-${after.takenAt}`, source: `performance_schema ${values.database}`, createdAt: new Date(after.takenAt) });
    await writeFile(resolve(io.cwd, values.run), serializeRun(runObj));
  }
  if (format === 'json') io.stdout.write(renderJsonLines([...shown, ...indexes]));
  else {
    io.stdout.write(renderRows(shown, statementColumns(values.source !== undefined, format === 'table'), format));
    if (indexes.length) io.stdout.write('\n' + renderRows(indexes, INDEX_COLUMNS, format));
  }
  if (!values.quiet) {
    const d = result.diff;
    const total = result.shapes.reduce((n, s) => n + s.count, 0);
    const lines = [`# window of ${d.windowSeconds.toFixed(1)} s on ${after.server}: ${formatCount(total)} statements, ${result.shapes.length} shapes, `
      + `${formatSeconds(result.shapes.reduce((n, s) => n + s.totalTime, 0))} in total${records.length > shown.length ? `; showing ${shown.length} (--limit 0 for all)` : ''}`];
    if (values.source !== undefined) {
      const mapped = records.filter((r) => r.sites.length).length;
      lines.push(`# ${sites.length} SQL sites under ${values.source}; ${mapped} shapes mapped, ${records.length - mapped} unmapped`);
    }
    const resets = d.digests.filter((x) => x.status === 'reset').length;
    if (resets) lines.push(`# ${resets} digest(s) were reset during the window: their figures count from the reset on (marked [reset])`);
    if (d.evicted.length) lines.push(`# ${d.evicted.length} digest(s) of the first snapshot are gone (evicted, or the summary was truncated): not counted`);
    if (d.lost) lines.push(`# ${d.lost} statement(s) went to the server's overflow row (digest table full: raise performance_schema_digests_size)`);
    if (d.digests.some((x) => x.truncated)) lines.push('# some digest texts were cut at performance_schema_max_digest_length: those shapes are not mapped to sites');
    lines.push(`# ${indexes.length} unused index(es) on tables read in the window`);
    for (const k of result.indexes.kept) lines.push(`#   not listed: ${k.table}.${k.index}: ${k.reason}`);
    if (result.indexes.reset.length) lines.push(`# index counters reset during the window, nothing said about: ${result.indexes.reset.join(', ')}`);
    io.stderr.write(lines.join('\n') + '\n');
  }
  return 0;
}

export const serverStatsCommand: Command = {
  name: 'server-stats',
  summary: 'statements and unused indexes of a window, from performance_schema (no slow log needed)',
  help: HELP,
  run,
};
