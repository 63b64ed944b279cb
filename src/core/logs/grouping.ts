/**
 * Decides which endpoint a request belongs to: the app's own route patterns first, then the
 * user's regular expressions (alp `-m`: first match wins, the expression is the group's name),
 * static files by extension, then automatic normalisation of ids as the fallback.
 */
import type { Route } from '../model';
import { compileByteRegex, type ByteMatcher } from './byteRegex';
import { guardUserRegex, type GuardedRegex } from './regexGuard';
import { RouteMatcher } from './routeMatch';

export type GroupKind = 'route' | 'regex' | 'static' | 'auto' | 'literal';

/** An endpoint's identity apart from the method. Shared by every request that falls in it. */
export interface Group {
  uri: string;
  kind: GroupKind;
  route?: Route;
}

export interface GroupingOptions {
  routes?: readonly Route[];
  /** alp `-m` expressions (Go RE2 syntax mostly works as is; `(?P<n>` and a leading `(?i)` are translated). */
  matchingGroups?: readonly string[];
  /** Group static files as `<dir>/*.<ext>` (default true). */
  staticByExtension?: boolean;
  /** Extensions counted as static files (default: common web assets; not .json). */
  staticExtensions?: readonly string[];
  /** Replace ids (numbers, UUIDs, hex, long tokens) by placeholders when nothing else matched (default true). */
  normalize?: boolean;
}

export const DEFAULT_STATIC_EXTENSIONS: readonly string[] = [
  'css', 'js', 'mjs', 'map', 'png', 'jpg', 'jpeg', 'gif', 'svg', 'ico', 'webp', 'avif', 'bmp', 'woff', 'woff2', 'ttf', 'otf', 'eot',
  'mp3', 'mp4', 'webm', 'ogg', 'wav', 'pdf', 'txt', 'html', 'htm', 'xml', 'wasm', 'zip', 'gz',
];

interface UserRegex {
  re: GuardedRegex;
  name: string;
  prefix: string;
  /** The same expression matched on a path's ASCII bytes, when it is of the shape byteRegex.ts compiles. */
  bytes: ByteMatcher | undefined;
  group?: Group;
}

/** Paths longer than this are not given to the user's expressions (they fall through to normalisation). */
const MAX_REGEX_PATH = 4096;

/**
 * Splits alp's `-m` value: comma-separated expressions. A comma inside `{m,n}`, `[...]` or after a
 * backslash belongs to the expression.
 */
export function splitMatchingGroups(value: string): string[] {
  const out: string[] = [];
  let cur = '';
  let brace = 0;
  let bracket = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '\\' && i + 1 < value.length) { cur += c + value[++i]; continue; }
    if (bracket) { if (c === ']') bracket = false; cur += c; continue; }
    if (c === '[') bracket = true;
    else if (c === '{') brace++;
    else if (c === '}' && brace > 0) brace--;
    else if (c === ',' && brace === 0) { if (cur.trim()) out.push(cur.trim()); cur = ''; continue; }
    cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/**
 * Compiles one user expression behind the regex guard (length cap, time guard); throws with the
 * expression quoted when it is invalid or refused as not linear.
 */
export function compileUserRegex(source: string): UserRegex {
  let body = source.replace(/\(\?P</g, '(?<');
  let flags = '';
  const inline = /^\(\?([imsU]+)\)/.exec(body);
  if (inline) {
    body = body.slice(inline[0].length);
    if (inline[1].includes('i')) flags += 'i';
    if (inline[1].includes('s')) flags += 's';
  }
  let re: GuardedRegex;
  try { re = guardUserRegex(body, flags, MAX_REGEX_PATH); } catch (err) { throw new Error(`matching group ${(err as Error).message}`); }
  const prefix = flags.includes('i') ? '' : literalPrefix(body);
  // why: a path reaches an expression only through the trie of the prefixes (Grouper.groupBytes), so it starts with this one.
  return { re, name: source, prefix, bytes: compileByteRegex(body, flags, prefix) };
}

/** The literal text an anchored expression requires at the start ('' when it cannot tell). */
export function literalPrefix(body: string): string {
  if (!body.startsWith('^')) return '';
  // why: a top-level `|` means the anchor covers only the first alternative.
  let depth = 0;
  let cls = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\') { i++; continue; }
    if (cls) { if (c === ']') cls = false; continue; }
    if (c === '[') cls = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) return '';
  }
  let prefix = '';
  for (let i = 1; i < body.length; i++) {
    let c = body[i];
    let width = 1;
    if (c === '\\') {
      const n = body[i + 1];
      if (n === undefined || /[A-Za-z0-9]/.test(n)) break;
      c = n;
      width = 2;
    } else if ('.^$|?*+()[]{}'.includes(c)) break;
    const next = body[i + width];
    if (next === '?' || next === '*' || next === '{') break;
    prefix += c;
    i += width - 1;
  }
  return prefix;
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const HEX = /^[0-9a-fA-F]+$/;
const TOKEN = /^[A-Za-z0-9_-]+$/;

