/**
 * Streaming parser of the MySQL / MariaDB slow query log (the FILE format, log_output=FILE).
 *
 * Flavors (one parser, the header lines decide):
 * - MySQL 5.7 / 8.0: `# Time: 2023-11-14T22:13:20.123456Z` (or `+09:00` with log_timestamps=SYSTEM)
 *   on every entry, `# User@Host: u[u] @ host [ip]  Id: 17`, `# Query_time: … Lock_time: …
 *   Rows_sent: … Rows_examined: …` plus, with log_slow_extra, `Thread_id: … Errno: … Bytes_sent: …
 *   Start: … End: …` on the same line.
 * - MariaDB 10 / 11 (and MySQL ≤ 5.6): `# Time: 231114 22:13:20` only when the second changes,
 *   `# User@Host: u[u] @ host [ip]`, `# Thread_id: 8  Schema: db  QC_hit: No`, `# Query_time: …`,
 *   `# Rows_affected: 0  Bytes_sent: 54`, and with log_slow_verbosity `# Full_scan: Yes
 *   Full_join: No  Tmp_table: No  Tmp_table_on_disk: No`, `# Filesort: No  Filesort_on_disk: No
 *   Merge_passes: 0  Priority_queue: No`, `# Pages_accessed: …`, `# explain: …`.
 * The body: optional `use db;`, `SET [last_insert_id=N,][insert_id=N,]timestamp=N;`, then the
 * statement (possibly many lines) ending with `;`, or `# administrator command: Quit;`.
 * The server's start-up banner (`… Version: … started with:` / `Tcp port: …` / `Time Id Command
 * Argument`) may appear anywhere (each restart) and is skipped.
 *
 * Lines come in as byte ranges (see LineSink in lineSource.ts); nothing is decoded on the hot path
 * except what an entry keeps. Malformed entries are counted and a few are kept as samples; they never
 * stop the parse. Memory is bounded by the longest statement (maxStatementBytes).
 *
 * What counts as an entry follows pt-query-digest (it keeps every entry that has a statement), with
 * the header's damage counted instead of hidden: an entry with a `# User:` line instead of
 * `# User@Host:`, an unreadable `# Time:`, no `# Query_time:`, a statement without its final `;`
 * (the last one of a log being written), an entry that is only `use db;`, an
 * `# administrator command:` with no header before it. A line that looks like a header starts the
 * next entry only where the server could have ended the statement: after a line ending with `;`
 * (or any line, for `# Time:` / `# User@Host:` / `# Query_time:`, to recover after garbage), and
 * never inside an open string literal, quoted name or block comment (slowQuoteScan.ts): the server
 * writes statements raw, so a literal can hold forged header lines. If the literal never closes
 * (the log was cut inside it), the entries after the first such header are read again from there.
 * Dropped as malformed, by reason: no statement, an unreadable, negative or absurd (> 30 days)
 * Query_time or Lock_time, a header line over 64 KiB (counted as too long, skipped unread).
 */

import { fingerprintPart, lastCommaEnd, lastFingerprintBytes, type FingerprintPart } from '../sql/fingerprint';
import { FingerprintCache } from '../sql/fingerprintCache';
import { forEachLine } from './lineSource';
import { bytesOf, endsWith, headerTime, lastIndexOf, parseDecimal, parseHeaderTime, startsWith } from './slowLogBytes';
import { HeaderFields } from './slowHeaderFields';
import { QuoteScan } from './slowQuoteScan';
import type { SlowLogEntry, SlowLogParseSummary, SlowLogParserOptions } from './slowLogTypes';

export type { SlowLogEntry, SlowLogParseSummary, SlowLogParserOptions, SlowLogProblem } from './slowLogTypes';

const S_IDLE = 0;     // between entries
const S_HEADER = 1;   // reading `# …` header lines
const S_BODY = 2;     // reading the statement
const S_ORPHAN = 3;   // skipping the rest of text that had no header

// Kinds of `#` line.
const H_NONE = 0;       // not a header: statement text or a comment line
const H_TIME = 1;       // # Time:
const H_USERHOST = 2;   // # User@Host:
const H_QUERYTIME = 3;  // # Query_time:
const H_ADMIN = 4;      // # administrator command:
const H_SKIP = 5;       // `#` alone, `# explain: …` (MariaDB log_slow_verbosity=explain)
const H_PAIRS = 6;      // any other `# Key: value …` line (`# User:`, `# Thread_id:`, `# Rows_affected:` …)

/** Header lines longer than this are not read (a real one is well under 1 KiB). */
const MAX_HEADER_LINE = 64 * 1024;
/** Latest plausible `SET timestamp` (year 9999), so a time always makes a valid Date. */
const MAX_EPOCH_SECONDS = 253402300799;
/** Database names of `use db;` lines remembered decoded. */
const USE_NAMES = 4;
/** How far past its first swallowed header line an open literal may grow before the lines are read again. */
const REREAD_WINDOW = 1 << 20;

const utf8 = new TextDecoder('utf-8');
const defaultDecode = (b: Uint8Array, s: number, e: number): string => utf8.decode(b.subarray(s, e));

