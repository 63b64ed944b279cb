import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Grouper, literalPrefix, normalizePath, splitMatchingGroups } from '../../../src/core/logs/grouping';
import { compileRoutePattern, RouteMatcher } from '../../../src/core/logs/routeMatch';
import { analyzeAccessLog } from '../../../src/core/logs/accessAnalysis';
import type { Route } from '../../../src/core/model';

const at = { start: { line: 9, character: 0 }, end: { line: 9, character: 10 } };
const route = (method: string, pattern: string, framework = 'echo'): Route => ({ method, pattern, framework, file: 'main.go', range: at, handler: { name: 'h', file: 'main.go', range: at } });

void test('route patterns of every framework style match the paths they serve', () => {
  const cases: [string, string[], string[], string?][] = [
    ['/items/:id', ['/items/12345.json', '/items/7.json', '/items/7/'], ['/items', '/items/1/2']],
    ['/items/{id}', ['/items/abc'], ['/items/a/b']],
    ['/items/{id:[0-9]+}', ['/items/12'], ['/items/x']],
    ['/u/<int:id>', ['/u/12'], ['/u/x']],
    ['/u/<id:int>', ['/u/12'], ['/u/x']],
    ['/u/<name:re:[a-z]+>', ['/u/abc'], ['/u/ABC']],
    ['/u/<:id>', ['/u/x'], ['/u/x/y']],
    ['/files/{path...}', ['/files/a/b/c'], []],
    ['/files/*filepath', ['/files/a/b'], []],
    ['/static/*', ['/static/a/b.css'], []],
    ['/api/{rest:.*}', ['/api/a/b'], []],
    ['/users/:id?', ['/users', '/users/5'], ['/users/5/6']],
    ['/posts/{id?}', ['/posts', '/posts/5'], []],
    ['/u/:id(\\d+)', ['/u/5'], ['/u/x']],
    ['GET /items/{id}/{$}', ['/items/5/'], ['/items/5/x']],
    ['/@:name', ['/@alice'], ['/alice']],
    ['/t/#name', ['/t/x.y'], []],
    ['/static/', ['/static/x/y.png'], ['/other'], 'subtree'],
  ];
  for (const [pattern, yes, no, mode] of cases) {
    const c = compileRoutePattern(pattern, mode === 'subtree');
    for (const p of yes) assert.ok(c.regex.test(p), `${pattern} should match ${p} (${c.regex})`);
    for (const p of no) assert.ok(!c.regex.test(p), `${pattern} should not match ${p} (${c.regex})`);
  }
});

void test('the most specific route wins; methods must agree (HEAD rides on GET, ANY takes all)', () => {
  const m = new RouteMatcher([route('GET', '/items/:id'), route('GET', '/items/new'), route('POST', '/items/:id'), route('ANY', '/health'), route('GET', '/*')]);
  assert.equal(m.match('GET', '/items/new')?.pattern, '/items/new');
  assert.equal(m.match('GET', '/items/5')?.pattern, '/items/:id');
  assert.equal(m.match('HEAD', '/items/5')?.method, 'GET');
  assert.equal(m.match('POST', '/items/5')?.method, 'POST');
  assert.equal(m.match('DELETE', '/items/5'), undefined);
  assert.equal(m.match('PATCH', '/health')?.pattern, '/health');
  assert.equal(m.match('GET', '/other/thing'), undefined);
  assert.equal(m.matchCatchAll('GET', '/other/thing')?.pattern, '/*');
});

void test('grouping: /items/12345.json and /items/7.json fall under the handler pattern', () => {
  const log = [
    'method:GET\turi:/items/12345.json\tstatus:200\treqtime:0.010',
    'method:GET\turi:/items/7.json?x=1\tstatus:200\treqtime:0.020',
    'method:GET\turi:/items/new\tstatus:200\treqtime:0.001',
    'method:POST\turi:/items/9.json\tstatus:201\treqtime:0.005',
  ].join('\n');
  const routes = [route('GET', '/items/:id'), route('GET', '/items/new')];
  const r = analyzeAccessLog(new TextEncoder().encode(log), { format: 'ltsv', routes });
  const byKey = new Map(r.endpoints.map((e) => [`${e.method} ${e.uri}`, e]));
  const items = byKey.get('GET /items/:id')!;
  assert.equal(items.count, 2);
  assert.equal(items.kind, 'route');
  assert.equal(items.route?.handler?.name, 'h');
  assert.equal(byKey.get('GET /items/new')!.count, 1);
  // No POST route: automatic normalisation takes over.
  assert.equal(byKey.get('POST /items/:id.json')!.kind, 'auto');
});

