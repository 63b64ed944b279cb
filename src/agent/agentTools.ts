/**
 * The agent tools' handlers: thin wrappers over the engine the CLI uses (the scanner, N+1 detection,
 * ExplainService and the explain command's rows, the workload advisor, the log readers, the
 * performance_schema window), answering in short Markdown with file:line links and a bounded number of
 * rows. The front end (the MCP server, the editor) supplies an `AgentHost`: the workspace, its scan
 * and the connection, configured as that front end configures everything else.
 *
 * The database rules hold: only what ExplainService and the server-stats reader send (EXPLAIN, schema
 * and performance_schema reads, bounded sampling reads) over the guarded read-only session; DDL is
 * returned as text, never applied; nothing is ever measured (ANALYZE runs a statement: not a tool).
 */
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Route, Schema, Severity, SqlSite } from '../core/model';
import { formatCount } from '../core/format/numbers';
import { nPlusOnePathText, nPlusOneReport, type NPlusOneRecord } from '../core/analysis/nPlusOneReport';
import { adviseWorkload, type WorkloadStatement } from '../core/analysis/workloadAdvice';
import { columnsToSample } from '../core/analysis/columnStats';
import { prepareStatement } from '../core/plan/statementPrep';
import { parseSchemaText } from '../core/analysis/ddlParse';
import type { AccessLogFormat } from '../core/logs/accessParsers';
import { sniffLog, wrongKindMessage } from '../core/logs/logKind';
import type { LogSource } from '../core/logs/logSource';
import { indexSites, sitesFor } from '../core/logs/slowMapping';
import { sortStats, type SortKey } from '../core/logs/slowStats';
import { serverStatsBetween, statementRecords } from '../core/serverStats/serverStatsRun';
import { resolveHandlers } from '../core/source/routes/resolveHandlers';
import type { ExplainService } from '../db/explainService';
import { explainRows, siteLine, type ExplainRow } from '../db/explainRows';
import { checkServerStats, readServerSnapshot } from '../db/serverStatsReader';
import { readColumnStats } from '../db/columnStats';
import { accessAnalyzer, analyzeAccessSources, analyzeSlowSources, type SourceRead } from '../node/logSources';
import { localLogHead } from '../node/pipedLog';
import { codeChangesBetween } from '../node/runs/git';
import { DEFAULT_STORE, readRunsConfig, RecordStore } from '../node/runs/recordStore';
import { diffRecords } from '../core/runs/recordDiff';
import { diffText } from '../core/runs/recordOutput';
import type { ProjectScan } from '../node/scanDir';
import { mdBlock, mdCode, mdTable, mdText, moreLine } from './markdown';
import { checkArgs, ToolError, type ToolArgs } from './toolArgs';
import { DEFAULT_LIMIT, toolDef } from './toolTable';

/** What a front end gives the tools. */
export interface AgentHost {
  /** The workspace root: relative paths are read against it, and reported relative to it. */
  readonly root: string;
  /** The facts of every source file under `dir` (cached by content between calls), routes included. */
  scan(dir: string): Promise<ProjectScan>;
  /** The explain service over the configured connection; undefined when none is configured. */
  explainService(): Promise<ExplainService | undefined>;
  /** How to configure a connection (said when a tool needs one and there is none). */
  readonly connectHint: string;
  /** The .sql files with CREATE TABLE of the workspace (advice without a database). */
  schemaTexts(): Promise<{ file: string; text: string }[]>;
  /** A Markdown link to `file` (relative to the scanned root `base`) at a 1-based line. */
  link(base: string, file: string, line: number): string;
}

export interface ToolResult {
  /** The answer, Markdown. */
  text: string;
  isError?: boolean;
}

