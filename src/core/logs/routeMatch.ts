/**
 * Matching request paths to route patterns as frameworks write them: `:id` (Express, gin, echo,
 * Sinatra, Kossy), `{id}` / `{id:[0-9]+}` / `{path...}` / `{$}` (Go net/http 1.22, chi, gorilla/mux,
 * FastAPI, actix, axum), `<int:id>` (Flask), `<id:int>` / `<n:re:…>` (Bottle), `<:id>` (Mojolicious),
 * `*` / `*name` wildcards, `#name` (Mojolicious relaxed), optional `:id?` / `{id?}`.
 */
import type { Route } from '../model';

export interface CompiledPattern {
  /** Anchored regular expression over the path (query string already dropped). */
  regex: RegExp;
  /** Literal text every matching path starts with (a cheap pre-check). */
  prefix: string;
  /** Count of literal characters: more is more specific. */
  literalChars: number;
  params: number;
  /** Ends in a wildcard that swallows whole subtrees (`/*`, `{path...}`, net/http `/static/`). */
  catchAll: boolean;
}

const CONVERTERS: Record<string, string> = {
  int: '\\d+', integer: '\\d+', float: '\\d+(?:\\.\\d+)?', number: '\\d+(?:\\.\\d+)?', path: '.+', str: '[^/]+', string: '[^/]+',
  uuid: '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}', any: '[^/]+', word: '\\w+', slug: '[-\\w]+',
};

const ONE_SEGMENT = '[^/]+';

