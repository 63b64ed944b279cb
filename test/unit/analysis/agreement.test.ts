import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES } from '../../support/paths';
import { AGREEMENT_LANGUAGES, agreementRunner, statementShape, isTruncated } from '../../support/agreementFixtures';
import { SAME_TEXT } from '../../../src/core/source/valueFlow';

const root = join(FIXTURES, 'agreement');
const run = agreementRunner(root);

// What the Go version must yield: the app's intent, written out so that Go cannot drift with the others.
const POSTS = 'SELECT id, user_id, body FROM posts ORDER BY created_at DESC LIMIT 20';
const COMMENTS = 'SELECT id, user_id, comment FROM comments WHERE /*?dynamic*/ ORDER BY id DESC LIMIT 5';
const FEED = 'SELECT id, user_id, body FROM posts WHERE user_id = ? ORDER BY id DESC LIMIT 10';
const MINE = 'SELECT * FROM posts WHERE user_id = ? ORDER BY id DESC LIMIT 10';
const SPOTS = 'SELECT id, lat, lon FROM spots ORDER BY id LIMIT 50';
const CATEGORIES = 'SELECT id, name FROM categories ORDER BY id';
const FRONT = 'SELECT id, user_id, body FROM posts ORDER BY id DESC LIMIT 15';
// Put together by a format from two formatted texts: each hole takes its own argument once.
const ZONES = "SELECT COUNT(*) AS n FROM zones WHERE ST_Contains(ST_GeomFromText('POLYGON((/*?dynamic*/))'), ST_GeomFromText('POINT(/*?dynamic*/ /*?dynamic*/)')) AND name NOT LIKE '%tmp%'";
const GO_N_PLUS_ONE = [
  'INSERT INTO comments (post_id, user_id, comment) VALUES (?, ?, ?) | retry | hint',
  // One INSERT per record of an uploaded CSV file: rows that come from no query (Ruby's `CSV.parse(text) do |row|` iterates too).
  'INSERT INTO spots (id, lat, lon) VALUES (?, ?, ?) | unknown | warning',
  // The id generator's own retry loop repeats only on a deadlock: the loop over the uploaded records is what repeats it.
  'REPLACE INTO id_generator (stub) VALUES (?) | unknown | warning',
  `SELECT * FROM posts WHERE id = ? | ${MINE} | error`,
  `SELECT COUNT(*) AS n FROM comments WHERE post_id = ? | ${POSTS} | error`,
  // Both loops of the categories handler walk the category list: the second walks the counts appended per category,
  // and the count looked up per pass of the first loop is not the query whose rows it walks.
  `SELECT COUNT(*) AS n FROM posts WHERE category_id = ? | ${CATEGORIES} | error`,
  'SELECT COUNT(*) AS n FROM posts WHERE status = ? | small-constant | hint',
  `${ZONES} | ${SPOTS} | error`,
  // The pinned posts only join the list the loop walks; its own query is the one whose rows they are.
  `SELECT account_name FROM users WHERE id = ? | ${FRONT} | error`,
  `SELECT id, name FROM users WHERE id = ? | ${COMMENTS} | error`,
  `SELECT id, user_id, body FROM posts WHERE category_id = ? ORDER BY id DESC LIMIT 1 | ${CATEGORIES} | error`,
  `SELECT name FROM tags WHERE post_id = ? | ${FEED} | error`,
  `SELECT name FROM users WHERE id = ? | ${POSTS} | error`,
];

void test('statement shapes: placeholders of every driver written alike; a statement cut short is told', () => {
  assert.equal(statementShape('SELECT a FROM t WHERE id = %s AND b = $2 AND c = :name AND d := 1'), 'SELECT a FROM t WHERE id = ? AND b = ? AND c = ? AND d := 1');
  assert.equal(isTruncated('SELECT a FROM t WHERE '), true);
  assert.equal(isTruncated('SELECT a FROM t WHERE id IN ('), true);
  assert.equal(isTruncated('SELECT a FROM t WHERE id = ?'), false);
});

void test('go: the app yields its statements (branch variants whole) and its N+1 findings', async () => {
  const go = await run('go');
  assert.deepEqual(go.facts.flatMap((f) => f.errors), []);
  assert.deepEqual(go.nPlusOne, GO_N_PLUS_ONE);
  for (const variant of ['', ' AND public = 1']) {
    assert.ok(go.shapes.includes(`SELECT id, body FROM posts WHERE user_id = ?${variant} ORDER BY created_at DESC LIMIT /*?dynamic*/`), `posts${variant}`);
  }
  // The fragment the statement starts from is no statement of its own, and the early-return branch's COUNT never reaches the INSERT's call.
  assert.ok(!go.shapes.includes('SELECT id, body FROM posts'));
  const countSites = go.facts.flatMap((f) => f.sites).filter((s) => s.sql.startsWith('SELECT COUNT(*) AS n FROM comments') && s.function === 'postComment');
  assert.equal(countSites.length, 1);
});

for (const lang of AGREEMENT_LANGUAGES) {
  void test(`${lang}: same statements and N+1 findings as Go, none duplicated or cut short, every marked case scored`, async () => {
    const [go, r] = await Promise.all([run('go'), run(lang)]);
    assert.deepEqual(r.facts.flatMap((f) => f.errors), [], 'no extraction errors');
    assert.deepEqual(r.duplicates, [], 'no site reported twice');
    assert.deepEqual(r.truncated, [], 'no statement cut short');
    // Every statement of the app is sent by a call, and that call is not one that only hands its text on (`.strip()`, `String::from`).
    const unsent = r.facts.flatMap((f) => f.sites).filter((s) => !s.call || SAME_TEXT.has(s.call.split(/\.|::|->/).pop()!));
    assert.deepEqual(unsent.map((s) => `${s.file}:${s.range.start.line + 1} ${s.call ?? '(no call)'}`), [], 'statements reach their call');
    assert.deepEqual(r.shapes, go.shapes, 'statement shapes');
    assert.deepEqual(r.nPlusOne, go.nPlusOne, 'N+1 findings (statement | loop source | severity)');
    assert.ok(r.expect.positives.length >= 3 && r.expect.negatives.length >= 4, 'markers read');
    assert.deepEqual(r.score.missed, [], 'missed positives');
    assert.deepEqual(r.score.unexpected, [], 'unexpected findings');
    // Negatives are not vacuous: each marks a line where the extractor found a statement.
    for (const n of r.expect.negatives) {
      assert.ok(r.facts.find((f) => f.file === n.file)?.sites.some((s) => s.range.start.line + 1 === n.line), `${n.case} at ${n.file}:${n.line} has a site`);
    }
  });
}