/** Runs one tool call: checks the arguments, then the handler; a wrong call or a failure is a tool error with a message. */
export async function runTool(host: AgentHost, name: string, args: unknown, signal?: AbortSignal): Promise<ToolResult> {
  const def = toolDef(name);
  const handler = Object.hasOwn(HANDLERS, name) ? HANDLERS[name] : undefined;
  if (!def || !handler) return { text: `unknown tool \`${mdText(name)}\``, isError: true };
  try {
    return { text: await handler(host, checkArgs(name, def.inputSchema, args), signal) };
  } catch (err) {
    if (err instanceof ToolError) return { text: err.message, isError: true };
    return { text: `${name} failed: ${(err as Error).message ?? String(err)}`, isError: true };
  }
}

/** True when this call would reach the database (the editor asks before such a call). */
export function callReachesDatabase(name: string, args: Record<string, unknown>): boolean {
  if (name === 'slow_queries') return args.seconds !== undefined;
  return toolDef(name)?.database ?? false;
}

type Handler = (host: AgentHost, args: ToolArgs, signal?: AbortSignal) => Promise<string>;

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2, hint: 3 };

interface Target {
  /** The folder scanned (the workspace root, unless the path is outside it). */
  base: string;
  /** The path relative to `base`, `/`-separated; '' for all of it. */
  rel: string;
  isFile: boolean;
  line?: number;
  /** As the user wrote it, for headings. */
  label: string;
}

async function target(host: AgentHost, path: string | undefined, line: number | undefined): Promise<Target> {
  const abs = resolve(host.root, path ?? '.');
  const st = await stat(abs).catch(() => undefined);
  if (!st) throw new ToolError(`no such file or folder: ${path} (paths are relative to ${host.root})`);
  if (line !== undefined && !st.isFile()) throw new ToolError('`line` needs `path` to be a file');
  const inside = !relative(host.root, abs).startsWith('..') && !isAbsolute(relative(host.root, abs));
  const base = inside ? host.root : st.isFile() ? dirname(abs) : abs;
  const rel = relative(base, abs).split(sep).join('/');
  return { base, rel, isFile: st.isFile(), line, label: rel || '.' };
}

function underTarget(t: Target, file: string): boolean {
  if (t.isFile) return file === t.rel;
  return t.rel === '' || file.startsWith(`${t.rel}/`);
}

function onLine(s: SqlSite, line: number): boolean {
  return siteLine(s) === line || (s.range.start.line + 1 <= line && line <= s.range.end.line + 1);
}

async function sitesOf(host: AgentHost, t: Target): Promise<{ scan: ProjectScan; sites: SqlSite[] }> {
  const scan = await host.scan(t.base);
  const sites = scan.facts.filter((f) => underTarget(t, f.file)).flatMap((f) => f.sites).filter((s) => t.line === undefined || onLine(s, t.line));
  return { scan, sites };
}

function limitOf(args: ToolArgs): number {
  return (args.limit as number | undefined) ?? DEFAULT_LIMIT;
}

const where = (host: AgentHost, t: Target, s: SqlSite) => host.link(t.base, s.file, siteLine(s));
const inFn = (fn: string | undefined) => (fn ? ` in ${mdCode(fn)}` : '');

async function statements(host: AgentHost, args: ToolArgs): Promise<string> {
  const t = await target(host, args.path as string | undefined, args.line as number | undefined);
  const { sites } = await sitesOf(host, t);
  const limit = limitOf(args);
  const head = `## SQL statements in ${mdCode(t.label)}${t.line ? ` at line ${t.line}` : ''}: ${sites.length}`;
  if (!sites.length) return `${head}\n\nNo SQL statement found${t.line ? ' on that line' : ''}.`;
  const rows = sites.slice(0, limit).map((s) => {
    const loops = s.loops.map((l) => `${l.kind} loop at line ${l.range.start.line + 1}${l.iterable ? ` over ${mdCode(l.iterable, 40)}` : ''}`).join(', ');
    return `- ${where(host, t, s)}${inFn(s.function)}${loops ? `, inside ${loops}` : ''}${s.dynamic ? ' (partly built at run time)' : ''}: ${mdCode(s.sql, 300)}`;
  });
  return [head, '', ...rows].join('\n') + moreLine(rows.length, sites.length, 'statements');
}

