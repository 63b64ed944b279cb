/**
 * Reading a mocha run (spec reporter) from the extension host's console lines: the summary counts and
 * the titles that passed; and the test titles a tdd-style test file declares, so a runner can require
 * that every known test ran and passed without hard-coding how many there are.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface MochaSummary {
  passing: number;
  failing: number;
  pending: number;
  /** Titles of the tests reported as passed (✔ / ✓ lines, duration removed). */
  passed: string[];
}

/** Colour escapes: mocha colours its output where it believes a terminal is (as with CI=true). */
const ANSI = /\u001b\[[0-9;]*m/g;

/** Parses the spec reporter's lines; a missing summary line counts as 0. */
export function parseMochaSummary(raw: readonly string[]): MochaSummary {
  const lines = raw.map((l) => l.replace(ANSI, ''));
  const count = (word: string): number => {
    let n = 0;
    for (const l of lines) {
      const m = new RegExp(`(?:^|\\s)(\\d+) ${word}\\b`).exec(l);
      if (m) n = Number(m[1]);
    }
    return n;
  };
  const passed: string[] = [];
  for (const l of lines) {
    const m = /[✔✓]\s+(.*?)(?:\s+\(\d+m?s\))?\s*$/.exec(l);
    if (m) passed.push(m[1]);
  }
  return { passing: count('passing'), failing: count('failing'), pending: count('pending'), passed };
}

/** The titles of `test('…')` calls in the `*.exthost.ts` files of `dir` (single-quoted titles). */
export function declaredTests(dir: string, suffix = '.exthost.ts'): string[] {
  const titles: string[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith(suffix)).sort()) {
    const text = readFileSync(join(dir, f), 'utf8');
    for (const m of text.matchAll(/\btest\(\s*'((?:[^'\\]|\\.)*)'/g)) titles.push(m[1].replace(/\\(.)/g, '$1'));
  }
  return titles;
}
