/**
 * Views whose definitions act: a private MariaDB with the general log on holds views that call
 * SLEEP, GET_LOCK and a stored function that writes a row, and a view over that view. `explain`,
 * `explain --analyze` and the hover's path (ExplainService, Measure, the hover's Markdown) refuse
 * every statement over them and say which view calls what; the general log shows that nothing but
 * information_schema reads named them, and the function's table stays empty. An ordinary view is
 * still explained.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand } from '../support/runCommand';
import { FIXTURES } from '../support/paths';
import { startMariaDb, type MariaDbServer } from '../support/mariadb';
import { sentBy } from '../support/generalLog';
import { DbConnection, type ConnectionOptions } from '../../src/db/connection';
import { ExplainService } from '../../src/db/explainService';
import { measureStatement } from '../../src/db/measureService';
import { explainCommand } from '../../src/cli/commands/explain';
import { explainHoverMarkdown } from '../../src/extension/explain/hoverMarkdown';

let db: MariaDbServer;
const PASSWORD = 'qi-views';
const APP = join(FIXTURES, 'view-hazards', 'app');
const ACTING = ['throttled_posts', 'exclusive_posts', 'counted_posts', 'featured_posts'];

/** The line of each statement in app/main.go, by the view it reads. */
const LINE = { recent: 9, throttled: 15, exclusive: 21, counted: 27, featured: 33 };

/** What each refusal must name: the view (and the view it was read through) and what it calls. */
const WHY: Record<string, RegExp> = {
  throttled: /it reads the view isu\.throttled_posts, whose definition calls SLEEP\(\)/,
  exclusive: /it reads the view isu\.exclusive_posts, whose definition calls GET_LOCK\(\)/,
  counted: /the view isu\.counted_posts calls the stored function isu\.count_hit/,
  featured: /the view isu\.counted_posts \(read through isu\.featured_posts\) calls the stored function isu\.count_hit/,
};

before(async () => {
  db = await startMariaDb({ args: ['--general-log=1'] });
  db.sql('CREATE DATABASE isu');
  db.sql(readFileSync(join(FIXTURES, 'view-hazards', 'schema.sql'), 'utf8'), 'isu');
  db.sql(`CREATE USER 'qi'@'localhost' IDENTIFIED BY '${PASSWORD}';
    GRANT SELECT, SHOW VIEW, EXECUTE ON isu.* TO 'qi'@'localhost';
    CREATE USER 'noview'@'localhost' IDENTIFIED BY '${PASSWORD}';
    GRANT SELECT ON isu.* TO 'noview'@'localhost';`);
}, { timeout: 180_000 } as never);

after(async () => { await db?.stop(); });

const opts = (o: Partial<ConnectionOptions> = {}): ConnectionOptions => ({ socket: db.socket, user: 'qi', password: PASSWORD, database: 'isu', ...o });

/** Nothing the `qi` sessions sent names an acting view, except the information_schema reads of their definitions. */
function assertNothingRan(from: number): void {
  const sent = sentBy(db, 'qi').slice(from);
  const naming = sent.filter((s) => ACTING.some((v) => s.includes(v)));
  assert.ok(naming.length > 0, 'the view definitions were read');
  assert.deepEqual(naming.filter((s) => !s.startsWith('Query SELECT TABLE_SCHEMA, TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS WHERE ')), []);
  assert.deepEqual(sent.filter((s) => /SLEEP|GET_LOCK|count_hit/i.test(s)), []);
  assert.equal(db.sql('SELECT COUNT(*) FROM post_hits', 'isu').trim(), '0', 'the stored function never wrote');
}

async function runExplain(args: string[]): Promise<{ code: number; stdout: string; stderr: string; rows: Record<string, unknown>[] }> {
  const { code, out: stdout, err: stderr } = await runCommand(explainCommand, ['--socket', db.socket, '--user', 'qi', '--database', 'isu', '--format', 'json', ...args, APP],
    APP, { MYSQL_PWD: PASSWORD });
  const rows = stdout.trim() ? stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : [];
  return { code, stdout, stderr, rows };
}

function assertRefusedRows(rows: Record<string, unknown>[], stdout: string): void {
  for (const [view, why] of Object.entries(WHY)) {
    const line = LINE[view as keyof typeof LINE];
    const own = rows.filter((r) => r.line === line);
    assert.equal(own.length, 1, `line ${line}: ${stdout}`);
    assert.equal(own[0].code, 'not-explained', stdout);
    assert.equal(own[0].severity, 'info', stdout);
    assert.match(String(own[0].message), /^not explained: the guard does not send it: /);
    assert.match(String(own[0].message), why);
  }
  assert.deepEqual(rows.filter((r) => r.line === LINE.recent && (r.code === 'not-explained' || r.code === 'explain-error')), [], 'the ordinary view is explained');
}

