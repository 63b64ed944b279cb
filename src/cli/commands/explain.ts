/** `query-insight explain DIR`: EXPLAIN every SQL statement of an app against its database and print the plan findings. */
import { workloadStatements } from '../../core/analysis/workloadAdvice';
import { formatCount } from '../../core/format/numbers';
import { relative, resolve, sep } from 'node:path';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { directoryOperand, type Command, type CommandIo } from '../command';
import { oneLine, parseFormat, renderJsonLines, renderRows, UsageError, type Column } from '../output';
import type { Severity, SqlSite } from '../../core/model';
import { ParserSet } from '../../core/source/lang/treeSitter/treeSitter';
import { FactsCache } from '../../core/workspace';
import { fsGrammarSource } from '../../node/grammars';
import { scanProject } from '../../node/scanDir';
import { findSchemaFiles, projectRoot } from '../../node/schemaFiles';
import { schemaFileTables, type SchemaFileTables } from '../../core/plan/explainFailure';
import { DbConnection } from '../../db/connection';
import { ExplainService } from '../../db/explainService';
import { describeLimits, measureRefusal, measureStatement } from '../../db/measureService';
import { explainRows, siteLine, type ExplainRow } from '../../db/explainRows';
import { variantLabels } from '../../core/sql/variantLabels';
import { SSH_ARG_OPTIONS, SSH_HELP, sshFromArgs } from '../sshArgs';
import { TLS_ARG_OPTIONS, TLS_HELP, tlsFromArgs } from '../tlsArgs';
import { allowFunctionsFromArgs, EXIT_SERVER_GONE, GUARD_ARG_OPTIONS, GUARD_HELP, stopReason } from '../serverFaults';
import { portFromArgs, timeoutFromArgs } from '../connectionArgs';

const HELP = `usage: query-insight explain [DIR] --user U --database D [--host H --port P | --socket S] [--ssh USER@HOST] [options]

Finds the SQL statements under DIR (as \`scan\` does), fills their placeholders with values
sampled from the database, runs EXPLAIN (never the statement itself) and prints the plan findings:
full-table-scan, full-index-scan, filesort, temporary-table, join-without-index, dependent-subquery,
function-on-column, leading-wildcard, or-across-columns, rows-examined-ratio (and explain-error
when the server rejects a statement, e.g. an unknown table).

A failure that says nothing against the statement is not-explained (information) with its reason:
a table the database lacks but a schema file defines for another database (a tenant schema kept in
SQLite), a part built at run time that the server cannot read as completed here, a missing grant,
a lock or the time limit, or a statement the guard does not send. A table no schema file defines
stays an explain-error warning (a typo, or a missing migration).

The session is read-only: only EXPLAIN, schema reads, sampling reads and SET are sent (and, with
--analyze, the measured SELECTs).
The password comes from the MYSQL_PWD environment variable (or the variable named by
--password-env), or is asked for on a terminal; it is never taken from the command line.

options:
  --host H                 server host (default 127.0.0.1)
  --port P                 server port (default 3306)
  --socket S               unix socket path (instead of host/port)
  --user U                 user (required)
  --database D             database (required)
${SSH_HELP}
${TLS_HELP}
  --password-env NAME      read the password from environment variable NAME (default MYSQL_PWD)
  --timeout MS             per-statement time limit (default 5000)
  --schema FILE.sql        schema file(s) that say where a table the database lacks is defined
                           (repeatable; default: the .sql files with CREATE TABLE in the git
                           repository DIR is in, else under DIR)
  --format table|json|md   output (default table); json = JSON Lines, one object per finding:
                           file, line, code, severity, table, message, sql, filledSql, plan (the rows
                           the finding rests on), variant (when one line gives several statements:
                           "variant 2 of 2: LIMIT 3"; a column of the table then)
${GUARD_HELP}
  --fail-on warning|error  exit 1 when a finding of this severity or worse exists (for CI)
  --analyze                measure: RUN each SELECT (never a locking read, INTO, UPDATE/DELETE/INSERT)
                           with MariaDB ANALYZE FORMAT=JSON (at most 1,000,000 rows examined) or MySQL 8
                           EXPLAIN ANALYZE, within --timeout; records of a measured statement carry
                           measured {rowsRead, rowsSent, ms}, and reading far more rows than estimated
                           is a measured-over-estimate finding. Without it nothing is run.

exit status: 0 done; 1 a finding at --fail-on, or no connection at all; 2 bad usage;
3 the server went away (or refused the login) during the run: the statements not explained are
listed as such, and the output covers the ones that were`;

const RANK: Record<Severity, number> = { hint: 0, info: 1, warning: 2, error: 3 };

