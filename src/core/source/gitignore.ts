/**
 * The common .gitignore rules, for skipping files a project does not track: `#` comments,
 * `!` negation, trailing `/` (directories only), patterns anchored by a `/` at the start or in
 * the middle, `*`, `?`, `[…]` and `**`. The last matching rule wins; a caller that does not
 * descend into ignored directories gets git's "cannot re-include below an excluded directory".
 */

export interface IgnoreRule {
  /** Directory of the .gitignore, relative to the scan root, '/'-separated ('' for the root). */
  base: string;
  negate: boolean;
  dirOnly: boolean;
  re: RegExp;
  source: string;
}

function globToRegex(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0 || glob[i - 1] === '/';
        const atEnd = i + 2 === glob.length || glob[i + 2] === '/';
        if (atStart && atEnd) {
          if (i + 2 === glob.length) out += '.*';
          else { out += '(?:.*/)?'; i++; }
          i++;
          continue;
        }
        i++;
      }
      out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) { out += '\\['; continue; }
      let cls = glob.slice(i + 1, close);
      if (cls.startsWith('!')) cls = '^' + cls.slice(1);
      out += `[${cls.replace(/\\/g, '\\\\')}]`;
      i = close;
    } else if (c === '\\' && i + 1 < glob.length) {
      out += glob[i + 1].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      i++;
    } else out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return out;
}

/** Parses the text of one .gitignore found in directory `base` (relative to the scan root). */
export function parseGitignore(text: string, base = ''): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (let line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    line = line.replace(/(?<!\\)\s+$/, '');
    if (line === '') continue;
    let negate = false;
    if (line.startsWith('!')) { negate = true; line = line.slice(1); }
    else if (line.startsWith('\\!') || line.startsWith('\\#')) line = line.slice(1);
    let dirOnly = false;
    if (line.endsWith('/')) { dirOnly = true; line = line.slice(0, -1); }
    if (line === '') continue;
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    const body = globToRegex(line);
    let re: RegExp;
    // why: a class git accepts may not be a valid RegExp class (`[z-a]`); such a line matches nothing.
    try { re = new RegExp(anchored ? `^${body}$` : `(?:^|/)${body}$`); } catch { continue; }
    rules.push({ base, negate, dirOnly, re, source: line });
  }
  return rules;
}

/**
 * Whether `path` (relative to the scan root, '/'-separated) is ignored by `rules` (in the order
 * git reads them: outer .gitignore files first).
 */
export function isIgnored(path: string, isDir: boolean, rules: readonly IgnoreRule[]): boolean {
  let ignored = false;
  for (const r of rules) {
    if (r.dirOnly && !isDir) continue;
    let rel: string;
    if (r.base === '') rel = path;
    else if (path.startsWith(r.base + '/')) rel = path.slice(r.base.length + 1);
    else continue;
    if (r.re.test(rel)) ignored = !r.negate;
  }
  return ignored;
}
