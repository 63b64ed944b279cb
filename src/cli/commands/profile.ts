/** `query-insight profile SOURCE…`: CPU time per endpoint, from CPU profiles folded onto the app's handlers. */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Command, CommandIo } from '../command';
import { mdCell, renderJsonLines, renderRows, UsageError, type Column } from '../output';
import { LogSourceError } from '../../core/logs/logSource';
import type { Route } from '../../core/model';
import { CpuAttribution, type EndpointCpu, type ProfileReport } from '../../core/profile/cpuAttribution';
import { keepProfile } from '../../core/profile/keptProfile';
import { requestsByRoutes } from '../../core/profile/requestCounts';
import { describeProfileSource, parseProfileSource, readProfileSource, type ProfileRead, type ProfileSource } from '../../node/profileSource';
import { loadRoutes } from './endpoints';

const HELP = `usage: query-insight profile SOURCE... [options]

Reads CPU profiles and prints the CPU time of each endpoint: every sample belongs to the innermost
frame that is one of the app's route handlers (found with --routes); the others go to runtime/GC,
database driver and other. Several sources are added together.

SOURCE is one of
  a file: a Go pprof profile (.pb.gz), folded stacks (frame;frame;frame COUNT per line, as
    stackcollapse-perf.pl, py-spy record --format raw and rbspy write them; .gz too), or a V8
    .cpuprofile (node --cpu-prof)
  an HTTP URL: http://127.0.0.1:6060/debug/pprof/profile?seconds=30 (Go's net/http/pprof)
  a file on a box: ssh://[USER@]HOST[:PORT]/ABSOLUTE/PATH or [USER@]HOST:/ABSOLUTE/PATH
  a URL fetched on a box, through the SSH session:
    ssh://[USER@]HOST[:PORT]/http://127.0.0.1:6060/debug/pprof/profile?seconds=30

options:
  --routes DIR|FILE     the app's source (or a JSON file of routes): its handlers take the samples
  --access-log LOG      an nginx access log of the same run: adds CPU per request (repeatable)
  --hz N                sampling frequency of folded stacks, to turn counts into seconds (default
                        100: py-spy and rbspy; perf record -F N: give N)
  --top N               functions listed per endpoint (default 5)
  --format text|md|json text (default), Markdown, or JSON Lines: one object per endpoint
                        (endpoint, handler file:line, cpuSeconds, share of handler CPU, …), then
                        one per bucket outside the handlers
  --record REF          keep the profile with a recorded run (query-insight runs): its id, a prefix
                        of its id or commit, or last; the editor shows it with that run
  --store DIR           the run records' directory (default .query-insight/runs, or "store" in
                        .query-insight/config.json)
  --ssh-key FILE        private key for the boxes (default: the agent and ~/.ssh/id_*)
  --accept-new-host-key trust a box whose host key ~/.ssh/known_hosts does not list yet
  --quiet               no summary on stderr

exit status: 0 done; 1 a source could not be read (the report covers the others); 2 usage error.`;

function pct(x: number): string { return `${(x * 100).toFixed(1)} %`; }

function topCell(e: EndpointCpu, n: number): string {
  return e.top.filter((f) => f.selfSeconds > 0).slice(0, n).map((f) => `${f.name} ${pct(e.cpuSeconds ? f.selfSeconds / e.cpuSeconds : 0)}`).join(', ');
}

function columns(top: number): Column<EndpointCpu>[] {
  return [
    { header: 'ENDPOINT', value: (e) => [e.endpoint, ...e.routes.slice(1).map((r) => `${r.method} ${r.pattern}`)].join(', ') },
    { header: 'HANDLER', value: (e) => `${e.handler.file}:${e.handler.line}` },
    { header: 'CPU S', value: (e) => e.cpuSeconds.toFixed(2), right: true },
    { header: 'SHARE', value: (e) => pct(e.share), right: true },
    { header: 'DRIVER', value: (e) => pct(e.cpuSeconds ? e.driverSeconds / e.cpuSeconds : 0), right: true },
    { header: 'MS/REQ', value: (e) => (e.msPerRequest === undefined ? '' : e.msPerRequest.toFixed(2)), right: true },
    { header: 'TOP FUNCTIONS (SELF)', value: (e) => topCell(e, top) },
  ];
}

function jsonRows(report: ProfileReport): unknown[] {
  const rows: unknown[] = report.endpoints.map((e) => ({
    endpoint: e.endpoint,
    handler: `${e.handler.file}:${e.handler.line}`,
    cpuSeconds: e.cpuSeconds,
    share: e.share,
    function: e.handler.name,
    routes: e.routes.map((r) => `${r.method} ${r.pattern}`),
    shareOfTotal: e.shareOfTotal,
    driverSeconds: e.driverSeconds,
    appSeconds: e.appSeconds,
    ...(e.requests !== undefined ? { requests: e.requests, msPerRequest: e.msPerRequest } : {}),
    top: e.top,
  }));
  for (const b of report.buckets) rows.push({ bucket: b.label, cpuSeconds: b.cpuSeconds, share: b.share, top: b.top });
  return rows;
}

