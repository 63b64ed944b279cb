/** The guard's refusals of executable comments and side-effect calls, and the stored-function calls it finds. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GuardError, guardStatement } from '../../../src/db/guard';
import { scanStatement } from '../../../src/db/guardScan';
import { hazardOf, storedFunctionCalls } from '../../../src/db/statementHazards';

const refused = (sql: string, why: RegExp, purpose: Parameters<typeof guardStatement>[1] = 'explain'): void => {
  assert.throws(() => guardStatement(sql, purpose), (e: Error) => e instanceof GuardError && why.test(e.message), sql);
};
const sent = (sql: string): void => assert.doesNotThrow(() => guardStatement(sql, 'explain'), sql);

void test('executable comments are refused in every form, plain comments are not', () => {
  refused('EXPLAIN /*!ANALYZE */ SELECT * FROM posts', /executable comment/);
  refused('EXPLAIN /*!80018 ANALYZE */ SELECT * FROM posts', /executable comment/);
  refused('EXPLAIN SELECT * FROM posts /*M!100100 WHERE SLEEP(1) */', /executable comment/);
  refused('EXPLAIN SELECT * FROM posts /*m! , 1 */', /executable comment/);
  refused("SELECT TABLE_NAME FROM information_schema.TABLES /*!, (SELECT 1) */", /executable comment/, 'schema');
  sent('EXPLAIN SELECT /* a note */ * FROM posts /* ! not executable */');
  sent('EXPLAIN SELECT /*+ NO_INDEX(posts) */ * FROM posts');
  // Inside a string it is data.
  sent("EXPLAIN SELECT * FROM posts WHERE body = '/*!ANALYZE */'");
});

void test('side-effect functions are refused, with spaces, comments or any case before the parenthesis', () => {
  for (const sql of [
    "EXPLAIN SELECT * FROM posts WHERE id = GET_LOCK('a', 10)",
    "EXPLAIN SELECT RELEASE_LOCK('a')",
    'EXPLAIN SELECT * FROM posts WHERE id = sleep (5)',
    'EXPLAIN SELECT * FROM posts WHERE id = SLEEP/* x */(5)',
    "EXPLAIN SELECT BENCHMARK(100000000, MD5('x'))",
    "EXPLAIN SELECT LOAD_FILE('/etc/passwd')",
    'EXPLAIN SELECT NEXTVAL(s1)',
    'EXPLAIN SELECT setval(s1, 100)',
    "EXPLAIN SELECT MASTER_POS_WAIT('log', 4)",
  ]) refused(sql, /not sent/);
  refused('EXPLAIN SELECT NEXT VALUE FOR s1', /sequence/);
  refused('EXPLAIN SELECT s1.nextval', /sequence/);
  // Names that merely contain or resemble them, and data, are fine.
  sent('EXPLAIN SELECT sleep_minutes, get_lock_count FROM users WHERE sleep_minutes > 3');
  sent("EXPLAIN SELECT * FROM posts WHERE body = 'SLEEP(5)'");
  sent('EXPLAIN SELECT `sleep` FROM naps');
});

void test('MySQL comment rules: `--x` is not a comment, so a call after it is seen', () => {
  refused('EXPLAIN SELECT 1 --SLEEP(5)', /SLEEP/);
  sent('EXPLAIN SELECT 1 -- SLEEP(5)');
  sent('EXPLAIN SELECT 1 # SLEEP(5)');
  refused('EXPLAIN SELECT 1 # note\rSLEEP(5)', /SLEEP/);
});

void test('both readings of backslashes: a call hidden in a string by one sql_mode is seen', () => {
  // With NO_BACKSLASH_ESCAPES the string ends at the backslash and SLEEP(5) is code.
  const sql = "EXPLAIN SELECT * FROM posts WHERE body = 'x\\' AND SLEEP(5) AND '' = ''";
  refused(sql, /SLEEP/);
  const withEscapes = scanStatement(sql, true);
  assert.ok(!withEscapes.some((t) => t.kind === 'name' && t.text === 'SLEEP'));
  assert.ok(scanStatement(sql, false).some((t) => t.kind === 'name' && t.text === 'SLEEP'));
  // A backslash that hides nothing.
  sent("EXPLAIN SELECT * FROM users WHERE account_name = 'O\\'Brien'");
  sent("EXPLAIN SELECT * FROM users WHERE account_name = 'O''Brien'");
});

void test('hazardOf is linear: a megabyte of parentheses and quotes scans quickly', () => {
  const big = 'EXPLAIN SELECT ' + "f('\\''), ".repeat(100_000) + '1';
  assert.equal(hazardOf(big), undefined);
});

void test('stored-function calls: known bare names, any qualified or quoted name; not table column lists', () => {
  const known = new Set(['isu.score', 'other.f']);
  assert.deepEqual(storedFunctionCalls('SELECT * FROM posts WHERE id = score(1)', known, 'isu'), ['isu.score']);
  assert.deepEqual(storedFunctionCalls('SELECT * FROM posts WHERE id = SCORE (1)', known, 'ISU'), ['isu.score']);
  assert.deepEqual(storedFunctionCalls('SELECT other.f(1), `isu`.`score`(2)', known, 'isu'), ['other.f', 'isu.score']);
  assert.deepEqual(storedFunctionCalls('SELECT `mystery`(1)', known, 'isu'), ['isu.mystery']);
  assert.deepEqual(storedFunctionCalls('SELECT COUNT(*), LOWER(name), CONCAT(a, b) FROM users WHERE id IN (1, 2)', known, 'isu'), []);
  assert.deepEqual(storedFunctionCalls('INSERT INTO isu.tags (id, name) SELECT id, name FROM tags', known, 'isu'), []);
  assert.deepEqual(storedFunctionCalls("SELECT * FROM posts WHERE body = 'score(1)'", known, 'isu'), []);
});
