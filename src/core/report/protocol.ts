/**
 * The report panel's message protocol, shared by the extension host (src/extension/report) and the
 * page (src/webview). Both directions are discriminated unions on `type`. The host checks every
 * message from the page with `validatePageMessage` before acting on it; the page never names a
 * command, only what it wants (show this run, compare these two, export).
 */
import type { Measurement } from '../plan/measured';
import type { Plan } from '../plan/planModel';
import type { ProfileReport } from '../profile/cpuAttribution';
import { compareRuns, type Comparison } from './compare';
import type { FindingsSummary } from './findingsSummary';
import type { TreeFinding } from './planTree';
import type { Run, RunInfo } from './runs';
import type { Trend } from '../runs/trend';

/** A CPU profile as the page's CPU tab shows it: per endpoint (with flame graphs) and the buckets outside handlers. */
export type ProfileView = Pick<ProfileReport, 'totalSeconds' | 'handlerSeconds' | 'endpoints' | 'buckets'> & { source: string };

/** Host → page. */
export type HostMessage =
  | { type: 'profile'; profile: ProfileView; endpoint?: string }
  | { type: 'runs'; runs: RunInfo[] }
  /** `endpoint`: open the run on that endpoint's figures (the endpoint CodeLens). */
  | { type: 'run'; run: Run; endpoint?: { method: string; uri: string } }
  | { type: 'findings'; summary: FindingsSummary }
  | { type: 'comparison'; comparison: Comparison }
  | { type: 'trend'; trend: Trend }
  /** `measurable`: the host knows the statement, so the tab offers Measure. */
  | { type: 'plan'; title: string; sql?: string; plan: Plan; findings?: TreeFinding[]; measurement?: Measurement; measurable?: boolean }
  | { type: 'notice'; level: 'info' | 'error'; message: string };

export type ExportTarget = 'file' | 'clipboard';

/** Page → host. */
export type PageMessage =
  | { type: 'ready' }
  | { type: 'showRun'; runId: string }
  | { type: 'compare'; beforeId: string; afterId: string }
  | { type: 'exportComparison'; target: ExportTarget }
  /** The Plan tab's "Show plan" (before any plan): the plan of the statement under the editor's cursor. */
  | { type: 'showPlanAtCursor' }
  /** The Plan tab's "Measure": measures the statement whose plan is shown, then shows the plan again. */
  | { type: 'measurePlan' };

export type Validated = { ok: true; message: PageMessage } | { ok: false; error: string };

/** Run ids are what the store makes: letters, digits, `-`, `_`, `.`; at most 100 characters. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

const KEYS: Record<PageMessage['type'], readonly string[]> = {
  ready: ['type'],
  showRun: ['type', 'runId'],
  compare: ['type', 'beforeId', 'afterId'],
  exportComparison: ['type', 'target'],
  showPlanAtCursor: ['type'],
  measurePlan: ['type'],
};

function isRunId(v: unknown): v is string {
  return typeof v === 'string' && RUN_ID.test(v);
}

/**
 * Checks a message that came from the page: a plain object whose `type` is one of the page's
 * messages, with exactly that message's fields, each well-formed. Anything else is rejected with a
 * reason (for the log); nothing in it is ever run or used as a path.
 */
export function validatePageMessage(v: unknown): Validated {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { ok: false, error: 'not an object' };
  const o = v as Record<string, unknown>;
  const type = o.type;
  if (typeof type !== 'string' || !Object.prototype.hasOwnProperty.call(KEYS, type)) {
    return { ok: false, error: `unknown message type ${JSON.stringify(type)?.slice(0, 40)}` };
  }
  const allowed = KEYS[type as PageMessage['type']];
  const extra = Object.keys(o).filter((k) => !allowed.includes(k));
  if (extra.length) return { ok: false, error: `${type}: unexpected field(s) ${extra.slice(0, 3).join(', ')}` };
  switch (type) {
    case 'ready':
    case 'showPlanAtCursor':
    case 'measurePlan':
      return { ok: true, message: { type } };
    case 'showRun':
      if (!isRunId(o.runId)) return { ok: false, error: 'showRun: runId is not a run id' };
      return { ok: true, message: { type, runId: o.runId } };
    case 'compare':
      if (!isRunId(o.beforeId) || !isRunId(o.afterId)) return { ok: false, error: 'compare: beforeId/afterId are not run ids' };
      if (o.beforeId === o.afterId) return { ok: false, error: 'compare: the two runs are the same' };
      return { ok: true, message: { type, beforeId: o.beforeId, afterId: o.afterId } };
    default:
      if (o.target !== 'file' && o.target !== 'clipboard') return { ok: false, error: 'exportComparison: target must be "file" or "clipboard"' };
      return { ok: true, message: { type: 'exportComparison', target: o.target } };
  }
}

/** The message the panel receives to show the comparison of two runs (the same `compareRuns` the CLI's `diff` prints). */
export function comparisonMessage(before: Run, after: Run): Extract<HostMessage, { type: 'comparison' }> {
  return { type: 'comparison', comparison: compareRuns(before, after) };
}
