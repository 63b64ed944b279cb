/**
 * Route discovery per framework, on fixture apps written the way contest apps are
 * (test/fixtures/routes/<framework>/): method, pattern with prefixes applied, framework, and the
 * handler's name and 1-based line (`?` when it is defined in another file).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import type { Route } from '../../../src/core/model';
import { discoverRoutes } from '../../../src/core/source/routes/discoverRoutes';
import { languageForPath } from '../../../src/core/source/languageOf';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../../src/node/grammars';

const parsers = new ParserSet(fsGrammarSource());

/** One line per route: `METHOD pattern framework handler@line`. */
export function describe(r: Route): string {
  const h = r.handler ? `${r.handler.name}@${r.handler.range ? r.handler.range.start.line + 1 : '?'}` : '-';
  return `${r.method} ${r.pattern} ${r.framework} ${h}`;
}

async function routesOf(rel: string): Promise<string[]> {
  const file = join(FIXTURES, 'routes', rel);
  const language = languageForPath(file)!;
  await parsers.loadFor([language]);
  const errors: { message: string }[] = [];
  const routes = discoverRoutes(rel, readFileSync(file, 'utf8'), language, parsers, errors as never);
  assert.deepEqual(errors, []);
  for (const r of routes) assert.equal(r.file, rel);
  return routes.map(describe);
}

