/** Shared by the queries tests: slow-log text in the MySQL 8 format, run through the real parser and collector, and sites. */
import assert from 'node:assert/strict';
import { SlowLogParser } from '../../../src/core/logs/slowLogParser';
import { forEachLine } from '../../../src/core/logs/lineSource';
import { SlowStatsCollector, type QueryStats, type SlowStatsOptions } from '../../../src/core/logs/slowStats';
import type { SqlSite } from '../../../src/core/model';

export interface Ent { t: number; thread?: number; qt: number; sql: string; sent?: number; exam?: number }

export const T0 = Date.UTC(2024, 0, 1, 0, 0, 0);

/** Entries as the server writes them (MySQL 8: `# Time` with microseconds, `Id:`). */
export function slowLogText(entries: readonly Ent[]): string {
  return entries.map((e) => `# Time: ${new Date(e.t).toISOString().replace('Z', '000Z')}\n`
    + `# User@Host: app[app] @ localhost []  Id: ${e.thread ?? 1}\n`
    + `# Query_time: ${e.qt.toFixed(6)}  Lock_time: 0.000001 Rows_sent: ${e.sent ?? 0}  Rows_examined: ${e.exam ?? 0}\n`
    + `SET timestamp=${Math.floor(e.t / 1000)};\n${e.sql};\n`).join('');
}

export function collect(entries: readonly Ent[], options?: SlowStatsOptions): QueryStats[] {
  const c = new SlowStatsCollector(options);
  const p = new SlowLogParser((e) => c.add(e));
  forEachLine(new TextEncoder().encode(slowLogText(entries)), (b, s, e, n) => p.line(b, s, e, n));
  assert.equal(p.end().malformed, 0);
  return c.result();
}

/** A Go site on a 0-based line, optionally inside a for loop. */
export function site(file: string, line: number, sql: string, loop = false): SqlSite {
  const range = { start: { line, character: 20 }, end: { line, character: 22 + sql.length } };
  return {
    file, language: 'go', range, literalRanges: [range], sql, placeholders: sql.includes('?') ? ['?'] : [], dynamic: false,
    loops: loop ? [{ kind: 'for', range: { start: { line: line - 1, character: 1 }, end: { line: line + 3, character: 2 } } }] : [],
  } as SqlSite;
}
