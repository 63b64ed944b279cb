/**
 * Adds an index to the schema file the app's initializer loads, so it survives re-initialisation.
 * Pure: file text in, one text edit out. The edit matches the file's style — inside the CREATE TABLE
 * (same indentation, `INDEX` or `KEY` as the file writes it, backticks or not) or as an
 * `ALTER TABLE … ADD INDEX` / `CREATE INDEX` statement after it when the file adds indexes that way —
 * and is idempotent: nothing is added when an index with the same columns is already there.
 */
import type { Range } from '../model';
import { findCreateTables, findIndexStatements, inlineIndexes, type CreateTable } from './ddlParse';
import { quoteIdent } from './ddl';

export interface TextEdit {
  /** Offsets into the original text (UTF-16 code units). */
  start: number;
  end: number;
  newText: string;
  /** The same span as a 0-based line/character range. */
  range: Range;
}

export interface IndexToAdd { name: string; columns: readonly string[]; /** Existing index the new one extends: its definition is replaced. */ replaces?: string }

export type SchemaEditResult =
  | { ok: true; edit: TextEdit; style: 'inline' | 'alter' | 'create-index' }
  | { ok: true; already: true; existing: string }
  | { ok: false; error: string };

function position(text: string, offset: number): { line: number; character: number } {
  let line = 0, last = -1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) { line++; last = i; }
  return { line, character: offset - last - 1 };
}

function makeEdit(text: string, start: number, end: number, newText: string): TextEdit {
  return { start, end, newText, range: { start: position(text, start), end: position(text, end) } };
}

