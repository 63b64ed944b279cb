/**
 * A benchmark round kept as a record: its window, the logs it read (with the byte offsets the next
 * round starts from), the figures per endpoint and per statement (the access-log and slow-log runs
 * of src/core/report/runs.ts), the benchmark's score, the git commit, a memo and its health. Plain,
 * JSON-serialisable data: one record is one readable, diffable file (`.query-insight/runs/<id>.json`).
 */
import { isKeptProfile, type KeptProfile } from '../profile/keptProfile';
import { validateRun, type Run } from '../report/runs';

export const RECORD_FORMAT = 'query-insight-record';
export const RECORD_VERSION = 1;

/** Which kind of log a source is. */
export type RecordLogKind = 'access' | 'slow';

/** One log a round read: where, which bytes, and how the next round recognises the same file. */
export interface RecordSource {
  kind: RecordLogKind;
  /** `local` or the box as written. */
  host: string;
  /** The source as written (`/var/log/nginx/access.log`, `isu2:/var/log/mysql/slow.log`). */
  file: string;
  /** Bytes read: [from, to). The next round starts at `to` when the file is the same one. */
  from: number;
  to: number;
  lines: number;
  /** Lines (access) or entries (slow) left out because they lie outside the window. */
  outside: number;
  /** A short hash of the file's first bytes and how many there were: a rotated or truncated file starts otherwise. */
  head?: { bytes: number; hash: string };
  /** A local file's inode: another one means the file was rotated (moved away and created anew). */
  inode?: number;
  /** Set when the file was not the one the previous round read (rotated, truncated): it was read from its start. */
  restarted?: 'rotated' | 'truncated';
  gzip?: boolean;
  error?: string;
}

/** How the window was found. */
export type WindowOrigin = 'initialize' | 'since' | 'whole';

export interface RecordWindow {
  /** ISO 8601; absent when the logs give no time. */
  from?: string;
  to?: string;
  origin: WindowOrigin;
  /** Where the last `POST /initialize` was: the source and its line in that read. */
  initialize?: { file: string; line: number };
}

export interface RecordGit {
  commit: string;
  /** Uncommitted changes to tracked files (the run's own store left out). */
  dirty: boolean;
  /** Files changed since the previous round's commit (committed or not), when there was one. */
  changedSincePrevious?: string[];
  /** The commit's subject line. */
  subject?: string;
}

/** A reason a round is not fit to compare. `code` is stable (JSON, the editor's icons). */
export type HealthCode = 'box-unreadable' | 'log-rotated' | 'no-initialize' | 'short-window' | 'statements-lost' | 'empty';

export interface HealthWarning {
  code: HealthCode;
  message: string;
}

export interface RunRecord {
  format: typeof RECORD_FORMAT;
  version: typeof RECORD_VERSION;
  id: string;
  /** ISO 8601. */
  createdAt: string;
  window: RecordWindow;
  sources: RecordSource[];
  /** Per endpoint (access log) and per statement (slow log or a performance_schema window). */
  access?: Run;
  slow?: Run;
  /** The benchmark's score; null when none was given. */
  score: number | null;
  /** Set on a failed benchmark: its reason. A failed round is kept, and never the baseline of a verdict by itself. */
  failed?: string;
  git?: RecordGit;
  memo?: string;
  health: HealthWarning[];
  /** The CPU profile of the round, folded onto the handlers (`query-insight profile --record`, the editor's Import profile). */
  profile?: KeptProfile;
}

/** What a list shows of a round: no rows. */
export interface RecordInfo {
  id: string;
  createdAt: string;
  score: number | null;
  failed?: string;
  commit?: string;
  dirty?: boolean;
  memo?: string;
  /** Requests in the window (access), statements (slow). */
  requests: number | null;
  statements: number | null;
  window: RecordWindow;
  health: HealthWarning[];
}

export function recordInfo(r: RunRecord): RecordInfo {
  return {
    id: r.id, createdAt: r.createdAt, score: r.score, ...(r.failed !== undefined ? { failed: r.failed } : {}),
    ...(r.git ? { commit: r.git.commit, dirty: r.git.dirty } : {}), ...(r.memo ? { memo: r.memo } : {}),
    requests: r.access ? r.access.summary.count : null, statements: r.slow ? r.slow.summary.count : null,
    window: r.window, health: r.health,
  };
}

