/** `query-insight runs record|list|show|diff|trend`: every benchmark round kept as a record, and any two compared. */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command';
import { UsageError } from '../output';
import type { AccessLogFormat } from '../../core/logs/accessParsers';
import { ACCESS_LOG_FORMATS } from '../../core/logs/accessParsers';
import type { LogSource } from '../../core/logs/logSource';
import type { Route, SqlSite } from '../../core/model';
import { parseBenchOutput } from '../../core/runs/benchScore';
import { recordInfo, shortCommit } from '../../core/runs/record';
import { diffRecords } from '../../core/runs/recordDiff';
import { diffJson, diffText, infoJson, listText, showText, trendText } from '../../core/runs/recordOutput';
import { trendOf } from '../../core/runs/trend';
import { codeChangesBetween } from '../../node/runs/git';
import { recordRound } from '../../node/runs/recordRun';
import { DEFAULT_STORE, readRunsConfig, RecordStore, type RunsConfig } from '../../node/runs/recordStore';
import { checkLocalSources, LOG_SOURCE_OPTIONS, parseLogArgs, remoteReaderFor } from '../logArgs';

const HELP = `usage: query-insight runs <record|list|show|diff|trend> [options]

Keeps every benchmark round as a record (one JSON file per round in .query-insight/runs/, or
--store DIR, or "store" in .query-insight/config.json) and compares any two.

  runs record [--score N | --bench-output FILE] [--failed REASON] [--memo TEXT]
              [--access LOG]... [--slow LOG]... [--since TIME] [--until TIME]
      Reads each log from where the previous round stopped (a rotated or truncated log is noticed
      and read from its start), finds the window (the last POST /initialize of the access log; the
      slow log is cut to the same span; --since/--until set it by hand), and keeps the figures per
      endpoint and statement, the score, the git commit (dirty flag, files changed since the
      previous round), the memo and the round's health. Logs not given come from "access" and
      "slow" in .query-insight/config.json (the editor writes it too). LOG as in \`endpoints\`:
      a path or HOST:/PATH, ssh://[USER@]HOST[:PORT]/PATH. --bench-output reads the score from the
      benchmarker's output: a JSON "score" field or a "score: N" / "SCORE: N" line (a JSON
      "pass": false marks the round failed). A failed round is kept with its reason.
  runs list                 every round: id, score, commit, requests, statements, health, memo
  runs show ID              one round (ID: its id, a prefix of it or of its commit, last, last~1 …, or -1, -2 … back from the newest)
  runs diff [A] [B]         B against A (default: the last two): the score first, then endpoints by time per
                            request (noise band from the samples), statements by total time and calls per
                            request, new/gone rows, errors (5xx, 499) before latency; the handlers and
                            statements the code changes between the two commits touched, beside their figures
  runs trend [--top N] [--by endpoint|statement]
                            the score and the mean time per request of the top rows, one column per round (commit)

options:
  --format text|json|md     output (md: made to paste into a pull request; json: one object)
  --store DIR               the record directory (default ${DEFAULT_STORE})
  --routes DIR|none         where the app's routes and statements are found (default: "routes" in the
                            config, else the current directory); none skips the scan
  --log-format FORMAT       access-log layout (default: guessed)
  --limit N                 rows per section of \`diff\` (default 30)
  --ssh-key FILE, --accept-new-host-key   for logs on other boxes, as in \`endpoints\`

exit status: 0 done; 1 a log could not be read (the round is recorded with a health warning) or no such run; 2 usage error.`;

type OutFormat = 'text' | 'json' | 'md';

function outFormat(v: string | undefined): OutFormat {
  const f = (v ?? 'text') as OutFormat;
  if (!['text', 'json', 'md'].includes(f)) throw new UsageError(`--format must be text, json or md (got "${v}")`);
  return f;
}

function timeArg(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const t = Date.parse(v);
  if (!Number.isFinite(t)) throw new UsageError(`--${name} must be a date and time (ISO 8601, e.g. 2024-05-01T12:00:00+09:00; got "${v}")`);
  return t;
}

function storeOf(values: { store?: string }, config: RunsConfig, cwd: string): RecordStore {
  return new RecordStore(resolve(cwd, values.store ?? config.store ?? DEFAULT_STORE));
}

/** The app's routes and statements, from a scan of `dir` (nothing when it holds no source). */
async function scanApp(dir: string | undefined): Promise<{ routes: Route[]; sites: SqlSite[] }> {
  if (!dir) return { routes: [], sites: [] };
  // why: loaded only when a scan is wanted (tree-sitter grammars are heavy).
  const { discoverRoutesInDir } = await import('../../node/routesDir');
  try {
    const found = await discoverRoutesInDir(dir);
    return { routes: found.routes, sites: found.sites };
  } catch {
    return { routes: [], sites: [] };
  }
}

