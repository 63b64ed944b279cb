/**
 * Text from logs and sources shown as the text it is: control characters and bidi overrides are
 * written as escapes, so a log line cannot clear a terminal, ring its bell, open an OSC 8 link, move
 * the cursor back over a row (CR) or reverse what a reader sees (U+202E).
 */

// C0 controls but tab and line feed (each format has its own rule for those), DEL, C1 controls, and the
// bidi embeddings, overrides and isolates.
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/** Writes each control character as `\xNN` and each bidi override or isolate as `\uNNNN` (lowercase hex). */
export function escapeControls(s: string): string {
  UNSAFE.lastIndex = 0;
  if (!UNSAFE.test(s)) return s;
  return s.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