/** The commit shortened as git prints it (7 hex digits), `+` when the tree was dirty; `-` without git. */
export function shortCommit(git: Pick<RecordGit, 'commit' | 'dirty'> | undefined): string {
  if (!git) return '-';
  return git.commit.slice(0, 7) + (git.dirty ? '+' : '');
}

/** Pretty JSON with the format marker first, so the file reads and diffs well. */
export function serializeRecord(r: RunRecord): string {
  return JSON.stringify(r, null, 1) + '\n';
}

/** Thrown by `parseRecord` with a message that says what is wrong. */
export class RecordFormatError extends Error {}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function need(cond: boolean, what: string): void {
  if (!cond) throw new RecordFormatError(`not a Query Insight run record: ${what}`);
}

/** Checks a value's shape; throws RecordFormatError naming the first problem. */
export function validateRecord(v: unknown): RunRecord {
  need(isObj(v), 'not a JSON object');
  const o = v as Record<string, unknown>;
  need(o.format === RECORD_FORMAT, `"format" is not "${RECORD_FORMAT}"`);
  need(o.version === RECORD_VERSION, `version ${String(o.version)} is not supported (expected ${RECORD_VERSION})`);
  need(isStr(o.id) && /^[A-Za-z0-9._-]+$/.test(o.id), '"id" is not a plain name');
  need(isStr(o.createdAt), '"createdAt" is not a string');
  need(o.score === null || isNum(o.score), '"score" is neither a number nor null');
  need(o.failed === undefined || isStr(o.failed), '"failed" is not a string');
  need(o.memo === undefined || isStr(o.memo), '"memo" is not a string');
  need(isObj(o.window) && ['initialize', 'since', 'whole'].includes(String(o.window.origin)), '"window" has no origin');
  need(Array.isArray(o.sources), '"sources" is not a list');
  (o.sources as unknown[]).forEach((s, i) => {
    need(isObj(s) && (s.kind === 'access' || s.kind === 'slow') && isStr(s.host) && isStr(s.file), `sources[${i}] has no kind/host/file`);
    for (const k of ['from', 'to', 'lines', 'outside']) need(isNum((s as Record<string, unknown>)[k]), `sources[${i}].${k} is not a number`);
  });
  need(Array.isArray(o.health) && (o.health as unknown[]).every((h) => isObj(h) && isStr(h.code) && isStr(h.message)), '"health" is not a list of warnings');
  need(o.profile === undefined || isKeptProfile(o.profile), '"profile" is not a CPU profile');
  if (o.git !== undefined) need(isObj(o.git) && isStr(o.git.commit) && typeof o.git.dirty === 'boolean', '"git" has no commit/dirty');
  try {
    if (o.access !== undefined) need(validateRun(o.access).kind === 'access', '"access" is not an access-log run');
    if (o.slow !== undefined) need(validateRun(o.slow).kind === 'slow', '"slow" is not a statement run');
  } catch (err) {
    if (err instanceof RecordFormatError) throw err;
    throw new RecordFormatError(`not a Query Insight run record: ${(err as Error).message}`);
  }
  return v as RunRecord;
}

/** Parses a saved record; throws RecordFormatError on anything else. */
export function parseRecord(text: string): RunRecord {
  let v: unknown;
  try { v = JSON.parse(text); } catch (err) { throw new RecordFormatError(`not a Query Insight run record: invalid JSON (${(err as Error).message})`); }
  return validateRecord(v);
}

/** A new record id from its time: `20240501-123456` (UTC), sortable, with a suffix when taken. */
export function recordId(at: Date, taken: (id: string) => boolean): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const base = `${at.getUTCFullYear()}${p(at.getUTCMonth() + 1)}${p(at.getUTCDate())}-${p(at.getUTCHours())}${p(at.getUTCMinutes())}${p(at.getUTCSeconds())}`;
  if (!taken(base)) return base;
  for (let i = 2; ; i++) if (!taken(`${base}-${i}`)) return `${base}-${i}`;
}
