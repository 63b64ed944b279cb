/**
 * Exclude-glob matching for files that change after the scan (the scan itself hands the globs to
 * vscode.workspace.findFiles). Pure: unit-tested under plain Node.
 */

const cache = new Map<string, RegExp>();

/** Enough glob syntax for exclude lists: `**`, `*`, `?`, `{a,b}` (paths are `/`-separated). */
export function globToRegExp(glob: string): RegExp {
  let re = cache.get(glob);
  if (re) return re;
  let out = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '{') { braces++; out += '(?:'; }
    else if (c === '}' && braces > 0) { braces--; out += ')'; }
    else if (c === ',' && braces > 0) out += '|';
    else out += c.replace(/[.+^$()|[\]{}\\]/g, '\\$&');
  }
  re = new RegExp(`^${out}$`);
  cache.set(glob, re);
  return re;
}

/** True when a workspace-relative path matches one of the globs. */
export function isExcluded(file: string, globs: readonly string[]): boolean {
  return globs.some((g) => globToRegExp(g).test(file));
}
