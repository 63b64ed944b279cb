import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fingerprintInto, lastFingerprintBytes, lastFingerprintOpen } from '../../../src/core/sql/fingerprint';
import { FingerprintCache } from '../../../src/core/sql/fingerprintCache';
import { rng, type Rand } from '../logs/fuzzSeeds';

const enc = new TextEncoder();
const text = (b: Uint8Array, n: number): string => Buffer.from(b.subarray(0, n)).toString('latin1');

/** Asks the cache and the fingerprint itself about `sql`; fails on any difference (bytes, length, open at the end). True when the cache answered. */
function agree(cache: FingerprintCache, sql: string): boolean {
  const b = enc.encode(sql);
  const misses = cache.misses;
  const n = cache.of(b, 0, b.length);
  const got = text(cache.bytes.subarray(cache.start), n);
  const open = cache.open;
  const want = fingerprintInto(b, 0, b.length);
  assert.deepEqual({ fingerprint: got, open }, { fingerprint: text(lastFingerprintBytes(), want), open: lastFingerprintOpen() }, JSON.stringify(sql));
  const hit = cache.misses === misses;
  if (hit) assert.ok(cache.shape >= 0);
  return hit;
}

void test('a statement of a shape seen before is answered from the cache, with the fingerprint it would get', () => {
  const cache = new FingerprintCache();
  assert.equal(agree(cache, "SELECT * FROM users WHERE id = 42 AND name = 'alice'"), false);
  assert.equal(agree(cache, "SELECT * FROM users WHERE id = 1234567 AND name = 'it''s \\' -- not a comment'"), true);
  assert.equal(agree(cache, 'SELECT * FROM users WHERE id = 3.25 AND name = "x"'), false, 'another quote is another shape');
  assert.equal(agree(cache, 'SELECT * FROM users WHERE id = 17.5 AND name = "y\'"'), true);
  assert.equal(cache.misses, 2);
});

void test('digits that belong to a name, a variable or a number kept as written never share a shape', () => {
  const cache = new FingerprintCache();
  // each pair differs only in digits the lexer reads as part of a name or of an exponent, a
  // fraction after an exponent, a hexadecimal number: the second must not take the first's fingerprint
  const pairs = [
    ['SELECT * FROM users_2009', 'SELECT * FROM users_2010'],
    ['SELECT t.5col FROM t', 'SELECT t.6col FROM t'],
    ['SELECT @a.5', 'SELECT @a.6'],
    ['SELECT @@x.5', 'SELECT @@x.6'],
    ['SELECT 1e-5 FROM t', 'SELECT 1e-5.5 FROM t'],
    ['SELECT 2fa_codes FROM t', 'SELECT 3fa_codes FROM t'],
    ['SELECT 0x1F', 'SELECT 0x2E'],
    ['SELECT a0x1F', 'SELECT a0x2E'],
    ['SELECT @a0x1F', 'SELECT @a0x2E'],
    ['SELECT t.0x1F', 'SELECT t.0x2E'],
    ['SELECT 1e-0x1F', 'SELECT 1e-0x2E'],
    ['SELECT 0x1F.5', 'SELECT 0x2E.5'],
    ['SELECT 0x1F.5', 'SELECT 0x1F.6'],
    ['SELECT 0b101 FROM t', 'SELECT 0b1 FROM t'],
    ["SELECT @'a1'", "SELECT @'a2'"],
    ["SELECT x'41'", 'SELECT x"41"'],
    ["SELECT x'41", 'SELECT x"41'],
    ["SELECT 'a' /* it's 5 */", "SELECT 'a' /* it's 6 */"],
    ['SELECT `c1` FROM t', 'SELECT `c2` FROM t'],
    ['SELECT 1 -- 5', 'SELECT 1 --5'],
    ['SELECT 1 # 5\n, 7', 'SELECT 1 , 7'],
    ['SELECT 5\u0001', 'SELECT \u0001\u0001'],
  ];
  for (const [a, b] of pairs) { agree(cache, a); agree(cache, b); }
});

