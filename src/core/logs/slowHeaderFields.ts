/**
 * The `Key: value` fields of slow-log header lines (slowLogParser.ts), and the marks they leave on
 * the entry being read: why it is malformed (`bad`) or damaged (`damage`), and the flavors seen.
 */
import { parseDecimal, yesNo } from './slowLogBytes';
import type { SlowLogEntry } from './slowLogTypes';

/** `Key: value` pairs read per header line, and `extra` fields kept per entry. */
const MAX_PAIRS = 64;
/** Longest plausible Query_time / Lock_time (30 days); beyond is a wrapped or corrupt value. */
const MAX_SECONDS = 30 * 86400;

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
  pairs(b: Uint8Array, s: number, e: number, x: SlowLogEntry): void {
    let i = s;
    for (let pairs = 0; i < e && pairs < MAX_PAIRS; pairs++) {
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
