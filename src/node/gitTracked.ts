/**
 * The files git tracks under a directory (`git ls-files`), so that a scan follows git's own rule:
 * ignore rules only apply to untracked files. A tracked file under a `.gitignore`d path is part of
 * the app (often a checked-in generated client or a directory ignored after the fact).
 */
import { spawnSync } from 'node:child_process';

export interface TrackedFiles {
  /** Tracked files, relative to the directory asked about, '/'-separated. */
  files: ReadonlySet<string>;
  /** Every directory that holds a tracked file (at any depth), same form. */
  dirs: ReadonlySet<string>;
}

/**
 * Asks git which files under `root` it tracks. Undefined when git is not installed, `root` is not
 * inside a work tree, or git fails: callers then apply the ignore rules to every file.
 */
export function gitTrackedFiles(root: string): TrackedFiles | undefined {
  let r: ReturnType<typeof spawnSync>;
  try {
    // why: -z keeps non-ASCII and odd names unquoted; paths come out relative to cwd, under it only.
    r = spawnSync('git', ['ls-files', '-z', '--cached'], {
      cwd: root, encoding: 'buffer', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 512 * 1024 * 1024, timeout: 60_000,
    });
  } catch {
    return undefined;
  }
  if (r.error || r.status !== 0 || !r.stdout) return undefined;
  const files = new Set<string>();
  const dirs = new Set<string>();
  for (const p of (r.stdout as Buffer).toString('utf8').split('\0')) {
    if (!p) continue;
    files.add(p);
    for (let i = p.lastIndexOf('/'); i > 0; i = p.lastIndexOf('/', i - 1)) {
      const d = p.slice(0, i);
      if (dirs.has(d)) break;   // its parents are in already
      dirs.add(d);
    }
  }
  return { files, dirs };
}