function bucketLine(report: ProfileReport, md: boolean): string {
  const parts = report.buckets.map((b) => `${b.label} ${b.cpuSeconds.toFixed(2)} s (${pct(b.share)})`);
  const text = `outside handlers: ${parts.join(', ')}; handlers ${report.handlerSeconds.toFixed(2)} s of ${report.totalSeconds.toFixed(2)} s CPU`;
  return md ? `\n${mdCell(text)}\n` : `${text}\n`;
}

async function run(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true, strict: true,
    options: {
      routes: { type: 'string' }, 'access-log': { type: 'string', multiple: true }, hz: { type: 'string' }, top: { type: 'string' },
      format: { type: 'string' }, record: { type: 'string' }, store: { type: 'string' }, 'ssh-key': { type: 'string' }, 'accept-new-host-key': { type: 'boolean' }, quiet: { type: 'boolean' },
    },
  });
  if (positionals.length === 0) throw new UsageError('give at least one profile: a file, a URL or ssh://HOST/PATH');
  const format = values.format ?? 'text';
  if (!['text', 'md', 'json'].includes(format)) throw new UsageError(`--format must be text, md or json (got "${values.format}")`);
  const positive = (name: string, v: string | undefined, fallback: number): number => {
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!(n > 0) || !Number.isFinite(n)) throw new UsageError(`--${name} takes a positive number (got "${v}")`);
    return n;
  };
  const hz = positive('hz', values.hz, 100);
  const top = Math.round(positive('top', values.top, 5));
  const sources: ProfileSource[] = positionals.map((p) => {
    try {
      const s = parseProfileSource(p);
      return s.kind === 'local' ? { kind: 'local', path: resolve(io.cwd, s.path) } : s;
    } catch (err) {
      if (err instanceof LogSourceError) throw new UsageError(err.message);
      throw err;
    }
  });
  const routes: Route[] = values.routes ? await loadRoutes(resolve(io.cwd, values.routes)) : [];
  // why: call paths are kept only for a record, whose flame graphs the editor draws; the printed figures need none.
  const cpu = new CpuAttribution(routes, { paths: values.record !== undefined });
  const keyPath = values['ssh-key'] === undefined ? undefined : resolve(io.cwd, values['ssh-key']);
  const login = async (box: { host: string; user?: string; port?: number }) =>
    (await import('../sshArgs')).cliBoxLogin(box, keyPath, values['accept-new-host-key'] === true, io);
  const reads: ProfileRead[] = [];
  let failed = false;
  for (const s of sources) {
    try {
      reads.push(await readProfileSource(s, cpu, { hz, login }));
    } catch (err) {
      failed = true;
      io.stderr.write(`query-insight profile: ${describeProfileSource(s)}: ${(err as Error).message.replace(`${describeProfileSource(s)}: `, '')}\n`);
    }
  }
  let requests: ((r: readonly { method: string; pattern: string }[]) => number | undefined) | undefined;
  if (values['access-log']?.length) {
    const { countRequests } = await import('../../node/profileRequests');
    const counted = await countRequests(values['access-log'].map((p) => resolve(io.cwd, p)), routes);
    requests = (r) => requestsByRoutes(counted, r);
  }
  const report = cpu.report({ top: Math.max(top, 10), flame: values.record !== undefined, ...(requests ? { requests } : {}) });
  if (values.record !== undefined && reads.length) {
    const { DEFAULT_STORE, readRunsConfig, RecordStore } = await import('../../node/runs/recordStore');
    const config = await readRunsConfig(io.cwd);
    const store = new RecordStore(resolve(io.cwd, values.store ?? config.store ?? DEFAULT_STORE));
    const record = await store.find(values.record);
    await store.save({ ...record, profile: keepProfile(report, reads.map((r) => r.source).join(', ')) });
    if (!values.quiet) io.stderr.write(`# kept with run ${record.id}\n`);
  }
  if (format === 'json') io.stdout.write(renderJsonLines(jsonRows(report)));
  else {
    io.stdout.write(renderRows(report.endpoints, columns(top), format === 'md' ? 'md' : 'table'));
    io.stdout.write(bucketLine(report, format === 'md'));
  }
  if (!values.quiet) {
    for (const r of reads) {
      const parts = [`${r.format}${r.gzip ? ' (gzip)' : ''}`, `${r.samples} samples`];
      if (r.lines !== undefined) parts.push(`${r.lines} lines`, `${r.malformed} malformed`);
      io.stderr.write(`# ${r.source}: ${parts.join(', ')}\n`);
      const reasons = Object.entries(r.malformedByReason ?? {});
      if (reasons.length) io.stderr.write(`#   malformed by reason: ${reasons.map(([k, n]) => `${k}: ${n}`).join(', ')}\n`);
      for (const m of r.malformedExamples ?? []) io.stderr.write(`#   line ${m.line}: ${m.reason}\n`);
    }
    if (!values.routes) io.stderr.write('# no --routes: every sample is in a bucket; give the app\'s source directory to split the CPU by endpoint\n');
    else if (!routes.length) io.stderr.write('# --routes gave no routes\n');
    if (report.idleSeconds > 0) io.stderr.write(`# ${report.idleSeconds.toFixed(2)} s idle left out\n`);
  }
  return failed ? 1 : 0;
}

export const profileCommand: Command = { name: 'profile', summary: 'CPU time per endpoint from CPU profiles (pprof, folded stacks, .cpuprofile)', help: HELP, run };