void test('alp -m: comma-separated, first match wins, the regex names the group; RE2 spellings accepted', () => {
  assert.deepEqual(splitMatchingGroups('^/a/[0-9]+$,^/b/[a-z]{2,3}$, ^/c/(x|y)$'), ['^/a/[0-9]+$', '^/b/[a-z]{2,3}$', '^/c/(x|y)$']);
  assert.deepEqual(splitMatchingGroups('^/a[,]b$,^/c\\,d$'), ['^/a[,]b$', '^/c\\,d$']);
  const g = new Grouper({ matchingGroups: ['^/posts/[0-9]+$', '^/posts/.+$', '(?i)^/USERS/(?P<id>\\d+)$'] });
  assert.equal(g.group('GET', '/posts/12').uri, '^/posts/[0-9]+$');
  assert.equal(g.group('GET', '/posts/x').uri, '^/posts/.+$');
  assert.equal(g.group('GET', '/users/3').uri, '(?i)^/USERS/(?P<id>\\d+)$');
  assert.equal(g.group('GET', '/posts').uri, '/posts');
  assert.throws(() => new Grouper({ matchingGroups: ['^/(unclosed'] }), /matching group "\^\/\(unclosed" is not a valid regular expression/);
});

void test('literal prefixes used to skip expressions are never longer than what the expression requires', () => {
  assert.equal(literalPrefix('^/api/isu/[0-9a-f-]{36}$'), '/api/isu/');
  assert.equal(literalPrefix('^/image/[0-9]+\\.(jpg|png)$'), '/image/');
  assert.equal(literalPrefix('^/ab?c'), '/a');
  assert.equal(literalPrefix('^/a\\.b/x*'), '/a.b/');
  assert.equal(literalPrefix('^/a|^/b'), '');
  assert.equal(literalPrefix('/a'), '');
  assert.equal(literalPrefix('^\\d+'), '');
});

void test('static files by extension, ids normalised, query strings dropped', () => {
  const g = new Grouper();
  assert.equal(g.group('GET', '/assets/1a2b3c4d.js').uri, '/assets/*.js');
  assert.equal(g.group('GET', '/image/123.png').uri, '/image/*.png');
  assert.equal(g.group('GET', '/favicon.ico').uri, '/*.ico');
  assert.equal(g.group('GET', '/items/5.json').uri, '/items/:id.json');
  assert.equal(new Grouper({ staticByExtension: false }).group('GET', '/image/123.png').uri, '/image/:id.png');
  assert.equal(normalizePath('/api/isu/3fa85f64-5717-4562-b3fc-2c963f66afa6/graph'), '/api/isu/:uuid/graph');
  assert.equal(normalizePath('/users/0a1b2c3d4e5f/posts'), '/users/:hex/posts');
  assert.equal(normalizePath('/api/app/rides/01HF3Q4ZK8N2M5R7T9V1W3X5Y7/evaluation'), '/api/app/rides/:token/evaluation');
  assert.equal(normalizePath('/login'), '/login');
  assert.equal(normalizePath('/api/user/me'), '/api/user/me');
  assert.equal(new Grouper({ normalize: false }).group('GET', '/items/5').uri, '/items/5');
});

void test('expressions are tried by the second character of their prefix, and the first match still wins across those lists', () => {
  // '^/' and 'unanchored' have prefixes too short to sort: every path meets them, in the user's order.
  const g = new Grouper({ matchingGroups: ['^/a/[0-9]+$', 'b/[0-9]+$', '^/é/[0-9]+$', '^/[ab]/.+$', '^/b/x$', '^/ü/.+$'] });
  assert.equal(g.group('GET', '/a/1').uri, '^/a/[0-9]+$');
  assert.equal(g.group('GET', '/b/1').uri, 'b/[0-9]+$');
  assert.equal(g.group('GET', '/x/b/2').uri, 'b/[0-9]+$');
  assert.equal(g.group('GET', '/b/x').uri, '^/[ab]/.+$');
  assert.equal(g.group('GET', '/é/3').uri, '^/é/[0-9]+$');
  assert.equal(g.group('GET', '/ü/3').uri, '^/ü/.+$');
  assert.equal(g.group('GET', '/').uri, '/');
  assert.equal(g.group('GET', 'b/4').uri, 'b/[0-9]+$');
});