// The texts the reader looks for, as bytes.
const P_TIME = bytesOf('# Time: ');
const P_USERHOST = bytesOf('# User@Host: ');
const P_QUERYTIME = bytesOf('# Query_time: ');
const P_ADMIN = bytesOf('# administrator command: ');
const P_EXPLAIN = bytesOf('# explain:');
const P_TCP = bytesOf('Tcp port:');
const P_TIME_COLUMN = bytesOf('Time');
const P_ARGUMENT = bytesOf('Argument');
const P_STARTED = bytesOf('started with:');
const P_VERSION = bytesOf(', Version: ');
const P_SET = bytesOf('SET ');
const P_SET_TIMESTAMP = bytesOf('SET timestamp=');
const P_TIMESTAMP = bytesOf('timestamp=');

/** What kind of `#` line b[s, e) is (b[s] is `#`). */
function headerKind(b: Uint8Array, s: number, e: number): number {
  if (e - s === 1) return H_SKIP;
  if (b[s + 1] !== 32) return H_NONE;
  const k = b[s + 2];
  if (k === 84 && startsWith(b, s, e, P_TIME)) return H_TIME;
  if (k === 85 && startsWith(b, s, e, P_USERHOST)) return H_USERHOST;
  if (k === 81 && startsWith(b, s, e, P_QUERYTIME)) return H_QUERYTIME;
  if (k === 97 && startsWith(b, s, e, P_ADMIN)) return H_ADMIN;
  if (k === 101 && startsWith(b, s, e, P_EXPLAIN)) return H_SKIP;
  // `# Key: value`: a capitalised word of letters and `_`, a colon, a space (as pt-query-digest reads them)
  let i = s + 2;
  while (i < e && b[i] === 32) i++;
  if (!(b[i] >= 65 && b[i] <= 90)) return H_NONE;
  const stop = Math.min(e, i + 64);
  for (i++; i < stop; i++) {
    const c = b[i];
    if (c === 58) return i + 1 < e && b[i + 1] === 32 ? H_PAIRS : H_NONE;
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95)) return H_NONE;
  }
  return H_NONE;
}

/** A summary with nothing counted yet. */
export function emptySlowSummary(): SlowLogParseSummary {
  return {
    entries: 0, lines: 0, malformed: 0, problems: [], banners: 0, truncatedStatements: 0, longStatements: 0, damaged: 0, damagedSamples: [],
    tooLong: 0, reread: 0, lineCounts: { entries: 0, malformed: 0, banners: 0, blank: 0 }, features: [],
  };
}

/**
 * The parser: feed it lines with `line()` and call `end()` once; `onEntry` gets each complete
 * entry (the same object every time).
 */
export class SlowLogParser {
  readonly summary: SlowLogParseSummary = emptySlowSummary();
  private readonly e: SlowLogEntry;
  private state = S_IDLE;
  private readonly maxSamples: number;
  private readonly maxDamaged: number;
  private readonly maxStmt: number;
  private readonly decode: (bytes: Uint8Array, start: number, end: number) => string;
  /** Current `# Time` of the legacy format (carried over entries until the next one), epoch ms. */
  private legacyTime = NaN;
  /** Whether the current entry had a User@Host line, a statement, a `use db;` line. */
  private hasUserHost = false;
  private hasStatement = false;
  private hasUse = false;
  private entryTimeFromHeader = false;
  private bannerLines = 0;
  /** The database of the last entry that named one (`use db;`, `Schema:`): the server writes it only when it changes. */
  private lastUse = '';
  /** The last few `use db;` lines' names, as bytes and decoded, the latest first (useName). */
  private readonly useNames: { bytes: Uint8Array; text: string }[] = [];
  /** Cache of the last User@Host line's bytes and its decoded parts. */
  private lastUserHost = new Uint8Array(0);
  private userHostData: DataView = new DataView(new ArrayBuffer(0));
  private userHostDirty = true;
  /** The header fields of the current entry, and why it is malformed or damaged. */
  private readonly h: HeaderFields;
  /** The current statement was cut at maxStatementBytes. */
  private cut = false;
  /** The start of the current statement, fingerprinted and dropped because the statement grew past maxStatementBytes. */
  private part: FingerprintPart | undefined;
  /** The last statement line ended with `;` (the server ends every statement so). */
  private endsWithSemicolon = false;
  private readonly quotes = new QuoteScan();
  /** Whether the statement's end was checked once already (by its fingerprint; later checks scan incrementally). */
  private lexed = false;
  /**
   * The length of the statement's fingerprint made by that first check (its bytes: fingerprints.bytes,
   * which may be the fingerprint's shared buffer), while neither the statement nor that buffer changed since; else -1.
   */
  private fpLength = -1;
  /** Fingerprints by statement shape (most statements of a log repeat a shape with other values). */
  private readonly fingerprints = new FingerprintCache();
  /** First header line swallowed by an open literal: its line number and offset in sqlBytes (-1: none). */
  private swallowedLine = -1;
  private swallowedAt = 0;
  /** Lines up to this one are being read again: header lines there end the statement whatever the quotes. */
  private rereadUntil = 0;
  /** The line being read, and the first line of the current entry (for lineCounts). */
  private lineNo = 0;
  private entryStart = 0;
  /** The last line buffer put() copied from, a plain Uint8Array view of it and a DataView of it (plainView). */
  private viewOf: Uint8Array | undefined;
  private view: Uint8Array = new Uint8Array(0);
  private lineData: DataView = new DataView(new ArrayBuffer(0));
  /** A DataView of the statement's buffer (sqlBytes), and which one it views. */
  private sqlData: DataView = new DataView(new ArrayBuffer(0));
  private sqlDataOf: Uint8Array | undefined;
  /** Re-entrancy guard while lines are read again. */
  private rereading = false;
  /** The `# Time:` of the current header line, and which layouts were seen (features). */
  private readonly headerTime = headerTime();
  private sawMysqlTime = false;
  private sawLegacyTime = false;
  private readonly onEntryStart: ((lineNo: number, rereading: boolean) => void) | undefined;
  /** Entries that took the legacy `# Time` of lines before the first one fed (see inheritedLegacyTime). */
  private inheritedTimes = 0;
  /** The current entry's time is still the legacy `# Time` from before the first line fed. */
  private timeInherited = false;