/** Replaces an id-like path segment by a placeholder (`:id`, `:uuid`, `:hex`, `:token`), or returns it unchanged. */
export function normalizeSegment(seg: string): string {
  if (seg === '') return seg;
  let name = seg;
  let ext = '';
  const dot = seg.lastIndexOf('.');
  if (dot > 0 && seg.length - dot <= 6 && /^\.[A-Za-z0-9]+$/.test(seg.slice(dot))) { name = seg.slice(0, dot); ext = seg.slice(dot); }
  let c = name.charCodeAt(0);
  let digits = true;
  for (let i = 0; i < name.length && digits; i++) { c = name.charCodeAt(i); digits = c >= 48 && c <= 57; }
  if (digits) return ':id' + ext;
  if (name.length === 36 && UUID.test(name)) return ':uuid' + ext;
  const hasDigit = /\d/.test(name);
  if (HEX.test(name) && ((name.length >= 8 && hasDigit) || name.length >= 16)) return ':hex' + ext;
  if (name.length >= 16 && TOKEN.test(name) && hasDigit && /[A-Za-z]/.test(name)) return ':token' + ext;
  return seg;
}

/** Normalises every segment of a path: `/items/12345.json` → `/items/:id.json`. */
export function normalizePath(path: string): string {
  return path.split('/').map(normalizeSegment).join('/');
}

const CACHE_LIMIT = 1 << 16;
/** Paths whose group is found from their bytes (Grouper.byteCache): the ones that repeat are few. */
const BYTE_CACHE_LIMIT = 1 << 12;

/** FNV-1a of bytes b[s, e). */
function hashBytes(b: Uint8Array, s: number, e: number): number {
  let h = 0x811c9dc5;
  for (let i = s; i < e; i++) h = Math.imul(h ^ b[i], 0x01000193);
  return h;
}

/** True when `a` holds the bytes b[s, e). */
function sameBytes(a: Uint8Array, b: Uint8Array, s: number, e: number): boolean {
  if (a.length !== e - s) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[s + i]) return false;
  return true;
}
/** Distinct groups (static, automatic and literal paths together) before the rest share OVERFLOW_GROUP. */
export const GROUP_LIMIT = 50_000;

/** Where requests go once the number of distinct groups passes GROUP_LIMIT (or the aggregator's endpoint cap). */
export const OVERFLOW_GROUP: Group = { uri: '(other: too many distinct endpoints)', kind: 'literal' };

/**
 * A node of the trie of the expressions' literal prefixes: `list` holds, in the user's order, every
 * expression whose prefix is this node's text or a shorter part of it (the ones a path reaching this
 * node, and no deeper, may match).
 */
interface PrefixNode { ascii: (PrefixNode | undefined)[]; wide: Map<number, PrefixNode> | undefined; list: UserRegex[] }

function prefixNode(list: UserRegex[]): PrefixNode { return { ascii: new Array<PrefixNode | undefined>(128).fill(undefined), wide: undefined, list }; }

/** The trie of the expressions' literal prefixes (see PrefixNode). */
function prefixTrie(regexes: UserRegex[]): PrefixNode {
  const root = prefixNode(regexes.filter((r) => r.prefix === ''));
  for (const r of regexes) {
    let node = root;
    for (let i = 0; i < r.prefix.length; i++) {
      const c = r.prefix.charCodeAt(i);
      let next = c < 128 ? node.ascii[c] : node.wide?.get(c);
      if (!next) {
        const text = r.prefix.slice(0, i + 1);
        next = prefixNode(regexes.filter((x) => text.startsWith(x.prefix)));
        if (c < 128) node.ascii[c] = next; else (node.wide ??= new Map()).set(c, next);
      }
      node = next;
    }
  }
  return root;
}