/** The connection, or a tool error saying how to configure one. */
async function service(host: AgentHost, what: string): Promise<ExplainService> {
  const svc = await host.explainService();
  if (!svc) throw new ToolError(`${what} needs a database connection, and none is configured: ${host.connectHint}`);
  try {
    await svc.schema();
  } catch (err) {
    throw new ToolError(`${what}: cannot reach the database: ${(err as Error).message}`);
  }
  return svc;
}

function serverLine(svc: ExplainService): string {
  const s = svc.db.server;
  return s ? `${s.flavor === 'mariadb' ? 'MariaDB' : 'MySQL'} ${s.version}` : 'the database';
}

/** EXPLAINs one site; a connection lost on the way opens again once (as the CLI's explain does). */
async function explainOne(svc: ExplainService, site: SqlSite) {
  const r = await svc.explainSite(site);
  return r.error?.kind === 'connection-lost' ? svc.explainSite(site) : r;
}

interface FindingItem { severity: Severity; line: string; detail: string }

function nPlusOneItem(host: AgentHost, t: Target, r: NPlusOneRecord): FindingItem {
  return {
    severity: r.severity as Severity,
    line: `**${r.severity}** \`n-plus-one\` ${host.link(t.base, r.file, r.line)}, loop ${host.link(t.base, r.loopFile, r.loopLine)}`
      + `${r.path.length ? ` via ${mdText(nPlusOnePathText(r).replace(/^.* via /, ''))}` : ''}`,
    detail: mdText(r.message),
  };
}

function planItem(host: AgentHost, t: Target, r: ExplainRow, fn: string | undefined): FindingItem {
  return {
    severity: r.severity,
    line: `**${r.severity}** \`${r.code}\`${r.table ? ` on ${mdCode(r.table)}` : ''} ${host.link(t.base, r.file, r.line)}${inFn(fn)}: ${mdText(r.message)}`,
    detail: mdCode(r.sql, 200),
  };
}

async function findings(host: AgentHost, args: ToolArgs): Promise<string> {
  const t = await target(host, args.path as string | undefined, args.line as number | undefined);
  const { scan, sites } = await sitesOf(host, t);
  const items: FindingItem[] = [];
  // why: N+1 follows calls across files, so detection runs over the whole scan and keeps what is under the path.
  const records = nPlusOneReport(scan.facts).filter((r) => r.severity !== 'hint'
    && ((underTarget(t, r.file) && (t.line === undefined || r.line === t.line)) || (underTarget(t, r.loopFile) && (t.line === undefined || r.loopLine === t.line))));
  for (const r of records) items.push(nPlusOneItem(host, t, r));
  const nPlusOne = items.length;
  const svc = await host.explainService();
  let dbNote: string;
  if (!svc) dbNote = `Plan findings need a database connection, and none is configured: ${host.connectHint}`;
  else {
    try {
      await svc.schema();
      for (const s of sites) for (const row of explainRows(s, await explainOne(svc, s))) items.push(planItem(host, t, row, s.function));
      dbNote = `Plan findings from EXPLAIN on ${serverLine(svc)} (no statement was run).`;
    } catch (err) {
      dbNote = `Plan findings left out: cannot reach the database: ${mdText((err as Error).message)}`;
    }
  }
  items.sort((a, b) => RANK[a.severity] - RANK[b.severity]);
  const limit = limitOf(args);
  const head = `## Findings in ${mdCode(t.label)}${t.line ? ` at line ${t.line}` : ''}: ${nPlusOne} N+1, ${items.length - nPlusOne} from plans, over ${sites.length} statements`;
  const body = items.slice(0, limit).map((i) => `- ${i.line}\n  ${i.detail}`);
  return [head, '', ...(body.length ? body : ['No findings.']), '', dbNote].join('\n') + moreLine(body.length, items.length, 'findings');
}

