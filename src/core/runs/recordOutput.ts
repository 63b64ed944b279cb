/**
 * Rounds as text for people (a terminal), as Markdown made to be pasted into a pull request, and
 * as JSON for scripts and agents. Text from logs (URIs, SQL) is escaped for the Markdown it goes into.
 */
import { formatSeconds } from '../report/compare';
import { mdCell } from '../report/markdown';
import { changedLine, type RecordDiff, type RecordDiffRow } from './recordDiff';
import { shortCommit, type RecordInfo, type RunRecord } from './record';
import type { Trend } from './trend';

const score = (s: number | null, failed?: string): string => (failed !== undefined ? `FAILED${s === null ? '' : ` ${s}`}` : s === null ? '-' : String(s));
const when = (iso: string): string => iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');

/** The JSON of one round in a list: what a script needs to pick it. */
export function infoJson(i: RecordInfo): Record<string, unknown> {
  return {
    id: i.id, createdAt: i.createdAt, score: i.score, ...(i.failed !== undefined ? { failed: i.failed } : {}),
    commit: i.commit ?? null, dirty: i.dirty ?? null, memo: i.memo ?? null, requests: i.requests, statements: i.statements,
    window: i.window, health: i.health.map((h) => h.code),
  };
}

/** `runs list`: one line per round, newest last. */
export function listText(infos: readonly RecordInfo[], md: boolean): string {
  if (!infos.length) return md ? '_No runs recorded yet._\n' : 'no runs recorded yet: `query-insight runs record --score N`\n';
  const rows = infos.map((i) => [i.id, score(i.score, i.failed), i.commit ? i.commit.slice(0, 7) + (i.dirty ? '+' : '') : '-',
    i.requests === null ? '-' : String(i.requests), i.statements === null ? '-' : String(i.statements),
    i.health.length ? i.health.map((h) => h.code).join(',') : 'ok', i.memo ?? '']);
  const head = ['ID', 'SCORE', 'COMMIT', 'REQUESTS', 'STATEMENTS', 'HEALTH', 'MEMO'];
  if (md) return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(mdCell).join(' | ')} |`)].join('\n') + '\n';
  const w = head.map((h, k) => Math.max(h.length, ...rows.map((r) => r[k].length)));
  return [head, ...rows].map((r) => r.map((c, k) => (k === r.length - 1 ? c : c.padEnd(w[k]))).join('  ').trimEnd()).join('\n') + '\n';
}

/** `runs show`: the round's facts and its top rows. */
export function showText(r: RunRecord, md: boolean, top = 10): string {
  const out: string[] = [];
  const h = (t: string) => out.push(md ? `### ${t}` : `# ${t}`);
  h(`Run ${r.id}`);
  const facts = [
    `score: ${score(r.score, r.failed)}${r.failed ? ` (${r.failed})` : ''}`,
    `commit: ${shortCommit(r.git)}${r.git?.subject ? ` ${r.git.subject}` : ''}`,
    `window: ${r.window.from ? when(r.window.from) : '?'} → ${r.window.to ? when(r.window.to) : '?'} (${r.window.origin === 'initialize' ? 'from the last POST /initialize' : r.window.origin === 'since' ? '--since/--until' : 'everything read since the previous run'})`,
    ...(r.memo ? [`memo: ${r.memo}`] : []),
    ...(r.git?.changedSincePrevious ? [`files changed since the previous run: ${r.git.changedSincePrevious.length ? r.git.changedSincePrevious.join(', ') : 'none'}`] : []),
    ...r.sources.map((s) => `${s.kind} ${s.host === 'local' ? '' : `${s.host} `}${s.file}: bytes ${s.from}–${s.to}, ${s.lines} lines, ${s.outside} outside the window${s.restarted ? ` (${s.restarted}: read from its start)` : ''}${s.error ? ` — ${s.error}` : ''}`),
    ...(r.health.length ? r.health.map((x) => `warning: ${x.message}`) : ['health: ok']),
  ];
  out.push(...facts.map((f) => (md ? `- ${mdCell(f)}` : f)));
  const eps = [...(r.access?.endpoints ?? [])].sort((a, b) => b.sum - a.sum).slice(0, top);
  if (eps.length) {
    h('Endpoints by total time');
    for (const e of eps) out.push(`${md ? '- ' : '  '}${md ? mdCell(`${e.method} ${e.uri}`) : `${e.method} ${e.uri}`}: ${e.count} requests, total ${formatSeconds(e.sum)}, mean ${formatSeconds(e.avg)}, p99 ${formatSeconds(e.p99)}, 5xx ${e.s5xx}`);
  }
  const qs = [...(r.slow?.queries ?? [])].sort((a, b) => b.total - a.total).slice(0, top);
  if (qs.length) {
    h('Statements by total time');
    for (const q of qs) out.push(`${md ? '- `' : '  '}${md ? q.fingerprint.slice(0, 100).replace(/`/g, "'") : q.fingerprint.slice(0, 100)}${md ? '`' : ''}: ${q.count} calls, total ${formatSeconds(q.total)}, mean ${formatSeconds(q.mean)}`);
  }
  return out.join('\n') + '\n';
}

