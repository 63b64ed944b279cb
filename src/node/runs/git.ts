/**
 * What a round records of git and what `runs diff` asks it: the commit, whether the tree is dirty,
 * the files changed since a commit, the commits between two rounds and their diff. Every call runs
 * `git` with arguments (no shell); outside a work tree or without git, the answers are undefined.
 */
import { execFile } from 'node:child_process';
import { changedCode, parseUnifiedDiff, type CodeChange, type CommitFiles } from '../../core/runs/codeChanges';
import type { Route, SqlSite } from '../../core/model';
import type { RecordGit, RunRecord } from '../../core/runs/record';

function git(cwd: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, maxBuffer: 256 * 1024 * 1024, timeout: 60_000, encoding: 'utf8' }, (err, stdout) => resolve(err ? undefined : stdout));
  });
}

/** Pathspec that leaves the run store (and other tool state under `exclude`) out of what counts as a change. */
function pathspec(exclude: readonly string[]): string[] {
  return ['--', '.', ...exclude.map((p) => `:(exclude)${p}`)];
}

/** The commit checked out, dirty flag, subject, and the files changed since `previous` (a commit), when `cwd` is in a work tree. */
export async function gitState(cwd: string, previous: string | undefined, exclude: readonly string[] = []): Promise<RecordGit | undefined> {
  const head = (await git(cwd, ['rev-parse', 'HEAD']))?.trim();
  if (!head) return undefined;
  const status = await git(cwd, ['status', '--porcelain', '--untracked-files=no', ...pathspec(exclude)]);
  const subject = (await git(cwd, ['log', '-1', '--format=%s', head]))?.trim();
  const out: RecordGit = { commit: head, dirty: !!status?.trim(), ...(subject ? { subject } : {}) };
  if (previous) {
    const names = await git(cwd, ['diff', '--name-only', previous, ...pathspec(exclude)]);
    if (names !== undefined) out.changedSincePrevious = names.split('\n').filter(Boolean);
  }
  return out;
}

/** The commits after `from` up to `to` (newest first) and the files each touched. */
export async function commitsBetween(cwd: string, from: string, to: string): Promise<CommitFiles[]> {
  const text = await git(cwd, ['log', '--format=%x00%H', '--name-only', `${from}..${to}`]);
  if (!text) return [];
  return text.split('\0').filter((b) => b.trim()).map((b) => {
    const [commit, ...files] = b.split('\n').map((l) => l.trim()).filter(Boolean);
    return { commit, files };
  });
}

/**
 * `git diff -U0` from commit `from` to commit `to`; with `toWorkingTree`, to the files as they are now
 * (the after round was recorded on a dirty tree at `to`, or `to` is the checkout).
 */
export async function diffBetween(cwd: string, from: string, to: string, toWorkingTree: boolean, exclude: readonly string[] = []): Promise<string | undefined> {
  return git(cwd, ['diff', '-U0', '--no-color', '--no-ext-diff', from, ...(toWorkingTree ? [] : [to]), ...pathspec(exclude)]);
}

/** The commit checked out now, or undefined. */
export async function headCommit(cwd: string): Promise<string | undefined> {
  return (await git(cwd, ['rev-parse', 'HEAD']))?.trim() || undefined;
}

/** The top of the work tree holding `cwd`, or undefined. */
export async function workTreeRoot(cwd: string): Promise<string | undefined> {
  return (await git(cwd, ['rev-parse', '--show-toplevel']))?.trim() || undefined;
}

/**
 * The handlers and statements the code changes between two rounds touched: git's diff from the
 * before round's commit to the after round's (to the files as they are now when the after round was
 * recorded on a dirty tree that is still checked out), mapped onto the app's routes and statements
 * as found now. None without git on both rounds.
 */
export async function codeChangesBetween(root: string, before: RunRecord, after: RunRecord, app: { routes: readonly Route[]; sites: readonly SqlSite[] }): Promise<CodeChange[]> {
  if (!before.git || !after.git) return [];
  const head = await headCommit(root);
  const toWorkingTree = after.git.dirty && head === after.git.commit;
  if (before.git.commit === after.git.commit && !toWorkingTree) return [];
  const text = await diffBetween(root, before.git.commit, after.git.commit, toWorkingTree, ['.query-insight']);
  if (!text) return [];
  const commits = before.git.commit === after.git.commit ? [] : await commitsBetween(root, before.git.commit, after.git.commit);
  return changedCode(parseUnifiedDiff(text), app.routes, app.sites, commits);
}