function planTable(rows: readonly import('../core/plan/planModel').PlanRow[]): string {
  const n = (v: number | null) => (v === null ? '' : formatCount(v));
  return mdTable(['id', 'select_type', 'table', 'type', 'possible_keys', 'key', 'ref', 'rows', 'filtered', 'Extra'], rows.map((r) => [
    r.id === null ? '' : String(r.id), mdText(r.selectType), mdText(r.table ?? ''), mdText(r.type ?? ''), mdText(r.possibleKeys.join(', ')),
    mdText(r.key ?? ''), mdText(r.ref ?? ''), n(r.rows), r.filtered === null ? '' : `${r.filtered}`, mdText(r.extra.join('; ')),
  ]), [7, 8]);
}

async function explain(host: AgentHost, args: ToolArgs): Promise<string> {
  const sql = args.sql as string | undefined;
  if (sql !== undefined && (args.path !== undefined || args.line !== undefined)) throw new ToolError('explain: give either `sql`, or `path` and `line`, not both');
  let site: SqlSite;
  let heading: string;
  if (sql !== undefined) {
    if (!sql.trim()) throw new ToolError('explain: `sql` is empty');
    site = { file: '', language: 'go', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, literalRanges: [], sql, placeholders: [], dynamic: false, loops: [] };
    heading = '## EXPLAIN of the given statement';
  } else {
    if (args.path === undefined || args.line === undefined) throw new ToolError('explain: give `path` and `line` of the statement (or `sql`)');
    const t = await target(host, args.path as string, args.line as number);
    const { sites } = await sitesOf(host, t);
    if (!sites.length) {
      const all = (await sitesOf(host, { ...t, line: undefined })).sites;
      throw new ToolError(`explain: no SQL statement at ${t.label}:${t.line}${all.length ? `; the statements of that file start on lines ${all.map(siteLine).join(', ')}` : '; that file has none'}`);
    }
    site = sites[0];
    heading = `## EXPLAIN of ${where(host, t, site)}${inFn(site.function)}`;
  }
  const svc = await service(host, 'explain');
  const r = await explainOne(svc, site);
  const out = [heading, '', mdBlock(site.sql, 'sql')];
  if (r.substitutions.length) {
    out.push('', `Filled in: ${r.substitutions.map((s) => `${mdCode(s.placeholder)} ← ${mdCode(s.value, 80)}${s.column ? ` (${mdCode(s.column)}, ${s.source})` : ` (${s.source})`}`).join(', ')}`);
  }
  if (r.explainedWithout?.length) out.push('', `Explained without ${r.explainedWithout.map((c) => mdCode(c)).join(', ')} (the plan is the same).`);
  if (r.plan) out.push('', `Plan on ${serverLine(svc)}:`, '', planTable(r.plan.rows));
  if (r.planNote) out.push('', mdText(r.planNote));
  const rows = explainRows(site, r).sort((a, b) => RANK[a.severity] - RANK[b.severity]);
  out.push('', rows.length ? 'Findings:' : (r.plan ? 'No findings: the plan reads what the statement needs.' : ''));
  for (const row of rows) out.push(`- **${row.severity}** \`${row.code}\`${row.table ? ` on ${mdCode(row.table)}` : ''}: ${mdText(row.message)}`);
  const ddl = r.advice?.suggestions ?? [];
  if (ddl.length) {
    out.push('', 'Suggested index (DDL to review and apply yourself; nothing was applied):', '', mdBlock(ddl.map((s) => `${s.ddl};`).join('\n'), 'sql'));
    for (const s of ddl) out.push(`- ${mdCode(s.name)}: ${mdText(s.reason)}`);
  }
  return out.join('\n');
}