function rowFigures(r: RecordDiffRow): string {
  if (r.kind === 'endpoint') {
    const f = (v: number | null) => (v === null ? '–' : formatSeconds(v));
    return `n ${r.count.before ?? '–'} → ${r.count.after ?? '–'}, mean ${f(r.mean.before)} → ${f(r.mean.after)}, p99 ${f(r.tail.before)} → ${f(r.tail.after)}${r.errors && (r.errors.before || r.errors.after) ? `, errors ${r.errors.before ?? 0} → ${r.errors.after ?? 0}` : ''}`;
  }
  return `calls ${r.count.before ?? '–'} → ${r.count.after ?? '–'}, total ${formatSeconds(r.total.before ?? 0)} → ${formatSeconds(r.total.after ?? 0)}`;
}

/** `runs diff` as text (`md` false) or as Markdown for a pull request. */
export function diffText(d: RecordDiff, md: boolean, limit = 30): string {
  const out: string[] = [];
  const title = `${d.before.id} (${d.before.commit ? d.before.commit.slice(0, 7) : '-'}) → ${d.after.id} (${d.after.commit ? d.after.commit.slice(0, 7) : '-'})`;
  if (md) {
    out.push(`### Benchmark: ${mdCell(title)}`, '', `**${mdCell(d.headline)}**`, '');
  } else out.push(`# ${title}`, d.headline);
  const changed = d.rows.map(changedLine).filter((x): x is string => x !== undefined);
  const unmatched = d.changes.filter((c) => !d.rows.some((r) => r.changed === c));
  if (changed.length || unmatched.length) {
    out.push(md ? '#### What changed' : '# what changed');
    for (const c of changed) out.push(md ? `- ${mdCell(c)}` : `  ${c}`);
    for (const c of unmatched) out.push(`${md ? '- ' : '  '}${md ? mdCell(c.key) : c.key}: ${c.kind} changed in ${c.commit === 'working tree' ? 'the working tree' : c.commit.slice(0, 7)} (no figures in either run)`);
    if (md) out.push('');
  }
  for (const kind of ['endpoint', 'statement'] as const) {
    const rows = d.rows.filter((r) => r.kind === kind);
    if (!rows.length) continue;
    const order: Record<string, number> = { slower: 0, faster: 1, new: 2, gone: 3, same: 4, 'too-few': 5 };
    const shown = [...rows].sort((a, b) => order[a.verdict] - order[b.verdict] || Math.abs(b.total.delta) - Math.abs(a.total.delta)).slice(0, limit);
    if (md) {
      out.push(`#### ${kind === 'endpoint' ? 'Endpoints (time per request)' : 'Statements (total time and calls per request)'}`, '', '| verdict | ' + kind + ' | figures | why |', '|---|---|---|---|');
      for (const r of shown) out.push(`| ${r.verdict === 'faster' || r.verdict === 'slower' ? `**${r.verdict}**` : r.verdict} | \`${mdCell(r.key.length > 100 ? r.key.slice(0, 99) + '…' : r.key).replace(/`/g, "'")}\` | ${mdCell(rowFigures(r))} | ${mdCell(r.reason)} |`);
      if (rows.length > shown.length) out.push('', `_${rows.length - shown.length} more ${kind}s not shown._`);
      out.push('');
    } else {
      out.push(`# ${kind}s`);
      for (const r of shown) out.push(`  ${r.verdict.padEnd(7)} ${r.key.length > 100 ? r.key.slice(0, 99) + '…' : r.key}: ${rowFigures(r)} — ${r.reason}`);
      if (rows.length > shown.length) out.push(`  … ${rows.length - shown.length} more`);
    }
  }
  if (d.notes.length) {
    out.push(md ? '#### Notes' : '# notes');
    for (const n of d.notes) out.push(md ? `- ${mdCell(n)}` : `  ${n}`);
  }
  return out.join('\n') + '\n';
}

/** The JSON of a diff: the score change and one row per endpoint and statement. */
export function diffJson(d: RecordDiff): Record<string, unknown> {
  return {
    before: d.before.id, after: d.after.id, score: d.score, headline: d.headline, notes: d.notes, changes: d.changes,
    rows: d.rows.map((r) => ({
      kind: r.kind, key: r.key, ...(r.method !== undefined ? { method: r.method, uri: r.uri } : { fingerprint: r.fingerprint }),
      verdict: r.verdict, reason: r.reason, count: r.count, mean: r.mean, tail: r.tail, total: r.total,
      ...(r.errors ? { errors: r.errors } : {}), ...(r.callsPerRequest ? { callsPerRequest: r.callsPerRequest, timePerRequest: r.timePerRequest } : {}),
      ...(r.changed ? { changed: r.changed } : {}),
    })),
  };
}

/** `runs trend` as a table: one column per round (commit), the score first, then the mean of each series. */
export function trendText(t: Trend, md: boolean): string {
  if (!t.points.length) return 'no runs recorded yet\n';
  const head = ['', ...t.points.map((p) => p.commit)];
  const rows: string[][] = [['score', ...t.points.map((p) => score(p.score, p.failed))]];
  for (const s of t.series) rows.push([s.key.length > 60 ? s.key.slice(0, 59) + '…' : s.key, ...s.values.map((v) => (v ? formatSeconds(v.mean) : '-'))]);
  if (md) return [`| ${head.map(mdCell).join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(mdCell).join(' | ')} |`)].join('\n') + '\n';
  const w = head.map((_, k) => Math.max(head[k].length, ...rows.map((r) => r[k].length)));
  return [head, ...rows].map((r) => r.map((c, k) => (k === 0 ? c.padEnd(w[k]) : c.padStart(w[k]))).join('  ')).join('\n') + '\n';
}
