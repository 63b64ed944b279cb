/**
 * One copy of each short text the facts of a scan repeat: callee and receiver names, argument texts, statements.
 * why: a scan keeps every file's facts until its report, and an app writes the same `db.Query`, `rows`, `id` and
 * `SELECT … WHERE id = ?` in file after file; each read is a string of its own, which every collection of the young
 * generation copies until it is promoted. A look-up hashes the text once and hands back the copy kept before.
 */

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
