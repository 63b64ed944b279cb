/**
 * Walks a project directory for source files: skips vendored and generated trees
 * (node_modules, vendor, .git, dist/build outputs …), paths ignored by .gitignore files, and files
 * that are huge (> 1 MiB), binary or unreadable — counting each skip by reason. In a git work tree,
 * tracked files are read even where an ignore rule matches them (git's rule: ignore rules only
 * apply to untracked files), and each directory of source skipped as ignored is named.
 */
// why: synchronous calls; a scan touches thousands of small files and each async fs call waits a
// thread-pool round trip, which measured 3x slower end to end on a busy machine.
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { join, sep } from 'node:path';
import type { FileFacts, Language } from '../core/model';
import type { FactsCache } from '../core/workspace';
import { languageForPath } from '../core/source/languageOf';
import { isIgnored, parseGitignore, type IgnoreRule } from '../core/source/gitignore';
import { gitTrackedFiles, type TrackedFiles } from './gitTracked';
import { skipReason } from '../core/source/generatedText';
import { FileSkipped } from './fileSkips';

/** Directory names never descended into. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  'node_modules', 'vendor', '.git', '.hg', '.svn', 'dist', 'build', 'out', 'target', '__pycache__', '.venv', 'venv',
  '.tox', '.mypy_cache', '.pytest_cache', '.bundle', '.next', '.nuxt', 'coverage', '.cache', 'bower_components', 'local',
]);

/** The third-party trees among them: read with `includeVendored`. */
export const VENDORED_DIRS: ReadonlySet<string> = new Set(['node_modules', 'vendor', 'bower_components']);

export const MAX_FILE_BYTES = 1024 * 1024;

export type SkipReason = 'vendored or generated directory' | 'gitignored' | 'huge (> 1 MiB)' | 'binary' | 'unreadable' | 'minified, generated or vendored'
  | 'past the budget per file' | 'linked from outside the tree';

export interface SourceFile {
  /** Relative to the root, '/'-separated. */
  rel: string;
  abs: string;
  language: Language;
}

/** A directory skipped because .gitignore rules ignore it, that holds source files. */
export interface IgnoredSourceDir {
  /** Relative to the root, '/'-separated. */
  dir: string;
  /** Source files found in it (a lower bound when `more`). */
  sourceFiles: number;
  more: boolean;
}

export interface SourceListing {
  files: SourceFile[];
  skipped: Map<SkipReason, number>;
  /** Directories of source skipped as ignored (none of their files is tracked by git). */
  ignoredDirs: IgnoredSourceDir[];
  /** Every path skipped as ignored: source files, and directories (with a trailing '/') whatever they hold. */
  ignored: string[];
  /** True when git said which files it tracks (ignore rules then spare them). */
  git: boolean;
}

export interface ListOptions {
  /** Tracked files; default: ask git (`git ls-files`); null: apply the ignore rules to every file. */
  tracked?: TrackedFiles | null;
  /** Read vendored trees (node_modules, vendor …) and third-party paths (`*.min.js`) too. */
  includeVendored?: boolean;
}

/**
 * True when `abs` is a symbolic link whose target lies outside `root` (both resolved): such a link is not
 * followed, so a link to /etc/shadow in a repository is never read, nor quoted.
 */
export function linksOutside(root: string, abs: string): boolean {
  try {
    if (!lstatSync(abs).isSymbolicLink()) return false;
    const top = realpathSync(root);
    const target = realpathSync(abs);
    return target !== top && !target.startsWith(top.endsWith(sep) ? top : top + sep);
  } catch {
    return true;
  }
}

function count(m: Map<SkipReason, number>, r: SkipReason): void {
  m.set(r, (m.get(r) ?? 0) + 1);
}

/** Entries looked at when counting the source files of a skipped directory. */
const PEEK_BUDGET = 2000;

/** Counts source files under `dir` (bounded: an ignored tree can be huge). */
function countSources(dir: string): { n: number; more: boolean } {
  let n = 0;
  let budget = PEEK_BUDGET;
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop()!;
    let entries: Dirent[];
    try { entries = readdirSync(d, { withFileTypes: true }); } catch { continue; }
    for (const e of entries) {
      if (--budget < 0) return { n, more: true };
      if (e.isDirectory()) { if (!SKIPPED_DIRS.has(e.name)) stack.push(join(d, e.name)); } else if (e.isFile() && languageForPath(e.name)) n++;
    }
  }
  return { n, more: false };
}