  constructor(private readonly onEntry: (entry: SlowLogEntry) => void, options: SlowLogParserOptions = {}) {
    this.maxSamples = options.maxProblemSamples ?? 10;
    this.maxDamaged = options.maxDamagedSamples ?? 10;
    this.maxStmt = options.maxStatementBytes ?? 64 << 20;
    this.decode = options.decode ?? defaultDecode;
    this.h = new HeaderFields(this.decode);
    this.lastUse = options.initialSchema ?? '';
    this.onEntryStart = options.onEntryStart;
    this.e = {
      line: 0, time: NaN, preciseTime: false, user: '', host: '', threadId: -1, schema: '', queryTime: 0, lockTime: 0,
      rowsSent: 0, rowsExamined: 0, rowsAffected: -1, bytesSent: -1, sqlBytes: new Uint8Array(4096), sqlLength: 0, fingerprintPart: undefined,
      fingerprintBytes: lastFingerprintBytes(), fingerprintStart: 0, fingerprintLength: -1, fingerprintShape: -1, admin: false,
    };
  }

  /** Feeds one line (without its newline) as b[s, e); lineNo is 1-based. */
  line(b: Uint8Array, s: number, e: number, lineNo: number): void {
    if (lineNo > this.summary.lines) this.summary.lines = lineNo;
    this.lineNo = lineNo;
    if (this.swallowedLine >= 0 && !this.rereading && this.e.sqlLength - this.swallowedAt > REREAD_WINDOW && this.openLiteral()) {
      if (this.openedAfterSwallowed()) {
        // why: the literal that held the header line has closed, and another is open now (a bulk INSERT's
        // rows, each holding a forged `# Query_time:` line): nothing was cut, the statement goes on.
        this.swallowedLine = -1;
      } else {
        this.reread();
        this.lineNo = lineNo;
      }
    }
    if (this.bannerLines > 0) {
      // after `… started with:` come `Tcp port: …` and `Time  Id Command  Argument`
      this.bannerLines--;
      if (startsWith(b, s, e, P_TCP) || (startsWith(b, s, e, P_TIME_COLUMN) && endsWith(b, s, e, P_ARGUMENT))) {
        this.summary.lineCounts.banners++;
        return;
      }
      this.bannerLines = 0;
    }
    const c = e > s ? b[s] : 0;
    if (c === 35 /* # */) {
      const kind = headerKind(b, s, e);
      if (kind !== H_NONE && this.header(kind, b, s, e, lineNo)) return;
      // why: before the statement any `#` line belongs to the header, as pt-query-digest reads it
      // (Percona Server's `# No InnoDB statistics available for this query`); it must not become the statement.
      if (kind === H_NONE && (this.state === S_HEADER || (this.state === S_BODY && !this.hasStatement))) return;
    } else if (c === 47 /* / */ || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) {
      if (endsWith(b, s, e, P_STARTED) && this.isBanner(b, s, e) && !(this.state === S_BODY && this.openLiteral())) {
        this.finishEntry(lineNo - 1);
        this.state = S_IDLE;
        this.summary.banners++;
        this.summary.lineCounts.banners++;
        this.bannerLines = 2;
        return;
      }
    }
    if (this.state === S_IDLE) {
      if (e === s) { this.summary.lineCounts.blank++; return; }
      this.problem(lineNo, 'text without an entry header', b, s, e);
      this.summary.lineCounts.malformed++;
      this.state = S_ORPHAN;
      return;
    }
    if (this.state === S_ORPHAN) { this.summary.lineCounts.malformed++; return; }  // the rest of a headerless fragment (counted once)
    if (this.state === S_HEADER) {
      this.state = S_BODY;
      if (e === s) return;
      if (this.bodyPrefix(b, s, e)) return;
    } else if (!this.hasStatement && this.bodyPrefix(b, s, e)) {
      return;
    }
    this.appendStatement(b, s, e);
  }

