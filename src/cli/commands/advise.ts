/**
 * `query-insight advise DIR`: the indexes the app's statements need, merged across the app (one
 * index serving several statements is listed once, with those statements), as DDL ready to paste,
 * plus the redundant indexes already in the schema. The schema comes from the database (connection
 * options) or, offline, from schema files (`--schema FILE.sql`, else the .sql files under DIR).
 */
import { readFile } from 'node:fs/promises';
import { relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { directoryOperand, type Command, type CommandIo } from '../command';
import { oneLine, parseFormat, renderJsonLines, renderRows, UsageError, type Column } from '../output';
import type { Schema } from '../../core/model';
import { adviseWorkload, workloadStatements, type PlannedIndex } from '../../core/analysis/workloadAdvice';
import { parseSchemaText } from '../../core/analysis/ddlParse';
import type { RedundantIndex } from '../../core/analysis/redundantIndexes';
import { ParserSet } from '../../core/source/lang/treeSitter/treeSitter';
import { FactsCache } from '../../core/workspace';
import { DbConnection } from '../../db/connection';
import { SSH_ARG_OPTIONS, sshFromArgs } from '../sshArgs';
import { TLS_ARG_OPTIONS, tlsFromArgs } from '../tlsArgs';
import { readSchema } from '../../db/schemaReader';
import { readColumnStats } from '../../db/columnStats';
import { columnsToSample } from '../../core/analysis/columnStats';
import { fsGrammarSource } from '../../node/grammars';
import { scanProject } from '../../node/scanDir';
import { findSchemaFiles } from '../../node/schemaFiles';
import { analyzeSlowSources } from '../../node/logSources';
import { fromDigests, fromRun, fromSlowStats, weighWorkload, type StatementTimes } from '../../core/analysis/workloadWeights';
import { checkServerStats, readServerSnapshot } from '../../db/serverStatsReader';
import { DEFAULT_STORE, readRunsConfig, RecordStore } from '../../node/runs/recordStore';
import { checkLocalSources, parseLogArgs } from '../logArgs';
import { portFromArgs, timeoutFromArgs } from '../connectionArgs';

const HELP = `usage: query-insight advise [DIR] [options]

Chooses one set of indexes for all the SQL statements in DIR's source (default DIR: the current
directory): one index where one serves several statements, none on small tables the code never
writes, none led by a column of two or three values. Each comes as an ALTER TABLE ready to paste,
with the statements it serves, the write sites it slows, what it replaces and the existing indexes
it makes redundant; redundant indexes already in the schema are listed after. Existing indexes come from the database when connection options are
given, else from schema files: --schema FILE.sql, or every .sql file under DIR that has a CREATE TABLE
(row counts are unknown then, so large-table hints are left out).

options:
  --host H / --port P / --socket S     the database server, as in \`explain\` (read-only session)
  --user U / --database D              required with a connection
  --ssh USER@HOST[:PORT] / --ssh-key FILE / --ssh-host-key SHA256:…
                                       through an SSH tunnel to the box, as in \`explain\`
  --ssl-mode MODE / --ssl-ca FILE      TLS to the database, as in \`explain\` (and the mysql client)
  --password-env NAME                  read the password from NAME (default MYSQL_PWD); never a flag
  --timeout MS                         per-statement time limit (default 5000)
  --schema FILE.sql                    schema file(s) to read instead of a database (repeatable)
  --slow-log FILE                      weight each statement by its total time in this slow log
                                       (repeatable)
  --server-stats                       weight it by its total time in the connected server's
                                       performance_schema (events_statements_summary_by_digest)
  --run ID                             weight it by its total time in a recorded round (\`runs
                                       record\`: its id, a prefix, last, last~1 …; --store DIR)
                                       One source of weights at most; without one every statement
                                       counts once.
  --format table|json|md               output (default table); json = JSON Lines: one object per
                                       suggestion {kind:"index", table, columns, name, ddl, reason,
                                       replaces, servesOrderBy, covering, warnings, sites [{file, line, sql}],
                                       weight, writes [{file, line}], makesRedundant [index]}
                                       and per redundant index {kind:"redundant", table, index,
                                       columns, coveredBy, ddl, reason}`;


export const adviseCommand: Command = {
  name: 'advise',
  summary: 'suggest the composite indexes the app\'s statements need, as ready DDL, plus redundant indexes',
  help: HELP,
  async run(args: string[], io: CommandIo): Promise<number> {
    const { values, positionals } = parseArgs({
      args, allowPositionals: true,
      options: {
        format: { type: 'string' }, host: { type: 'string' }, port: { type: 'string' }, socket: { type: 'string' },
        user: { type: 'string' }, database: { type: 'string' }, schema: { type: 'string', multiple: true }, 'slow-log': { type: 'string', multiple: true },
        'server-stats': { type: 'boolean' }, run: { type: 'string' }, store: { type: 'string' },
        'password-env': { type: 'string' }, timeout: { type: 'string' }, password: { type: 'string' }, ...SSH_ARG_OPTIONS, ...TLS_ARG_OPTIONS,
      },
    });
    if (values.password !== undefined) throw new UsageError('--password is not accepted (it would show in the process list): set MYSQL_PWD or use --password-env');
    const format = parseFormat(values.format, ['table', 'json', 'md']);
    const root = await directoryOperand(positionals, io);
    const connect = values.host !== undefined || values.port !== undefined || values.socket !== undefined || values.database !== undefined || values.user !== undefined;
    if (connect && values.schema) throw new UsageError('give either connection options or --schema, not both');
    if (connect && (!values.database || !values.user)) throw new UsageError('--user and --database are required with a connection');
    if (values.ssh !== undefined && !connect) throw new UsageError('--ssh needs the connection options (--user, --database …)');
    const ssh = sshFromArgs(values, io);
    const tls = await tlsFromArgs(values, io);
    if (tls && !connect) throw new UsageError('--ssl-mode and --ssl-ca need the connection options (--user, --database …)');
    const timeout = timeoutFromArgs(values.timeout);
    const port = portFromArgs(values.port);

    const cache = new FactsCache(new ParserSet(fsGrammarSource()), { routes: false });
    const scan = await scanProject(root, cache);
    const sites = scan.facts.flatMap((f) => f.sites);
    const statements = workloadStatements(sites);
    const given = [values['slow-log']?.length ? '--slow-log' : '', values['server-stats'] ? '--server-stats' : '', values.run !== undefined ? '--run' : ''].filter(Boolean);
    if (given.length > 1) throw new UsageError(`one source of weights, please (got ${given.join(', ')})`);
    if (values['server-stats'] && !connect) throw new UsageError('--server-stats needs the connection options (--user, --database …)');
    // why: the index set is ordered by what the statements cost, where something measured it (workloadWeights.ts).
    let times: StatementTimes | undefined;
    if (values['slow-log']?.length) {
      const logs = parseLogArgs(values['slow-log'], io.cwd);
      await checkLocalSources(logs);
      times = fromSlowStats(values['slow-log'].join(', '), (await analyzeSlowSources(logs)).stats);
    } else if (values.run !== undefined) {
      const store = new RecordStore(resolve(io.cwd, values.store ?? (await readRunsConfig(io.cwd)).store ?? DEFAULT_STORE));
      const rec = await store.find(values.run).catch((err: Error) => { throw new UsageError(err.message); });
      if (!rec.slow?.queries?.length) throw new UsageError(`run ${rec.id} has no statements (it was recorded without a slow log or server stats)`);
      times = fromRun(`run ${rec.id}`, rec.slow);
    }

    let weights = weighWorkload(statements, sites, times);
    let schema: Schema | undefined;
    let schemaNote: string;
    if (connect) {
      const db = new DbConnection({
        host: values.host, port, socket: values.socket, user: values.user!, password: io.env[values['password-env'] ?? 'MYSQL_PWD'],
        database: values.database!, queryTimeoutMs: timeout, ssh, tls,
      });
      let sampled = 0;
      try {
        if (values['server-stats']) {
          await checkServerStats(db);
          times = fromDigests(`performance_schema of ${values.database}`, (await readServerSnapshot(db)).digests, values.database!);
          weights = weighWorkload(statements, sites, times);
        }
        schema = await readSchema(db, 1);
        // why: rows per value of the columns no index leads with, from a bounded sample: one index serves every lookup
        // led by a column that finds a few rows. A first pass names the columns the suggestions would use.
        const first = adviseWorkload(statements, { schema, fromDatabase: true });
        sampled = await readColumnStats(db, schema, columnsToSample([...first.perStatement.values()].flatMap((a) => a.suggestions), schema.tables));
      } finally {
        await db.close();
      }
      schemaNote = `schema of ${values.database} (${schema.flavor} ${schema.version})${sampled ? `, ${sampled} column(s) sampled for rows per value` : ''}`;
    } else {
      const files = values.schema?.map((f) => resolve(io.cwd, f)) ?? await findSchemaFiles(root);
      const texts: string[] = [];
      for (const f of files) {
        try { texts.push(await readFile(f, 'utf8')); } catch (err) { throw new UsageError(`cannot read schema file ${f}: ${(err as Error).message}`); }
      }
      schema = texts.length ? parseSchemaText(texts) : undefined;
      schemaNote = schema
        ? `schema from ${files.map((f) => relative(io.cwd, f).split(sep).join('/')).join(', ')} (${Object.keys(schema.tables).length} tables; row counts unknown, so no large-table hints)`
        : 'no schema (no connection, no --schema, no .sql file with CREATE TABLE under DIR): existing indexes were not checked';
    }

    const plan = adviseWorkload(statements, { schema, fromDatabase: connect });
    /** Statements on tables the database lacks (another database's, or typos), and those tables. */
    const lacking = new Set<string>();
    let elsewhere = 0;
    for (const st of statements) {
      const missing = plan.perStatement.get(st.sql)?.served.filter((t) => t.missing) ?? [];
      if (missing.length) { elsewhere++; for (const t of missing) lacking.add(t.table); }
    }
    const merged = plan.indexes;
    const redundant: RedundantIndex[] = plan.redundant;
    const statementsCount = plan.statements, unparsed = plan.unparsed;
    const where = (list: readonly { file: string; line: number }[]) => list.slice(0, 3).map((x) => `${x.file}:${x.line}`).join(' ') + (list.length > 3 ? ` +${list.length - 3}` : '');

    if (format === 'json') {
      io.stdout.write(renderJsonLines([
        ...merged.map((m) => ({
          kind: 'index', table: m.table, columns: m.columns, name: m.name, ddl: m.ddl, reason: m.reason,
          ...(m.replaces ? { replaces: m.replaces } : {}), servesOrderBy: m.servesOrderBy, covering: m.covering,
          ...(m.warnings ? { warnings: m.warnings } : {}), ...(m.mergeGroup ? { mergeGroup: m.mergeGroup } : {}),
          sites: m.sites.map(({ file, line, sql }) => ({ file, line, sql })), weight: m.weight,
          writes: m.writes.map(({ file, line }) => ({ file, line })), makesRedundant: m.makesRedundant.map((r) => r.index),
        })),
        ...redundant.map((r) => ({ kind: 'redundant', table: r.table, index: r.index, columns: r.columns, coveredBy: r.coveredBy, ddl: r.ddl, reason: r.reason })),
      ]));
    } else {
      const cols: Column<PlannedIndex>[] = [
        { header: 'table', value: (m) => m.table },
        { header: 'columns', value: (m) => m.columns.join(', ') },
        { header: 'statements', value: (m) => m.sites.length, right: true },
        { header: 'sites', value: (m) => where(m.sites) },
        { header: 'writes', value: (m) => m.writes.length, right: true },
        { header: 'ddl', value: (m) => `${m.ddl};` },
      ];
      io.stdout.write(merged.length ? renderRows(merged, cols, format) : 'No index suggestions.\n');
      const item = format === 'md' ? '- ' : '  ';
      for (const m of merged) {
        const notes = [
          ...(m.replaces ? [`replaces ${m.replaces}`] : []),
          ...(m.makesRedundant.length ? [`makes ${m.makesRedundant.map((r) => `${r.index} (${r.columns.join(', ')})`).join(', ')} redundant: ${m.makesRedundant.map((r) => `${r.ddl};`).join(' ')}`] : []),
          ...(m.writes.length ? [`slows ${m.writes.length} write site(s) on ${m.table}: ${where(m.writes)}`] : []),
          ...(m.warnings ?? []), ...(m.mergeGroup ? ['one of an index-merge pair for an OR'] : []),
        ];
        if (notes.length) io.stdout.write(`${item}${m.name}: ${oneLine(notes.join('; '))}\n`);
      }
      if (redundant.length) {
        io.stdout.write(format === 'md' ? '\n**Redundant indexes** (each costs every write):\n\n' : '\nRedundant indexes (each costs every write):\n');
        io.stdout.write(renderRows(redundant, [
          { header: 'table', value: (r) => r.table },
          { header: 'index', value: (r) => `${r.index} (${r.columns.join(', ')})` },
          { header: 'covered by', value: (r) => `${r.coveredBy} (${r.coveredByColumns.join(', ')})` },
          { header: 'ddl', value: (r) => `${r.ddl};` },
        ], format));
      }
    }
    io.stderr.write(`${statementsCount} statements analysed in ${scan.files} files${unparsed ? `, ${unparsed} not parsed` : ''}; `
      + `${elsewhere ? `${elsewhere} read tables the database lacks (${[...lacking].sort().join(', ')}): no index suggested on those; ` : ''}`
      + `${merged.length} index suggestions, ${redundant.length} redundant indexes; ${schemaNote}; ${weights.note}\n`);
    return 0;
  },
};