async function advise(host: AgentHost, args: ToolArgs): Promise<string> {
  const t = await target(host, args.path as string | undefined, undefined);
  // why: index advice is chosen for the whole workload (one index where one will do, the writes that pay
  // for it), so every statement of the app is advised and the indexes serving the path are kept.
  const scan = await host.scan(t.base);
  const statements: WorkloadStatement[] = [];
  for (const s of scan.facts.flatMap((f) => f.sites)) {
    // why: the same statement text explain advises from (locking clause and INTO list left out; incomplete text skipped).
    const prep = prepareStatement(s.sql);
    if (prep.ok) statements.push({ sql: prep.sql, site: { file: s.file, line: siteLine(s), sql: s.sql, ...(s.function ? { function: s.function } : {}) } });
  }
  const svc = await host.explainService();
  let schema: Schema | undefined;
  let note: string;
  if (svc) {
    try { schema = await svc.schema(); } catch (err) { throw new ToolError(`advise: cannot reach the database: ${(err as Error).message}`); }
    // why: as `advise` does: rows per value of the columns the first pass would index, from the guarded bounded sample.
    const first = adviseWorkload(statements, { schema, fromDatabase: true });
    await readColumnStats(svc.db, schema, columnsToSample([...first.perStatement.values()].flatMap((a) => a.suggestions), schema.tables));
    note = `Existing indexes from the database (${serverLine(svc)}).`;
  } else {
    const files = await host.schemaTexts();
    schema = files.length ? parseSchemaText(files.map((f) => f.text)) : undefined;
    note = schema
      ? `Existing indexes from ${files.slice(0, 5).map((f) => mdCode(f.file)).join(', ')}${files.length > 5 ? ` and ${files.length - 5} more schema files` : ''} (no database connected, so row counts are unknown).`
      : 'No database connected and no schema file found: existing indexes were not checked.';
  }
  const w = adviseWorkload(statements, { schema, fromDatabase: svc !== undefined });
  const indexes = w.indexes.filter((m) => m.sites.some((s) => underTarget(t, s.file)));
  const lacking = new Set<string>();
  for (const st of statements) for (const m of w.perStatement.get(st.sql)?.served.filter((x) => x.missing) ?? []) lacking.add(m.table);
  const limit = limitOf(args);
  const links = (list: readonly { file: string; line: number }[]) => list.slice(0, 5).map((s) => host.link(t.base, s.file, s.line)).join(', ') + (list.length > 5 ? ` and ${list.length - 5} more` : '');
  const out = [`## Index advice for ${mdCode(t.label)}: ${indexes.length} indexes (${w.statements} statements of the app advised together)`, ''];
  if (!indexes.length) out.push('No index suggestions.');
  for (const m of indexes.slice(0, limit)) {
    out.push(`- ${mdCode(`${m.ddl};`)}`, `  for ${links(m.sites)}: ${mdText(m.reason)}${m.warnings?.length ? ` ${mdText(m.warnings.join(' '))}` : ''}`
      + `${m.writes.length ? ` Slows ${m.writes.length} write site(s): ${links(m.writes)}.` : ''}${m.makesRedundant.length ? ` Makes ${m.makesRedundant.map((r) => mdCode(r.index)).join(', ')} redundant.` : ''}`);
  }
  let text = out.join('\n') + moreLine(Math.min(limit, indexes.length), indexes.length, 'indexes');
  if (w.redundant.length) {
    text += `\n\nRedundant indexes (each costs every write):\n${w.redundant.slice(0, limit).map((r) => `- ${mdCode(`${r.ddl};`)}: ${mdText(r.reason)}`).join('\n')}`;
  }
  if (lacking.size) text += `\n\nSome statements read tables the database lacks (${[...lacking].sort().map((x) => mdCode(x)).join(', ')}): no index suggested on those.`;
  return `${text}\n\n${note} The DDL is returned as text: review it and apply it yourself.`;
}

