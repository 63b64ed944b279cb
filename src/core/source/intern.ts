/**
 * One copy of each short text the facts of a scan repeat (callee and receiver names, argument texts, statements), and
 * of each position.
 * why: a scan keeps every file's facts until its report, and an app writes the same `db.Query`, `rows`, `id` and
 * `SELECT … WHERE id = ?` in file after file; each read is a string of its own, which every collection of the young
 * generation copies until it is promoted. A look-up hashes the text once and hands back the copy kept before.
 */

import type { Position, Range } from '../model';

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
/** The kept positions by line, then by character; how many there are. */
let rows: (Position | undefined)[][] = [];
let positionCount = 0;

/** `{ line, character }`, one object per pair while the table holds it (facts never change a position). */
export function position(line: number, character: number): Position {
  if (line >= POSITION_SPAN || character >= POSITION_SPAN) return { line, character };
  // why: asked for each position of each file; two reads of arrays instead of a look-up in a table of 65,536 keys.
  let row = rows[line];
  if (row === undefined) rows[line] = row = [];
  let p = row[character];
  if (p === undefined) {
    if (positionCount >= POSITIONS) {
      rows = [];
      positionCount = 0;
      rows[line] = row = [];
    }
    row[character] = p = { line, character };
    positionCount++;
  }
  return p;
}

/**
 * One file's positions and ranges, one object per position (position()) and per (start, end) asked again (a site's call range is its
 * call's, a site's function range its sub's, a loop's range its iterating call's). Facts are kept for the whole scan,
 * so fewer of them is less for every later collection to copy; nothing changes them.
 */
export class FileRanges {
  /** The ranges made, by start * width + end: one number per (start, end), as both offsets are at most the text's length. */
  private readonly ranges = new Map<number, Range>();
  // why: `declare`d, set in the constructor only: a class field would first hold undefined, and every read of it check its kind.
  private declare readonly width: number;
  /** Where each line of the text starts (made on first use), and the line of the last offset looked up. */
  private lineStarts?: number[];
  private lastLine = 0;

  constructor(private readonly text: string) {
    // why: one look-up by a number instead of by start and then end; a small integer (the cheapest key) in a file of
    // up to 32 K characters, and exact for any text under 94 million (its square stays under 2^53).
    this.width = text.length + 1;
  }

  /**
   * The line and character (code units) of an offset, as the shared position.
   * why: no table of this file's offsets: position() hands back one object per (line, character) already, and finding
   * the line is a look at the last one found or a short binary search, as cheap as a look-up and with nothing to store.
   */
  pos(offset: number): Position {
    let ls = this.lineStarts;
    if (!ls) {
      ls = [0];
      const t = this.text;
      for (let i = t.indexOf('\n'); i >= 0; i = t.indexOf('\n', i + 1)) ls.push(i + 1);
      this.lineStarts = ls;
    }
    // why: offsets are mostly asked in the order of the text: the last line found, or the next, is usually the one.
    let line = this.lastLine;
    if (!(ls[line] <= offset && (line + 1 >= ls.length || offset < ls[line + 1]))) {
      let lo = 0, hi = ls.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (ls[mid] <= offset) lo = mid; else hi = mid - 1;
      }
      line = lo;
      this.lastLine = line;
    }
    return position(line, offset - ls[line]);
  }

  range(start: number, end: number): Range {
    const key = start * this.width + end;
    let r = this.ranges.get(key);
    if (!r) this.ranges.set(key, r = { start: this.pos(start), end: this.pos(end) });
    return r;
  }
}

/**
 * Lists given in turn, the last one handed back again when the next holds the same items in the same order: the calls
 * and statements of one loop body (or of none) share one list of loops; no reader changes a fact's list of loops.
 */
export class SharedLists<T> {
  private last: T[] = [];

  share(next: T[]): T[] {
    const last = this.last;
    if (last.length === next.length && next.every((x, i) => x === last[i])) return last;
    return (this.last = next);
  }
}
