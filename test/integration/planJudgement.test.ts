/**
 * Plan judgement on a real MariaDB (issue #13): a small shop app of our own (test/fixtures/plan-judgement)
 * with 100k+ rows per table. Locking reads, the LIMIT trap (static and measured), sampled values with
 * apostrophes / backslashes / unicode, functions over subqueries, an unfiltered listing, IN (…) ORDER BY
 * advice, explain-versus-advise over every statement, incomplete statements, and the general log
 * proving what Measure sends and that nothing else runs without it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { FIXTURES } from '../support/paths';
import { startMariaDb, type MariaDbServer } from '../support/mariadb';
import { DbConnection, type ConnectionOptions } from '../../src/db/connection';
import { ExplainService, type ExplainResult } from '../../src/db/explainService';
import { measureStatement, MEASURE_ROW_CAP } from '../../src/db/measureService';
import { explainCommand } from '../../src/cli/commands/explain';
import { adviseCommand } from '../../src/cli/commands/advise';
import { FactsCache } from '../../src/core/workspace';
import { ParserSet } from '../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../src/node/grammars';
import { scanProject } from '../../src/node/scanDir';
import type { SqlSite } from '../../src/core/model';
import { workloadStatements } from '../../src/core/analysis/workloadAdvice';

const APP = join(FIXTURES, 'plan-judgement', 'app');
const PASSWORD = 'qi-judge';
let db: MariaDbServer;
let sites: SqlSite[] = [];

before(async () => {
  db = await startMariaDb({ args: ['--general-log=1'] });
  db.sql('CREATE DATABASE shop');
  db.sql(readFileSync(join(APP, 'sql', 'schema.sql'), 'utf8'), 'shop');
  db.sql(readFileSync(join(APP, 'sql', 'data.sql'), 'utf8'), 'shop');
  db.sql(`CREATE USER 'judge'@'localhost' IDENTIFIED BY '${PASSWORD}'; GRANT SELECT ON shop.* TO 'judge'@'localhost';`);
  const scan = await scanProject(APP, new FactsCache(new ParserSet(fsGrammarSource()), { routes: false }));
  sites = scan.facts.flatMap((f) => f.sites);
}, { timeout: 300_000 } as never);

after(async () => { await db?.stop(); });

const opts = (o: Partial<ConnectionOptions> = {}): ConnectionOptions => ({ socket: db.socket, user: 'judge', password: PASSWORD, database: 'shop', ...o });
const site = (fragment: string): SqlSite => {
  const s = sites.find((x) => x.sql.includes(fragment));
  assert.ok(s, `no statement with ${fragment} in the app`);
  return s;
};
const codes = (r: ExplainResult) => r.findings.map((f) => f.code).sort();

async function cli(cmd: typeof explainCommand, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough(), stderr = new PassThrough();
  let out = '', err = '';
  stdout.on('data', (d) => { out += d; });
  stderr.on('data', (d) => { err += d; });
  const code = await cmd.run(args, { stdout, stderr, env: { MYSQL_PWD: PASSWORD }, cwd: APP });
  return { code, out, err };
}

/** Statements the judge user sent, from the general log, in order. */
function sentByJudge(): string[] {
  const ours = new Set<string>();
  const sent: string[] = [];
  for (const line of readFileSync(db.generalLog, 'utf8').split('\n')) {
    const m = /^(?:\S+\s+\S+)?\s+(\d+)\s+(Connect|Query|Init DB|Quit|Prepare|Execute)\t?(.*)$/.exec(line);
    if (!m) continue;
    if (m[2] === 'Connect' && /^judge@/.test(m[3])) ours.add(m[1]);
    else if (ours.has(m[1]) && m[2] !== 'Quit' && m[2] !== 'Connect') sent.push(`${m[2]} ${m[3]}`);
  }
  return sent;
}