const COMMON = {
  format: { type: 'string' }, store: { type: 'string' }, routes: { type: 'string' }, 'log-format': { type: 'string' }, limit: { type: 'string' },
  'ssh-key': LOG_SOURCE_OPTIONS['ssh-key'], 'accept-new-host-key': LOG_SOURCE_OPTIONS['accept-new-host-key'],
} as const;

async function record(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true, strict: true,
    options: {
      ...COMMON, score: { type: 'string' }, 'bench-output': { type: 'string' }, failed: { type: 'string' }, memo: { type: 'string' },
      access: { type: 'string', multiple: true }, slow: { type: 'string', multiple: true }, since: { type: 'string' }, until: { type: 'string' },
    },
  });
  if (positionals.length) throw new UsageError(`runs record takes no positional arguments (got "${positionals[0]}"): give logs with --access and --slow`);
  const format = outFormat(values.format);
  const config = await readRunsConfig(io.cwd);
  if (values.score !== undefined && values['bench-output'] !== undefined) throw new UsageError('give --score or --bench-output, not both');
  let score: number | null = null;
  let failed = values.failed;
  if (values.score !== undefined) {
    if (!/^-?\d+(\.\d+)?$/.test(values.score.trim())) throw new UsageError(`--score must be a number (got "${values.score}")`);
    score = Number(values.score);
  }
  if (values['bench-output'] !== undefined) {
    let text: string;
    try { text = await readFile(resolve(io.cwd, values['bench-output']), 'utf8'); } catch (err) { throw new UsageError(`--bench-output: ${(err as Error).message}`); }
    const outcome = parseBenchOutput(text);
    if (outcome.score === null && !outcome.failed) io.stderr.write(`query-insight runs: no score found in ${values['bench-output']} (a JSON "score" field or a "score: N" line); recorded without one\n`);
    score = outcome.score;
    failed ??= outcome.failed;
  }
  const logFormat = (values['log-format'] ?? config.logFormat) as AccessLogFormat | undefined;
  if (logFormat !== undefined && !ACCESS_LOG_FORMATS.includes(logFormat)) throw new UsageError(`--log-format must be one of ${ACCESS_LOG_FORMATS.join(', ')} (got "${logFormat}")`);
  const split = (xs: readonly string[] | undefined) => (xs ?? []).flatMap((x) => x.split(',')).map((x) => x.trim()).filter(Boolean);
  const accessArgs = values.access?.length ? split(values.access) : split(config.access);
  const slowArgs = values.slow?.length ? split(values.slow) : split(config.slow);
  if (!accessArgs.length && !slowArgs.length) {
    throw new UsageError('no logs to read: give --access LOG and/or --slow LOG, or write "access" and "slow" in .query-insight/config.json');
  }
  const access = parseLogArgs(accessArgs, io.cwd);
  const slow = parseLogArgs(slowArgs, io.cwd);
  if ([...access, ...slow].some((s) => s.kind === 'local' && s.path === '-')) throw new UsageError('a run reads its logs from their offsets: standard input (-) cannot be one');
  await checkLocalSources([...access, ...slow]);
  const since = timeArg('since', values.since);
  const until = timeArg('until', values.until);
  const routesArg = values.routes ?? config.routes;
  const app = routesArg === 'none' ? { routes: [], sites: [] } : await scanApp(resolve(io.cwd, routesArg ?? '.'));
  const all: LogSource[] = [...access, ...slow];
  const remote = remoteReaderFor(all, values, io);
  let result;
  try {
    result = await recordRound({
      root: io.cwd, store: storeOf(values, config, io.cwd), access, slow, score, ...(failed ? { failed } : {}), ...(values.memo ? { memo: values.memo } : {}),
      ...(since !== undefined ? { since } : {}), ...(until !== undefined ? { until } : {}), ...(logFormat ? { logFormat } : {}),
      ...(app.routes.length ? { routes: app.routes } : {}), ...(remote ? { remote } : {}), ...(config.benchSeconds ? { benchSeconds: config.benchSeconds } : {}),
    });
  } finally {
    await remote?.close();
  }
  const r = result.record;
  if (format === 'json') io.stdout.write(JSON.stringify({ ...infoJson(recordInfo(r)), file: result.file, sources: r.sources }) + '\n');
  else io.stdout.write(showText(r, format === 'md', 5));
  io.stderr.write(`# recorded ${r.id} (score ${r.score ?? '-'}${r.failed ? `, failed: ${r.failed}` : ''}, commit ${shortCommit(r.git)}) in ${result.file}\n`);
  for (const h of r.health) io.stderr.write(`# warning: ${h.message}\n`);
  return r.sources.some((s) => s.error) ? 1 : 0;
}

