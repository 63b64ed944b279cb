/**
 * The `Key: value` fields of slow-log header lines (slowLogParser.ts), and the marks they leave on
 * the entry being read: why it is malformed (`bad`) or damaged (`damage`), and the flavors seen.
 */
import { bytesOf, decimalAt, decimalEnd, parseDecimal, yesNo } from './slowLogBytes';
import type { SlowLogEntry } from './slowLogTypes';

/** `Key: value` pairs read per header line, and `extra` fields kept per entry. */
const MAX_PAIRS = 64;
/** Longest plausible Query_time / Lock_time (30 days); beyond is a wrapped or corrupt value. */
const MAX_SECONDS = 30 * 86400;

// The keys after Query_time on the line as the server writes it (see queryTimeLine), colon included.
const K_LOCK_TIME = bytesOf('Lock_time:');
const K_ROWS_SENT = bytesOf('Rows_sent:');
const K_ROWS_EXAMINED = bytesOf('Rows_examined:');

/** Where the number plainNumber read last ends. */
let numberEnd = 0;

/**
 * The number `digits[.digits]` at b[i], ending at a space or at `e` (numberEnd is set past it); NaN
 * for anything else (a sign, an exponent, no digits). Same value as parseDecimal of the same bytes.
 */
function plainNumber(b: Uint8Array, i: number, e: number): number {
  const v = decimalAt(b, i, e);
  const end = decimalEnd;
  if (v !== v || (end < e && b[end] !== 32)) return NaN;
  numberEnd = end;
  return v;
}

/** The start of the value after the spaces at b[i], the key `key` (its colon included) and the spaces after it; -1 when the key is another. */
function valueAfter(b: Uint8Array, i: number, e: number, key: Uint8Array): number {
  while (i < e && b[i] === 32) i++;
  const n = key.length;
  if (e - i < n) return -1;
  for (let k = 0; k < n; k++) if (b[i + k] !== key[k]) return -1;
  i += n;
  while (i < e && b[i] === 32) i++;
  return i;
}

export class HeaderFields {
  /** Why the current entry is malformed (dropped), or why its header is damaged (kept). */
  bad: string | undefined;
  damage: string | undefined;
  /** The current entry had a `# Query_time:` line. */
  hasQueryTime = false;
  /** The header had a `Schema:` field (MariaDB writes it on every entry, empty when no database is selected). */
  hasSchema = false;
  /** Kinds of header seen (see SlowLogParseSummary.features). */
  readonly features = new Set<string>();

  constructor(private readonly decode: (bytes: Uint8Array, start: number, end: number) => string) {}

  /** Forgets the marks of the previous entry. */
  reset(): void { this.bad = undefined; this.damage = undefined; this.hasQueryTime = false; this.hasSchema = false; }

  /**
   * A header line of `Key: value` pairs separated by spaces. Linear: each byte is looked at a few
   * times at most (a value that is itself a `Key:` is MariaDB's empty `Schema:`), at most MAX_PAIRS pairs.
   */
  pairs(b: Uint8Array, s: number, e: number, x: SlowLogEntry, done = 0): void {
    let i = s;
    for (let pairs = done; i < e && pairs < MAX_PAIRS; pairs++) {
      while (i < e && b[i] === 32) i++;
      const ks = i;
      while (i < e && b[i] !== 58 && b[i] !== 32) i++;
      if (i >= e || b[i] !== 58) return;        // free text: ignore the rest of the line
      const ke = i;
      i++;
      while (i < e && b[i] === 32) i++;
      const vs = i;
      while (i < e && b[i] !== 32) i++;
      let ve = i;
      // why: MariaDB writes `Schema:   QC_hit: No` when no database is selected: an empty value.
      // (A value that is a `Key:`: its one colon is its last byte; looked for only then.)
      if (ve > vs + 1 && b[ve - 1] === 58 && b.indexOf(58, vs) === ve - 1) { i = vs; ve = vs; }
      this.field(b, ks, ke, vs, ve, x);
    }
  }

  /**
   * A `Query_time:` line from its key b[s] on. Its first four fields, in the server's order
   * (`Query_time: 0.003711  Lock_time: 0.000001 Rows_sent: 2  Rows_examined: 149`, MySQL and
   * MariaDB alike), are read in one pass, each number as its bytes go by; the fields after them
   * (log_slow_extra's) and any line that differs (another order, an odd or out-of-range value) are
   * read by pairs, with the same figures and marks.
   */
  queryTimeLine(b: Uint8Array, s: number, e: number, x: SlowLogEntry): void {
    // why: one call of pairs, not one per way out: each call site inlines it (and field), and the
    // optimizing compiler's time grew with them (a log of 200 k entries is read in well under a second)
    const rest = this.serverLayout(b, s, e, x);
    if (rest < 0) this.pairs(b, s, e, x);
    else if (rest < e) this.pairs(b, rest, e, x, 4);
  }