void test('the app has the statements the judgement is about, on tables of 100k+ rows', async () => {
  assert.equal(sites.length, 14);
  const svc = new ExplainService(new DbConnection(opts()));
  try {
    const s = await svc.schema();
    for (const t of ['login_events', 'items', 'item_tags']) assert.ok(s.tables[t].rows >= 90_000, `${t}: ${s.tables[t].rows}`);
  } finally { await svc.close(); }
});

void test('every locking clause: explained without it (same plan), said so; a locking read that scans is a finding', async () => {
  const svc = new ExplainService(new DbConnection(opts()));
  try {
    const clauses: [string, string][] = [
      ['WHERE id = ? FOR UPDATE', 'FOR UPDATE'], ['FOR SHARE', 'FOR SHARE'], ['LOCK IN SHARE MODE', 'LOCK IN SHARE MODE'],
      ['FOR UPDATE NOWAIT', 'FOR UPDATE NOWAIT'], ['FOR UPDATE SKIP LOCKED', 'FOR UPDATE SKIP LOCKED'],
    ];
    for (const [fragment, clause] of clauses) {
      const r = await svc.explainSite(site(fragment));
      assert.equal(r.error, undefined, `${fragment}: ${r.error?.message}`);
      assert.ok(r.plan, fragment);
      assert.deepEqual(r.explainedWithout, [clause], fragment);
      assert.equal(r.lockingClause, clause);
      assert.doesNotMatch(r.explainedSql ?? '', /\b(FOR|LOCK|SHARE|NOWAIT|SKIP)\b/);
    }
    // The primary-key lookups lock one row: no finding.
    assert.deepEqual(codes(await svc.explainSite(site('WHERE id = ? FOR UPDATE'))), []);
    // seller_id has no index: the locking read scans items and locks every row it reads.
    const sum = await svc.explainSite(site('SUM(stock)'));
    assert.ok(codes(sum).includes('locking-scan'), JSON.stringify(sum.findings));
    assert.match(sum.findings.find((f) => f.code === 'locking-scan')!.message, /FOR UPDATE.*scans items.*locks every row it reads.*no index on items\(seller_id/);
    const skip = await svc.explainSite(site('SKIP LOCKED'));
    assert.ok(codes(skip).includes('locking-scan'), JSON.stringify(skip.findings));
  } finally { await svc.close(); }
  assert.deepEqual(sentByJudge().filter((s) => /\b(FOR UPDATE|FOR SHARE|LOCK IN SHARE MODE)\b/i.test(s)), [], 'a locking clause reached the server');
});

void test('LIMIT trap, static: EXPLAIN says 2 rows; the finding says it is a lower bound and names (account_id, ok)', async () => {
  const svc = new ExplainService(new DbConnection(opts()));
  try {
    const r = await svc.explainSite(site('ORDER BY id DESC LIMIT 2'));
    assert.equal(r.plan?.rows[0].type, 'index', JSON.stringify(r.plan?.rows));
    assert.ok((r.plan?.rows[0].rows ?? 99) <= 10, JSON.stringify(r.plan?.rows));
    assert.deepEqual(codes(r), ['limit-order-scan'], JSON.stringify(r.findings));
    const f = r.findings[0];
    assert.match(f.message, /estimate of ~\d+ rows is a lower bound/);
    assert.match(f.message, /no index on login_events\((?:account_id, ok|ok, account_id)\b[^)]*\)/);
    assert.deepEqual(r.advice?.suggestions.map((s) => s.table), ['login_events']);
  } finally { await svc.close(); }
});

