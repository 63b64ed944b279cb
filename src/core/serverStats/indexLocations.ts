/**
 * Where an index is defined in the app's schema files: the inline `KEY idx (…)` of its CREATE TABLE,
 * or an `ALTER TABLE … ADD INDEX` / `CREATE INDEX … ON` statement. An unused index is shown there
 * (the place a player would delete it so that the next re-initialisation does not bring it back).
 */
import { findCreateTables, findIndexStatements, inlineIndexes } from '../analysis/ddlParse';
import { findSchemaFile, type WorkspaceSqlFile } from '../analysis/schemaFileEdit';
import type { Range } from '../model';

export interface IndexLocation { path: string; range: Range }

function position(text: string, offset: number): { line: number; character: number } {
  let line = 0;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) { line++; start = i + 1; }
  return { line, character: offset - start };
}

const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** The definition of `table`.`index` in the workspace's .sql files, when one defines it. */
export function findIndexDefinition(files: readonly WorkspaceSqlFile[], table: string, index: string): IndexLocation | undefined {
  const file = findSchemaFile(files, table);
  const candidates = file ? [file, ...files.filter((f) => f !== file)] : files;
  for (const f of candidates) {
    for (const ct of findCreateTables(f.text)) {
      if (!same(ct.table, table)) continue;
      const def = inlineIndexes(f.text, ct).find((d) => same(d.name, index));
      if (def) return { path: f.path, range: { start: position(f.text, def.start), end: position(f.text, def.end) } };
    }
    const st = findIndexStatements(f.text).find((s) => same(s.table, table) && same(s.index.name, index));
    if (st) return { path: f.path, range: { start: position(f.text, st.index.start), end: position(f.text, st.index.end) } };
  }
  return undefined;
}
