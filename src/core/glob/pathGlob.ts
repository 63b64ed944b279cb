/**
 * Glob patterns over `/`-separated relative paths, with the syntax VS Code's own globs have (what
 * `findFiles` and `files.exclude` take): `*` and `?` within one segment, `**` across segments,
 * `{a,b}` alternatives (nested too), `[abc]`, `[a-z]` and `[!a]` / `[^a]` classes. The editor's scan
 * and its file watcher decide exclusion with this one matcher, so they cannot disagree.
 */

const cache = new Map<string, RegExp>();

/** Escapes a character that has a meaning in a regular expression. */
function lit(c: string): string {
  return /[.+^$()|[\]{}\\*?/]/.test(c) ? `\\${c}` : c;
}

/** Translates `[...]` starting at `i`; returns the class and the index after it, or undefined when unclosed. */
function charClass(glob: string, i: number): { re: string; next: number } | undefined {
  let j = i + 1;
  let negate = false;
  if (glob[j] === '!' || glob[j] === '^') { negate = true; j++; }
  let body = '';
  // why: a `]` right after the opening bracket is a member, as in shell globs.
  if (glob[j] === ']') { body += '\\]'; j++; }
  for (; j < glob.length && glob[j] !== ']'; j++) {
    const c = glob[j];
    if (c === '-' && body && glob[j + 1] !== ']' && j + 1 < glob.length) body += '-';
    else body += c === '\\' || c === '^' || c === '[' || c === ']' || c === '-' ? `\\${c}` : c;
  }
  if (j >= glob.length) return undefined;
  // why: a class stands for one character of one segment: it never matches the separator.
  return { re: negate ? `[^/${body}]` : `(?:(?!/)[${body}])`, next: j + 1 };
}

/** The regular expression a glob compiles to (anchored at both ends; cached). */
export function globToRegExp(glob: string): RegExp {
  let re = cache.get(glob);
  if (re) return re;
  let out = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      // `**` is a whole segment (any depth, none included) when it stands between separators
      let j = i;
      while (glob[j] === '*') j++;
      const atStart = i === 0 || glob[i - 1] === '/';
      if (atStart && glob[j] === '/') { out += '(?:[^/]*/)*'; i = j; }
      else if (atStart && j === glob.length) { out += '.*'; i = j - 1; }
      else { out += '[^/]*'; i = j - 1; }
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const cls = charClass(glob, i);
      if (cls) { out += cls.re; i = cls.next - 1; } else out += '\\[';
    } else if (c === '{') { braces++; out += '(?:'; }
    else if (c === '}' && braces > 0) { braces--; out += ')'; }
    else if (c === ',' && braces > 0) out += '|';
    else out += lit(c);
  }
  while (braces-- > 0) out += ')';
  re = new RegExp(`^${out}$`);
  cache.set(glob, re);
  return re;
}

/**
 * True when a relative path, or one of the folders on its way, matches one of the globs: a glob
 * that names a folder (`**​/node_modules`) excludes everything under it, as it does for `findFiles`.
 */
export function isExcluded(path: string, globs: readonly string[]): boolean {
  if (!globs.length) return false;
  const res = globs.map(globToRegExp);
  for (let end = path.indexOf('/'); end !== -1; end = path.indexOf('/', end + 1)) {
    const folder = path.slice(0, end);
    if (res.some((r) => r.test(folder))) return true;
  }
  return res.some((r) => r.test(path));
}