void test('a statement left open inside a literal gets the fingerprint and the open mark of its own reading', () => {
  const cache = new FingerprintCache();
  agree(cache, "INSERT INTO t VALUES ('a')");
  agree(cache, "INSERT INTO t VALUES ('a");
  agree(cache, "INSERT INTO t VALUES ('b\n# Query_time: 1");
  agree(cache, 'INSERT INTO t VALUES (/* open');
  agree(cache, 'INSERT INTO t VALUES (`open');
});

/** Fragments chosen for what decides where a token ends: quotes, escapes, comments, digits next to names, signs, variables. */
const FRAGMENTS = ["'", '"', '`', '\\', '/', '*', '-', '#', '@', '@@', '.', 'e', 'E-', 'e+', 'x', 'b', 'N', 'X', '0', '1', '5', '9', '00',
  '12.5', '.5', '1e-5', '0x1F', '0b', ' ', '\n', '\r', '\t', '(', ')', ',', 'in', 'IN (', 'VALUES (', 'values', 'LIMIT ', 'OFFSET ',
  'ON DUPLICATE KEY UPDATE ', 'is', 'not ', 'null', 'asc', 'use ', 'select ', '$', ':', '::', ':=', '%', '%s', '%(', ')s', 's', '=',
  '<=>', '->', '+', '?', '!', 'M', 'a', '/*!', '*/', '/*', '-- ', '--', '/*?dynamic*/', '; ', "''", "\\'", '\u0001', '\u0000', '\u007f', 'é'];

function soup(r: Rand, maxParts: number): string {
  let s = '';
  const n = 1 + Math.floor(r() * maxParts);
  for (let k = 0; k < n; k++) s += FRAGMENTS[Math.floor(r() * FRAGMENTS.length)];
  return s;
}

void test('random statements: every answer equals the fingerprint read by the lexer (fuzz, seeded)', () => {
  for (const [seed, parts, count] of [[1, 8, 60000], [2, 16, 40000]] as const) {
    const r = rng(seed);
    const cache = new FingerprintCache();
    let hits = 0;
    for (let i = 0; i < count; i++) if (agree(cache, soup(r, parts))) hits++;
    // why: short statements often share a shape (they differ in digits only): the cache is exercised, not only filled
    assert.ok(hits > count / 20, `only ${hits} answers of ${count} came from the cache`);
  }
});