  /**
   * A line the line reader skipped because it was too long: counted as too long; an entry it
   * belonged to is kept with a damaged mark (its statement or header lost that line).
   */
  skippedLine(lineNo: number, length: number): void {
    if (lineNo > this.summary.lines) this.summary.lines = lineNo;
    this.summary.tooLong++;
    if (this.state === S_IDLE || this.state === S_ORPHAN) {
      this.summary.lineCounts.malformed++;
      this.addProblem(lineNo, `line too long (${length} bytes), skipped`, '');
    } else this.h.damage ??= `line ${lineNo} too long (${length} bytes), skipped`;
  }

  /** End of input: completes the last entry. Returns the summary. */
  end(): SlowLogParseSummary {
    if (this.state === S_BODY && this.swallowedLine >= 0 && !this.rereading && this.openLiteral()) this.reread();
    this.finishEntry(this.summary.lines);
    this.state = S_IDLE;
    this.summary.features = [...this.h.features].sort();
    return this.summary;
  }

  /** A header-looking line. Returns false when it is statement text after all. */
  private header(kind: number, b: Uint8Array, s: number, e: number, lineNo: number): boolean {
    if (this.state === S_BODY && this.hasStatement) {
      if (kind === H_SKIP || kind === H_ADMIN) return false;
      const strict = kind !== H_PAIRS;
      if (lineNo > this.rereadUntil && this.openLiteral()) {
        // why: the server writes statements raw; a header inside a literal is the statement's text.
        if (strict && this.swallowedLine < 0) { this.swallowedLine = lineNo; this.swallowedAt = this.e.sqlLength + 1; }
        return false;
      }
      if (!strict && !this.endsWithSemicolon) return false;
    } else if (this.state === S_BODY && kind === H_ADMIN) {
      this.adminCommand(b, s + 2, e);
      return true;
    }
    if (this.state !== S_HEADER) {
      if (kind === H_SKIP) return false;
      if (this.state === S_BODY || this.state === S_IDLE || this.state === S_ORPHAN) this.startEntry(lineNo);
      if (kind === H_ADMIN) { this.h.damage ??= 'administrator command without a header'; this.adminCommand(b, s + 2, e); return true; }
    } else if ((kind === H_TIME) || ((kind === H_USERHOST || kind === H_QUERYTIME) && this.h.hasQueryTime)) {
      this.startEntry(lineNo);
    }
    if (e - s > MAX_HEADER_LINE) {
      this.summary.tooLong++;
      if (kind === H_QUERYTIME) { this.h.hasQueryTime = true; this.h.bad ??= `header line too long (${e - s} bytes)`; } else this.h.damage ??= `header line too long (${e - s} bytes)`;
      return true;
    }
    switch (kind) {
      case H_TIME: this.time(b, s + 8, e); return true;
      case H_USERHOST: this.userHost(b, s + 13, e); return true;
      case H_QUERYTIME: this.h.hasQueryTime = true; this.h.queryTimeLine(b, s + 2, e, this.e); return true;
      case H_ADMIN: this.adminCommand(b, s + 2, e); return true;
      case H_SKIP: return true;
      default: this.h.pairs(b, s + 2, e, this.e); return true;
    }
  }

  /** Whether the literal open now started after the first swallowed header line (so the one that swallowed it closed). */
  private openedAfterSwallowed(): boolean {
    // why: the first openLiteral of an entry reads it through the fingerprint's lexer; the scan catches up once (incremental).
    this.quotes.openAt(this.e.sqlBytes, this.e.sqlLength);
    return this.quotes.openSince() >= this.swallowedAt;
  }

  /** Whether the statement so far ends inside a literal, quoted name or block comment. */
  private openLiteral(): boolean {
    if (!this.hasStatement) return false;
    if (this.lexed) return this.quotes.openAt(this.e.sqlBytes, this.e.sqlLength);
    // why: the first check (usually the only one: at the next entry's header) reads the statement's
    // tokens as its fingerprint does, and keeps that fingerprint for the entry, so a statement is
    // read once, not scanned for literals and then fingerprinted. Later checks (a statement that goes
    // on past a header-looking line) scan incrementally, each byte once.
    this.lexed = true;
    const x = this.e;
    const n = this.fingerprints.of(x.sqlBytes, 0, statementEnd(x.sqlBytes, x.sqlLength), this.part);
    if (this.fingerprints.open) return true;
    this.fpLength = n;
    return false;
  }

  /**
   * The literal never closed (the log was cut inside it, and the server went on): the statement
   * ends before its first swallowed header line, and the lines from there are read again, with
   * header lines ending statements whatever the quotes. Each line is read again at most once.
   */
  private reread(): void {
    const x = this.e;
    const from = this.swallowedAt;
    const first = this.swallowedLine;
    const last = this.lineNo;
    const lines = this.summary.lines;
    if (from > x.sqlLength) { this.swallowedLine = -1; return; }
    const tail = x.sqlBytes.slice(from, x.sqlLength);
    x.sqlLength = from - 1;
    this.fpLength = -1;
    this.swallowedLine = -1;
    this.quotes.reset();
    this.h.damage ??= 'string literal left open (log cut inside it?)';
    this.summary.reread++;
    this.rereading = true;
    let n = first;
    let pos = 0;
    // why: every line of the tail, a trailing empty one included (lines were joined with \n)
    for (;;) {
      let nl = tail.indexOf(10, pos);
      if (nl < 0) nl = tail.length;
      this.rereadUntil = n;
      if (n === first) this.finishEntry(n - 1);
      this.line(tail, pos, nl, n++);
      if (nl >= tail.length) break;
      pos = nl + 1;
    }
    this.rereading = false;
    this.summary.lines = lines;
    this.lineNo = last;
  }

