/**
 * Two rounds compared as a player reads them: the score first, then every endpoint by its time per
 * request (judged against the noise band of the two rounds' own samples, compare.ts) and every
 * statement by its total time and calls per request; rows in one round only are new or gone; more
 * errors (5xx, nginx's 499) make a row slower whatever its latency did; a round that got faster
 * while the score fell says so plainly. Each row that a code change touched names the commit.
 */
import { compareRuns, bandText, formatDelta, formatSeconds, roundTo, type Change, type ComparisonRow } from '../report/compare';
import { changeOfEndpoint, type CodeChange } from './codeChanges';
import { recordInfo, shortCommit, type RecordInfo, type RunRecord } from './record';

export type RowVerdict = 'faster' | 'slower' | 'same' | 'new' | 'gone' | 'too-few';

export interface RecordDiffRow {
  kind: 'endpoint' | 'statement';
  key: string;
  method?: string;
  uri?: string;
  fingerprint?: string;
  verdict: RowVerdict;
  /** Why, in words: the figures that decided. */
  reason: string;
  count: Change;
  /** Endpoints: mean and p99 per request (s). Statements: mean per call (s), total (s). */
  mean: Change;
  tail: Change;
  total: Change;
  /** Endpoints: responses 5xx + 499. */
  errors?: Change;
  /** Statements: calls and total time per request of the round (needs both rounds' request counts). */
  callsPerRequest?: Change;
  timePerRequest?: Change;
  /** The code change that touched this handler or statement. */
  changed?: CodeChange;
  /** Endpoints: what the time per request alone says, before errors decide. */
  latency?: 'faster' | 'slower' | 'same' | 'too-few';
}

export interface RecordDiff {
  before: RecordInfo;
  after: RecordInfo;
  score: Change;
  /** The first line: the score, and a plain sentence when latency and score disagree. */
  headline: string;
  notes: string[];
  rows: RecordDiffRow[];
  /** Handlers and statements the code changes touched (also the ones without figures). */
  changes: CodeChange[];
}

/** Smallest relative change of a statement's figure per request that counts. */
const MIN_CHANGE = 0.05;

function change(before: number | null, after: number | null, places: number): Change {
  const b = before === null ? null : roundTo(before, places);
  const a = after === null ? null : roundTo(after, places);
  return { before: b, after: a, delta: roundTo((a ?? 0) - (b ?? 0), places), ratio: b === null || b === 0 || a === null ? null : roundTo(a / b, 4) };
}

const errorsOf = (r: ComparisonRow, side: 'before' | 'after'): number => (r.classes ? (r.classes['5xx'][side] ?? 0) + (r.classes['499'][side] ?? 0) : 0);

/** Whether errors moved enough to decide: more than one error and at least 1 % of the requests more (or fewer). */
function errorShift(r: ComparisonRow): 'up' | 'down' | undefined {
  const eb = errorsOf(r, 'before');
  const ea = errorsOf(r, 'after');
  const nb = r.count.before ?? 0;
  const na = r.count.after ?? 0;
  if (!nb || !na || Math.abs(ea - eb) < 2) return undefined;
  const d = ea / na - eb / nb;
  return d > 0.01 ? 'up' : d < -0.01 ? 'down' : undefined;
}