void test('explain: statements over views that call SLEEP, GET_LOCK or a writing stored function are not sent, and say which view calls what', async () => {
  const from = sentBy(db, 'qi').length;
  const run = await runExplain([]);
  assert.equal(run.code, 0, run.stderr);
  assertRefusedRows(run.rows, run.stdout);
  assert.ok(sentBy(db, 'qi').slice(from).some((s) => /^Query EXPLAIN SELECT \* FROM recent_posts WHERE user_id = /.test(s)), 'the ordinary view was explained');
  assertNothingRan(from);
});

void test('explain --analyze: the acting views are neither explained nor measured; the ordinary one is measured', async () => {
  const from = sentBy(db, 'qi').length;
  const run = await runExplain(['--analyze']);
  assert.equal(run.code, 0, run.stderr);
  assertRefusedRows(run.rows.filter((r) => r.code !== 'measured'), run.stdout);
  const sent = sentBy(db, 'qi').slice(from);
  assert.ok(sent.some((s) => /ANALYZE FORMAT=JSON SELECT \* FROM recent_posts WHERE user_id = /.test(s)), `the ordinary view was measured:\n${sent.join('\n')}`);
  assertNothingRan(from);
});

void test('the hover\'s path: explain, Measure and the hover text refuse them by name, with the function prompt declined', async () => {
  const from = sentBy(db, 'qi').length;
  const asked: string[][] = [];
  // why: as the extension builds it; the modal that asks about a stored function is answered "no".
  const svc = new ExplainService(new DbConnection(opts({ allowFunctions: (names) => { asked.push(names); return false; } })));
  try {
    const statements: Record<string, string> = {
      throttled: 'SELECT * FROM throttled_posts WHERE id = ?', exclusive: 'SELECT * FROM exclusive_posts WHERE id = ?',
      counted: 'SELECT * FROM counted_posts WHERE id = ?', featured: 'SELECT * FROM featured_posts WHERE id = ?',
    };
    for (const [view, sql] of Object.entries(statements)) {
      const r = await svc.explainSql(sql);
      assert.equal(r.error?.kind, 'refused', JSON.stringify(r));
      assert.match(r.error!.message, WHY[view]);
      const m = await measureStatement(svc, sql);
      assert.equal(m.sent, undefined, `${view} was measured`);
      assert.match(m.refused ?? '', WHY[view]);
      const hover = explainHoverMarkdown({ sql, findings: r.findings, substitutions: r.substitutions, suggestions: [], error: r.error, ...(m.refused ? { measureRefusal: m.refused } : {}) },
        { addToDatabase: 'a', addToSchemaFile: 'b', copyDdl: 'c', showLog: 'd', measure: 'e', args: () => ({}) });
      const text = hover.markdown.replace(/\\/g, '');
      assert.match(text, /not explained: the guard does not send it: /, hover.markdown);
      assert.match(text, WHY[view], hover.markdown);
      assert.ok(!hover.enabledCommands.includes('e'), 'no Measure link');
    }
    // why: a lock taken by the session is held until it closes, so it is looked for while it is open.
    assert.equal(db.sql("SELECT IS_USED_LOCK('qi_view_lock') IS NULL").trim(), '1', 'the view\'s lock was never taken');
    assert.deepEqual(asked.flat().filter((n) => n !== 'isu.count_hit'), []);
    assert.ok(asked.length >= 2, 'the user was asked about the stored function');
    const ok = await svc.explainSql('SELECT * FROM recent_posts WHERE user_id = ?');
    assert.equal(ok.error, undefined, JSON.stringify(ok.error));
    assert.ok(ok.plan);
  } finally { await svc.close(); }
  assertNothingRan(from);
});

void test('a user who may not see a view\'s definition (no SHOW VIEW): not sent, and the message says which grant is missing', async () => {
  const svc = new ExplainService(new DbConnection(opts({ user: 'noview' })));
  try {
    const r = await svc.explainSql('SELECT * FROM recent_posts WHERE user_id = ?');
    assert.equal(r.error?.kind, 'refused', JSON.stringify(r));
    assert.match(r.error!.message, /reads the view isu\.recent_posts, whose definition this user may not see.*GRANT SHOW VIEW/);
    const plain = await svc.explainSql('SELECT * FROM posts WHERE user_id = ?');
    assert.equal(plain.error, undefined, JSON.stringify(plain.error));
  } finally { await svc.close(); }
});