/**
 * Lists the source files under `root` in a stable (sorted) order. Sizes are checked when a file is
 * read (readSourceFile), which asks the open file anyway.
 */
export async function listSourceFiles(root: string, opts: ListOptions = {}): Promise<SourceListing> {
  const tracked = opts.tracked === undefined ? gitTrackedFiles(root) : opts.tracked ?? undefined;
  const out: SourceListing = { files: [], skipped: new Map(), ignoredDirs: [], ignored: [], git: tracked !== undefined };
  /** `ignoredAbove`: an ignored directory entered only for the tracked files it holds. */
  const walk = async (dir: string, rel: string, rules: IgnoreRule[], ignoredAbove: boolean): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      count(out.skipped, 'unreadable');
      return;
    }
    const gi = entries.find((e) => e.name === '.gitignore' && e.isFile());
    if (gi) {
      try {
        rules = [...rules, ...parseGitignore(readFileSync(join(dir, '.gitignore'), 'utf8'), rel)];
      } catch {
        count(out.skipped, 'unreadable');
      }
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const abs = join(dir, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        // why: following directory links can loop; linked files are read like any other, when their target is in the tree.
        try { const s = statSync(abs); isFile = s.isFile(); isDir = false; } catch { count(out.skipped, 'unreadable'); continue; }
        if (isFile && languageForPath(e.name) && linksOutside(root, abs)) { count(out.skipped, 'linked from outside the tree'); continue; }
      }
      if (isDir) {
        if (SKIPPED_DIRS.has(e.name) && !(opts.includeVendored && VENDORED_DIRS.has(e.name))) { count(out.skipped, 'vendored or generated directory'); continue; }
        const ignored = ignoredAbove || isIgnored(r, true, rules);
        if (ignored && !tracked?.dirs.has(r)) {
          count(out.skipped, 'gitignored');
          out.ignored.push(`${r}/`);
          const { n, more } = countSources(abs);
          if (n > 0) out.ignoredDirs.push({ dir: r, sourceFiles: n, more });
          continue;
        }
        await walk(abs, r, rules, ignored);
        continue;
      }
      if (!isFile) continue;
      const language = languageForPath(e.name);
      if (!language) continue;
      if ((ignoredAbove || isIgnored(r, false, rules)) && !tracked?.files.has(r)) {
        count(out.skipped, 'gitignored');
        out.ignored.push(r);
        continue;
      }
      out.files.push({ rel: r, abs, language });
    }
  };
  await walk(root, '', [], false);
  return out;
}

/** What readSourceFile reads into: one buffer for every file (each is read whole before the next), grown to the largest. */
let readBuffer = Buffer.allocUnsafeSlow(1 << 16);

/**
 * Reads a listed file as UTF-8 text, or says why it is skipped: huge (over `maxBytes`: no more than that is read),
 * binary (a NUL byte in its first 8 KiB) or unreadable.
 */