function endpointRow(r: ComparisonRow, changes: readonly CodeChange[]): RecordDiffRow {
  const base = {
    kind: 'endpoint' as const, key: r.key, method: r.method, uri: r.uri, count: r.count, mean: r.mean, tail: r.tail, total: r.total,
    errors: change(r.classes ? errorsOf(r, 'before') : null, r.classes ? errorsOf(r, 'after') : null, 0),
  };
  const changed = r.method !== undefined && r.uri !== undefined ? changeOfEndpoint(changes, r.method, r.uri) : undefined;
  const withChange = changed ? { changed } : {};
  if (r.verdict === 'new' || r.verdict === 'gone') return { ...base, ...withChange, verdict: r.verdict, reason: r.verdict === 'new' ? `${r.count.after} requests, none before` : `${r.count.before} requests before, none now` };
  const verdict = r.verdict === 'faster' || r.verdict === 'slower' ? r.verdict : r.verdict === 'unknown' ? 'too-few' : 'same';
  const err = errorShift(r);
  if (err) {
    return { ...base, ...withChange, latency: verdict, verdict: err === 'up' ? 'slower' : 'faster', reason: `errors (5xx, 499) ${base.errors.before} → ${base.errors.after}: errors decide before latency (latency alone: ${verdict})` };
  }
  const why = r.verdict === 'mixed' ? `mean and p99 moved opposite ways; ${bandText(r.band)}`
    : r.verdict === 'noise' ? `within noise: ${bandText(r.band)}`
      : r.verdict === 'unknown' ? bandText(undefined)
        : `mean ${formatSeconds(r.mean.before ?? 0)} → ${formatSeconds(r.mean.after ?? 0)}, p99 ${formatSeconds(r.tail.before ?? 0)} → ${formatSeconds(r.tail.after ?? 0)}; ${bandText(r.band)}`;
  return { ...base, ...withChange, latency: verdict, verdict, reason: why };
}

function statementRow(r: ComparisonRow, reqB: number | null, reqA: number | null, changes: readonly CodeChange[]): RecordDiffRow {
  const per = reqB && reqA;
  const base: RecordDiffRow = {
    kind: 'statement', key: r.key, fingerprint: r.fingerprint, verdict: 'same', reason: '', count: r.count, mean: r.mean, tail: r.tail, total: r.total,
    ...(per ? {
      callsPerRequest: change(r.count.before === null ? null : r.count.before / reqB, r.count.after === null ? null : r.count.after / reqA, 4),
      timePerRequest: change(r.total.before === null ? null : r.total.before / reqB, r.total.after === null ? null : r.total.after / reqA, 9),
    } : {}),
  };
  const changed = changes.find((c) => c.kind === 'statement' && c.key === r.key);
  if (changed) base.changed = changed;
  if (r.verdict === 'new' || r.verdict === 'gone') return { ...base, verdict: r.verdict, reason: r.verdict === 'new' ? `${r.count.after} calls, none before` : `${r.count.before} calls before, none now` };
  const nb = r.count.before ?? 0;
  const na = r.count.after ?? 0;
  if (nb < 2 || na < 2) return { ...base, verdict: 'too-few', reason: bandText(undefined, 'call') };
  // why: total time follows the load; per request of the round it is what the code costs each request.
  const tb = per ? base.timePerRequest!.before! : r.total.before!;
  const ta = per ? base.timePerRequest!.after! : r.total.after!;
  const cb = per ? base.callsPerRequest!.before! : nb;
  const ca = per ? base.callsPerRequest!.after! : na;
  // why: calls are counts: their noise is about 1/√n relative (Poisson), so a move must pass twice that.
  const callsBand = 2 * Math.sqrt(1 / nb + 1 / na);
  const callsMoved = Math.abs(Math.log(ca / cb)) > Math.max(callsBand, MIN_CHANGE) ? (ca > cb ? 1 : -1) : 0;
  const meanMoved = r.shifts.mean === 'up' ? 1 : r.shifts.mean === 'down' ? -1 : 0;
  const timeRatio = tb > 0 ? ta / tb : ta > 0 ? Infinity : 1;
  const timeMoved = timeRatio >= 1 + MIN_CHANGE ? 1 : timeRatio <= 1 - MIN_CHANGE ? -1 : 0;
  const what = per ? 'per request' : 'in the round';
  const figures = `time ${what} ${formatSeconds(tb)} → ${formatSeconds(ta)}, calls ${what} ${roundTo(cb, 2)} → ${roundTo(ca, 2)}`;
  if (timeMoved && (callsMoved === timeMoved || meanMoved === timeMoved)) {
    return { ...base, verdict: timeMoved < 0 ? 'faster' : 'slower', reason: `${figures} (${callsMoved === timeMoved ? 'calls' : 'time per call'} moved beyond noise)` };
  }
  return { ...base, verdict: 'same', reason: `within noise: ${figures}; ${bandText(r.band, 'call')}` };
}

