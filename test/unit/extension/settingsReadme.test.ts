/**
 * The README's settings table lists every setting package.json declares, once, in the section the
 * Settings editor shows it under, with the declared default; and nothing else.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../support/paths';
import { SECTION, sectionOf } from '../../../src/extension/settings';

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
const declared: Record<string, { default: unknown }> = Object.assign({}, ...manifest.contributes.configuration.map((s: { properties: object }) => s.properties));

/** The rows of the table under "## Settings": a section heading row (`| **Scan** |`) or a setting row. */
function readmeRows(): { section: string; key: string; defaultText: string }[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Settings\n');
  assert.ok(start >= 0, 'README has a Settings section');
  const end = readme.indexOf('\n## ', start + 1);
  const rows: { section: string; key: string; defaultText: string }[] = [];
  let section = '';
  for (const line of readme.slice(start, end < 0 ? undefined : end).split('\n')) {
    if (!line.startsWith('|')) continue;
    const cells = line.slice(1, -1).split(' | ').map((c) => c.trim());
    const heading = /^\*\*(.+)\*\*$/.exec(cells[0] ?? '');
    if (heading) { section = heading[1]!; continue; }
    const key = /^`(queryInsight\.[\w.]+)`$/.exec(cells[0] ?? '');
    if (key) rows.push({ section, key: key[1]!, defaultText: cells[1] ?? '' });
  }
  return rows;
}

/** How the README writes a default: code for values, `none` for an empty string or list. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return value.length ? value.map((v) => `\`${String(v)}\``).join(', ') : 'none';
  if (value === '') return 'none';
  return `\`${String(value)}\``;
}

void test('the README settings table has one row per declared setting, nothing more', () => {
  const rows = readmeRows();
  const keys = rows.map((r) => r.key);
  assert.equal(new Set(keys).size, keys.length, 'no setting listed twice');
  assert.deepEqual([...keys].sort(), Object.keys(declared).sort());
});

void test('each README row gives the declared default and sits under its section', () => {
  for (const r of readmeRows()) {
    assert.equal(r.defaultText, shown(declared[r.key]!.default), `${r.key}: default`);
    assert.equal(r.section, sectionOf(r.key.slice(SECTION.length + 1)), `${r.key}: section`);
  }
});