void test('statements of one shape with literals of every kind: one reading by the lexer per shape', () => {
  const r = rng(7);
  const literal = (): string => {
    const k = Math.floor(r() * 6);
    if (k === 0) return String(Math.floor(r() * 1e6));
    if (k === 5) return `0x${Math.floor(r() * 1e9).toString(16)}`;
    if (k === 1) return `${Math.floor(r() * 1000)}.${Math.floor(r() * 100)}`;
    // string contents that hold what ends a literal or starts a comment elsewhere
    const inside = soup(r, 6).replace(/['\\]/g, (c) => (c === "'" ? "''" : '\\\\'));
    return k === 2 ? `'${inside}'` : k === 3 ? `'${inside.replace(/''/g, "\\'")}'` : `'${Math.floor(r() * 10)}'`;
  };
  const shapes = [
    () => `SELECT * FROM users WHERE id = ${literal()}`,
    () => `SELECT c.id, c.body FROM comments c WHERE c.post_id = ${literal()} AND c.user_id <> ${literal()} ORDER BY c.created_at DESC LIMIT ${literal()}`,
    () => `UPDATE isu SET name = ${literal()}, score = score + ${literal()} WHERE jia_isu_uuid = ${literal()} /* app.go:120 */`,
    () => `INSERT INTO t (a, b) VALUES (${literal()}, ${literal()}) ON DUPLICATE KEY UPDATE b = VALUES(b)`,
  ];
  const cache = new FingerprintCache();
  for (let i = 0; i < 20000; i++) agree(cache, shapes[i % shapes.length]());
  // number or string, each kind of quote: a few shapes per template, not one per statement
  assert.ok(cache.misses < 200, `${cache.misses} readings by the lexer`);
});

void test('the cache stays bounded: long statements are not kept, a full table starts over', () => {
  const cache = new FingerprintCache();
  const long = `SELECT ${'a, '.repeat(3000)}b FROM t WHERE id = 5`;
  agree(cache, long);
  agree(cache, long);
  assert.equal(cache.misses, 2);
  for (let i = 0; i < 5000; i++) agree(cache, `SELECT c${i} FROM t WHERE id = ${i}`);
  assert.equal(agree(cache, 'SELECT c4999 FROM t WHERE id = 1'), true);
});

void test('a shape keeps its id and its fingerprint bytes while the cache grows; no two shapes share an id', () => {
  const cache = new FingerprintCache();
  const seen = new Map<number, { bytes: Uint8Array; start: number; length: number; text: string }>();
  for (let i = 0; i < 3000; i++) {
    const sql = `SELECT c${i % 1500} FROM t WHERE id = ${i}`;
    agree(cache, sql);
    const before = seen.get(cache.shape);
    const now = text(cache.bytes.subarray(cache.start), cache.length);
    if (before) {
      assert.equal(now, before.text);
      // the bytes handed out for the shape the first time still hold its fingerprint (arrays are replaced as they grow, not written over)
      assert.equal(text(before.bytes.subarray(before.start), before.length), before.text);
    } else seen.set(cache.shape, { bytes: cache.bytes, start: cache.start, length: cache.length, text: now });
  }
  assert.equal(seen.size, 1500);
  assert.equal(new FingerprintCache().of(enc.encode('SELECT c0 FROM t WHERE id = 1'), 0, 29) >= 0, true);
});

void test('IN lists and VALUES rows of any length share a shape: one reading by the lexer for each kind of list', () => {
  const cache = new FingerprintCache();
  const r = rng(11);
  const value = (): string => ['17', '-4', '3.25', "'a,b'", '"x)"', 'NULL', "'it''s'", '0x1F', '0b101'][Math.floor(r() * 9)];
  const list = (n: number, item: () => string): string => Array.from({ length: n }, item).join(', ');
  const row = (): string => `(${list(3, () => (r() < 0.2 ? 'NOW()' : value()))})`;
  let lists = 0;
  for (let i = 0; i < 400; i++) {
    const n = 1 + Math.floor(r() * 40);
    if (agree(cache, `SELECT * FROM users WHERE id IN (${list(n, value)}) ORDER BY id`)) lists++;
    if (agree(cache, `INSERT INTO t (a, b, c) VALUES ${list(n, row)}`)) lists++;
    if (agree(cache, `insert into t values\n  ${list(n, row)};`)) lists++;
  }
  assert.equal(cache.misses, 3);
  assert.equal(lists, 3 * 400 - 3);
});

void test('lists the skeleton must not mark whole: each answer still equals the lexer\'s reading', () => {
  const cache = new FingerprintCache();
  const cases = [
    // not after IN / VALUES as a word of its own, or the word inside a comment or a name
    'SELECT GREATEST(1, 2)', 'SELECT GREATEST(1, 2, 3)', 'SELECT a FROM t WHERE x.in (1, 2)', 'SELECT a FROM t WHERE @in (1, 2)',
    'SELECT 1 -- in\n(1, 2)', 'SELECT 1 # in\n(1, 2, 3)', 'SELECT 1 /* in */ (1, 2)', 'SELECT `in` (1, 2)', "SELECT 'in' (1, 2)",
    'SELECT a FROM t WHERE b NOT IN (1, 2)', 'SELECT a FROM t WHERE b NOT IN (1, 2, 3)', 'SELECT a FROM t WHERE b in(1)',
    // items that are not values, or a list that does not close
    'SELECT a FROM t WHERE b IN (1, c)', 'SELECT a FROM t WHERE b IN (1, c, d)', 'SELECT a FROM t WHERE b IN (1 + 2, 3)',
    'SELECT a FROM t WHERE b IN (0x1F, 2)', 'SELECT a FROM t WHERE b IN (-0x1F, 2)', 'SELECT a FROM t WHERE b IN (0x1F.5, 2)', 'SELECT a FROM t WHERE b IN (1e5, 2)', "SELECT a FROM t WHERE b IN (x'41', 2)",
    "SELECT a FROM t WHERE b IN ('a' 'b', 'c')", "SELECT a FROM t WHERE b IN ('a", 'SELECT a FROM t WHERE b IN (1, 2',
    'SELECT a FROM t WHERE b IN (SELECT 1)', 'SELECT a FROM t WHERE b IN ((1), 2)', 'SELECT a FROM t WHERE b IN (1.5.5, 2)',
    'SELECT a FROM t WHERE b IN (- 1, 2)', 'SELECT a FROM t WHERE b IN (--1, 2)', 'SELECT a FROM t WHERE b IN (1 /* c */, 2)',
    'SELECT a FROM t WHERE b IN (NOW(), 2)', 'SELECT a FROM t WHERE b IN (NULL, 2)', 'SELECT a FROM t WHERE b IS NULL AND c IN (NULL)',
    // rows: after ON DUPLICATE KEY UPDATE, VALUES() inside a row, rows after one that is not marked
    'INSERT INTO t (a) VALUES (1), (2) ON DUPLICATE KEY UPDATE a = VALUES(a)', 'INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE a = VALUES (a)',
    'INSERT INTO t (a) VALUES (1, VALUES()), (2, 3)', 'INSERT INTO t (a) VALUES (1), (2, VALUES())', 'INSERT INTO t (a) VALUES (1), (2, value())',
    'INSERT INTO t (a) VALUES (1, VALUE), (2)', 'INSERT INTO t (a) VALUES (1, in), (2)', 'INSERT INTO t (a) VALUES (1), (2) ON DUPLICATE KEY UPDATE a = VALUES(1, b)',
    'INSERT INTO t (a) VALUES (1), (2 + 3), (4)', 'INSERT INTO t (a) VALUES (1), (2), x', 'INSERT INTO t (a) VALUES (1),', 'INSERT INTO t VALUES (1) , ( 2 ) ,(3)',
    "INSERT INTO t VALUES (N'a', 1)", 'INSERT INTO t VALUES (UUID(), CURRENT_TIMESTAMP, DEFAULT, TRUE, é)', 'INSERT INTO t VALUES ($1, 2)',
    'INSERT INTO t VALUE (1), (2)', 'INSERT INTO t VALUES(1),(2)', 'INSERT INTO t(a)VALUES (1), (2)', 'INSERT INTO t VALUES (1) UNION VALUES (2), (3)',
    'REPLACE INTO duplicate_t VALUES (1), (2)', 'INSERT INTO t VALUES\f(1), (2)', 'INSERT INTO t VALUES (1)\u000b, (2)',
  ];
  // each with other values, a longer list and one row more: a skeleton shared where the fingerprints differ would show
  const variants = (sql: string): string[] => [sql, sql.replace(/1/g, '9'), sql.replace(/, 2/g, ', 2, 2'), sql.replace(/\(1/g, '(1, 4'), sql.replace(/\(1\)/g, '(1), (6)')];
  for (const sql of cases) for (const v of variants(sql)) agree(cache, v);
});

/** Fragments of lists and what sits around them, for the fuzz below. */
const LIST_FRAGMENTS = [' IN (', ' in(', ' VALUES (', ' values', ' VALUE ', '(', ')', ', ', ',', ' ', '\n', '1', '-2', '3.5', "'a'", '"b"', "'c", 'NULL',
  'null', 'NOW()', 'x', 'in', 'value', '()', '0x1F', '0b', '0xé', '-0x2', '/* c */', '-- c\n', '# c\n', '`q`', '@', '.', 'e5', '0x', ' ON DUPLICATE KEY UPDATE ', 'é', '\f', '+'];

void test('random lists: every answer equals the fingerprint read by the lexer (fuzz, seeded)', () => {
  const r = rng(5);
  const cache = new FingerprintCache();
  let hits = 0;
  for (let i = 0; i < 60000; i++) {
    let s = 'SELECT a FROM t WHERE b';
    const n = 1 + Math.floor(r() * 14);
    for (let k = 0; k < n; k++) s += LIST_FRAGMENTS[Math.floor(r() * LIST_FRAGMENTS.length)];
    if (agree(cache, s)) hits++;
  }
  assert.ok(hits > 3000, `only ${hits} answers came from the cache`);
});
