/**
 * Route discovery for Perl over the Perl lexer's tokens: Kossy and Mojolicious::Lite style verbs at
 * statement start (`get '/x' => sub {…};`, `router ['GET','POST'] => '/x' => sub {…};`) and
 * Mojolicious routes objects (`$r->get('/x')->to('items#show')`, `my $api = $r->under('/api')`).
 */
import type { Range, Route } from '../../../model';
import { joinSqlParts } from '../../sqlText';
import { lexPerl, type Token } from './perlLexer';
import { isOp, matchBrackets } from './perlTerms';
import { RouterGraph, type RouterId } from '../../routes/routerGraph';

const VERBS: Record<string, string> = {
  get: 'GET', post: 'POST', put: 'PUT', del: 'DELETE', delete: 'DELETE', patch: 'PATCH', any: 'ANY', options: 'OPTIONS', head: 'HEAD', router: 'ANY', under: '',
};

function strValue(t: Token | undefined): string | undefined {
  if (!t || t.kind !== 'str' || !t.parts || t.parts.some((p) => p.dynamic)) return undefined;
  return joinSqlParts(t.parts).sql;
}

function lineIndex(text: string): (offset: number) => { line: number; character: number } {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0, hi = starts.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (starts[mid] <= offset) lo = mid; else hi = mid - 1; }
    return { line: lo, character: offset - starts[lo] };
  };
}

interface SubDef { name: string; pkg?: string; range: Range }