/** A request's path as bytes b[pathStart, pathEnd) (pathAscii: all < 128), and as a string. */
export interface PathBytes {
  readonly pathBytes: Uint8Array;
  readonly pathStart: number;
  readonly pathEnd: number;
  readonly pathAscii: boolean;
  readonly path: string;
}

/**
 * The ASCII part of a prefix trie as one table: next[node · 128 + byte] is the node a byte leads to
 * (-1: none), lists[node] that node's expressions; node 0 is the root. One typed-array read per byte,
 * where the object trie cost a property load and a holey-array load.
 */
interface FlatTrie { next: Int32Array; lists: UserRegex[][] }

function flatTrie(root: PrefixNode): FlatTrie {
  const nodes: PrefixNode[] = [root];
  const index = new Map<PrefixNode, number>([[root, 0]]);
  for (let k = 0; k < nodes.length; k++) {
    for (const child of nodes[k].ascii) if (child && !index.has(child)) { index.set(child, nodes.length); nodes.push(child); }
  }
  const next = new Int32Array(nodes.length * 128).fill(-1);
  nodes.forEach((node, k) => node.ascii.forEach((child, c) => { if (child) next[k * 128 + c] = index.get(child)!; }));
  return { next, lists: nodes.map((n) => n.list) };
}

/** Groups requests; keeps a bounded cache of recent path → group answers. */
export class Grouper {
  private readonly routes?: RouteMatcher;
  private readonly regexes: UserRegex[];
  /** The expressions a path may match, found by walking its first characters down the trie of their literal prefixes. */
  private readonly prefixes: PrefixNode;
  private readonly flat: FlatTrie;
  private readonly staticExt: Set<string> | undefined;
  private readonly normalize: boolean;
  private readonly groups = new Map<string, Group>();
  private readonly routeGroups = new Map<Route, Group>();
  private groupCount = 0;
  private readonly cache = new Map<string, Map<string, Group>>();
  /**
   * The same answers for ASCII paths no expression matched, found from the path's bytes (by a hash
   * of them, the bytes compared): such a path repeats on every request to it, and reading it as a
   * string first cost a string per request.
   */
  private readonly byteCache = new Map<number, { bytes: Uint8Array; group: Group }>();

  constructor(options: GroupingOptions = {}) {
    this.routes = options.routes && options.routes.length ? new RouteMatcher(options.routes) : undefined;
    this.regexes = (options.matchingGroups ?? []).map(compileUserRegex);
    for (const r of this.regexes) r.group = { uri: r.name, kind: 'regex' };
    // why: a path is tried only against the expressions whose literal prefix starts it (first match
    // still wins: each list keeps the user's order), found in one walk over its first characters
    // instead of a startsWith per expression (a dozen share `/api/` in a contest's -m).
    this.prefixes = prefixTrie(this.regexes);
    this.flat = flatTrie(this.prefixes);
    this.staticExt = options.staticByExtension === false ? undefined : new Set((options.staticExtensions ?? DEFAULT_STATIC_EXTENSIONS).map((e) => e.toLowerCase()));
    this.normalize = options.normalize ?? true;
  }

  /** Matching-group expressions retired by the time guard (too slow on some path): reported. */
  get retiredRegexes(): string[] { return this.regexes.filter((r) => r.re.retired).map((r) => r.name); }

  /** Route patterns that could not be compiled (reported, not fatal). */
  get rejectedRoutes(): { route: Route; reason: string }[] { return this.routes?.rejected ?? []; }

  /** The group of a request. `method` is upper case; `path` has no query string unless the caller kept it. */
  group(method: string, path: string): Group {
    // why: without routes the answer does not depend on the method, so one cache serves all.
    const cacheKey = this.routes ? method : '';
    const hit = this.cache.get(cacheKey)?.get(path);
    if (hit) return hit;
    return this.remember(cacheKey, path, this.compute(method, path));
  }