/** The first line of a comparison: the score and, when they disagree, what latency says. */
function headline(score: Change, after: RunRecord, rows: readonly RecordDiffRow[]): string {
  const s = (v: number | null) => (v === null ? 'no score' : String(v));
  const ratio = score.ratio !== null ? ` (${score.delta >= 0 ? '+' : '−'}${Math.abs(roundTo((score.ratio - 1) * 100, 1))} %)` : '';
  const failed = after.failed ? ` — the run failed: ${after.failed}` : '';
  let line = `Score ${s(score.before)} → ${s(score.after)}${score.before !== null && score.after !== null ? ratio : ''}${failed}`;
  const eps = rows.filter((r) => r.kind === 'endpoint');
  const faster = eps.filter((r) => r.latency === 'faster').length;
  const slower = eps.filter((r) => r.latency === 'slower').length;
  const erring = eps.filter((r) => r.latency !== r.verdict && r.verdict === 'slower').length;
  if (score.before !== null && score.after !== null) {
    if (score.delta < 0 && faster > slower) {
      line += `. Faster but the score fell: ${faster} endpoint${faster === 1 ? '' : 's'} faster by time per request, ${slower} slower`
        + (erring ? `; errors rose on ${erring}` : '') + ' — look for errors, failed checks or a changed request mix.';
    } else if (score.delta > 0 && slower > faster) line += `. The score rose but ${slower} endpoint${slower === 1 ? ' is' : 's are'} slower than before.`;
  }
  return line;
}

/** Compares two rounds (before → after); `changes` from the code diff between their commits. */
export function diffRecords(before: RunRecord, after: RunRecord, changes: readonly CodeChange[] = []): RecordDiff {
  const rows: RecordDiffRow[] = [];
  const notes: string[] = [];
  if (before.access && after.access) {
    for (const r of compareRuns(before.access, after.access).rows) rows.push(endpointRow(r, changes));
  } else if (before.access || after.access) notes.push('only one round has access-log figures: endpoints are not compared');
  const reqB = before.access ? before.access.summary.count : null;
  const reqA = after.access ? after.access.summary.count : null;
  if (before.slow && after.slow) {
    for (const r of compareRuns(before.slow, after.slow).rows) rows.push(statementRow(r, reqB, reqA, changes));
  } else if (before.slow || after.slow) notes.push('only one round has statement figures: statements are not compared');
  for (const [name, rec] of [['before', before], ['after', after]] as const) {
    for (const h of rec.health) notes.push(`${name} (${rec.id}): ${h.message}`);
  }
  if (before.failed) notes.push(`the before round failed: ${before.failed}`);
  const score = change(before.score, after.score, 3);
  return { before: recordInfo(before), after: recordInfo(after), score, headline: headline(score, after, rows), notes, rows, changes: [...changes] };
}

/** `handler changed in 3f2a1c4` / `statement changed in the working tree`. */
export function changeText(c: CodeChange): string {
  return `${c.kind} changed in ${c.commit === 'working tree' ? 'the working tree' : c.commit.slice(0, 7)}`;
}

/** `GET /items/:id: handler changed in 3f2a1c4, p99 412 ms → 38 ms` — a changed row beside its own figures. */
export function changedLine(r: RecordDiffRow): string | undefined {
  if (!r.changed) return undefined;
  const fig = r.kind === 'endpoint'
    ? `p99 ${r.tail.before === null ? '–' : formatSeconds(r.tail.before)} → ${r.tail.after === null ? '–' : formatSeconds(r.tail.after)}`
    : r.timePerRequest ? `time per request ${formatSeconds(r.timePerRequest.before ?? 0)} → ${formatSeconds(r.timePerRequest.after ?? 0)}`
      : `total ${formatSeconds(r.total.before ?? 0)} → ${formatSeconds(r.total.after ?? 0)}`;
  return `${r.kind === 'statement' && r.key.length > 80 ? r.key.slice(0, 79) + '…' : r.key}: ${changeText(r.changed)}, ${fig} (${r.verdict})`;
}

export { shortCommit, formatDelta };
