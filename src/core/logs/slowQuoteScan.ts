/**
 * Whether a statement, read so far, ends inside a string literal, a quoted identifier or a block
 * comment. The slow log writes a statement's text raw, so a line that looks like an entry header
 * (`# User@Host: …`, `# Query_time: 999`) may be part of a string literal: it belongs to the
 * statement when the statement is still open at that point. MySQL's lexical rules: `'…'` and
 * `"…"` with backslash escapes and doubled quotes, `` `…` `` with doubled backquotes, `/* … *\/`,
 * and `-- ` / `#` comments to the end of the line: the same as the SQL lexer's (src/core/sql/sqlLexer.ts),
 * whose reading of a whole statement (fingerprint.ts) answers the same question without this scan.
 *
 * Incremental: each call scans only the bytes added since the previous one, so a statement is
 * scanned once however many times it is asked about (linear in its length).
 */

const OUT = 0;
const SQ = 1;        // '…'
const DQ = 2;        // "…"
const BQ = 3;        // `…`
const BLOCK = 4;     // /* … */
const LINE = 5;      // -- … or # … up to the newline

/** Bytes that may change the state outside any quote. */
const INTERESTING = new Uint8Array(256);
for (const c of '\'"`/-#') INTERESTING[c.charCodeAt(0)] = 1;

/**
 * The first `c` in b[i, end), or `end`. Bounded by `end`: `b` is a buffer with room to grow, and a
 * search that ran on to its capacity (or to stale bytes past the statement) at every call made a
 * statement with many header-looking lines inside one literal quadratic.
 */
function find(b: Uint8Array, c: number, i: number, end: number): number {
  if (end - i <= 256) {
    // why: most calls read one line; a loop there spares making a view per call (its garbage dominated).
    while (i < end && b[i] !== c) i++;
    return i;
  }
  // why: indexOf is a native scan; long literals (JSON, blobs) dominate otherwise.
  const k = b.subarray(i, end).indexOf(c);
  return k < 0 ? end : i + k;
}

export class QuoteScan {
  private state = OUT;
  private pos = 0;
  /** The previous byte was a backslash inside '…' or "…" (its escapee not yet seen). */
  private escaped = false;
  /** Where the literal, quoted name or comment open at the end of the last scan starts. */
  private opened = 0;

  reset(): void { this.state = OUT; this.pos = 0; this.escaped = false; this.opened = 0; }

  /**
   * Where the literal, quoted name or block comment that the last openAt found open starts: a header
   * line before it was not swallowed by it (the literal that held that line has closed).
   */
  openSince(): number { return this.opened; }

  /**
   * The first `n` bytes of the statement were removed, at a point outside any literal, quoted name
   * or comment: positions move back by `n` (a scan that had not reached that point resumes there, at rest).
   */
  dropped(n: number): void {
    if (this.pos >= n) { this.pos -= n; this.opened = Math.max(0, this.opened - n); } else { this.pos = 0; this.state = OUT; this.escaped = false; this.opened = 0; }
  }

  /**
   * True when b[0, end) ends inside a literal, a quoted identifier or a block comment (a line
   * comment ends with its line, so it does not count). `b` may be a grown copy of the buffer of the
   * previous call, with the same bytes before the previous `end`.
   */
  openAt(b: Uint8Array, end: number): boolean {
    let i = this.pos;
    let st = this.state;
    let esc = this.escaped;
    let closing = false;  // stopped on a quote that closes unless the next byte doubles it
    let opened = this.opened;
    while (i < end) {
      if (st === OUT) {
        while (i < end && INTERESTING[b[i]] === 0) i++;
        if (i >= end) break;
        const c = b[i];
        opened = i;
        if (c === 39) st = SQ;
        else if (c === 34) st = DQ;
        else if (c === 96) st = BQ;
        else if (c === 35) st = LINE;
        else if (c === 47) {
          if (i + 1 >= end) break;                 // wait for the next byte
          if (b[i + 1] === 42) { st = BLOCK; i++; }
        } else if (c === 45) {
          // why: `--` starts a comment when a space or a control character follows (MySQL's rule, the lexer's too)
          if (i + 1 >= end || (b[i + 1] === 45 && i + 2 >= end)) break;   // wait for the bytes that decide
          if (b[i + 1] === 45 && b[i + 2] <= 32) { st = LINE; i++; }
        }
        i++;
      } else if (st === SQ || st === DQ || st === BQ) {
        const q = st === SQ ? 39 : st === DQ ? 34 : 96;
        if (esc) { esc = false; i++; continue; }
        const stop = find(b, q, i, end);
        if (q !== 96) {
          // a backslash escapes the next byte: find the last run of backslashes before the stop
          let bs = 0;
          while (stop - bs - 1 >= i && b[stop - bs - 1] === 92) bs++;
          if (bs & 1) {
            if (stop >= end) { esc = true; i = end; break; }
            i = stop + 1;                            // an escaped quote
            continue;
          }
        }
        if (stop >= end) { i = end; break; }
        if (stop + 1 >= end) { i = stop; closing = true; break; }  // a doubled quote may follow: decide with more bytes
        if (b[stop + 1] === q) { i = stop + 2; continue; }
        st = OUT;
        i = stop + 1;
      } else if (st === BLOCK) {
        const k = find(b, 42, i, end);
        if (k >= end) { i = end; break; }
        if (k + 1 >= end) { i = k; break; }
        if (b[k + 1] === 47) { st = OUT; i = k + 2; } else i = k + 1;
      } else {
        const k = find(b, 10, i, end);
        if (k >= end) { i = end; break; }
        st = OUT;
        i = k + 1;
      }
    }
    this.pos = i;
    this.state = st;
    this.escaped = esc;
    this.opened = opened;
    return st !== OUT && st !== LINE && !closing;
  }
}
