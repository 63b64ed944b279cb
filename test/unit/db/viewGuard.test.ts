/** The names a statement may read as views, and the walk over view definitions with the guard's rules. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relationKey, relationNames } from '../../../src/db/statementHazards';
import { checkViews, MAX_VIEWS, viewLookupSql, type ViewDefinition, type ViewLookup } from '../../../src/db/viewGuard';

const keys = (sql: string, db = 'isu'): string[] => relationNames(sql, db).map((r) => `${r.schema}.${r.name}`);

void test('relationNames: bare names in the database, dotted pairs as written; calls, strings and numbers left out', () => {
  const got = keys("SELECT v.id, COUNT(*) FROM `Recent Posts` v JOIN other.t2 ON t2.id = v.id WHERE v.name = 'posts' AND v.n > 10 AND f(x)");
  for (const k of ['isu.recent posts', 'isu.v', 'other.t2', 'isu.other', 'isu.t2', 't2.id', 'v.id', 'isu.x']) assert.ok(got.includes(k), `${k} in ${got.join(', ')}`);
  for (const k of ['isu.posts', 'isu.10', 'isu.count', 'isu.f']) assert.ok(!got.includes(k), `${k} not in ${got.join(', ')}`);
  // A schema-qualified call is no table.
  assert.ok(!keys('SELECT isu.score(1) FROM t').includes('isu.score'));
  // Both readings of backslashes: a name a string hides under one reading is still listed.
  assert.ok(keys("SELECT * FROM t WHERE a = 'x\\' OR id IN (SELECT id FROM hidden_view) OR '' = ''").includes('isu.hidden_view'));
});

/** A lookup over a table of views, as information_schema.VIEWS would answer (names without case). */
function views(defs: ViewDefinition[], calls: string[][] = []): ViewLookup {
  return (names) => {
    calls.push(names.map((n) => `${n.schema}.${n.name}`));
    const asked = new Set(names.map(relationKey));
    return Promise.resolve(defs.filter((d) => asked.has(relationKey({ schema: d.schema.toLowerCase(), name: d.name.toLowerCase() }))));
  };
}
const noFunctions = (): Promise<ReadonlySet<string>> => Promise.resolve(new Set());

void test('checkViews: a view calling SLEEP or GET_LOCK is refused by name; nested views are followed and named with their path', async () => {
  const defs: ViewDefinition[] = [
    { schema: 'isu', name: 'plain', definition: 'select `isu`.`posts`.`id` AS `id` from `isu`.`posts`' },
    { schema: 'isu', name: 'sleepy', definition: 'select `p`.`id` AS `id` from (`isu`.`posts` `p` join (select sleep(2) AS `w`) `w`)' },
    { schema: 'isu', name: 'Outer', definition: 'select `isu`.`middle`.`id` AS `id` from `isu`.`middle`' },
    { schema: 'isu', name: 'middle', definition: 'select `l`.`id` AS `id` from `other`.`locky` `l`' },
    { schema: 'other', name: 'locky', definition: "select `other`.`t`.`id` AS `id` from `other`.`t` where get_lock('x',0) = 1" },
  ];
  assert.deepEqual(await checkViews('SELECT * FROM plain WHERE id = ?', 'isu', views(defs), noFunctions), { functions: [] });
  const s = await checkViews('SELECT * FROM sleepy', 'isu', views(defs), noFunctions);
  assert.match(s.refusal!, /^it reads the view isu\.sleepy, whose definition calls SLEEP\(\): the server evaluates a view's calls/);
  const calls: string[][] = [];
  const o = await checkViews('SELECT * FROM OUTER o', 'isu', views(defs, calls), noFunctions);
  assert.match(o.refusal!, /^it reads the view other\.locky \(read through isu\.Outer → isu\.middle\), whose definition calls GET_LOCK\(\)/);
  assert.equal(calls.length, 3, 'one lookup per level');
  assert.ok(!calls[1].includes('isu.outer'), 'a name is looked up once');
});

void test('checkViews: stored functions in views are returned with their view; an unreadable definition is refused', async () => {
  const defs: ViewDefinition[] = [
    { schema: 'isu', name: 'counted', definition: 'select `isu`.`posts`.`id` AS `id` from `isu`.`posts` where `isu`.`posts`.`id` = `isu`.`count_hit`(1)' },
    { schema: 'isu', name: 'bare', definition: 'select `isu`.`posts`.`id` AS `id` from `isu`.`posts` where score(`isu`.`posts`.`id`) > 1' },
    { schema: 'isu', name: 'hidden', definition: '' },
  ];
  assert.deepEqual((await checkViews('SELECT * FROM counted', 'isu', views(defs), noFunctions)).functions, [{ name: 'isu.count_hit', view: 'isu.counted' }]);
  // A bare name is a stored function when the server lists one by that name.
  assert.deepEqual((await checkViews('SELECT * FROM bare', 'isu', views(defs), noFunctions)).functions, []);
  assert.deepEqual((await checkViews('SELECT * FROM bare', 'isu', views(defs), () => Promise.resolve(new Set(['isu.score'])))).functions,
    [{ name: 'isu.score', view: 'isu.bare' }]);
  assert.match((await checkViews('SELECT * FROM hidden', 'isu', views(defs), noFunctions)).refusal!, /isu\.hidden, whose definition this user may not see.*GRANT SHOW VIEW/);
  let asked = 0;
  await checkViews('SELECT * FROM posts', 'isu', views(defs), () => { asked++; return Promise.resolve(new Set()); });
  assert.equal(asked, 0, 'without a view the stored functions are not read');
});

void test('checkViews: a cycle ends, and more views than the bound are refused', async () => {
  const cycle: ViewDefinition[] = [
    { schema: 'isu', name: 'a', definition: 'select * from `isu`.`b`' },
    { schema: 'isu', name: 'b', definition: 'select * from `isu`.`a`' },
  ];
  assert.deepEqual(await checkViews('SELECT * FROM a', 'isu', views(cycle), noFunctions), { functions: [] });
  const chain: ViewDefinition[] = Array.from({ length: MAX_VIEWS + 5 }, (_, i) => ({ schema: 'isu', name: `v${i}`, definition: `select * from \`isu\`.\`v${i + 1}\`` }));
  assert.match((await checkViews('SELECT * FROM v0', 'isu', views(chain), noFunctions)).refusal!, new RegExp(`more than ${MAX_VIEWS} views`));
});

void test('viewLookupSql: grouped by schema; names with quotes or backslashes go as hex, so no sql_mode reads them differently', () => {
  assert.equal(viewLookupSql([{ schema: 'isu', name: 'a' }, { schema: 'isu', name: 'b' }, { schema: 'other', name: 'c' }]),
    "SELECT TABLE_SCHEMA, TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS WHERE (TABLE_SCHEMA = 'isu' AND TABLE_NAME IN ('a', 'b')) OR (TABLE_SCHEMA = 'other' AND TABLE_NAME IN ('c'))");
  assert.match(viewLookupSql([{ schema: 'isu', name: "it's\\" }]), /TABLE_NAME IN \(CONVERT\(X'697427735c' USING utf8mb4\)\)/);
});