export async function readSourceFile(file: SourceFile, skipped?: Map<SkipReason, number>, maxBytes = MAX_FILE_BYTES): Promise<string | undefined> {
  const skip = (why: SkipReason) => { if (skipped) count(skipped, why); return undefined; };
  let got = 0;
  let fd: number | undefined;
  try {
    // why: one open, the reads until the end (a read of nothing) and one close: no fstat and its Stats object per file,
    // no buffer per file. A file is huge when it holds more than maxBytes, so at most maxBytes + 1 are read.
    fd = openSync(file.abs, 'r');
    const limit = maxBytes + 1;
    for (let n = 1; n > 0 && got < limit; got += n) {
      if (got === readBuffer.length) {
        const grown = Buffer.allocUnsafeSlow(Math.min(limit, 2 * got));
        readBuffer.copy(grown, 0, 0, got);
        readBuffer = grown;
      }
      n = readSync(fd, readBuffer, got, Math.min(readBuffer.length, limit) - got, null);
    }
  } catch {
    return skip('unreadable');
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (got > maxBytes) return skip('huge (> 1 MiB)');
  if (readBuffer.subarray(0, Math.min(got, 8192)).includes(0)) return skip('binary');
  return readBuffer.toString('utf8', 0, got);
}

export interface ProjectScan {
  facts: FileFacts[];
  skipped: Map<SkipReason, number>;
  /** Directories of source skipped as ignored (see SourceListing). */
  ignoredDirs: IgnoredSourceDir[];
  /** True when git said which files it tracks. */
  git: boolean;
  /** Files read and extracted, and their total size in bytes. */
  files: number;
  bytes: number;
  /**
   * Files skipped with their reason: unparsed for what they hold or where they lie (minified, generated,
   * vendored), or given up on while being read (past the time budget, out of memory: FileSkipped).
   */
  skippedFiles?: { file: string; reason: string }[];
}

/** What extracts a file's facts: core's FactsCache in this thread, or the reader thread (FactsWorker) that may throw FileSkipped. */
export type FactsExtractor = Pick<FactsCache, 'update'>;

export interface ScanOptions extends ListOptions {
  /** Told the files listed, in the order they will be read, before the first is read. */
  listed?: (files: readonly SourceFile[]) => void;
  /** Files given up on before (relative path → reason): counted and named as FileSkipped is, not read again. */
  skip?: ReadonlyMap<string, string>;
}

/** Lists, reads and extracts every source file under `root` through `cache` (one file at a time). */
export async function scanProject(root: string, cache: FactsExtractor, opts: ScanOptions = {}): Promise<ProjectScan> {
  const listing = await listSourceFiles(root, opts);
  opts.listed?.(listing.files);
  const result: ProjectScan = { facts: [], skipped: listing.skipped, ignoredDirs: listing.ignoredDirs, git: listing.git, files: 0, bytes: 0, skippedFiles: [] };
  for (const f of listing.files) {
    const text = await readSourceFile(f, listing.skipped);
    if (text === undefined) continue;
    // why: a minified bundle (jQuery in public/) holds none of the app's statements and cost a parser gigabytes
    const why = skipReason(f.rel, text, opts);
    if (why) {
      count(listing.skipped, 'minified, generated or vendored');
      result.skippedFiles!.push({ file: f.rel, reason: why });
      continue;
    }
    let facts: FileFacts | undefined;
    try {
      const lost = opts.skip?.get(f.rel);
      if (lost !== undefined) throw new FileSkipped(f.rel, lost);
      facts = await cache.update(f.rel, text, f.language);
    } catch (err) {
      if (!(err instanceof FileSkipped)) throw err;
      count(listing.skipped, 'past the budget per file');
      result.skippedFiles!.push({ file: f.rel, reason: err.reason });
      continue;
    }
    if (!facts) continue;
    result.files++;
    result.bytes += Buffer.byteLength(text);
    result.facts.push(facts);
  }
  return result;
}

/** What .gitignore rules leave out of a directory, for a scan that lists its files another way (the editor's). */
export interface IgnoredSources {
  /** True when `rel` (relative to the root, '/'-separated) is ignored and untracked, itself or through a directory. */
  ignores(rel: string): boolean;
  /** Directories of source skipped as ignored (see SourceListing). */
  dirs: IgnoredSourceDir[];
  git: boolean;
}

/**
 * The `scan` command's rule for ignored files under `root` (.gitignore files; tracked files stay in a git
 * work tree), so the editor's workspace scan leaves out what the CLI leaves out and can name the same directories.
 */
export async function ignoredSources(root: string, opts: ListOptions = {}): Promise<IgnoredSources> {
  const listing = await listSourceFiles(root, opts);
  const files = new Set(listing.ignored.filter((p) => !p.endsWith('/')));
  const dirs = listing.ignored.filter((p) => p.endsWith('/'));
  return {
    ignores: (rel) => files.has(rel) || dirs.some((d) => rel.startsWith(d)),
    dirs: listing.ignoredDirs,
    git: listing.git,
  };
}

/** One line saying that a directory of source was skipped as ignored, for stderr or a log. */
export function ignoredDirNote(d: IgnoredSourceDir, git: boolean): string {
  const n = `${d.more ? 'at least ' : ''}${d.sourceFiles} source file${d.sourceFiles === 1 && !d.more ? '' : 's'}`;
  return `skipped ${d.dir}/ (${n}): ignored by .gitignore${git ? ' and none of it tracked by git' : ' (not a git work tree)'}`;
}
