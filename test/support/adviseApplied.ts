/**
 * `advise` on an app against a private MariaDB, and the checks every app's index set must pass: the
 * explain service (what the hover and the quick fix offer) gives the same set as the CLI, and the set,
 * applied with its own DDL, takes the full scans and filesorts out of the plans of the statements it
 * serves (EXPLAIN after). Shared by the workload fixture's test and the demo app's.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { adviseCommand } from '../../src/cli/commands/advise';
import { indexFixSets } from '../../src/core/analysis/indexFixSets';
import type { SqlSite } from '../../src/core/model';
import type { DbConnection } from '../../src/db/connection';
import { ExplainService, type ExplainResult } from '../../src/db/explainService';
import type { MariaDbServer } from './mariadb';

export interface AdviseLine {
  kind: string;
  table: string;
  columns: string[];
  name: string;
  ddl: string;
  sites: { file: string; line: number; sql: string }[];
  [key: string]: unknown;
}

export const asText = (xs: readonly { table: string; columns: readonly string[] }[]): string[] => xs.map((s) => `${s.table}(${s.columns.join(',')})`);

/** `query-insight advise APP --format json` over the server's socket: its JSON lines and its stderr summary. */
export async function adviseJson(app: string, conn: { socket: string; user: string; database: string; password?: string }, extra: string[] = []): Promise<{ lines: AdviseLine[]; stderr: string }> {
  const stdout = new PassThrough(), stderr = new PassThrough();
  let out = '', err = '';
  stdout.on('data', (d) => { out += d; });
  stderr.on('data', (d) => { err += d; });
  const code = await adviseCommand.run([app, '--socket', conn.socket, '--user', conn.user, '--database', conn.database, '--format', 'json', ...extra],
    { stdout, stderr, env: conn.password ? { MYSQL_PWD: conn.password } : {}, cwd: app });
  assert.equal(code, 0, err);
  return { lines: out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as AdviseLine), stderr: err };
}

/** The indexes of the CLI's set, as `table(a,b)`, sorted. */
export const indexSet = (lines: readonly AdviseLine[]): string[] => asText(lines.filter((l) => l.kind === 'index')).sort();

/**
 * What the hover lists and the quick fix offers over every site, as `table(a,b)`, sorted: the hover shows
 * each result's advice, the quick fix offers indexFixSets of it (the functions the extension calls).
 */
export function offeredSet(sites: readonly SqlSite[], results: ReadonlyMap<string, ExplainResult>): string[] {
  const offered = new Set<string>();
  for (const s of sites) {
    const r = results.get(s.sql);
    assert.ok(r, `explained: ${s.sql}`);
    for (const set of indexFixSets(r.advice?.suggestions ?? [], r.findings.map((f) => f.table))) for (const x of asText(set)) offered.add(x);
  }
  return [...offered].sort();
}

/** The site of an advise line's `{file, line, sql}` (1-based line of the statement's text; the variant by its text). */
export function siteAt(sites: readonly SqlSite[], at: { file: string; line: number; sql: string }): SqlSite {
  const s = sites.find((x) => x.file.endsWith(at.file) && (x.textStart ?? x.range.start).line + 1 === at.line && x.sql === at.sql);
  assert.ok(s, `a site at ${at.file}:${at.line}: ${at.sql}`);
  return s;
}

/**
 * Applies the set's DDL on the server, then EXPLAINs every statement each index serves: the table's row
 * uses an index (the new one or the primary key), is no full scan, and has no filesort. Returns how many
 * statements were checked.
 */
export async function assertSetApplied(db: MariaDbServer, database: string, conn: () => DbConnection, sites: readonly SqlSite[], lines: readonly AdviseLine[]): Promise<number> {
  const indexes = lines.filter((l) => l.kind === 'index');
  for (const l of indexes) db.sql(l.ddl, database);
  const fresh = new ExplainService(conn());
  let checked = 0;
  try {
    for (const l of indexes) {
      for (const at of l.sites) {
        const s = siteAt(sites, at);
        const r = await fresh.explainSite(s);
        assert.ok(r.plan, `${s.sql}: ${JSON.stringify(r.error ?? r.skipped)}`);
        const row = r.plan.rows.find((x) => x.table?.toLowerCase() === l.table.toLowerCase() || r.plan!.rows.length === 1);
        assert.ok(row, `${s.sql}: no plan row for ${l.table} in ${JSON.stringify(r.plan.rows)}`);
        assert.notEqual(row.type, 'ALL', `${s.sql} still scans: ${JSON.stringify(row)}`);
        assert.ok(!row.extra.some((e) => /filesort/.test(e)), `${s.sql} still sorts: ${JSON.stringify(row)}`);
        assert.ok(row.key && (row.key === l.name || row.key === 'PRIMARY'), `${s.sql} uses ${row.key}, not ${l.name}`);
        checked++;
      }
    }
  } finally {
    await fresh.close();
  }
  return checked;
}
