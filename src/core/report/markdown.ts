/**
 * A comparison as Markdown, to paste into a team's notes: a heading naming the two runs, the
 * whole-run totals, then one table row per endpoint or query (largest change of total time first).
 */
import { formatCount } from '../format/numbers';
import { bandText, formatDelta, formatIn, formatRatio, formatSeconds, timeUnitFor, type Change, type Comparison, type ComparisonRow, type TimeUnit, type Verdict } from './compare';
import type { RunInfo } from './runs';

export interface MarkdownOptions {
  /** Rows shown (default 50; 0 = all); the rest are counted in a closing line. */
  limit?: number;
  /** Characters of a fingerprint shown (default 120). */
  maxKeyChars?: number;
}

/** Escapes text for a Markdown table cell (pipes, backslashes, backticks, line breaks). */
export function mdCell(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/`/g, '\\`').replace(/\r?\n/g, ' ');
}

function count(v: number | null): string {
  return v === null ? '–' : formatCount(v);
}

function secs(v: number | null): string {
  return v === null ? '–' : formatSeconds(v);
}

/** `before → after` of a figure. */
export function arrow(c: Change, unit: 's' | 'n'): string {
  const f = unit === 's' ? secs : count;
  return `${f(c.before)} → ${f(c.after)}`;
}

/** `before → after` in a column's unit. */
function arrowIn(c: Change, u: TimeUnit): string {
  const f = (v: number | null) => (v === null ? '–' : formatIn(v, u));
  return `${f(c.before)} → ${f(c.after)}`;
}

function keyOf(r: ComparisonRow, max: number): string {
  const k = r.key.length > max ? r.key.slice(0, max - 1) + '…' : r.key;
  return `\`${k.replace(/`/g, "'")}\``.replace(/\|/g, '\\|');
}

/** The verdict as a word (bold when it reads one way). */
const VERDICT_WORDS: Record<Verdict, string> = {
  faster: '**faster**', slower: '**slower**', mixed: '**mixed**', noise: 'within noise', unknown: 'too few', new: 'new', gone: 'gone',
};

/** `3 faster, 1 within noise`. */
function verdictSummary(c: Comparison): string {
  const order: Verdict[] = ['faster', 'slower', 'mixed', 'noise', 'unknown', 'new', 'gone'];
  const parts = order.map((v) => [v, c.rows.filter((r) => r.verdict === v).length] as const).filter(([, n]) => n > 0);
  return parts.map(([v, n]) => `${n} ${VERDICT_WORDS[v].replace(/\*/g, '')}`).join(', ') || 'no rows';
}

/** Requests per second before → after. */
function perSecond(c: Change): string {
  const f = (v: number | null) => (v === null ? '–' : `${v.toFixed(v >= 10 ? 0 : 1)}/s`);
  return `${f(c.before)} → ${f(c.after)} (${formatRatio(c)})`;
}

/**
 * `, 2024-03-02 10:00:00 – 10:04:59 UTC (299 s)`: the first and last timestamp of the log's entries —
 * when the benchmark ran, not when the comparison was made; nothing when the log carries no times.
 */
export function logSpan(run: Pick<RunInfo, 'window'>): string {
  if (!run.window) return '';
  const from = new Date(run.window.from);
  const to = new Date(run.window.to);
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) return '';
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const clock = (d: Date) => d.toISOString().slice(11, 19);
  const secs = Math.round((to.getTime() - from.getTime()) / 1000);
  return `, ${day(from)} ${clock(from)} – ${day(to) === day(from) ? '' : `${day(to)} `}${clock(to)} UTC (${formatCount(secs)} s)`;
}

const STATUS_MARK: Record<ComparisonRow['status'], string> = { changed: '', same: '', new: ' (new)', gone: ' (gone)' };

/** The comparison as a Markdown section. */
export function comparisonMarkdown(c: Comparison, options: MarkdownOptions = {}): string {
  const limit = options.limit ?? 50;
  const maxKey = options.maxKeyChars ?? 120;
  const what = c.kind === 'access' ? 'endpoints (access log)' : 'queries (slow log)';
  const tail = c.tailLabel;
  const lines: string[] = [];
  lines.push(`### ${mdCell(c.before.label)} → ${mdCell(c.after.label)}: ${what}`, '');
  lines.push(`- before: ${mdCell(c.before.label)} — \`${c.before.source}\`${logSpan(c.before)}`);
  lines.push(`- after: ${mdCell(c.after.label)} — \`${c.after.source}\`${logSpan(c.after)}`);
  lines.push(`- ${c.kind === 'access' ? 'requests' : 'statements'}: ${arrow(c.totals.count, 'n')} (${formatDelta(c.totals.count.delta, 'n')}, ${formatRatio(c.totals.count)})`);
  if (c.totals.rate) lines.push(`- throughput: ${perSecond(c.totals.rate)}`);
  lines.push(`- total time: ${arrow(c.totals.total, 's')} (${formatDelta(c.totals.total.delta, 's')}, ${formatRatio(c.totals.total)})`);
  lines.push(`- verdict by the time per ${c.kind === 'access' ? 'request' : 'call'} (mean and ${tail}), beyond the runs' own spread: ${verdictSummary(c)}`);
  if (c.hostsNote) lines.push(`- **note:** ${mdCell(c.hostsNote)}`);
  lines.push('');
  const rows = limit > 0 ? c.rows.slice(0, limit) : c.rows;
  // why: one unit per column, chosen from its figures, so a column never mixes s and ms
  const both = (f: (r: ComparisonRow) => Change) => rows.flatMap((r) => [f(r).before, f(r).after]);
  const u = { total: timeUnitFor(both((r) => r.total)), delta: timeUnitFor(rows.map((r) => r.total.delta)), mean: timeUnitFor(both((r) => r.mean)), tail: timeUnitFor(both((r) => r.tail)) };
  lines.push(`| ${c.kind === 'access' ? 'endpoint' : 'query'} | verdict | count | total (${u.total.name}) | Δ total (${u.delta.name}) | ratio | mean (${u.mean.name}) | ${tail} (${u.tail.name}) |`);
  lines.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    // why: "within noise" alone does not say why; the counts and the interval of the change do.
    const why = r.verdict === 'noise' || r.verdict === 'mixed' ? ` (${bandText(r.band, c.kind === 'access' ? 'request' : 'call')})` : '';
    lines.push(`| ${keyOf(r, maxKey)}${STATUS_MARK[r.status]} | ${VERDICT_WORDS[r.verdict]}${why} | ${arrow(r.count, 'n')} | ${arrowIn(r.total, u.total)} | ${formatIn(r.total.delta, u.delta, true)} | ${formatRatio(r.total)} | ${arrowIn(r.mean, u.mean)} | ${arrowIn(r.tail, u.tail)} |`);
  }
  if (rows.length < c.rows.length) lines.push('', `…and ${c.rows.length - rows.length} more rows with smaller changes.`);
  return lines.join('\n') + '\n';
}