function escapeRe(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

/** Index after the bracket closing the one at `i` (`{`…`}` or `<`…`>`), honouring nesting and escapes. */
function closing(p: string, i: number, open: string, close: string): number {
  let depth = 0;
  for (let j = i; j < p.length; j++) {
    const c = p[j];
    if (c === '\\') { j++; continue; }
    if (c === open) depth++;
    else if (c === close && --depth === 0) return j + 1;
  }
  return -1;
}

/** Turns a regex written for Go/Python/Perl into one JavaScript accepts (named groups, inline flags). */
function jsRegexBody(re: string): string {
  return re.replace(/\(\?P</g, '(?<').replace(/^\^/, '').replace(/\$$/, '');
}

/**
 * Compiles one route pattern. A leading method (`GET /items/{id}`) and host (`example.com/…`) are
 * ignored; `subtree` makes a trailing `/` match everything below it (Go net/http).
 */
export function compileRoutePattern(pattern: string, subtree = false): CompiledPattern {
  let p = pattern.trim().replace(/^[A-Z]+\s+/, '');
  if (!p.startsWith('/') && p.includes('/')) p = p.slice(p.indexOf('/'));
  if (!p.startsWith('/')) p = '/' + p;
  let out = '';
  let prefix = '';
  let literal = 0;
  let params = 0;
  let catchAll = false;
  let inPrefix = true;
  let exactEnd = false;
  const param = (re: string, optional: boolean, wildcard = false) => {
    params++;
    inPrefix = false;
    if (wildcard) catchAll = true;
    const body = `(?:${re})`;
    if (optional && out.endsWith('\\/')) out = `${out.slice(0, -2)}(?:\\/${body})?`;
    else out += optional ? `${body}?` : body;
  };
  for (let i = 0; i < p.length;) {
    const c = p[i];
    const atSegStart = i > 0 && p[i - 1] === '/';
    // why: Express and friends take `:name` after any non-word character (`/@:user`, `/:from-:to`),
    // while `/things:batch` (Google style) is literal.
    if (c === ':' && i > 0 && !/\w/.test(p[i - 1]) && /[A-Za-z_]/.test(p[i + 1] ?? '')) {
      let j = i + 1;
      while (j < p.length && /\w/.test(p[j])) j++;
      let re = p[j] === '-' || p[j] === '.' ? '[^/]+?' : ONE_SEGMENT;
      if (p[j] === '(') {
        const end = closing(p, j, '(', ')');
        if (end > 0) { re = jsRegexBody(p.slice(j + 1, end - 1)); j = end; }
      }
      let optional = false;
      if (p[j] === '?') { optional = true; j++; } else if (p[j] === '*' || p[j] === '+') { re = '.+'; j++; }
      param(re, optional);
      i = j;
    } else if (c === '{') {
      const end = closing(p, i, '{', '}');
      if (end < 0) { out += escapeRe(c); i++; continue; }
      const inner = p.slice(i + 1, end - 1).trim();
      i = end;
      if (inner === '$') { exactEnd = true; continue; }
      const colon = inner.indexOf(':');
      let name = colon >= 0 ? inner.slice(0, colon) : inner;
      const spec = colon >= 0 ? inner.slice(colon + 1).trim() : '';
      if (name.startsWith('*')) { param('.*', false, true); continue; }
      if (name.endsWith('...')) { param('.*', false, true); continue; }
      let optional = false;
      if (name.endsWith('?')) { optional = true; name = name.slice(0, -1); }
      const re = spec ? (CONVERTERS[spec] ?? jsRegexBody(spec)) : ONE_SEGMENT;
      param(re, optional, spec === 'path' || spec === '.*' || spec === '.+');
    } else if (c === '<' && atSegStart) {
      const end = closing(p, i, '<', '>');
      if (end < 0) { out += escapeRe(c); i++; continue; }
      const parts = p.slice(i + 1, end - 1).split(':');
      i = end;
      let re = ONE_SEGMENT;
      const conv0 = parts[0].replace(/\(.*\)$/, '');
      if (parts.length >= 2 && CONVERTERS[conv0] !== undefined) re = CONVERTERS[conv0]; // Flask <int:id>
      else if (parts[1] === 're' && parts.length >= 3) re = jsRegexBody(parts.slice(2).join(':')); // Bottle <n:re:…>
      else if (parts.length >= 2 && CONVERTERS[parts[1]] !== undefined) re = CONVERTERS[parts[1]]; // Bottle <id:int>
      param(re, false, re === '.+');
    } else if ((c === '*') && (atSegStart || i === p.length - 1)) {
      let j = i + 1;
      while (j < p.length && /\w/.test(p[j])) j++;
      param('.*', false, j >= p.length);
      i = j;
    } else if (c === '#' && atSegStart) {
      let j = i + 1;
      while (j < p.length && /\w/.test(p[j])) j++;
      param(ONE_SEGMENT, false);
      i = j;
    } else {
      out += escapeRe(c);
      literal++;
      if (inPrefix) prefix += c;
      i++;
    }
  }
  if (subtree && p.endsWith('/') && !exactEnd) { out += '.*'; catchAll = true; }
  const tail = exactEnd || catchAll || p === '/' ? '' : '\\/?';
  return { regex: new RegExp(`^${out}${tail}$`), prefix, literalChars: literal, params, catchAll };
}

interface CompiledRoute extends CompiledPattern { route: Route; method: string }

/**
 * Finds the route serving a request. The most specific pattern wins (more literal characters,
 * then fewer parameters), as routers do; catch-all routes are kept apart so callers can try them last.
 */
export class RouteMatcher {
  private readonly specific: CompiledRoute[] = [];
  private readonly catchAlls: CompiledRoute[] = [];
  /** Patterns that could not be compiled, with the reason. */
  readonly rejected: { route: Route; reason: string }[] = [];

  constructor(routes: readonly Route[]) {
    for (const route of routes) {
      try {
        const c = compileRoutePattern(route.pattern, route.framework === 'net/http');
        const compiled = { ...c, route, method: route.method.toUpperCase() };
        (c.catchAll ? this.catchAlls : this.specific).push(compiled);
      } catch (err) {
        this.rejected.push({ route, reason: (err as Error).message });
      }
    }
    const order = (a: CompiledRoute, b: CompiledRoute) => b.literalChars - a.literalChars || a.params - b.params;
    this.specific.sort(order);
    this.catchAlls.sort(order);
  }

  get size(): number { return this.specific.length + this.catchAlls.length; }

  /** The most specific non-catch-all route for the request, if any. */
  match(method: string, path: string): Route | undefined {
    return find(this.specific, method, path);
  }

  /** The most specific catch-all route (`/static/*`, net/http `/`), if any. */
  matchCatchAll(method: string, path: string): Route | undefined {
    return find(this.catchAlls, method, path);
  }
}

function find(list: readonly CompiledRoute[], method: string, path: string): Route | undefined {
  for (const r of list) {
    if (r.method !== 'ANY' && r.method !== method && !(method === 'HEAD' && r.method === 'GET')) continue;
    if (!path.startsWith(r.prefix)) continue;
    if (r.regex.test(path)) return r.route;
  }
  return undefined;
}