  private isBanner(b: Uint8Array, s: number, e: number): boolean {
    for (let i = s; i + 10 < e; i++) if (b[i] === 44 && startsWith(b, i, e, P_VERSION)) return true;
    return false;
  }

  /** The database of the last `use db;` so far (the initialSchema when there was none). */
  get lastSchema(): string { return this.lastUse; }

  /** The legacy `# Time` in force (epoch ms; NaN when none was read). */
  get legacyTimeNow(): number { return this.legacyTime; }

  /** Entries that started before any legacy `# Time` line was read: a range reader's entries whose time comes from before its range. */
  get inheritedLegacyTime(): number { return this.inheritedTimes; }

  /**
   * Stops where an entry has just started (called from onEntryStart's throw): the summary of the
   * entries completed before it; the started one is left to whoever reads on from its line.
   */
  handOver(): SlowLogParseSummary {
    this.summary.features = [...this.h.features].sort();
    return this.summary;
  }

  private startEntry(lineNo: number): void {
    this.finishEntry(lineNo - 1);
    this.onEntryStart?.(lineNo, this.rereading);
    const x = this.e;
    x.line = lineNo;
    this.timeInherited = !this.sawLegacyTime;
    x.time = this.legacyTime;
    x.preciseTime = false;
    x.threadId = -1;
    x.schema = '';
    x.queryTime = 0; x.lockTime = 0; x.rowsSent = 0; x.rowsExamined = 0; x.rowsAffected = -1; x.bytesSent = -1;
    x.fullScan = undefined; x.fullJoin = undefined; x.tmpTable = undefined; x.tmpTableOnDisk = undefined;
    x.filesort = undefined; x.filesortOnDisk = undefined; x.extra = undefined;
    x.sqlLength = 0;
    x.fingerprintPart = undefined;
    this.part = undefined;
    this.lexed = false;
    this.fpLength = -1;
    x.admin = false;
    this.hasUserHost = false;
    this.hasStatement = false;
    this.hasUse = false;
    this.entryTimeFromHeader = false;
    this.cut = false;
    this.endsWithSemicolon = false;
    this.h.reset();
    this.quotes.reset();
    this.swallowedLine = -1;
    this.entryStart = lineNo;
    this.state = S_HEADER;
  }

  /** Completes the current entry, whose last line is `lastLine`. */
  private finishEntry(lastLine: number): void {
    if (this.state === S_IDLE || this.state === S_ORPHAN) return;
    const x = this.e;
    const span = Math.max(0, lastLine - this.entryStart + 1);
    this.state = S_IDLE;
    let reason = this.h.bad;
    if (!reason && !this.hasStatement && !this.hasUse) reason = 'no statement (entry cut short)';
    // why: a statement that is only `;` has nothing to class (pt-query-digest drops it too)
    if (!reason && this.hasStatement && !x.admin && statementEnd(x.sqlBytes, x.sqlLength) === 0 && !this.part) reason = 'empty statement';
    if (reason) {
      this.problemFromEntry(reason);
      this.summary.lineCounts.malformed += span;
      return;
    }
    this.summary.lineCounts.entries += span;
    if (!this.hasStatement) {
      // why: pt-query-digest keeps an entry that is only `use db;` (the statement is the `use`); sqlBytes holds it
      this.h.damage ??= 'only `use db;`, no statement';
    } else {
      const trimmed = trailingSpaceEnd(x.sqlBytes, x.sqlLength);
      const n = trimmed > 0 && x.sqlBytes[trimmed - 1] === 59 ? trimmed - 1 : trimmed;
      // why: the server ends every statement with `;`; without it the log was cut mid-entry (kept, as pt-query-digest does)
      if (n === trimmed && !this.cut) this.h.damage ??= 'statement without its final ;';
      x.sqlLength = n;
    }
    if (!this.h.hasQueryTime) this.h.damage ??= 'no # Query_time line';
    if (this.hasUserHost) {
      if (this.userHostDirty) this.decodeUserHost();
    } else {
      x.user = ''; x.host = '';
      if (!x.admin) this.h.damage ??= 'no # User@Host line';
    }
    // why: an entry without `use` or `Schema:` ran in the database of the entry before (pt-query-digest inherits it too)
    if (x.schema === '' && !this.h.hasSchema) x.schema = this.lastUse;
    else this.lastUse = x.schema;
    x.fingerprintPart = this.part;
    // why: nothing fingerprints between the check and here (put and reread, which may, forget it first)
    const made = this.hasStatement && this.fpLength >= 0;
    x.fingerprintBytes = made ? this.fingerprints.bytes : lastFingerprintBytes();
    x.fingerprintStart = made ? this.fingerprints.start : 0;
    x.fingerprintLength = made ? this.fpLength : -1;
    x.fingerprintShape = made ? this.fingerprints.shape : -1;
    if (this.h.damage) {
      this.summary.damaged++;
      if (this.summary.damagedSamples.length < this.maxDamaged) {
        this.summary.damagedSamples.push({ line: x.line, reason: this.h.damage, text: this.decode(x.sqlBytes, 0, Math.min(x.sqlLength, 200)) });
      }
    }
    this.summary.entries++;
    if (this.timeInherited) this.inheritedTimes++;
    this.onEntry(x);
    if (!this.hasUserHost) this.userHostDirty = true;
  }

