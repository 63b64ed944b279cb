/**
 * The schema files of a project on disk, for the CLI: `.sql` files with a CREATE TABLE, under the
 * repository the app lives in. An ISUCON repository keeps each language's app in webapp/<lang> and
 * the schema beside them in webapp/sql, so a run on webapp/go looks from the repository's root.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { definesTables } from '../core/analysis/schemaFileEdit';
import { SKIPPED_DIRS } from './scanDir';

/** The nearest directory at or above `dir` that holds `.git` (the repository); `dir` itself outside any. */
export function projectRoot(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return d;
    if (dirname(d) === d) return dir;
  }
}

/** .sql files under `root` (skipping vendored, generated and hidden directories, and data dumps over 8 MB) that contain a CREATE TABLE. */
export async function findSchemaFiles(root: string, depth = 6): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, d: number): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) { if (d > 0 && !SKIPPED_DIRS.has(e.name) && !e.name.startsWith('.')) await walk(p, d - 1); continue; }
      if (!e.isFile() || !/\.sql$/i.test(e.name)) continue;
      const st = await stat(p).catch(() => undefined);
      if (!st || st.size > 8 * 1024 * 1024) continue;
      const text = await readFile(p, 'utf8').catch(() => '');
      if (definesTables(text)) out.push(p);
    }
  };
  await walk(root, depth);
  return out.sort();
}
