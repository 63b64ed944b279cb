/**
 * One copy of each short text the facts of a scan repeat (callee and receiver names, argument texts, statements), and
 * of each position.
 * why: a scan keeps every file's facts until its report, and an app writes the same `db.Query`, `rows`, `id` and
 * `SELECT … WHERE id = ?` in file after file; each read is a string of its own, which every collection of the young
 * generation copies until it is promoted. A look-up hashes the text once and hands back the copy kept before.
 */

import type { Position } from '../model';

/** Texts kept per process; emptied when full (the next texts are kept anew). Longer texts are not looked up. */
const ENTRIES = 16384, TEXT_MAX = 400;
const kept = new Map<string, string>();

/** `text`, or an equal string kept earlier. */
export function intern(text: string): string {
  if (text.length > TEXT_MAX) return text;
  const k = kept.get(text);
  if (k !== undefined) return k;
  if (kept.size >= ENTRIES) kept.clear();
  kept.set(text, text);
  return text;
}

/** Positions kept per process, by line and character (both under POSITION_SPAN): source positions are few and repeat. */
const POSITION_SPAN = 65536, POSITIONS = 65536;
const positions = new Map<number, Position>();

/** `{ line, character }`, one object per pair while the table holds it (facts never change a position). */
export function position(line: number, character: number): Position {
  if (line >= POSITION_SPAN || character >= POSITION_SPAN) return { line, character };
  const key = line * POSITION_SPAN + character;
  let p = positions.get(key);
  if (!p) {
    if (positions.size >= POSITIONS) positions.clear();
    positions.set(key, p = { line, character });
  }
  return p;
}
