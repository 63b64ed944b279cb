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
    const k = Math.floor(r() * 5);
    if (k === 0) return String(Math.floor(r() * 1e6));
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