  /**
   * The group of a request whose path is given as bytes (`req.path` decodes them): the user's
   * expressions are tried on ASCII bytes, and a string is built only when none of them decides.
   */
  groupBytes(method: string, req: PathBytes): Group {
    const b = req.pathBytes, s = req.pathStart, e = req.pathEnd;
    // why: routes are matched on strings and come before the expressions; long paths skip the expressions.
    if (this.routes || !req.pathAscii || e - s > MAX_REGEX_PATH || !this.regexes.length) return this.group(method, req.path);
    const table = this.flat.next;
    let node = 0;
    for (let i = s; i < e; i++) {
      const next = table[(node << 7) | b[i]];
      if (next < 0) break;
      node = next;
    }
    const list = this.flat.lists[node];
    for (let i = 0; i < list.length; i++) {
      const r = list[i];
      if (r.bytes === undefined) return this.group(method, req.path);
      if (r.bytes(b, s, e)) return r.group!;
    }
    // No expression matches: the rest needs the string (the cache, static files, normalisation).
    const hash = hashBytes(b, s, e);
    const known = this.byteCache.get(hash);
    if (known !== undefined && sameBytes(known.bytes, b, s, e)) return known.group;
    const path = req.path;
    const hit = this.cache.get('')?.get(path);
    const g = hit ?? this.remember('', path, this.computeRest(method, path));
    if (g.uri === path) {
      if (this.byteCache.size >= BYTE_CACHE_LIMIT) this.byteCache.clear();
      this.byteCache.set(hash, { bytes: b.slice(s, e), group: g });
    }
    return g;
  }

  private remember(cacheKey: string, path: string, g: Group): Group {
    let byPath = this.cache.get(cacheKey);
    if (!byPath) { byPath = new Map(); this.cache.set(cacheKey, byPath); }
    // why: only paths that are their own group repeat often; caching id-bearing paths just churns the map.
    if (g.uri === path || (g.kind === 'route' && g.uri.length === path.length)) {
      if (byPath.size >= CACHE_LIMIT) byPath.clear();
      byPath.set(path, g);
    }
    return g;
  }

  private compute(method: string, path: string): Group {
    const route = this.routes?.match(method, path);
    if (route) return this.routeGroup(route);
    let node = this.prefixes;
    for (let i = 0; i < path.length; i++) {
      const c = path.charCodeAt(i);
      const next = c < 128 ? node.ascii[c] : node.wide?.get(c);
      if (next === undefined) break;
      node = next;
    }
    const list = node.list;
    for (let i = 0; i < list.length; i++) {
      const r = list[i];
      // why: test, not exec: a match object per request is garbage the hot loop does not need.
      if (r.re.test(path)) return r.group!;
    }
    return this.computeRest(method, path);
  }

  /** The group of a path no expression matched: static files, catch-all routes, normalisation, the path itself. */
  private computeRest(method: string, path: string): Group {
    const q = path.indexOf('?');
    const bare = q >= 0 ? path.slice(0, q) : path;
    if (this.staticExt) {
      const slash = bare.lastIndexOf('/');
      const dot = bare.lastIndexOf('.');
      if (dot > slash + 1) {
        const ext = bare.slice(dot + 1).toLowerCase();
        if (this.staticExt.has(ext)) {
          const dir = bare.slice(0, slash);
          return this.intern(`${this.normalize ? normalizePath(dir) : dir}/*.${ext}`, 'static');
        }
      }
    }
    const catchAll = this.routes?.matchCatchAll(method, path);
    if (catchAll) return this.routeGroup(catchAll);
    if (this.normalize) {
      const n = normalizePath(bare) + (q >= 0 ? path.slice(q) : '');
      if (n !== path) return this.intern(n, 'auto');
    }
    return this.intern(path, 'literal');
  }

  private routeGroup(route: Route): Group {
    let g = this.routeGroups.get(route);
    if (!g) { g = { uri: route.pattern, kind: 'route', route }; this.routeGroups.set(route, g); }
    return g;
  }

  private intern(uri: string, kind: 'static' | 'auto' | 'literal'): Group {
    // why: the kind is visible in the uri ('*.' for static, ':' placeholders for auto) except for
    // literal paths that look like them; keep those apart by a prefix only they need.
    const key = kind === 'literal' ? `\u0000${uri}` : uri;
    let g = this.groups.get(key);
    if (!g) {
      // why: literal paths are unbounded on an unnormalised log; past the cap they share one group.
      if (this.groupCount >= GROUP_LIMIT) return OVERFLOW_GROUP;
      g = { uri, kind };
      this.groups.set(key, g);
      this.groupCount++;
    }
    return g;
  }
}