  /** The four fields of queryTimeLine in the server's layout: where the rest of the line starts, or -1 (nothing set) when it is not so. */
  private serverLayout(b: Uint8Array, s: number, e: number, x: SlowLogEntry): number {
    let i = s + 11; // past `Query_time:`
    while (i < e && b[i] === 32) i++;
    const qt = plainNumber(b, i, e);
    if (!(qt >= 0 && qt <= MAX_SECONDS)) return -1;
    i = valueAfter(b, numberEnd, e, K_LOCK_TIME);
    const lt = i < 0 ? NaN : plainNumber(b, i, e);
    if (!(lt >= 0 && lt <= MAX_SECONDS)) return -1;
    i = valueAfter(b, numberEnd, e, K_ROWS_SENT);
    const sent = i < 0 ? NaN : plainNumber(b, i, e);
    if (!(sent <= Number.MAX_SAFE_INTEGER)) return -1;
    i = valueAfter(b, numberEnd, e, K_ROWS_EXAMINED);
    const examined = i < 0 ? NaN : plainNumber(b, i, e);
    if (!(examined <= Number.MAX_SAFE_INTEGER)) return -1;
    x.queryTime = qt;
    x.lockTime = lt;
    x.rowsSent = sent;
    x.rowsExamined = examined;
    return numberEnd;
  }

  private field(b: Uint8Array, ks: number, ke: number, vs: number, ve: number, x: SlowLogEntry): void {
    const n = ke - ks;
    const k0 = b[ks];
    switch (k0) {
      case 81: // Query_time, QC_hit
        if (n === 10 && b[ks + 1] === 117) { x.queryTime = this.seconds('Query_time', b, vs, ve); return; }
        break;
      case 76: // Lock_time
        if (n === 9) { x.lockTime = this.seconds('Lock_time', b, vs, ve); return; }
        break;
      case 82: // Rows_sent, Rows_examined, Rows_affected
        if (n === 9 && b[ks + 5] === 115) { x.rowsSent = this.count(b, vs, ve); return; }
        if (n === 13 && b[ks + 5] === 101) { x.rowsExamined = this.count(b, vs, ve); return; }
        if (n === 13 && b[ks + 5] === 97) { x.rowsAffected = this.count(b, vs, ve); this.features.add('rows-affected'); return; }
        break;
      case 84: // Thread_id, Tmp_table, Tmp_table_on_disk
        if (n === 9 && b[ks + 1] === 104) {
          x.threadId = this.count(b, vs, ve);
          this.features.add(this.hasQueryTime ? 'slow-extra' : 'thread-id-line');
          return;
        }
        if (n === 9 && b[ks + 1] === 109) { x.tmpTable = yesNo(b, vs, ve); this.features.add('verbosity'); return; }
        if (n === 17 && b[ks + 1] === 109) { x.tmpTableOnDisk = yesNo(b, vs, ve); return; }
        break;
      case 83: // Schema
        if (n === 6 && b[ks + 1] === 99) { this.hasSchema = true; x.schema = this.decode(b, vs, Math.min(ve, vs + 256)); return; }
        break;
      case 66: // Bytes_sent
        if (n === 10 && b[ks + 6] === 115) { x.bytesSent = this.count(b, vs, ve); return; }
        break;
      case 70: // Full_scan, Full_join, Filesort, Filesort_on_disk
        if (n === 9 && b[ks + 5] === 115) { x.fullScan = yesNo(b, vs, ve); this.features.add('verbosity'); return; }
        if (n === 9 && b[ks + 5] === 106) { x.fullJoin = yesNo(b, vs, ve); return; }
        if (n === 8) { x.filesort = yesNo(b, vs, ve); return; }
        if (n === 16) { x.filesortOnDisk = yesNo(b, vs, ve); return; }
        break;
    }
    if (!x.extra) x.extra = {};
    else if (Object.keys(x.extra).length >= MAX_PAIRS) return;
    x.extra[this.decode(b, ks, Math.min(ke, ks + 64))] = this.decode(b, vs, Math.min(ve, vs + 256));
  }

  /** Query_time / Lock_time: unreadable, negative or absurd makes the entry malformed. */
  private seconds(name: string, b: Uint8Array, s: number, e: number): number {
    const v = parseDecimal(b, s, e);
    if (v >= 0 && v <= MAX_SECONDS) return v;
    const shown = this.decode(b, s, Math.min(e, s + 40));
    this.bad ??= Number.isNaN(v) ? `unreadable number "${shown}"` : v < 0 ? `negative ${name} ${shown}` : `absurd ${name} ${shown} (over 30 days)`;
    return 0;
  }

  /** Row and byte counts, ids: an unreadable or negative one is 0 and damages the header. */
  private count(b: Uint8Array, s: number, e: number): number {
    const v = parseDecimal(b, s, e);
    if (v >= 0 && v <= Number.MAX_SAFE_INTEGER) return v;
    this.damage ??= `unreadable number "${this.decode(b, s, Math.min(e, s + 40))}"`;
    return 0;
  }
}