async function list(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: COMMON });
  if (positionals.length) throw new UsageError('runs list takes no arguments');
  const format = outFormat(values.format);
  const store = storeOf(values, await readRunsConfig(io.cwd), io.cwd);
  const { records, problems } = await store.all();
  const infos = records.map(recordInfo);
  if (format === 'json') io.stdout.write(JSON.stringify({ runs: infos.map(infoJson) }) + '\n');
  else io.stdout.write(listText(infos, format === 'md'));
  for (const p of problems) io.stderr.write(`# skipped ${p.file}: ${p.message}\n`);
  return 0;
}

async function show(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: COMMON });
  if (positionals.length > 1) throw new UsageError('runs show takes one run');
  const format = outFormat(values.format);
  const store = storeOf(values, await readRunsConfig(io.cwd), io.cwd);
  const r = await store.find(positionals[0] ?? 'last');
  io.stdout.write(format === 'json' ? JSON.stringify(r) + '\n' : showText(r, format === 'md'));
  return 0;
}

async function diff(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: COMMON });
  if (positionals.length > 2) throw new UsageError('runs diff compares two runs: A and B');
  const format = outFormat(values.format);
  const limit = values.limit === undefined ? 30 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a whole number >= 1 (got "${values.limit}")`);
  const config = await readRunsConfig(io.cwd);
  const store = storeOf(values, config, io.cwd);
  const [refA, refB] = positionals.length === 2 ? positionals : positionals.length === 1 ? [positionals[0], 'last'] : ['last~1', 'last'];
  const before = await store.find(refA);
  const after = await store.find(refB);
  const routesArg = values.routes ?? config.routes;
  const app = routesArg === 'none' ? { routes: [], sites: [] } : await scanApp(resolve(io.cwd, routesArg ?? '.'));
  const changes = await codeChangesBetween(io.cwd, before, after, app);
  const d = diffRecords(before, after, changes);
  if (format === 'json') io.stdout.write(JSON.stringify(diffJson(d)) + '\n');
  else io.stdout.write(diffText(d, format === 'md', limit));
  return 0;
}

async function trend(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: { ...COMMON, top: { type: 'string' }, by: { type: 'string' } } });
  if (positionals.length) throw new UsageError('runs trend takes no positional arguments');
  const format = outFormat(values.format);
  const top = values.top === undefined ? 10 : Number(values.top);
  if (!Number.isInteger(top) || top < 0) throw new UsageError(`--top must be a whole number >= 0 (got "${values.top}")`);
  if (values.by !== undefined && values.by !== 'endpoint' && values.by !== 'statement') throw new UsageError(`--by must be endpoint or statement (got "${values.by}")`);
  const store = storeOf(values, await readRunsConfig(io.cwd), io.cwd);
  const { records } = await store.all();
  const t = trendOf(records, top, values.by as 'endpoint' | 'statement' | undefined);
  io.stdout.write(format === 'json' ? JSON.stringify(t) + '\n' : trendText(t, format === 'md'));
  return 0;
}

const SUB: Record<string, (args: string[], io: CommandIo) => Promise<number>> = { record, list, show, diff, trend };

async function run(args: string[], io: CommandIo): Promise<number> {
  const [sub, ...rest] = args;
  if (!sub) throw new UsageError('give a subcommand: record, list, show, diff or trend');
  const f = Object.hasOwn(SUB, sub) ? SUB[sub] : undefined;
  if (!f) throw new UsageError(`unknown subcommand "${sub}": record, list, show, diff or trend`);
  // why: `-1`, `-2` name rounds back from the newest; parseArgs would read them as options.
  const args2 = sub === 'show' || sub === 'diff' ? rest.map((a) => (/^-\d+$/.test(a) ? `last~${Number(a.slice(1)) - 1}` : a)) : rest;
  try {
    return await f(args2, io);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw new UsageError((err as Error).message);
    io.stderr.write(`query-insight runs ${sub}: ${(err as Error).message}\n`);
    return 1;
  }
}

export const runsCommand: Command = { name: 'runs', summary: 'keep every benchmark round (score, commit, window, figures) and compare any two', help: HELP, run };