async function logSources(host: AgentHost, logs: readonly string[], kind: 'access' | 'slow'): Promise<{ sources: LogSource[]; format?: AccessLogFormat }> {
  const sources: LogSource[] = [];
  let format: AccessLogFormat | undefined;
  for (const l of logs) {
    const path = resolve(host.root, l);
    const st = await stat(path).catch(() => undefined);
    if (!st?.isFile()) throw new ToolError(`no such log file: ${l} (paths are relative to ${host.root})`);
    const sniff = sniffLog(await localLogHead(path));
    // why: the tools take no log_format: an access log must be one the sniffer recognises (LTSV, JSON, combined).
    const wrong = kind === 'access' && (sniff.kind === 'unknown' || sniff.kind === 'run')
      ? 'not an nginx access log the tool can read (LTSV, JSON, or combined with the request time)' : wrongKindMessage(sniff, kind);
    if (wrong) throw new ToolError(`${l}: ${wrong.replace(/use `query-insight (endpoints|slow)`/, (_, c: string) => `use the ${c === 'slow' ? 'slow_queries' : 'endpoints'} tool`)}`);
    format ??= sniff.format;
    sources.push({ kind: 'local', path });
  }
  return { sources, format };
}

function readNotes(reads: readonly SourceRead[]): string {
  return reads.filter((r) => r.error).map((r) => `\n${mdText(r.name)}: ${mdText(r.error!)}`).join('');
}

function handlerLink(host: AgentHost, route: Route | undefined): string {
  if (!route) return '';
  const file = route.handler?.file ?? route.file;
  const range = route.handler?.range ?? route.range;
  return `${route.handler?.name ? `${mdCode(route.handler.name)} ` : ''}${host.link(host.root, file, range.start.line + 1)}`;
}

async function endpoints(host: AgentHost, args: ToolArgs): Promise<string> {
  const { sources, format } = await logSources(host, args.logs as string[], 'access');
  const scan = await host.scan(host.root);
  const routes = resolveHandlers(scan.facts);
  const report = await analyzeAccessSources(sources, accessAnalyzer({ format: format ?? 'combined', routes }));
  const key = (args.sort as 'sum' | 'count' | 'avg' | 'p99' | 'max' | undefined) ?? 'sum';
  const ranked = [...report.endpoints].sort((a, b) => b[key] - a[key] || a.uri.localeCompare(b.uri) || a.method.localeCompare(b.method));
  const shown = ranked.slice(0, limitOf(args));
  const s = (v: number) => v.toFixed(3);
  const table = mdTable(['method', 'endpoint', 'count', 'sum (s)', 'avg (s)', 'p99 (s)', 'max (s)', '4xx', '5xx', 'handler'], shown.map((e) => [
    mdText(e.method), mdCode(e.uri, 120), formatCount(e.count), s(e.sum), s(e.avg), s(e.p99), s(e.max), formatCount(e.s4xx), formatCount(e.s5xx), handlerLink(host, e.route),
  ]), [2, 3, 4, 5, 6, 7, 8]);
  const head = `## Endpoints by ${key}: ${report.endpoints.length} endpoints, ${formatCount(report.requests)} requests from ${formatCount(report.lines)} lines`
    + `${report.malformed ? ` (${formatCount(report.malformed)} malformed)` : ''}; ${routes.length} routes of the app`;
  return `${head}\n\n${shown.length ? table : 'No requests.'}${moreLine(shown.length, ranked.length, 'endpoints')}${readNotes(report.sources)}`;
}