  private problemFromEntry(reason: string): void {
    const x = this.e;
    const text = x.sqlLength > 0 ? this.decode(x.sqlBytes, 0, Math.min(x.sqlLength, 200)) : '';
    this.addProblem(x.line, reason, text);
  }

  private problem(lineNo: number, reason: string, b: Uint8Array, s: number, e: number): void {
    this.addProblem(lineNo, reason, this.decode(b, s, Math.min(e, s + 200)));
  }

  private addProblem(line: number, reason: string, text: string): void {
    this.summary.malformed++;
    if (this.summary.problems.length < this.maxSamples) this.summary.problems.push({ line, reason, text });
  }

  /** `# Time:` value: ISO (MySQL 5.7+) or `YYMMDD HH:MM:SS` (MariaDB, MySQL ≤ 5.6). */
  private time(b: Uint8Array, s: number, e: number): void {
    const t = this.headerTime;
    if (!parseHeaderTime(b, s, e, t)) { this.h.damage ??= 'unreadable # Time'; return; }
    const x = this.e;
    x.time = t.ms;
    x.preciseTime = t.precise;
    this.entryTimeFromHeader = true;
    this.timeInherited = false;
    if (t.legacy) {
      // why: MariaDB writes `# Time` only when the second changes; later entries inherit it.
      this.legacyTime = t.ms;
      if (!this.sawLegacyTime) { this.sawLegacyTime = true; this.h.features.add('legacy-time'); }
    } else if (!this.sawMysqlTime) { this.sawMysqlTime = true; this.h.features.add('mysql-time'); }
  }

  private userHost(b: Uint8Array, s: number, e: number): void {
    this.hasUserHost = true;
    // `user[user] @ host [ip]  Id:    17`: the Id part changes per entry, the rest rarely
    let idAt = -1;
    for (let i = e - 1; i > s + 3; i--) {
      if (b[i] === 58 && b[i - 1] === 100 && b[i - 2] === 73 && b[i - 3] === 32) { idAt = i - 3; break; }
      if (b[i] !== 32 && (b[i] < 48 || b[i] > 57)) break;
    }
    const x = this.e;
    let end = e;
    if (idAt >= 0) {
      let i = idAt + 4;
      while (i < e && b[i] === 32) i++;
      x.threadId = parseDecimal(b, i, e);
      if (!(x.threadId >= 0)) x.threadId = -1;
      end = idAt;
      while (end > s && b[end - 1] === 32) end--;
    }
    const prev = this.lastUserHost;
    const n = prev.length;
    let same = !this.userHostDirty && n === end - s;
    if (same) {
      // four bytes at a time (the line is the same as the entry before's on nearly every entry)
      this.plainView(b);
      const line = this.lineData;
      const kept = this.userHostData;
      let i = 0;
      for (; i + 4 <= n; i += 4) if (kept.getUint32(i, true) !== line.getUint32(s + i, true)) { same = false; break; }
      for (; same && i < n; i++) if (prev[i] !== b[s + i]) same = false;
    }
    if (!same) {
      this.lastUserHost = new Uint8Array(end - s); // a copy: the line buffer is reused
      this.lastUserHost.set(b.subarray(s, end));
      this.userHostData = new DataView(this.lastUserHost.buffer);
      this.userHostDirty = true;
    }
  }

  private decodeUserHost(): void {
    const t = this.decode(this.lastUserHost, 0, this.lastUserHost.length);
    const at = t.indexOf(' @ ');
    const userPart = at >= 0 ? t.slice(0, at) : t;
    const br = userPart.indexOf('[');
    this.e.user = (br >= 0 ? userPart.slice(0, br) : userPart).trim();
    const hostPart = at >= 0 ? t.slice(at + 3).trim() : '';
    const sp = hostPart.indexOf('[');
    const close = sp >= 0 ? hostPart.indexOf(']', sp) : -1;
    if (close > sp && sp >= 0) {
      const name = hostPart.slice(0, sp).trim();
      this.e.host = name && !/\s/.test(name) ? name : hostPart.slice(sp + 1, close);
    } else this.e.host = hostPart;
    this.userHostDirty = false;
  }