export type { ExplainRow };

/** The variant label of each statement that shares its line with other texts, by `file:line` and text. */
function variantsByLine(sites: readonly SqlSite[]): Map<string, string> {
  const texts = new Map<string, string[]>();
  for (const site of sites) {
    const at = `${site.file}:${siteLine(site)}`;
    const list = texts.get(at) ?? [];
    if (!list.includes(site.sql)) list.push(site.sql);
    texts.set(at, list);
  }
  const out = new Map<string, string>();
  for (const [at, sqls] of texts) {
    if (sqls.length < 2) continue;
    variantLabels(sqls).forEach((label, i) => out.set(`${at}\0${sqls[i]}`, label));
  }
  return out;
}

async function promptPassword(io: CommandIo): Promise<string | undefined> {
  const stdin = process.stdin;
  if (!stdin.isTTY) return undefined;
  io.stderr.write('password: ');
  return new Promise((resolveP) => {
    let buf = '';
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const done = (v: string | undefined): void => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      io.stderr.write('\n');
      resolveP(v);
    };
    const onData = (ch: string): void => {
      for (const c of ch) {
        if (c === '\r' || c === '\n') return done(buf);
        if (c === '\u0003') return done(undefined);
        if (c === '\u007f') buf = buf.slice(0, -1);
        else buf += c;
      }
    };
    stdin.on('data', onData);
  });
}

/** What the schema files define, named relative to where the command runs (so a terminal can open them). */
async function readSchemaFiles(paths: readonly string[], cwd: string): Promise<SchemaFileTables[]> {
  const out: SchemaFileTables[] = [];
  for (const p of paths) {
    let text: string;
    try { text = await readFile(p, 'utf8'); } catch (err) { throw new UsageError(`cannot read schema file ${p}: ${(err as Error).message}`); }
    out.push(schemaFileTables(relative(cwd, p).split(sep).join('/'), text));
  }
  return out;
}

