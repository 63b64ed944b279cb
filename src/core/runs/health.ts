/**
 * Whether a round is fit to compare, in warnings with stable codes: a box whose log could not be
 * read, a log rotated or truncated since the previous round, no `POST /initialize` found, a window
 * much shorter than the benchmark usually takes, a performance_schema window that lost statements,
 * or nothing in the window at all.
 */
import type { HealthWarning, RecordSource, RecordWindow, RunRecord } from './record';

export interface HealthInput {
  sources: readonly RecordSource[];
  window: RecordWindow;
  requests: number | null;
  statements: number | null;
  /** Seconds the benchmark usually takes: configured, or from the previous rounds (`typicalSeconds`). */
  typicalSeconds?: number;
  /** Statements a performance_schema window could not keep (its digest table was full), when one was read. */
  statementsLost?: number;
}

/** A window's length in seconds, when both ends are known. */
export function windowSeconds(w: RecordWindow): number | undefined {
  if (!w.from || !w.to) return undefined;
  const s = (Date.parse(w.to) - Date.parse(w.from)) / 1000;
  return Number.isFinite(s) ? s : undefined;
}

/** The median window of the earlier rounds that did not fail and found their `/initialize`; undefined with none. */
export function typicalSeconds(previous: readonly RunRecord[]): number | undefined {
  const xs = previous.filter((r) => !r.failed && r.window.origin === 'initialize').map((r) => windowSeconds(r.window)).filter((s): s is number => s !== undefined && s > 0).sort((a, b) => a - b);
  if (!xs.length) return undefined;
  const m = xs.length >> 1;
  return xs.length % 2 ? xs[m] : (xs[m - 1] + xs[m]) / 2;
}

/** Rounds shorter than this share of the typical length are flagged. */
const SHORT = 0.5;

export function healthOf(h: HealthInput): HealthWarning[] {
  const out: HealthWarning[] = [];
  for (const s of h.sources) {
    if (s.error) out.push({ code: 'box-unreadable', message: `${s.host === 'local' ? '' : `${s.host}: `}${s.file} could not be read: ${s.error}` });
  }
  for (const s of h.sources) {
    if (!s.restarted) continue;
    const inWindow = s.kind === 'access' && h.window.origin === 'initialize' && h.window.initialize?.file !== s.file;
    out.push({
      code: 'log-rotated',
      message: `${s.file} was ${s.restarted} since the previous run and read from its start`
        + (inWindow || (s.kind === 'access' && h.window.origin !== 'initialize') ? ': the window may have begun in the old file, whose last lines are not in this run' : ''),
    });
  }
  const hasAccess = h.sources.some((s) => s.kind === 'access' && !s.error);
  if (hasAccess && h.window.origin === 'whole') out.push({ code: 'no-initialize', message: 'no POST /initialize in the access log: the window is everything logged since the previous run' });
  const secs = windowSeconds(h.window);
  if (secs !== undefined && h.typicalSeconds !== undefined && secs < SHORT * h.typicalSeconds) {
    out.push({ code: 'short-window', message: `the window lasted ${Math.round(secs)} s, the benchmark usually ${Math.round(h.typicalSeconds)} s: a cut-short or failed benchmark?` });
  }
  if (h.statementsLost) out.push({ code: 'statements-lost', message: `performance_schema lost ${h.statementsLost} statements in the window (its digest table was full): statement figures are incomplete` });
  if (!h.requests && !h.statements) out.push({ code: 'empty', message: 'nothing was logged in the window' });
  return out;
}