/** The routes of one Perl file; handler names are resolved to the file's named subs when they are there. */
export function discoverPerlRoutes(file: string, text: string): Route[] {
  if (!/\b(?:get|post|put|del|delete|patch|any|router)\b/.test(text)) return [];
  const pos = lineIndex(text);
  const range = (s: number, e: number): Range => ({ start: pos(s), end: pos(e) });
  const { tokens } = lexPerl(text);
  const { match } = matchBrackets(tokens);
  const n = tokens.length;
  const framework = /Mojolicious/.test(text) ? 'mojolicious' : /\bKossy\b/.test(text) ? 'kossy' : /\bDancer2?\b/.test(text) ? 'dancer' : 'kossy';
  const graph = new RouterGraph();
  const subs: SubDef[] = [];
  const pending: { router: RouterId; method: string; path: string; range: Range; handler?: { name: string; owner?: string; range?: Range } }[] = [];
  let pkg: string | undefined;

  const closeOf = (i: number): number => (match[i] >= 0 ? match[i] : n - 1);
  const boundary = (t: Token | undefined) => !t || isOp(t, ';') || isOp(t, '{') || isOp(t, '}');

  /** The router a receiver chain ending just before token `end` (exclusive, the `->`) stands for. */
  function routerBefore(end: number): RouterId {
    const t = tokens[end - 1];
    if (t?.kind === 'var') return `var:${t.text}`;
    if (isOp(t, ')') && match[end - 1] >= 0) {
      const open = match[end - 1];
      const w = tokens[open - 1];
      if (w?.kind === 'word' && w.text === 'under' && isOp(tokens[open - 2], '->')) {
        const id = `node:${open}`;
        graph.link(id, routerBefore(open - 2), strValue(tokens[open + 1]) ?? '');
        return id;
      }
      if (w?.kind === 'word' && isOp(tokens[open - 2], '->')) return routerBefore(open - 2);
    }
    if (t?.kind === 'word' && isOp(tokens[end - 2], '->')) return routerBefore(end - 2);
    return 'root';
  }

  for (let i = 0; i < n; i++) {
    const t = tokens[i];
    if (t.kind !== 'word') continue;
    if (t.text === 'package' && tokens[i + 1]?.kind === 'word') { pkg = tokens[i + 1].text; continue; }
    if (t.text === 'sub' && tokens[i + 1]?.kind === 'word') {
      let j = i + 2;
      while (j < n && !isOp(tokens[j], '{') && !isOp(tokens[j], ';')) j++;
      if (isOp(tokens[j], '{')) {
        const full = tokens[i + 1].text;
        const k = full.lastIndexOf('::');
        subs.push({ name: k >= 0 ? full.slice(k + 2) : full, pkg: k >= 0 ? full.slice(0, k) : pkg, range: range(t.start, tokens[closeOf(j)].end) });
      }
      continue;
    }
    if (!(t.text in VERBS)) continue;
    const prev = tokens[i - 1];
    let router: RouterId;
    if (isOp(prev, '->')) router = routerBefore(i - 1);
    else if (boundary(prev) || (prev?.kind === 'op' && prev.text === '=' )) router = 'root';
    else continue;
    let j = i + 1;
    let callEnd = -1;
    if (isOp(tokens[j], '(')) { callEnd = closeOf(j); j++; }
    let methods: string[] = [VERBS[t.text]];
    if (t.text === 'router') {
      if (isOp(tokens[j], '[')) {
        const close = closeOf(j);
        methods = [];
        for (let k = j + 1; k < close; k++) { const v = strValue(tokens[k]); if (v) methods.push(v.toUpperCase()); }
        j = close + 1;
      } else if (tokens[j]?.kind === 'str') {
        methods = [(strValue(tokens[j]) ?? 'ANY').toUpperCase()];
        j++;
      } else if (tokens[j]?.kind === 'opaque' && /^qw/.test(text.slice(tokens[j].start, tokens[j].end))) {
        methods = text.slice(tokens[j].start + 3, tokens[j].end - 1).trim().split(/\s+/).map((m) => m.toUpperCase());
        j++;
      }
      if (isOp(tokens[j], '=>') || isOp(tokens[j], ',')) j++;
    }
    const path = strValue(tokens[j]);
    if (path === undefined || !path.startsWith('/')) continue;
    const stmtEnd = callEnd >= 0 ? callEnd : (() => { let k = j; while (k < n && !isOp(tokens[k], ';')) { if (match[k] > k) k = match[k]; k++; } return k; })();
    // handler: an anonymous sub, \&name, or a Mojolicious ->to('controller#action')
    let handler: { name: string; owner?: string; range?: Range } | undefined;
    for (let k = j + 1; k < stmtEnd && !handler; k++) {
      const x = tokens[k];
      if (x.kind === 'word' && x.text === 'sub') {
        // `sub {` or a signature first: `sub ($c) {`
        const body = isOp(tokens[k + 1], '(') && match[k + 1] > 0 ? match[k + 1] + 1 : k + 1;
        // why: the same name the SQL extractor gives the anonymous sub, so its statements and the route meet.
        const verb = t.text === 'router' || t.text === 'any' ? 'ANY' : t.text === 'del' ? 'DELETE' : t.text.toUpperCase();
        if (isOp(tokens[body], '{')) handler = { name: `${verb} ${path}`, range: range(x.start, tokens[closeOf(body)].end) };
      } else if (isOp(x, '\\') && isOp(tokens[k + 1], '&') && tokens[k + 2]?.kind === 'word') {
        handler = { name: tokens[k + 2].text.replace(/^.*::/, '') };
      } else if (isOp(tokens[k], '{') && match[k] > k) k = match[k];
    }
    let k = callEnd >= 0 ? callEnd + 1 : stmtEnd;
    while (!handler && isOp(tokens[k], '->') && tokens[k + 1]?.kind === 'word') {
      const w = tokens[k + 1].text;
      const open = k + 2;
      const close = isOp(tokens[open], '(') ? closeOf(open) : open - 1;
      if (w === 'to' && close > open) {
        const first = strValue(tokens[open + 1]);
        if (first && first.includes('#')) {
          const [c, a] = first.split('#');
          handler = { name: a, owner: c.replace(/(^|_)(\w)/g, (_m, _u, ch: string) => ch.toUpperCase()) };
        } else {
          const kv = new Map<string, string>();
          for (let q = open + 1; q + 2 <= close; q++) if (isOp(tokens[q + 1], '=>')) { const v = strValue(tokens[q + 2]); if (v) kv.set(tokens[q].kind === 'str' ? strValue(tokens[q]) ?? '' : tokens[q].text, v); }
          const ctl = kv.get('controller');
          if (kv.get('action')) handler = { name: kv.get('action')!, owner: ctl?.replace(/(^|_)(\w)/g, (_m, _u, ch: string) => ch.toUpperCase()) };
        }
      }
      k = close + 1;
    }
    if (t.text === 'under') {
      // my $api = $r->under('/api'): the variable is a group
      let a = i - 1;
      if (isOp(tokens[a], '->')) { a--; while (a > 0 && !isOp(tokens[a], '=') && !boundary(tokens[a])) a--; }
      if (isOp(tokens[a], '=') && tokens[a - 1]?.kind === 'var') graph.link(`var:${tokens[a - 1].text}`, router, path);
      continue;
    }
    for (const m of methods) pending.push({ router, method: m || 'ANY', path, range: range(t.start, tokens[Math.max(j, Math.min(stmtEnd, n - 1))].end), handler });
  }

  return pending.map((p) => {
    const prefix = graph.prefixOf(p.router);
    const pattern = prefix ? prefix.replace(/\/$/, '') + (p.path === '/' ? '' : p.path) || '/' : p.path;
    const r: Route = { method: p.method, pattern, framework, file, range: p.range };
    if (p.handler) {
      const h = p.handler;
      if (h.range) r.handler = { name: h.name, file, range: h.range };
      else {
        const def = subs.find((s) => s.name === h.name && (!h.owner || (s.pkg ?? '').endsWith(h.owner)));
        r.handler = { name: h.owner ? `${h.owner}::${h.name}` : h.name };
        if (def) { r.handler.file = file; r.handler.range = def.range; }
      }
    }
    return r;
  });
}
