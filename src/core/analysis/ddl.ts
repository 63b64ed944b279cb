/**
 * DDL text for index suggestions: quoted identifiers, index names within MySQL's 64-character
 * limit, online-ALTER clauses for large tables, and the DROP that undoes a verification.
 */
import { formatCompact } from '../format/numbers';

/** MySQL and MariaDB reject identifiers longer than this. */
export const MAX_IDENTIFIER_LENGTH = 64;

/** Row estimate above which the ALTER asks for an in-place, lock-free build and warns about its duration. */
export const LARGE_TABLE_ROWS = 1_000_000;

/** Quotes an identifier with backticks, doubling any backtick inside it. */
export function quoteIdent(name: string): string {
  return '`' + name.replace(/`/g, '``') + '`';
}

/** 32-bit FNV-1a, as 8 hex digits: a short deterministic suffix for shortened names. */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/**
 * The conventional name `idx_<table>_<col1>_<col2>`: characters outside `[A-Za-z0-9_$]` become `_`;
 * names over 64 characters are cut and given a hash of the full name, so they stay unique and stable.
 * `taken` (lower-case names already on the table) gets `_2`, `_3`… appended on a clash.
 */
export function indexName(table: string, columns: readonly string[], taken: ReadonlySet<string> = new Set()): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_$]/g, '_');
  const full = `idx_${clean(table)}_${columns.map(clean).join('_')}`;
  const fit = (s: string) => (s.length <= MAX_IDENTIFIER_LENGTH ? s : `${s.slice(0, MAX_IDENTIFIER_LENGTH - 9)}_${shortHash(s)}`);
  let name = fit(full);
  for (let n = 2; taken.has(name.toLowerCase()); n++) {
    const suffix = `_${n}`;
    name = full.length + suffix.length <= MAX_IDENTIFIER_LENGTH ? full + suffix : `${full.slice(0, MAX_IDENTIFIER_LENGTH - 9 - suffix.length)}_${shortHash(full)}${suffix}`;
  }
  return name;
}

export interface AddIndexOptions {
  /** Schema to qualify the table with (`db`.`t`). */
  database?: string;
  /** Row estimate; above `largeTableRows` the ALTER adds `ALGORITHM=INPLACE, LOCK=NONE` and a warning. */
  rows?: number;
  largeTableRows?: number;
  /** Existing index dropped in the same statement (the suggestion extends it). */
  replaces?: string;
  /** MySQL 8: create the index INVISIBLE (for verification). */
  invisible?: boolean;
  /** Prefix length per column (`name(20)`), when a column needs one. */
  lengths?: readonly (number | undefined)[];
}

export interface IndexDdl { ddl: string; warnings: string[] }

function tableRef(table: string, database?: string): string {
  return database ? `${quoteIdent(database)}.${quoteIdent(table)}` : quoteIdent(table);
}

/** `ALTER TABLE `t` [DROP INDEX `old`,] ADD INDEX `name` (`a`, `b`)[, ALGORITHM=INPLACE, LOCK=NONE]` (no trailing semicolon). */
export function addIndexDdl(table: string, columns: readonly string[], name: string, opts: AddIndexOptions = {}): IndexDdl {
  const parts = columns.map((c, i) => quoteIdent(c) + (opts.lengths?.[i] ? `(${opts.lengths[i]})` : '')).join(', ');
  const clauses: string[] = [];
  if (opts.replaces) clauses.push(`DROP INDEX ${quoteIdent(opts.replaces)}`);
  clauses.push(`ADD INDEX ${quoteIdent(name)} (${parts})${opts.invisible ? ' INVISIBLE' : ''}`);
  const warnings: string[] = [];
  const limit = opts.largeTableRows ?? LARGE_TABLE_ROWS;
  if (opts.rows !== undefined && opts.rows > limit) {
    clauses.push('ALGORITHM=INPLACE', 'LOCK=NONE');
    warnings.push(`${table} has about ${formatCompact(opts.rows)} rows: building the index reads the whole table and can take minutes; `
      + 'the table stays writable (LOCK=NONE), but run it outside a benchmark.');
  }
  return { ddl: `ALTER TABLE ${tableRef(table, opts.database)} ${clauses.join(', ')}`, warnings };
}

/** `ALTER TABLE `t` DROP INDEX `name`` — undoes a verification. */
export function dropIndexDdl(table: string, name: string, database?: string): string {
  return `ALTER TABLE ${tableRef(table, database)} DROP INDEX ${quoteIdent(name)}`;
}

/** The index definition line used inside a CREATE TABLE: `INDEX `name` (`a`, `b`)` (keyword configurable). */
export function indexDefinition(name: string, columns: readonly string[], keyword: 'INDEX' | 'KEY' | 'index' | 'key' = 'INDEX', quote = true): string {
  const q = (s: string) => (quote ? quoteIdent(s) : s);
  return `${keyword} ${q(name)} (${columns.map(q).join(', ')})`;
}