  /** `use db;` and `SET …timestamp=N;` before the statement. Returns true when the line was one. */
  private bodyPrefix(b: Uint8Array, s: number, e: number): boolean {
    const c = b[s];
    if ((c === 117 || c === 85) && e - s > 5 && (b[s + 1] | 32) === 115 && (b[s + 2] | 32) === 101 && b[s + 3] === 32 && b[e - 1] === 59) {
      let ds = s + 4;
      let de = e - 1;
      while (ds < de && b[ds] === 32) ds++;
      const name = ds;
      if (b[ds] === 96 && b[de - 1] === 96) { ds++; de--; }
      for (let i = ds; i < de; i++) if (b[i] === 32) return false;
      const db = this.useName(b, ds, de);
      this.e.schema = db;
      this.lastUse = db;
      // why: an entry may be only `use db;` (pt-query-digest keeps it); the statement is then the `use`.
      this.hasUse = true;
      this.setStatement(b, s, name + (e - 1 - name));
      return true;
    }
    if (c === 83 && startsWith(b, s, e, P_SET) && b[e - 1] === 59) {
      // SET [last_insert_id=N,][insert_id=N,]timestamp=N;
      const t = startsWith(b, s, e, P_SET_TIMESTAMP) ? s + 4 : lastIndexOf(b, s, e, P_TIMESTAMP);
      if (t < 0) return false;
      for (let i = s + 4; i < t; i++) {
        const ch = b[i];
        if (!(ch === 95 || ch === 61 || ch === 44 || (ch >= 48 && ch <= 57) || (ch >= 97 && ch <= 122))) return false;
      }
      const v = parseDecimal(b, t + 10, e - 1);
      if (!(v >= 0 && v <= MAX_EPOCH_SECONDS)) {
        // why: a timestamp no Date can hold must not reach a report (it threw "Invalid time value").
        this.h.damage ??= `SET timestamp out of range "${this.decode(b, t + 10, Math.min(e - 1, t + 50))}"`;
        return true;
      }
      const x = this.e;
      const ms = v * 1000;
      // why: `# Time` may carry microseconds (keep them) or lack (legacy: carried over from an earlier entry).
      if (!x.preciseTime || !this.entryTimeFromHeader || Math.floor(x.time / 1000) !== Math.floor(v)) {
        x.time = ms;
        x.preciseTime = false;
        this.timeInherited = false;
      }
      return true;
    }
    return false;
  }

  /**
   * The database name b[s, e) of a `use db;` line, decoded once for the last few names (the server
   * writes the line whenever the connection's database differs from the one of the entry before,
   * so an app with two databases has one on every other entry).
   */
  private useName(b: Uint8Array, s: number, e: number): string {
    const names = this.useNames;
    for (let k = 0; k < names.length; k++) {
      const prev = names[k].bytes;
      let same = prev.length === e - s;
      for (let i = 0; same && i < prev.length; i++) if (prev[i] !== b[s + i]) same = false;
      if (same) return names[k].text;
    }
    const bytes = new Uint8Array(e - s); // a copy: the line buffer is reused
    bytes.set(b.subarray(s, e));
    const text = this.decode(b, s, e);
    if (names.length >= USE_NAMES) names.pop();
    names.unshift({ bytes, text });
    return text;
  }

  private adminCommand(b: Uint8Array, s: number, e: number): void {
    this.e.admin = true;
    this.state = S_BODY;
    this.appendStatement(b, s, e);
  }

  /** Replaces the statement by b[s, e) without marking it a statement (the `use db` of a use-only entry). */
  private setStatement(b: Uint8Array, s: number, e: number): void {
    const x = this.e;
    const n = Math.min(e - s, 4096);
    if (n > x.sqlBytes.length) x.sqlBytes = new Uint8Array(4096);
    const q = x.sqlBytes;
    for (let i = 0; i < n; i++) q[i] = b[s + i];
    x.sqlLength = n;
  }

  /**
   * The statement filled maxStatementBytes: fingerprints it up to its last `,` (outside literals)
   * and keeps only the rest, so that the whole statement's fingerprint comes out at any length.
   * Returns false when there is no such `,` (one literal fills the buffer).
   */
  private fingerprintStart(): boolean {
    const x = this.e;
    const at = lastCommaEnd(x.sqlBytes, 0, x.sqlLength);
    if (at <= 0) return false;
    if (!this.part) this.summary.longStatements++;
    this.part = fingerprintPart(x.sqlBytes, 0, at, this.part);
    x.sqlBytes.copyWithin(0, at, x.sqlLength);
    x.sqlLength -= at;
    // why: offsets into the statement move with it; the split is outside any literal, where the quote scan is at rest.
    this.quotes.dropped(at);
    if (this.swallowedLine >= 0) this.swallowedAt -= at;
    return true;
  }

