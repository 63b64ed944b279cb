/**
 * Tabular EXPLAIN (one object per row, as a driver returns it) → PlanRow[].
 * MySQL 8 columns: id, select_type, table, partitions, type, possible_keys, key, key_len, ref,
 * rows, filtered, Extra. MariaDB has no `partitions` nor `filtered` unless EXPLAIN EXTENDED /
 * PARTITIONS is used, and may print `rows` as NULL (e.g. for INSERT rows).
 */
import type { Flavor } from '../model';
import type { Plan, PlanRow } from './planModel';

type Raw = Record<string, unknown>;

function field(raw: Raw, name: string): unknown {
  if (name in raw) return raw[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(raw)) if (k.toLowerCase() === lower) return raw[k];
  return undefined;
}

function str(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  const s = String(v).trim();
  return s === '' || s.toUpperCase() === 'NULL' ? null : s;
}

function num(v: unknown): number | null {
  const s = str(v);
  if (s === null) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

/** Splits an Extra cell (`Using where; Using join buffer (flat, BNL join)`) into parts, keeping parenthesised commas. */
export function splitExtra(extra: string | null): string[] {
  if (!extra) return [];
  return extra.split(/;\s*/).map((s) => s.trim()).filter((s) => s.length > 0);
}

/** Normalises one tabular EXPLAIN row (keys as the server names the columns, any case). */
export function normalizeTabularRow(raw: Raw): PlanRow {
  const possible = str(field(raw, 'possible_keys'));
  return {
    id: num(field(raw, 'id')),
    selectType: str(field(raw, 'select_type')) ?? 'SIMPLE',
    table: str(field(raw, 'table')),
    partitions: str(field(raw, 'partitions')),
    type: str(field(raw, 'type')),
    possibleKeys: possible ? possible.split(',').map((s) => s.trim()).filter(Boolean) : [],
    key: str(field(raw, 'key')),
    keyLen: str(field(raw, 'key_len')),
    ref: str(field(raw, 'ref')),
    rows: num(field(raw, 'rows')),
    filtered: num(field(raw, 'filtered')),
    extra: splitExtra(str(field(raw, 'Extra'))),
  };
}

/** Normalises a whole tabular EXPLAIN result. */
export function normalizeTabular(rows: readonly Raw[], flavor: Flavor): Plan {
  return { flavor, rows: rows.map(normalizeTabularRow), source: 'tabular' };
}

/**
 * Parses the text grid the `mysql` / `mariadb` clients print (`--table` boxes or `--batch` tabs),
 * for fixtures recorded from a terminal. The header line names the columns.
 */
export function parseExplainText(text: string): Raw[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '' && !/^\+[-+]+\+$/.test(l.trim()));
  if (lines.length === 0) return [];
  const boxed = lines[0].trim().startsWith('|');
  const cells = (l: string): string[] => boxed
    ? l.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim())
    : l.split('\t');
  const header = cells(lines[0]);
  return lines.slice(1).map((l) => {
    const c = cells(l);
    const o: Raw = {};
    header.forEach((h, i) => { o[h] = c[i] ?? null; });
    return o;
  });
}