void test('LIMIT trap, measured: ANALYZE reads ≥ 10,000 rows where EXPLAIN says 2; over-estimate finding', async () => {
  const svc = new ExplainService(new DbConnection(opts()));
  try {
    // An account that never failed to log in: every event is read in the search for 2.
    const sql = 'SELECT id, ip, created_at FROM login_events WHERE account_id = 19999 AND ok = 0 ORDER BY id DESC LIMIT 2';
    const m = await measureStatement(svc, sql);
    assert.equal(m.error, undefined, JSON.stringify(m.error));
    assert.ok(m.measurement, m.refused);
    const est = m.explain.plan!.rows[0].rows!;
    assert.ok(est <= 10, `estimate ${est}`);
    assert.ok(m.measurement.rowsRead >= 10_000, `read ${m.measurement.rowsRead}`);
    assert.equal(m.measurement.rowsSent, 0);
    assert.equal(m.measurement.accesses[0].loops, 1);
    assert.ok(m.measurement.ms > 0);
    assert.equal(m.limits.rowCap, MEASURE_ROW_CAP);
    assert.deepEqual(m.findings.map((f) => f.code), ['measured-over-estimate']);
    assert.match(m.findings[0].message, /measured: read [\d,]+ rows of login_events where EXPLAIN estimated ~\d+/);
    assert.match(m.sent ?? '', /^SET STATEMENT max_statement_time=5 FOR ANALYZE FORMAT=JSON SELECT .* LIMIT 2 ROWS EXAMINED 1000000$/);
    // A small row cap stops the run and says the figures are lower bounds.
    const capped = await measureStatement(svc, sql, { rowCap: 5000 });
    assert.equal(capped.measurement?.capped, true);
    assert.match(capped.findings[0]?.message ?? '', /read at least/);
    // Locking reads and data changes are refused without sending anything.
    assert.match((await measureStatement(svc, 'SELECT stock FROM items WHERE id = 3 FOR UPDATE')).refused ?? '', /locking read \(FOR UPDATE\) is never measured/);
    assert.match((await measureStatement(svc, 'SELECT COUNT(*) INTO @n FROM items')).refused ?? '', /explained without INTO @n/);
  } finally { await svc.close(); }
});