  /** Appends b[s, e) to the statement, in parts when it outgrows maxStatementBytes (cut only where it cannot be split). */
  private put(b: Uint8Array, s: number, e: number): void {
    const x = this.e;
    this.fpLength = -1;
    while (s < e && !this.cut) {
      const room = this.maxStmt - x.sqlLength;
      if (room <= 0) {
        if (this.fingerprintStart()) continue;
        this.summary.truncatedStatements++;
        this.cut = true;
        return;
      }
      const n = Math.min(room, e - s);
      if (x.sqlLength + n > x.sqlBytes.length) {
        const next = new Uint8Array(Math.min(this.maxStmt, Math.max(x.sqlBytes.length * 2, x.sqlLength + n)));
        next.set(x.sqlBytes.subarray(0, x.sqlLength));
        x.sqlBytes = next;
      }
      const q = x.sqlBytes;
      // why: a line of usual length (up to a few hundred bytes) is copied by a loop: the native copy
      // needs a view (subarray) of the line, a new object per line that was half of all the memory
      // the read allocated (and so half of its young-generation collections); a long line (a bulk
      // INSERT) is copied natively, where the view's cost is small beside the copy's.
      if (n < 8) {
        // the newline between lines, a short line: no views (switching views made new ones)
        let o = x.sqlLength;
        for (let i = s; i < s + n; i++) q[o++] = b[i];
      } else if (n < LOOP_COPY_BYTES) {
        // why: four bytes at a time through DataViews (unaligned reads and writes), the rest by bytes:
        // about a third of the time of a byte loop on the lines of a log
        const v = this.plainView(b);
        const from = this.lineData;
        if (q !== this.sqlDataOf) { this.sqlDataOf = q; this.sqlData = new DataView(q.buffer, q.byteOffset, q.byteLength); }
        const to = this.sqlData;
        let o = x.sqlLength;
        let i = s;
        const stop = s + n;
        for (; i + 4 <= stop; i += 4, o += 4) to.setUint32(o, from.getUint32(i, true), true);
        for (; i < stop; i++) q[o++] = v[i];
      } else q.set(this.plainView(b).subarray(s, s + n), x.sqlLength);
      x.sqlLength += n;
      s += n;
    }
  }

  /**
   * `b` as a plain Uint8Array over the same memory, made once per line buffer: a subarray of a
   * Buffer is built by Node's own Buffer constructor in JavaScript (2 % of a slow-log read in the
   * profile), one of a Uint8Array natively.
   */
  private plainView(b: Uint8Array): Uint8Array {
    if (b !== this.viewOf) {
      this.viewOf = b;
      this.view = Object.getPrototypeOf(b) === Uint8Array.prototype ? b : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
      this.lineData = new DataView(b.buffer, b.byteOffset, b.byteLength);
    }
    return this.view;
  }

  private appendStatement(b: Uint8Array, s: number, e: number): void {
    const x = this.e;
    if (!this.hasStatement) x.sqlLength = 0;
    if (this.hasStatement) this.put(NEWLINE, 0, 1);
    this.put(b, s, e);
    this.hasStatement = true;
    let k = e - 1;
    while (k >= s && (b[k] === 32 || b[k] === 9)) k--;
    this.endsWithSemicolon = k >= s && b[k] === 59;
  }
}

const NEWLINE = new Uint8Array([10]);
/** Statement lines shorter than this are copied by a loop (put). */
const LOOP_COPY_BYTES = 512;

/** The end of q[0, n) without trailing whitespace. */
function trailingSpaceEnd(q: Uint8Array, n: number): number {
  while (n > 0 && (q[n - 1] === 32 || q[n - 1] === 10 || q[n - 1] === 9 || q[n - 1] === 13)) n--;
  return n;
}

/** The end of the statement in q[0, n) as handed out: without trailing whitespace and the final `;`. */
function statementEnd(q: Uint8Array, n: number): number {
  const e = trailingSpaceEnd(q, n);
  return e > 0 && q[e - 1] === 59 ? e - 1 : e;
}

/** Decodes an entry's statement (for a statement held in parts: the fingerprint of its start, then the rest as logged). */
export function entrySql(entry: SlowLogEntry): string {
  const rest = utf8.decode(entry.sqlBytes.subarray(0, entry.sqlLength));
  return entry.fingerprintPart ? `${utf8.decode(entry.fingerprintPart.bytes)} ${rest}` : rest;
}

/** A self-contained copy of an entry (for tests and small logs). */
export interface SlowLogRecord extends Omit<SlowLogEntry, 'sqlBytes' | 'sqlLength' | 'fingerprintBytes' | 'fingerprintLength' | 'fingerprintStart' | 'fingerprintShape'> { sql: string }

/**
 * Parses a whole log held in memory (text or bytes) into records. For large files feed
 * SlowLogParser line by line instead.
 */
export function parseSlowLog(input: string | Uint8Array, options: SlowLogParserOptions = {}): { records: SlowLogRecord[]; summary: SlowLogParseSummary } {
  const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input;
  const records: SlowLogRecord[] = [];
  const parser = new SlowLogParser((e) => {
    const r: Partial<SlowLogEntry> & SlowLogRecord = { ...e, extra: e.extra ? { ...e.extra } : undefined, sql: entrySql(e) };
    delete r.sqlBytes;
    delete r.sqlLength;
    delete r.fingerprintPart;
    delete r.fingerprintBytes;
    delete r.fingerprintLength;
    delete r.fingerprintStart;
    delete r.fingerprintShape;
    records.push(r);
  }, options);
  forEachLine(bytes, (b, s, e, n) => parser.line(b, s, e, n));
  return { records, summary: parser.end() };
}
