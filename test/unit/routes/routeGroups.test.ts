/**
 * Discovered routes group an access log: `/items/12345.json` and `/items/7.json` fall under the
 * handler's own pattern, whatever the framework's syntax (`:id`, `{id}`, `<int:id>`, a regex).
 * Also the directory helper: handlers defined in other files are resolved across the project.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import { analyzeAccessLog } from '../../../src/core/logs/accessAnalysis';
import { discoverRoutes } from '../../../src/core/source/routes/discoverRoutes';
import { languageForPath } from '../../../src/core/source/languageOf';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../../src/node/grammars';
import { discoverRoutesInDir } from '../../../src/node/routesDir';

const parsers = new ParserSet(fsGrammarSource());

const SYNTAXES: [string, string, string, string][] = [
  // fixture, pattern as the framework writes it, handler, syntax
  ['gin/main.go', '/items/:item_id.json', 'getItem', ':id'],
  ['actix/main.rs', '/items/{item_id}.json', 'get_item', '{id}'],
  ['laravel/routes/web.php', '/items/{id}.json', 'ItemController.show', '{id}'],
  ['flask/app.py', '/items/<int:item_id>.json', 'get_item', '<int:id>'],
  ['gorilla/main.go', '/items/{id:[0-9]+}.json', 'getItem', 'regex {id:re}'],
  ['express/app.js', '/items/:id(\\d+).json', 'getItem', 'regex :id(re)'],
];

for (const [rel, pattern, handler, syntax] of SYNTAXES) {
  void test(`grouping by discovered routes (${syntax}, ${rel.split('/')[0]}): /items/12345.json and /items/7.json share the handler's pattern`, async () => {
    const file = join(FIXTURES, 'routes', rel);
    const language = languageForPath(file)!;
    await parsers.loadFor([language]);
    const routes = discoverRoutes(rel, readFileSync(file, 'utf8'), language, parsers);
    const log = [
      'method:GET\turi:/items/12345.json\tstatus:200\tsize:120\treqtime:0.120',
      'method:GET\turi:/items/7.json?ref=top\tstatus:200\tsize:80\treqtime:0.030',
      'method:GET\turi:/items/abc/def.json\tstatus:404\tsize:0\treqtime:0.001',
    ].join('\n');
    const report = analyzeAccessLog(new TextEncoder().encode(log), { format: 'ltsv', routes });
    const e = report.endpoints.find((x) => x.uri === pattern);
    assert.ok(e, `an endpoint ${pattern} in ${JSON.stringify(report.endpoints.map((x) => x.uri))}`);
    assert.equal(e.method, 'GET');
    assert.equal(e.count, 2);
    assert.equal(e.kind, 'route');
    assert.equal(e.route?.handler?.name, handler);
    assert.ok(Math.abs(e.sum - 0.15) < 1e-9);
    // a path the pattern does not match stays out of it
    assert.ok(report.endpoints.some((x) => x.uri !== pattern && x.count === 1));
  });
}

void test('directory helper: Laravel controller methods and Mojolicious actions resolve to their files', async () => {
  const laravel = await discoverRoutesInDir(join(FIXTURES, 'routes', 'laravel'), parsers);
  const show = laravel.routes.find((r) => r.pattern === '/items/{id}.json')!;
  assert.equal(show.handler?.file, 'app/Http/Controllers/ItemController.php');
  assert.equal(show.handler?.range?.start.line, 13); // 0-based: `public function show` on line 14
  const destroy = laravel.routes.find((r) => r.method === 'DELETE')!;
  assert.equal(destroy.handler?.file, 'app/Http/Controllers/UserController.php');
  assert.equal(destroy.handler?.range?.start.line, 11);
  const store = laravel.routes.find((r) => r.pattern === '/items' && r.method === 'POST')!;
  assert.equal(store.handler?.file, 'app/Http/Controllers/ItemController.php');

  const mojo = await discoverRoutesInDir(join(FIXTURES, 'routes', 'mojolicious'), parsers);
  const item = mojo.routes.find((r) => r.pattern === '/items/:id')!;
  assert.equal(item.file, 'lib/MyApp.pm');
  assert.equal(item.handler?.file, 'lib/MyApp/Controller/Items.pm');
  assert.equal(item.handler?.range?.start.line, 3);
  // no controller defines `welcome` or `remove`: the name stays, without a place
  assert.equal(mojo.routes.find((r) => r.pattern === '/')?.handler?.range, undefined);
});