void test('apostrophe, backslash and unicode values sampled into the statement: the JSON plan is read', async () => {
  const svc = new ExplainService(new DbConnection(opts()));
  try {
    const r = await svc.explainSite(site('FROM accounts WHERE name = ?'));
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.match(r.filledSql ?? '', /'(?:O''Brien|D''Angelo|back\\\\slash|Zoë Ünal 山田) \d+'/);
    assert.equal(r.plan?.source, 'tabular+json', r.planNote);
    assert.equal(r.planNote, undefined);
    assert.match(r.plan!.rows[0].condition ?? '', /accounts/);
    // Every kind of value, one by one.
    for (const name of ["O'Brien 4", "D'Angelo 1", 'back\\slash 2', 'Zoë Ünal 山田 3']) {
      const lit = `'${name.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
      const x = await svc.explainSql(`SELECT id, created_at FROM accounts WHERE name = ${lit} OR created_at < '2024-01-01'`);
      assert.equal(x.error, undefined, `${lit}: ${JSON.stringify(x.error)}`);
      assert.equal(x.plan?.source, 'tabular+json', `${lit}: ${x.planNote}`);
    }
  } finally { await svc.close(); }
});

void test('IFNULL / COALESCE over a subquery: no function-on-column; an unfiltered listing: info at most, with the reason', async () => {
  const svc = new ExplainService(new DbConnection(opts()));
  try {
    for (const fragment of ['IFNULL((SELECT', 'COALESCE((SELECT']) {
      const r = await svc.explainSite(site(fragment));
      assert.equal(r.error, undefined);
      assert.ok(!codes(r).includes('function-on-column'), `${fragment}: ${JSON.stringify(r.findings)}`);
    }
    const list = await svc.explainSite(site('ORDER BY id")'.slice(0, -2).replace('ORDER BY id', 'price FROM items ORDER BY id')));
    assert.ok(list.findings.every((f) => f.severity === 'info' || f.severity === 'hint'), JSON.stringify(list.findings));
    for (const f of list.findings) assert.match(f.message, /asks for every row/);
  } finally { await svc.close(); }
});

void test('IN (…) ORDER BY: explain and advise name the same index on item_tags', async () => {
  const svc = new ExplainService(new DbConnection(opts()));
  let named: string[] = [];
  try {
    const r = await svc.explainSite(site('tag_id IN (?) ORDER BY item_id'));
    assert.equal(r.error, undefined);
    named = r.findings.flatMap((f) => [...f.message.matchAll(/no index on item_tags\(([^)]*)\)/g)].map((m) => m[1]));
    assert.ok(named.length > 0, JSON.stringify(r.findings));
    assert.deepEqual(r.advice?.suggestions.map((s) => s.columns.join(', ')), [named[0]]);
  } finally { await svc.close(); }
  const adv = await cli(adviseCommand as typeof explainCommand, ['--socket', db.socket, '--user', 'judge', '--database', 'shop', '--format', 'json', APP]);
  assert.equal(adv.code, 0, adv.err);
  const lines = adv.out.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; table: string; columns: string[] });
  assert.ok(lines.some((l) => l.kind === 'index' && l.table === 'item_tags' && l.columns.join(', ') === named[0]), adv.out);
});

void test('one voice, as a property over every statement of the app: every index explain names is the one advise suggests, and the reverse', async () => {
  // why: the hover and the CLI's explain give each statement its share of the workload's index set, as advise prints it.
  const statements = workloadStatements(sites);
  const svc = new ExplainService(new DbConnection(opts()), { workload: () => statements });
  const adv = await cli(adviseCommand as typeof explainCommand, ['--socket', db.socket, '--user', 'judge', '--database', 'shop', '--format', 'json', APP]);
  const advised = adv.out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { kind: string; table: string; columns: string[]; sites?: { line: number }[] }).filter((l) => l.kind === 'index');
  try {
    const schema = await svc.schema();
    let checked = 0;
    for (const s of sites) {
      const r = await svc.explainSite(s);
      if (!r.plan) continue;
      checked++;
      const suggestions = r.advice?.suggestions ?? [];
      for (const f of r.findings) {
        for (const m of f.message.matchAll(/\bno index on (\w+)\(([^)]*)\)/g)) {
          assert.ok(schema.tables[m[1].toLowerCase()], `${m[1]} is not a table`);
          assert.ok(suggestions.some((x) => x.table === m[1] && x.columns.join(', ') === m[2]), `${s.sql}\nexplain: ${f.message}\nadvice: ${JSON.stringify(suggestions)}`);
        }
      }
      for (const x of suggestions) {
        // The reverse: a suggestion for a table the plan has a finding on is named in that finding…
        for (const f of r.findings.filter((y) => y.table === x.table && /\bindex on \w+\(/.test(y.message))) {
          assert.match(f.message, new RegExp(`${x.table}\\(${x.columns.join(', ')}\\)`), `${s.sql}\n${f.message}`);
        }
        // …and the advise command lists it for this statement.
        const line = (s.textStart ?? s.range.start).line + 1;
        assert.ok(advised.some((a) => a.table === x.table && (a.columns.join(',') === x.columns.join(',') || x.columns.every((c, i) => a.columns[i] === c)) && a.sites?.some((y) => y.line === line)), `advise lacks ${x.table}(${x.columns}) for line ${line}`);
      }
    }
    assert.ok(checked >= 10, `only ${checked} statements had plans`);
  } finally { await svc.close(); }
});

void test('incomplete statements and INTO: not sent; said why, with the known part', async () => {
  const svc = new ExplainService(new DbConnection(opts()));
  try {
    const r = await svc.explainSite(site('WHERE id IN ('));
    assert.match(r.skipped ?? '', /^not explainable: built at run time \(.*"WHERE id IN \("/);
    const into = await svc.explainSite(site('INTO @failures'));
    assert.deepEqual(into.explainedWithout, ['INTO @failures']);
    assert.ok(into.plan);
    assert.match((await svc.explainSql("SELECT * FROM items INTO OUTFILE '/tmp/items.csv'")).skipped ?? '', /never sent/);
  } finally { await svc.close(); }
  const sent = sentByJudge();
  assert.deepEqual(sent.filter((s) => /INTO|WHERE id IN \($/.test(s)), []);
});

void test('general log: explain sends only what the README lists; --analyze sends ANALYZE only for the SELECTs, under the limits', async () => {
  const before = sentByJudge().length;
  const plain = await cli(explainCommand, ['--socket', db.socket, '--user', 'judge', '--database', 'shop', '--format', 'json', APP]);
  assert.equal(plain.code, 0, plain.err);
  const plainSent = sentByJudge().slice(before);
  const allowed = /^Query (?:EXPLAIN (?:FORMAT=JSON )?(?:SELECT|UPDATE|DELETE|INSERT|REPLACE|WITH)\b|SET SESSION |SELECT VERSION\(\)|SELECT .+ FROM information_schema\.|SELECT DISTINCT `[^`]+` FROM `shop`\.`[^`]+` WHERE `[^`]+` IS NOT NULL LIMIT \d+$|SELECT COUNT\(\*\) AS d, SUM\(k\) AS n, SUM\(k = 1\) AS f1 FROM \(SELECT COUNT\(\*\) AS k FROM \(SELECT (`[^`]+`) FROM `shop`\.`[^`]+` LIMIT 20000\) AS s GROUP BY \1\) AS g$)/;
  assert.deepEqual(plainSent.filter((s) => !allowed.test(s)), []);
  assert.ok(!plainSent.some((s) => /ANALYZE/i.test(s)));
  const records = plain.out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.ok(records.every((r) => r.measured === undefined));
  assert.ok(records.some((r) => r.code === 'not-explainable'));
  assert.ok(records.some((r) => (r.explainedWithout as string[] | undefined)?.includes('FOR UPDATE')));

  const mark = sentByJudge().length;
  const measured = await cli(explainCommand, ['--socket', db.socket, '--user', 'judge', '--database', 'shop', '--format', 'json', '--analyze', '--timeout', '4000', APP]);
  assert.equal(measured.code, 0, measured.err);
  assert.match(measured.err, /measured \d+ \(ANALYZE, at most 1,000,000 rows examined and 4 s each\)/);
  const sent = sentByJudge().slice(mark);
  // why: the view guard's information_schema reads name the statement's words (ANALYZE among them); they are schema reads
  const analyzes = sent.filter((s) => /ANALYZE/i.test(s) && !/ FROM information_schema\./.test(s));
  // One ANALYZE per plain SELECT of the app: 14 statements − 6 locking reads − 1 INTO − 1 incomplete.
  assert.equal(analyzes.length, 6, analyzes.join('\n'));
  for (const a of analyzes) {
    assert.match(a, /^Query SET STATEMENT max_statement_time=4 FOR ANALYZE FORMAT=JSON SELECT .* ROWS EXAMINED 1000000$/);
    assert.doesNotMatch(a, /FOR UPDATE|FOR SHARE|LOCK IN SHARE|INTO/);
  }
  assert.deepEqual(sent.filter((s) => !allowed.test(s) && !analyzes.includes(s)), []);
  const recs = measured.out.trim().split('\n').map((l) => JSON.parse(l) as { code: string; file: string; line: number; measured?: { rowsRead: number; rowsSent: number; ms: number } });
  const trap = recs.filter((r) => r.line === 20);
  assert.ok(trap.length >= 2, JSON.stringify(trap));
  for (const r of trap) {
    assert.ok(r.measured, JSON.stringify(r));
    assert.equal(typeof r.measured.rowsRead, 'number');
    assert.equal(typeof r.measured.rowsSent, 'number');
    assert.equal(typeof r.measured.ms, 'number');
  }
  assert.ok(recs.every((r) => r.line !== 32 || r.measured === undefined));
});