export const explainCommand: Command = {
  name: 'explain',
  summary: 'EXPLAIN every statement of an app against its database; print plan findings',
  help: HELP,
  async run(args: string[], io: CommandIo): Promise<number> {
    const { values, positionals } = parseArgs({
      args, allowPositionals: true, options: {
        host: { type: 'string' }, port: { type: 'string' }, socket: { type: 'string' }, user: { type: 'string' },
        database: { type: 'string' }, 'password-env': { type: 'string' }, format: { type: 'string' },
        'fail-on': { type: 'string' }, analyze: { type: 'boolean' }, timeout: { type: 'string' }, password: { type: 'string' },
        schema: { type: 'string', multiple: true }, ...SSH_ARG_OPTIONS, ...TLS_ARG_OPTIONS, ...GUARD_ARG_OPTIONS,
      },
    });
    if (values.password !== undefined) throw new UsageError('--password is not accepted (it would show in the process list): set MYSQL_PWD or use --password-env');
    const format = parseFormat(values.format, ['table', 'json', 'md']);
    const failOn = values['fail-on'];
    if (failOn !== undefined && failOn !== 'warning' && failOn !== 'error') throw new UsageError(`--fail-on must be warning or error (got "${failOn}")`);
    if (!values.user) throw new UsageError('--user is required');
    if (!values.database) throw new UsageError('--database is required');
    const port = portFromArgs(values.port);
    const timeout = timeoutFromArgs(values.timeout);
    const ssh = sshFromArgs(values, io);
    const tls = await tlsFromArgs(values, io);
    const root = await directoryOperand(positionals, io);

    const envName = values['password-env'] ?? 'MYSQL_PWD';
    let password = io.env[envName];
    if (password === undefined && values['password-env'] === undefined) password = await promptPassword(io);

    const scan = await scanProject(root, new FactsCache(new ParserSet(fsGrammarSource()), { routes: false }));
    const sites: SqlSite[] = scan.facts.flatMap((f) => f.sites);
    // why: findings name the index of the app's whole index set, the one `advise` prints.
    const workload = workloadStatements(sites);
    const tables = await readSchemaFiles(values.schema?.map((f) => resolve(io.cwd, f)) ?? await findSchemaFiles(projectRoot(root)), io.cwd);
    const svc = new ExplainService(new DbConnection({
      host: values.host, port, socket: values.socket, user: values.user, password, database: values.database, queryTimeoutMs: timeout, ssh, tls,
      allowFunctions: allowFunctionsFromArgs(values, values.database),
    }), { workspaceTables: () => tables, workload: () => workload });
    const started = Date.now();
    const rows: ExplainRow[] = [];
    let explained = 0;
    let skipped = 0;
    let errors = 0;
    let stopped: string | undefined;
    let notExplained = 0;
    let notTheStatement = 0;
    let measuredCount = 0;
    let measureLimits = '';
    try {
      try {
        await svc.schema();
      } catch (err) {
        io.stderr.write(`query-insight explain: ${(err as Error).message}\n`);
        return 1;
      }
      for (const [index, site] of sites.entries()) {
        let r = await svc.explainSite(site);
        // why: a killed connection opens again; a server that went away stops the run at once.
        if (r.error && (stopped = await stopReason(svc.db, r.error.kind, r.error.message)) === undefined && r.error.kind === 'connection-lost') r = await svc.explainSite(site);
        if (r.error?.notExplained && !stopped) {
          notTheStatement++;
          rows.push(...explainRows(site, r));
          continue;
        }
        if (r.error) {
          errors++;
          rows.push(...explainRows(site, r));
          if (stopped) {
            notExplained = sites.length - index;
            errors += notExplained - 1;
            for (const rest of sites.slice(index + 1)) {
              rows.push({ file: rest.file, line: siteLine(rest), code: 'explain-error', severity: 'warning', message: `not explained: ${stopped}`, sql: rest.sql, plan: [] });
            }
            break;
          }
          continue;
        }
        if (r.skipped) {
          skipped++;
          rows.push(...explainRows(site, r));
          continue;
        }
        explained++;
        let measured: Parameters<typeof explainRows>[2];
        if (values.analyze && !measureRefusal(r)) {
          // why: the user asked for it with --analyze; this is the only place the CLI runs a statement.
          const m = await measureStatement(svc, site.sql, { limit: site.limit });
          measureLimits = describeLimits(m.limits);
          if (m.measurement) {
            measuredCount++;
            const x = m.measurement;
            measured = { figures: { rowsRead: x.rowsRead, rowsSent: x.rowsSent, ms: Number(x.ms.toFixed(3)), ...(x.capped ? { capped: true } : {}) }, findings: m.findings };
          } else if (m.error) {
            errors++;
            rows.push({ file: site.file, line: siteLine(site), code: 'measure-error', severity: 'warning', message: `${m.error.kind}: ${m.error.message}`, sql: site.sql, ...(r.filledSql ? { filledSql: r.filledSql } : {}), plan: [] });
          }
        }
        rows.push(...explainRows(site, r, measured));
      }
    } finally {
      await svc.close();
    }
    // why: two variants of one line (a branch appends a clause) would print as two identical rows.
    const variants = variantsByLine(sites);
    for (const r of rows) {
      const v = variants.get(`${r.file}:${r.line}\0${r.sql}`);
      if (v) r.variant = v;
    }
    if (format === 'json') io.stdout.write(renderJsonLines(rows));
    else {
      const columns: Column<ExplainRow>[] = [
        { header: 'location', value: (r) => `${r.file}:${r.line}` },
        ...(rows.some((r) => r.variant) ? [{ header: 'variant', value: (r: ExplainRow) => r.variant ?? '' }] : []),
        { header: 'severity', value: (r) => r.severity },
        { header: 'code', value: (r) => r.code },
        { header: 'table', value: (r) => r.table ?? '' },
        { header: 'message', value: (r) => oneLine(r.message + (r.explainedWithout ? ` (explained without ${r.explainedWithout.join(', ')})` : '')
          + (r.measured ? ` [measured: read ${r.measured.capped ? '≥ ' : ''}${formatCount(r.measured.rowsRead)} rows, sent ${formatCount(r.measured.rowsSent)}, ${r.measured.ms} ms]` : '')) },
      ];
      io.stdout.write(renderRows(rows, columns, format));
    }
    const server = svc.db.server;
    io.stderr.write(`explained ${explained} of ${sites.length} statements on ${server ? `${server.flavor} ${server.version}` : 'the server'} in ${Date.now() - started} ms`
      + `${measuredCount ? `; measured ${measuredCount} (ANALYZE, ${measureLimits} each)` : ''}: ${rows.length - errors - notTheStatement} findings${skipped ? `; ${skipped} without a plan (INSERT … VALUES, run-time table names …)` : ''}`
      + `${notTheStatement ? `; ${notTheStatement} not explained (not-explained rows say why)` : ''}${errors ? `; ${errors} errors` : ''}\n`);
    if (stopped) {
      io.stderr.write(`query-insight explain: stopped: ${stopped}; ${notExplained} statements not explained\n`);
      return EXIT_SERVER_GONE;
    }
    if (failOn && rows.some((r) => RANK[r.severity] >= RANK[failOn as Severity])) return 1;
    return 0;
  },
};