const CASES: Record<string, string[]> = {
  'echo/main.go': [
    'POST /initialize echo postInitialize@39', 'GET /api/estate/:id echo getEstateDetail@41', 'GET /api/chair/search echo searchChairs@43',
    'GET /api/trend echo getTrend@45', 'GET /api/isu/:jia_isu_uuid/graph echo getIsuGraph@47', 'POST /api/isu echo postIsu@49',
    'GET /health echo GET /health@28', 'GET /api/user/me echo getMe@51', 'DELETE /api/user/:id echo deleteUser@53',
  ],
  'gin/main.go': [
    'GET /items/:item_id.json gin getItem@24', 'POST /sell gin postSell@26', 'GET /v1/users/:id gin getUser@28',
    'PUT /v1/admin/settings gin putSettings@30', 'PATCH /items/:item_id gin patchItem@32', 'ANY /ping gin ANY /ping@18',
  ],
  'chi/main.go': [
    'GET / chi getIndex@36', 'GET /posts/{id:[0-9]+} chi getPost@38', 'GET /api/livestream/{livestream_id} chi getLivestream@40',
    'POST /api/user chi postUser@42', 'GET /api/user/{username}/icon chi getIcon@44', 'DELETE /api/session chi deleteSession@46',
    'PUT /theme chi putTheme@50', 'GET /admin/stats chi getStats@48',
  ],
  'gorilla/main.go': [
    'GET / gorilla/mux getIndex@21', 'GET /items/{id:[0-9]+}.json gorilla/mux getItem@23', 'HEAD /items/{id:[0-9]+}.json gorilla/mux getItem@23',
    'POST /login gorilla/mux postLogin@25', 'GET /api/users/{name} gorilla/mux getUser@27', 'POST /api/orders gorilla/mux postOrder@29',
  ],
  'nethttp/main.go': [
    'GET /items/{id} net/http getItem@22', 'POST /items net/http postItem@24', 'GET /{$} net/http getIndex@26',
    'ANY /static/ net/http -', 'ANY /healthz net/http ANY /healthz@16',
  ],
  'goji/main.go': [
    'GET / goji/pat getIndex@20', 'GET /keyword/:keyword goji/pat getKeyword@22', 'POST /keyword goji/pat postKeyword@24',
    'DELETE /keyword/:keyword goji/pat deleteKeyword@26', 'GET /css/* goji/pat -',
  ],
  'sinatra/app.rb': [
    'GET /initialize sinatra GET /initialize@15', 'GET / sinatra GET /@20', 'GET /posts/:id sinatra GET /posts/:id@25',
    'POST /comment sinatra POST /comment@30', 'GET /api/users/:account_name sinatra GET /users/:account_name@33',
    'DELETE /api/sessions sinatra DELETE /sessions@37',
  ],
  'flask/app.py': [
    'POST /initialize flask post_initialize@9', 'GET / flask get_index@14', 'GET /items/<int:item_id>.json flask get_item@19',
    'GET /isu/<jia_isu_uuid>/graph flask get_isu_graph@24', 'GET /v1/condition/<int:condition_id> flask condition@29',
    'DELETE /v1/condition/<int:condition_id> flask condition@29', 'POST /v1/isu flask post_isu@34', 'GET /v1/trend flask get_trend@38',
  ],
  'fastapi/main.py': [
    'POST /initialize fastapi initialize@9', 'GET /api/estate/{estate_id} fastapi get_estate@14', 'GET /api/estate/search fastapi search_estates@19',
    'POST /api/estate/search fastapi search_estates@19', 'DELETE /admin/cache fastapi clear_cache@24',
  ],
  'bottle/app.py': [
    'GET / bottle index@8', 'GET /keyword/<keyword> bottle keyword@13', 'POST /keyword/<keyword> bottle keyword@13',
    'POST /login bottle login@18', 'GET /items/<item_id:int> bottle item@23',
  ],
  'slim/index.php': [
    'POST /initialize slim Handler.postInitialize@27', 'GET /api/estate/{id} slim Handler.getEstateDetail@32',
    'GET /api/chair/search slim Handler.searchChairs@37', 'POST /api/chair/buy/{id:[0-9]+} slim Handler.buyChair@42', 'GET /ping slim GET /ping@18',
  ],
  'laravel/routes/web.php': [
    'GET / laravel ItemController.index@?', 'GET /items/{id}.json laravel ItemController.show@?', 'POST /items laravel ItemController.store@?',
    'GET /api/users/{user} laravel UserController.show@?', 'DELETE /api/admin/users/{user} laravel UserController.destroy@?',
    'PUT /v2/items/{id?} laravel ItemController.update@?', 'GET /health laravel GET /health@22',
  ],
  'kossy/lib/Isucon/Web.pm': [
    'GET /initialize kossy GET /initialize@22', 'GET / kossy GET /@28', 'GET /keyword/:keyword kossy ANY /keyword/:keyword@34',
    'POST /keyword/:keyword kossy ANY /keyword/:keyword@34', 'POST /login kossy post_login@41',
  ],
  'mojolicious/lib/MyApp.pm': [
    'GET / mojolicious Example::welcome@?', 'GET /items/:id mojolicious Items::show@?', 'POST /items mojolicious Items::create@?',
    'GET /api/users/:name mojolicious GET /users/:name@10', 'DELETE /api/users/:name mojolicious Users::remove@?',
  ],
  'express/app.js': [
    'POST /initialize express POST /initialize@10', 'GET /items/:id(\\d+).json express getItem@22', 'GET /api/users/:name express getUser@26',
    'DELETE /api/sessions express destroySession@34', 'POST /api/sessions express createSession@30',
  ],
  'fastify/app.js': [
    'POST /initialize fastify POST /initialize@3', 'GET /api/livestream/:livestream_id fastify getLivestream@22', 'GET /api/tag fastify getTags@26',
    'HEAD /api/tag fastify getTags@26', 'GET /api/user/:username/theme fastify getTheme@30', 'POST /api/user fastify postUser@34',
  ],
  'hono/app.ts': [
    'POST /initialize hono POST /initialize@6', 'GET /api/users/:id hono getUser@16', 'POST /api/users hono createUser@20', 'GET /api/isu/:jia_isu_uuid hono getIsu@24',
  ],
  'actix/main.rs': [
    'POST /initialize actix-web post_initialize@4', 'GET /items/{item_id}.json actix-web get_item@9', 'GET /login actix-web login@14',
    'POST /login actix-web login@14', 'GET /api/users/{name} actix-web get_user@18', 'POST /api/users/{name}/delete actix-web delete_user@22',
  ],
  'axum/main.rs': [
    'GET /api/estate/search axum search_estates@15', 'POST /api/estate/search axum post_estate@19', 'GET /api/estate/:id axum get_estate@11',
    'GET /health axum GET /health@34', 'POST /initialize axum initialize@7',
  ],
};

for (const [file, expected] of Object.entries(CASES)) {
  void test(`routes: ${file.split('/')[0]}`, async () => {
    assert.deepEqual((await routesOf(file)).sort(), [...expected].sort());
  });
}

void test('routes: files without route definitions cost no parse and give none; client calls are not routes', async () => {
  await parsers.loadFor(['go', 'javascript']);
  assert.deepEqual(discoverRoutes('a.go', 'package main\nfunc f() { db.Get(&x, "SELECT 1") }\n', 'go', parsers), []);
  const client = 'package main\nfunc f() { http.Get("/api/x"); cache.Get("/k") }\n';
  assert.deepEqual(discoverRoutes('a.go', client, 'go', parsers), []);
  assert.deepEqual(discoverRoutes('a.js', "const r = await fetch('/api'); map.get('/x');\n", 'javascript', parsers), []);
});

void test('routes: a grammar that is not loaded gives no routes and no exception', () => {
  assert.deepEqual(discoverRoutes('a.rb', "get '/x' do\nend\n", 'ruby', new ParserSet(fsGrammarSource())), []);
});
