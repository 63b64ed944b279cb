import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import { agreementRunner } from '../../support/agreementFixtures';

// Part 2 of the agreement app (a shop): a helper with a nil branch and one with a flag parameter, a random-pick retry,
// a poll loop, a stream loop, a form dispatch, a literal list, an UPDATE before `break`, an id generator with its own
// retry loop called from three data loops, and same-named helpers in two modules, reached by a qualifier and by a bare
// import (`from catalog import lookup`, `use Shop::Catalog qw(lookup)`, Sinatra's `helpers Catalog`, …).
const root = join(FIXTURES, 'agreement', 'part2');
const run = agreementRunner(root);

const ORDERS = 'SELECT id, user_id, region, total FROM orders WHERE user_id = ? ORDER BY id DESC LIMIT 20';
const CARTS = 'SELECT item_id, qty FROM cart_lines WHERE user_id = ?';
const LOW = 'SELECT id, title FROM items WHERE stock < 5 LIMIT 50';
const ID = 'UPDATE id_gen SET id = LAST_INSERT_ID(id + 1)';
const WISHES = 'SELECT item_id FROM wishes WHERE user_id = ?';
// statement | the query the loop walks, or the kind of loop | severity | calls from the loop
const GO_N_PLUS_ONE = [
  'INSERT INTO events (kind, body) VALUES (?, ?) | poll-or-stream | hint | ',
  'INSERT INTO order_lines (id, item_id, qty) VALUES (?, ?, ?) | unknown | warning | ',
  'SELECT COUNT(*) FROM orders WHERE state = ? | small-constant | hint | ',
  'SELECT id, name FROM teams WHERE id = ? | ' + ORDERS + ' | error | loadteam',
  'SELECT id, name FROM users WHERE id = ? | ' + LOW + ' | error | find',
  'SELECT item_id, price FROM prices WHERE item_id = ? | ' + WISHES + ' | error | lookup',
  'SELECT id, payload FROM jobs WHERE done = 0 ORDER BY id LIMIT 1 | poll-or-stream | hint | nextjob',
  'SELECT name FROM users WHERE id = ? AND credit > 0 | retry | hint | ',
  'SELECT rate FROM tax_rates WHERE region = ? | ' + ORDERS + ' | error | taxrate',
  'SELECT stock FROM items WHERE id = ? | unknown | warning | ',
  'UPDATE jobs SET done = 1 WHERE id = ? | poll-or-stream | hint | ',
  'UPDATE users SET bio = ? WHERE id = ? | dispatch | hint | ',
  'UPDATE users SET name = ? WHERE id = ? | dispatch | hint | ',
  `${ID} | ${CARTS} | error | nextid`,
  `${ID} | ${LOW} | error | nextid`,
  `${ID} | unknown | warning | nextid`,
].sort();

void test('go: part 2 gives the N+1 findings of the shop, with their loops, severities and call paths', async () => {
  const go = await run('go');
  assert.deepEqual(go.facts.flatMap((f) => f.errors), []);
  assert.deepEqual(go.nPlusOneWithPath, GO_N_PLUS_ONE);
  assert.deepEqual(go.score.missed, [], 'missed positives');
  assert.deepEqual(go.score.unexpected, [], 'unexpected findings');
  // The nil branch and the members read are not reached from the loop; the same-named helper of the other module is not called from it.
  const sqls = go.findings.map((f) => f.data.innerSql);
  assert.ok(!sqls.some((s) => s.includes("'default'") || s.includes('team_members') || s.includes('FROM items WHERE id = ?') && !s.includes('stock') || s.includes('FROM ledger')));
});

for (const lang of readdirSync(root).filter((l) => l !== 'go').sort()) {
  void test(`${lang}: part 2 gives Go's statements and N+1 findings (statement, loop, severity, call path)`, async () => {
    const [go, r] = await Promise.all([run('go'), run(lang)]);
    assert.deepEqual(r.facts.flatMap((f) => f.errors), [], 'no extraction errors');
    assert.deepEqual(r.duplicates, [], 'no site reported twice');
    assert.deepEqual(r.truncated, [], 'no statement cut short');
    assert.deepEqual(r.shapes, go.shapes, 'statement shapes');
    assert.deepEqual(r.nPlusOneWithPath, go.nPlusOneWithPath, 'N+1 findings (statement | loop | severity | call path)');
    assert.deepEqual(r.score.missed, [], 'missed positives');
    assert.deepEqual(r.score.unexpected, [], 'unexpected findings');
    assert.equal(r.expect.positives.length, go.expect.positives.length, 'as many marked positives as Go');
    assert.equal(r.expect.negatives.length, go.expect.negatives.length, 'as many marked negatives as Go');
  });
}