/** Applies an edit to a text (for tests and for front ends that write files themselves). */
export function applyEdit(text: string, edit: TextEdit): string {
  return text.slice(0, edit.start) + edit.newText + text.slice(edit.end);
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function lineStart(text: string, i: number): number { return text.lastIndexOf('\n', i - 1) + 1; }
function lineEnd(text: string, i: number): number { const j = text.indexOf('\n', i); return j < 0 ? text.length : j; }

function findTable(text: string, table: string): CreateTable | undefined {
  const all = findCreateTables(text).filter((c) => same(c.table, table));
  return all[all.length - 1];
}

/** Whether the file quotes identifiers with backticks (judged from the table's own definitions). */
function usesBackticks(ct: CreateTable): boolean {
  const defs = ct.definitions;
  if (!defs.length) return ct.quoted;
  return defs.filter((d) => d.text.startsWith('`') || /^(?:PRIMARY|UNIQUE|KEY|INDEX)\b[^(]*\(\s*`/i.test(d.text)).length * 2 >= defs.length;
}

function ident(name: string, backticks: boolean): string {
  return backticks || !/^[A-Za-z_][A-Za-z0-9_$]*$/.test(name) ? quoteIdent(name) : name;
}

/** Picks `INDEX` or `KEY` (in the file's letter case) from the file's existing index definitions. */
function keywordOf(text: string, ct: CreateTable): string {
  const seen: string[] = [];
  for (const t of findCreateTables(text)) {
    for (const d of t.definitions) {
      const m = /^(?:UNIQUE\s+)?(KEY|INDEX)\b/i.exec(d.text);
      if (m) seen.push(m[1]);
    }
  }
  for (const st of findIndexStatements(text)) {
    const m = /\bADD\s+(?:UNIQUE\s+)?(KEY|INDEX)\b/i.exec(text.slice(st.statement.start, st.statement.end));
    if (m) seen.push(m[1]);
  }
  const keys = seen.filter((k) => /^key$/i.test(k)).length;
  const pick = seen.length ? (keys * 2 > seen.length ? seen.find((k) => /^key$/i.test(k))! : seen.find((k) => /^index$/i.test(k))!) : undefined;
  if (pick) return pick;
  const create = /^\s*(create)/i.exec(text.slice(ct.statement.start))?.[1] ?? 'CREATE';
  return create === create.toLowerCase() ? 'index' : 'INDEX';
}

/**
 * Computes the edit that adds `index` to the CREATE TABLE of `table` in `text`.
 * Returns `already` when an index with the same columns exists (any name), an error when the table
 * is not defined in the text or the name is taken by an index with other columns.
 */
export function addIndexToSchemaText(text: string, table: string, index: IndexToAdd): SchemaEditResult {
  const ct = findTable(text, table);
  if (!ct) return { ok: false, error: `no CREATE TABLE for ${table} in this file` };
  const later = findIndexStatements(text).filter((s) => same(s.table, table) && s.statement.start > ct.statement.start);
  const existing = [...inlineIndexes(text, ct), ...later.map((s) => s.index)];
  const cols = index.columns.map((c) => c.toLowerCase()).join(',');
  const dup = existing.find((i) => i.columns.map((c) => c.toLowerCase()).join(',') === cols);
  if (dup) return { ok: true, already: true, existing: dup.name };
  const replaced = index.replaces ? existing.find((i) => same(i.name, index.replaces!) && !i.primary) : undefined;
  const clash = existing.find((i) => same(i.name, index.name) && i !== replaced);
  if (clash) return { ok: false, error: `an index named ${index.name} already exists on ${table} with other columns (${clash.columns.join(', ')})` };
  const bt = usesBackticks(ct);
  const keyword = keywordOf(text, ct);
  const lowerCase = keyword === keyword.toLowerCase();
  const def = `${keyword} ${ident(index.name, bt)} (${index.columns.map((c) => ident(c, bt)).join(', ')})`;

  // Statement style: the file adds indexes after its CREATE TABLEs.
  const allLater = findIndexStatements(text);
  if (allLater.length && (!replaced || replaced.origin !== 'inline')) {
    const style = allLater.filter((s) => s.style === 'alter').length >= allLater.length / 2 ? 'alter' : 'create-index';
    const tableRef = ct.db ? `${ident(ct.db, bt)}.${ident(ct.table, bt)}` : ident(ct.table, bt);
    const kw = (s: string) => (lowerCase ? s.toLowerCase() : s);
    const stmt = style === 'alter'
      ? `${kw('ALTER TABLE')} ${tableRef} ${kw('ADD')} ${def};`
      : `${kw('CREATE INDEX')} ${ident(index.name, bt)} ${kw('ON')} ${tableRef} (${index.columns.map((c) => ident(c, bt)).join(', ')});`;
    if (replaced && replaced.origin !== 'inline') {
      const st = later.find((s) => s.index === replaced)!;
      if (later.filter((s) => s.statement === st.statement).length === 1) return { ok: true, edit: makeEdit(text, st.index.start, st.statement.after, stmt), style };
    }
    // After this table's last index statement; else with the file's block of index statements that follows the table.
    const following = allLater.filter((s) => s.statement.start > ct.statement.start);
    const anchor = later.length ? later[later.length - 1].statement : following.length ? following[following.length - 1].statement : ct.statement;
    const at = lineEnd(text, anchor.after);
    return { ok: true, edit: makeEdit(text, at, at, `\n${stmt}`), style };
  }

  if (replaced) return { ok: true, edit: makeEdit(text, replaced.start, replaced.end, def), style: 'inline' };
  const defs = ct.definitions;
  const last = defs[defs.length - 1];
  if (!last) return { ok: true, edit: makeEdit(text, ct.bodyStart, ct.bodyStart, def), style: 'inline' };
  const sameLineAsOpen = lineStart(text, last.start) === lineStart(text, ct.bodyStart - 1) && text.slice(lineStart(text, last.start), last.start).trim() !== '';
  if (sameLineAsOpen) return { ok: true, edit: makeEdit(text, last.end, last.end, `, ${def}`), style: 'inline' };
  const indent = /^[ \t]*/.exec(text.slice(lineStart(text, last.start)))![0];
  // Keep a trailing comment on the last definition's line with that definition: comma before it, new line after it.
  const eol = Math.min(lineEnd(text, last.end), ct.bodyEnd);
  const tail = text.slice(last.end, eol);
  if (eol === ct.bodyEnd) return { ok: true, edit: makeEdit(text, last.end, last.end, `,\n${indent}${def}`), style: 'inline' };
  return { ok: true, edit: makeEdit(text, last.end, eol, `,${tail}\n${indent}${def}`), style: 'inline' };
}

export interface WorkspaceSqlFile { path: string; text: string }

/** True when `text` has a CREATE TABLE: a schema file, not a dump of data or a query file. */
export function definesTables(text: string): boolean {
  return /\bCREATE\s+(?:TEMPORARY\s+)?TABLE\b/i.test(text);
}

/**
 * Picks the file among workspace `.sql` texts whose CREATE TABLE defines `table`. When several do,
 * prefers names that look like the initializer's schema (`schema`, `init`, `0_`…), then the shortest path;
 * dumps of data (many INSERTs, no CREATE) never match.
 */
export function findSchemaFile(files: readonly WorkspaceSqlFile[], table: string): WorkspaceSqlFile | undefined {
  const score = (p: string) => (/schema/i.test(p) ? 0 : /init|setup|ddl|create/i.test(p) ? 1 : /^\d|\/\d/.test(p) ? 2 : 3);
  return files
    .filter((f) => definesTables(f.text) && findTable(f.text, table) !== undefined)
    .sort((a, b) => score(a.path) - score(b.path) || a.path.length - b.path.length || (a.path < b.path ? -1 : 1))[0];
}