async function slowQueries(host: AgentHost, args: ToolArgs, signal?: AbortSignal): Promise<string> {
  const logs = args.logs as string[] | undefined;
  const seconds = args.seconds as number | undefined;
  if ((logs === undefined) === (seconds === undefined)) throw new ToolError('slow_queries: give either `logs` (slow-log files) or `seconds` (a performance_schema window)');
  const limit = limitOf(args);
  const sites = (await host.scan(host.root)).facts.flatMap((f) => f.sites);
  const at = (list: readonly { file: string; line: number }[]) => list.slice(0, 3).map((x) => host.link(host.root, x.file, x.line)).join(', ') + (list.length > 3 ? ` +${list.length - 3}` : '') || '(not in the source)';
  const ms = (v: number) => (v * 1000).toFixed(2);
  if (logs) {
    const { sources } = await logSources(host, logs, 'slow');
    const { stats, summary, sources: reads } = await analyzeSlowSources(sources, {}, {});
    const ranked = sortStats(stats, (args.sort as SortKey | undefined) ?? 'sum');
    const index = indexSites(sites);
    const total = stats.reduce((a, x) => a + x.queryTime.total, 0) || 1;
    const shown = ranked.slice(0, limit);
    const table = mdTable(['count', 'sum (s)', 'share', 'avg (ms)', 'p95 (ms)', 'rows examined', 'source', 'statement'], shown.map((x) => {
      const m = sitesFor(index, x.fingerprint);
      return [formatCount(x.count), x.queryTime.total.toFixed(3), `${((x.queryTime.total / total) * 100).toFixed(1)}%`, ms(x.queryTime.mean), ms(x.queryTime.p95),
        x.rowsExamined.mean.toFixed(1), at(m.sites.map((y) => ({ file: y.file, line: siteLine(y) }))), mdCode(x.fingerprint, 160)];
    }), [0, 1, 2, 3, 4, 5]);
    const head = `## Slow log: ${formatCount(summary.entries)} statements, ${stats.length} shapes, by ${(args.sort as string | undefined) ?? 'sum'}`;
    return `${head}\n\n${shown.length ? table : 'No statements.'}${moreLine(shown.length, ranked.length, 'shapes')}${readNotes(reads)}`;
  }
  if (args.sort !== undefined && args.sort !== 'sum') throw new ToolError('slow_queries: a performance_schema window is ranked by sum only');
  const svc = await service(host, 'slow_queries over a window');
  await checkServerStats(svc.db).catch((err: Error) => { throw new ToolError(`slow_queries: ${err.message}`); });
  const before = await readServerSnapshot(svc.db);
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(done, seconds! * 1000);
    signal?.addEventListener('abort', () => { clearTimeout(timer); fail(new ToolError('slow_queries: cancelled')); }, { once: true });
  });
  const after = await readServerSnapshot(svc.db);
  const result = serverStatsBetween(before, after);
  const records = statementRecords(result.shapes, sites);
  const shown = records.slice(0, limit);
  const table = mdTable(['count', 'sum (s)', 'max (ms)', 'rows examined', 'no index', 'source', 'statement'], shown.map((r) => [
    formatCount(r.count), r.totalTime.toFixed(3), ms(r.maxTime), formatCount(r.rowsExamined), formatCount(r.noIndexUsed), at(r.sites), mdCode(r.fingerprint, 160),
  ]), [0, 1, 2, 3, 4]);
  const head = `## performance_schema over ${result.diff.windowSeconds.toFixed(1)} s on ${serverLine(svc)}: ${formatCount(result.shapes.reduce((n, x) => n + x.count, 0))} statements, ${result.shapes.length} shapes`;
  return `${head}\n\n${shown.length ? table : 'No statements in the window.'}${moreLine(shown.length, records.length, 'shapes')}`;
}

async function runsDiff(host: AgentHost, args: ToolArgs): Promise<string> {
  const config = await readRunsConfig(host.root);
  const store = new RecordStore(resolve(host.root, config.store ?? DEFAULT_STORE));
  const find = async (ref: string) => {
    try { return await store.find(ref); } catch (err) { throw new ToolError(`runs_diff: ${(err as Error).message}`); }
  };
  const before = await find((args.before as string | undefined) ?? 'last~1');
  const after = await find((args.after as string | undefined) ?? 'last');
  const scan = await host.scan(host.root);
  const changes = await codeChangesBetween(host.root, before, after, { routes: resolveHandlers(scan.facts), sites: scan.facts.flatMap((f) => f.sites) });
  // why: the Markdown `runs diff --format md` prints, bounded by the same limit per section.
  return diffText(diffRecords(before, after, changes), true, limitOf(args));
}

const HANDLERS: Record<string, Handler> = {
  statements, findings, explain, advise, endpoints, slow_queries: slowQueries, runs_diff: runsDiff,
};
