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
 */

/** One parsed entry. The parser reuses one object: copy what you keep beyond the callback. */
export interface SlowLogEntry {
  /** 1-based line number of the entry's first header line. */
  line: number;
  /** Epoch milliseconds (from `# Time`, refined by `SET timestamp`), or NaN when the log gives none. */
  time: number;
  /** True when `time` has sub-second resolution (MySQL 5.7+ `# Time`). */
  preciseTime: boolean;
  user: string;
  host: string;
  /** Connection id (`Id:` on MySQL, `# Thread_id:` on MariaDB), or -1. */
  threadId: number;
  /** Current database (`Schema:` on MariaDB, the last `use db;` of this connection otherwise), or ''. */
  schema: string;
  queryTime: number;
  lockTime: number;
  rowsSent: number;
  rowsExamined: number;
  /** MariaDB `Rows_affected`, or -1. */
  rowsAffected: number;
  /** MariaDB / MySQL 8 extra `Bytes_sent`, or -1. */
  bytesSent: number;
  /** MariaDB log_slow_verbosity flags, when logged (undefined otherwise). */
  fullScan?: boolean;
  fullJoin?: boolean;
  tmpTable?: boolean;
  tmpTableOnDisk?: boolean;
  filesort?: boolean;
  filesortOnDisk?: boolean;
  /** Other `Key: value` header fields (MySQL 8 log_slow_extra, MariaDB QC_hit, Pages_accessed …), only when present. */
  extra?: Record<string, string>;
  /** The statement bytes are sqlBytes[0, sqlLength) (UTF-8, without the final `;`). */
  sqlBytes: Uint8Array;
  sqlLength: number;
  /** Set for `# administrator command: X;` entries (then the statement is `administrator command: X`). */
  admin: boolean;
}

/** A malformed entry: where, why, and the start of its text. */
export interface SlowLogProblem { line: number; reason: string; text: string }

export interface SlowLogParserOptions {
  /** How many malformed entries to keep as samples (all are counted). Default 10. */
  maxProblemSamples?: number;
  /** Statements longer than this are cut (the entry is kept and counted in `truncatedStatements`). Default 1 MiB. */
  maxStatementBytes?: number;
  /** Decodes bytes that an entry keeps (user, host, schema, extra fields). Default: UTF-8. */
  decode?: (bytes: Uint8Array, start: number, end: number) => string;
}

/** Totals of a parse. */
export interface SlowLogParseSummary {
  entries: number;
  lines: number;
  malformed: number;
  problems: SlowLogProblem[];
  /** Start-up banners skipped. */
  banners: number;
  truncatedStatements: number;
  /** Kinds of header seen, to tell flavors apart: 'mysql-time', 'legacy-time', 'thread-id-line', 'rows-affected', 'verbosity', 'slow-extra'. */
  features: string[];
}

const S_IDLE = 0;     // between entries
const S_HEADER = 1;   // reading `# …` header lines
const S_BODY = 2;     // reading the statement
const S_ORPHAN = 3;   // skipping the rest of text that had no header

const utf8 = new TextDecoder('utf-8');
const defaultDecode = (b: Uint8Array, s: number, e: number): string => utf8.decode(b.subarray(s, e));

function startsWith(b: Uint8Array, s: number, e: number, prefix: string): boolean {
  const n = prefix.length;
  if (e - s < n) return false;
  for (let i = 0; i < n; i++) if (b[s + i] !== prefix.charCodeAt(i)) return false;
  return true;
}

function endsWith(b: Uint8Array, s: number, e: number, suffix: string): boolean {
  const n = suffix.length;
  if (e - s < n) return false;
  for (let i = 0; i < n; i++) if (b[e - n + i] !== suffix.charCodeAt(i)) return false;
  return true;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (no Date object on the hot path). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function num(b: Uint8Array, s: number, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) {
    const d = b[s + i] - 48;
    if (d < 0 || d > 9) return NaN;
    v = v * 10 + d;
  }
  return v;
}

/** Parses a decimal number `[-]digits[.digits]` in b[s, e); NaN if it is not one. */
function parseDecimal(b: Uint8Array, s: number, e: number): number {
  if (s >= e) return NaN;
  let neg = false;
  if (b[s] === 45) { neg = true; s++; }
  let v = 0;
  let i = s;
  for (; i < e; i++) {
    const d = b[i] - 48;
    if (d < 0 || d > 9) break;
    v = v * 10 + d;
  }
  if (i === s) return NaN;
  if (i < e && b[i] === 46) {
    let f = 0;
    let scale = 1;
    for (i++; i < e; i++) {
      const d = b[i] - 48;
      if (d < 0 || d > 9) break;
      f = f * 10 + d;
      scale *= 10;
    }
    v += f / scale;
  }
  if (i !== e) return NaN;
  return neg ? -v : v;
}

function yesNo(b: Uint8Array, s: number, e: number): boolean | undefined {
  if (e - s === 3 && b[s] === 89) return true;   // Yes
  if (e - s === 2 && b[s] === 78) return false;  // No
  return undefined;
}

/**
 * The parser: feed it lines with `line()` and call `end()` once; `onEntry` gets each complete
 * entry (the same object every time).
 */
export class SlowLogParser {
  readonly summary: SlowLogParseSummary = { entries: 0, lines: 0, malformed: 0, problems: [], banners: 0, truncatedStatements: 0, features: [] };
  private readonly e: SlowLogEntry;
  private state = S_IDLE;
  private readonly maxSamples: number;
  private readonly maxStmt: number;
  private readonly decode: (bytes: Uint8Array, start: number, end: number) => string;
  /** Current `# Time` of the legacy format (carried over entries until the next one), epoch ms. */
  private legacyTime = NaN;
  /** Whether the current entry had a Query_time line, a statement, a SET timestamp. */
  private hasQueryTime = false;
  private hasStatement = false;
  private entryTimeFromHeader = false;
  private bannerLines = 0;
  /** Last `use db;` per connection, for MySQL where the schema is not in the header. */
  private readonly schemaByThread = new Map<number, string>();
  /** Cache of the last User@Host line's bytes and its decoded parts. */
  private lastUserHost = new Uint8Array(0);
  private userHostDirty = true;
  private readonly featureSet = new Set<string>();
  private bad: string | undefined;
  /** The current statement was cut at maxStatementBytes. */
  private cut = false;

  constructor(private readonly onEntry: (entry: SlowLogEntry) => void, options: SlowLogParserOptions = {}) {
    this.maxSamples = options.maxProblemSamples ?? 10;
    this.maxStmt = options.maxStatementBytes ?? 1 << 20;
    this.decode = options.decode ?? defaultDecode;
    this.e = {
      line: 0, time: NaN, preciseTime: false, user: '', host: '', threadId: -1, schema: '', queryTime: 0, lockTime: 0,
      rowsSent: 0, rowsExamined: 0, rowsAffected: -1, bytesSent: -1, sqlBytes: new Uint8Array(4096), sqlLength: 0, admin: false,
    };
  }

  /** Feeds one line (without its newline) as b[s, e); lineNo is 1-based. */
  line(b: Uint8Array, s: number, e: number, lineNo: number): void {
    this.summary.lines = lineNo;
    if (this.bannerLines > 0) {
      // after `… started with:` come `Tcp port: …` and `Time  Id Command  Argument`
      if (startsWith(b, s, e, 'Tcp port:')) { this.bannerLines--; return; }
      this.bannerLines = 0;
      if (startsWith(b, s, e, 'Time') && endsWith(b, s, e, 'Argument')) return;
    }
    const c = e > s ? b[s] : 0;
    if (c === 35 /* # */ && e - s > 2 && b[s + 1] === 32) {
      const k = b[s + 2];
      if (k === 84 && startsWith(b, s, e, '# Time: ')) { this.startEntry(lineNo); this.time(b, s + 8, e); return; }
      if (k === 85 && startsWith(b, s, e, '# User@Host: ')) {
        if (this.state !== S_HEADER || this.hasQueryTime) this.startEntry(lineNo);
        this.userHost(b, s + 13, e);
        return;
      }
      if (k === 81 && startsWith(b, s, e, '# Query_time: ')) {
        if (this.state !== S_HEADER || this.hasQueryTime) this.startEntry(lineNo);
        this.hasQueryTime = true;
        this.pairs(b, s + 2, e);
        return;
      }
      if (this.state === S_HEADER) {
        if (k === 97 && startsWith(b, s, e, '# administrator command: ')) { this.adminCommand(b, s + 2, e); return; }
        if (k !== 101 || !startsWith(b, s, e, '# explain:')) this.pairs(b, s + 2, e);
        return;
      }
      if (this.state === S_BODY && k === 97 && !this.hasStatement && startsWith(b, s, e, '# administrator command: ')) {
        this.adminCommand(b, s + 2, e);
        return;
      }
    }
    // why: MariaDB's log_slow_verbosity=explain adds `# explain: …` lines and a bare `#` line.
    if (c === 35 && this.state === S_HEADER) return;
    if (c === 47 /* / */ || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) {
      if (endsWith(b, s, e, 'started with:') && this.isBanner(b, s, e)) {
        this.finishEntry();
        this.state = S_IDLE;
        this.summary.banners++;
        this.bannerLines = 2;
        return;
      }
    }
    if (this.state === S_IDLE) {
      if (e === s) return;
      this.problem(lineNo, 'text without an entry header', b, s, e);
      this.state = S_ORPHAN;
      return;
    }
    if (this.state === S_ORPHAN) return;  // the rest of a headerless fragment (counted once)
    if (this.state === S_HEADER) {
      this.state = S_BODY;
      if (e === s) return;
      if (this.bodyPrefix(b, s, e)) return;
    } else if (!this.hasStatement && this.bodyPrefix(b, s, e)) {
      return;
    }
    this.appendStatement(b, s, e);
  }

  /** End of input: completes the last entry. Returns the summary. */
  end(): SlowLogParseSummary {
    this.finishEntry();
    this.state = S_IDLE;
    this.summary.features = [...this.featureSet].sort();
    return this.summary;
  }

  private isBanner(b: Uint8Array, s: number, e: number): boolean {
    for (let i = s; i + 10 < e; i++) if (b[i] === 44 && startsWith(b, i, e, ', Version: ')) return true;
    return false;
  }

  private startEntry(lineNo: number): void {
    this.finishEntry();
    const x = this.e;
    x.line = lineNo;
    x.time = this.legacyTime;
    x.preciseTime = false;
    x.threadId = -1;
    x.schema = '';
    x.queryTime = 0; x.lockTime = 0; x.rowsSent = 0; x.rowsExamined = 0; x.rowsAffected = -1; x.bytesSent = -1;
    x.fullScan = undefined; x.fullJoin = undefined; x.tmpTable = undefined; x.tmpTableOnDisk = undefined;
    x.filesort = undefined; x.filesortOnDisk = undefined; x.extra = undefined;
    x.sqlLength = 0;
    x.admin = false;
    this.hasQueryTime = false;
    this.hasStatement = false;
    this.entryTimeFromHeader = false;
    this.cut = false;
    this.bad = undefined;
    this.state = S_HEADER;
  }

  private finishEntry(): void {
    if (this.state === S_IDLE || this.state === S_ORPHAN) return;
    const x = this.e;
    let reason = this.bad;
    if (!reason && !this.hasQueryTime) reason = 'no # Query_time line';
    if (!reason && !this.hasStatement) reason = 'no statement (entry cut short)';
    if (reason) {
      this.problemFromEntry(reason);
      this.state = S_IDLE;
      return;
    }
    // drop trailing whitespace and the final `;`
    let n = x.sqlLength;
    const q = x.sqlBytes;
    while (n > 0 && (q[n - 1] === 32 || q[n - 1] === 10 || q[n - 1] === 9 || q[n - 1] === 13)) n--;
    if (n > 0 && q[n - 1] === 59) n--;
    else if (!this.cut) {
      // why: the server ends every statement with `;`; without it the log was cut mid-entry.
      this.problemFromEntry('statement cut short (no final ;)');
      this.state = S_IDLE;
      return;
    }
    x.sqlLength = n;
    if (this.userHostDirty) this.decodeUserHost();
    if (x.schema === '' && x.threadId >= 0) x.schema = this.schemaByThread.get(x.threadId) ?? '';
    this.summary.entries++;
    this.state = S_IDLE;
    this.onEntry(x);
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
    while (s < e && b[s] === 32) s++;
    const x = this.e;
    if (e - s >= 19 && b[s + 4] === 45 && b[s + 10] === 84) {
      const days = daysFromCivil(num(b, s, 4), num(b, s + 5, 2), num(b, s + 8, 2));
      let ms = days * 86400000 + num(b, s + 11, 2) * 3600000 + num(b, s + 14, 2) * 60000 + num(b, s + 17, 2) * 1000;
      let i = s + 19;
      if (b[i] === 46) {
        let f = 0; let scale = 1;
        for (i++; i < e && b[i] >= 48 && b[i] <= 57; i++) { f = f * 10 + (b[i] - 48); scale *= 10; }
        ms += (f / scale) * 1000;
      }
      if (i < e && (b[i] === 43 || b[i] === 45) && e - i >= 6) {
        // why: with log_timestamps=SYSTEM MySQL writes the local offset (`+09:00`); normalize to UTC.
        const off = num(b, i + 1, 2) * 3600000 + num(b, i + 4, 2) * 60000;
        ms += b[i] === 43 ? -off : off;
      }
      if (Number.isNaN(ms)) { this.bad = 'unreadable # Time'; return; }
      x.time = ms;
      x.preciseTime = true;
      this.entryTimeFromHeader = true;
      this.featureSet.add('mysql-time');
      return;
    }
    // legacy: YYMMDD H:MM:SS (hour may be space-padded)
    if (e - s >= 13 && b[s + 6] === 32) {
      let i = s + 7;
      while (i < e && b[i] === 32) i++;
      const c1 = b.indexOf(58, i);
      if (c1 > 0 && c1 < e) {
        const days = daysFromCivil(2000 + num(b, s, 2), num(b, s + 2, 2), num(b, s + 4, 2));
        const ms = days * 86400000 + num(b, i, c1 - i) * 3600000 + num(b, c1 + 1, 2) * 60000 + num(b, c1 + 4, 2) * 1000;
        if (!Number.isNaN(ms)) {
          // why: MariaDB writes `# Time` only when the second changes; later entries inherit it.
          this.legacyTime = ms;
          x.time = ms;
          this.entryTimeFromHeader = true;
          this.featureSet.add('legacy-time');
          return;
        }
      }
    }
    this.bad = 'unreadable # Time';
  }

  private userHost(b: Uint8Array, s: number, e: number): void {
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
      x.threadId = num(b, i, e - i);
      if (Number.isNaN(x.threadId)) x.threadId = -1;
      end = idAt;
      while (end > s && b[end - 1] === 32) end--;
    }
    const prev = this.lastUserHost;
    let same = prev.length === end - s;
    for (let i = 0; same && i < prev.length; i++) if (prev[i] !== b[s + i]) same = false;
    if (!same) {
      this.lastUserHost = new Uint8Array(end - s); // a copy: the line buffer is reused
      this.lastUserHost.set(b.subarray(s, end));
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
    const m = /^(\S*)\s*\[([^\]]*)\]/.exec(hostPart);
    this.e.host = m ? (m[1] || m[2]) : hostPart;
    this.userHostDirty = false;
  }

  /** A header line of `Key: value` pairs separated by spaces. */
  private pairs(b: Uint8Array, s: number, e: number): void {
    const x = this.e;
    let i = s;
    while (i < e) {
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
      if (ve > vs && b[ve - 1] === 58) { i = vs; ve = vs; }
      this.field(b, ks, ke, vs, ve, x);
    }
  }

  private field(b: Uint8Array, ks: number, ke: number, vs: number, ve: number, x: SlowLogEntry): void {
    const n = ke - ks;
    const k0 = b[ks];
    switch (k0) {
      case 81: // Query_time, QC_hit
        if (n === 10 && b[ks + 1] === 117) { x.queryTime = this.number(b, vs, ve); return; }
        break;
      case 76: // Lock_time
        if (n === 9) { x.lockTime = this.number(b, vs, ve); return; }
        break;
      case 82: // Rows_sent, Rows_examined, Rows_affected
        if (n === 9 && b[ks + 5] === 115) { x.rowsSent = this.number(b, vs, ve); return; }
        if (n === 13 && b[ks + 5] === 101) { x.rowsExamined = this.number(b, vs, ve); return; }
        if (n === 13 && b[ks + 5] === 97) { x.rowsAffected = this.number(b, vs, ve); this.featureSet.add('rows-affected'); return; }
        break;
      case 84: // Thread_id, Tmp_table, Tmp_table_on_disk
        if (n === 9 && b[ks + 1] === 104) {
          x.threadId = this.number(b, vs, ve);
          this.featureSet.add(this.hasQueryTime ? 'slow-extra' : 'thread-id-line');
          return;
        }
        if (n === 9 && b[ks + 1] === 109) { x.tmpTable = yesNo(b, vs, ve); this.featureSet.add('verbosity'); return; }
        if (n === 17 && b[ks + 1] === 109) { x.tmpTableOnDisk = yesNo(b, vs, ve); return; }
        break;
      case 83: // Schema
        if (n === 6 && b[ks + 1] === 99) { x.schema = this.decode(b, vs, ve); return; }
        break;
      case 66: // Bytes_sent
        if (n === 10 && b[ks + 6] === 115) { x.bytesSent = this.number(b, vs, ve); return; }
        break;
      case 70: // Full_scan, Full_join, Filesort, Filesort_on_disk
        if (n === 9 && b[ks + 5] === 115) { x.fullScan = yesNo(b, vs, ve); this.featureSet.add('verbosity'); return; }
        if (n === 9 && b[ks + 5] === 106) { x.fullJoin = yesNo(b, vs, ve); return; }
        if (n === 8) { x.filesort = yesNo(b, vs, ve); return; }
        if (n === 16) { x.filesortOnDisk = yesNo(b, vs, ve); return; }
        break;
    }
    if (!x.extra) x.extra = {};
    x.extra[this.decode(b, ks, ke)] = this.decode(b, vs, ve);
  }

  private number(b: Uint8Array, s: number, e: number): number {
    const v = parseDecimal(b, s, e);
    if (Number.isNaN(v)) { this.bad ??= `unreadable number "${this.decode(b, s, Math.min(e, s + 40))}"`; return 0; }
    return v;
  }

  /** `use db;` and `SET …timestamp=N;` before the statement. Returns true when the line was one. */
  private bodyPrefix(b: Uint8Array, s: number, e: number): boolean {
    const c = b[s];
    if ((c === 117 || c === 85) && e - s > 5 && (b[s + 1] | 32) === 115 && (b[s + 2] | 32) === 101 && b[s + 3] === 32 && b[e - 1] === 59) {
      let ds = s + 4;
      let de = e - 1;
      while (ds < de && b[ds] === 32) ds++;
      if (b[ds] === 96 && b[de - 1] === 96) { ds++; de--; }
      for (let i = ds; i < de; i++) if (b[i] === 32) return false;
      const db = this.decode(b, ds, de);
      this.e.schema = db;
      if (this.e.threadId >= 0) this.schemaByThread.set(this.e.threadId, db);
      return true;
    }
    if (c === 83 && startsWith(b, s, e, 'SET ') && b[e - 1] === 59) {
      // SET [last_insert_id=N,][insert_id=N,]timestamp=N;
      const t = startsWith(b, s, e, 'SET timestamp=') ? s + 4 : lastIndexOf(b, s, e, 'timestamp=');
      if (t < 0) return false;
      const v = parseDecimal(b, t + 10, e - 1);
      if (Number.isNaN(v)) return false;
      for (let i = s + 4; i < t; i++) {
        const ch = b[i];
        if (!(ch === 95 || ch === 61 || ch === 44 || (ch >= 48 && ch <= 57) || (ch >= 97 && ch <= 122))) return false;
      }
      const x = this.e;
      const ms = v * 1000;
      // why: `# Time` may carry microseconds (keep them) or lack (legacy: carried over from an earlier entry).
      if (!x.preciseTime || !this.entryTimeFromHeader || Math.floor(x.time / 1000) !== Math.floor(v)) {
        x.time = ms;
        x.preciseTime = false;
      }
      return true;
    }
    return false;
  }

  private adminCommand(b: Uint8Array, s: number, e: number): void {
    this.e.admin = true;
    this.state = S_BODY;
    this.appendStatement(b, s, e);
  }

  private appendStatement(b: Uint8Array, s: number, e: number): void {
    const x = this.e;
    let n = e - s;
    const need = x.sqlLength + n + 1;
    if (need > this.maxStmt) {
      n = Math.max(0, this.maxStmt - x.sqlLength - 1);
      if (!this.cut) this.summary.truncatedStatements++;
      this.cut = true;
      if (n === 0 && this.hasStatement) return;
    }
    if (x.sqlLength + n + 1 > x.sqlBytes.length) {
      const next = new Uint8Array(Math.max(x.sqlBytes.length * 2, x.sqlLength + n + 1));
      next.set(x.sqlBytes.subarray(0, x.sqlLength));
      x.sqlBytes = next;
    }
    if (this.hasStatement) x.sqlBytes[x.sqlLength++] = 10;
    x.sqlBytes.set(b.subarray(s, s + n), x.sqlLength);
    x.sqlLength += n;
    this.hasStatement = true;
  }
}

function lastIndexOf(b: Uint8Array, s: number, e: number, word: string): number {
  for (let i = e - word.length; i >= s; i--) if (startsWith(b, i, e, word)) return i;
  return -1;
}

/** Decodes an entry's statement. */
export function entrySql(entry: SlowLogEntry): string {
  return utf8.decode(entry.sqlBytes.subarray(0, entry.sqlLength));
}

/** A self-contained copy of an entry (for tests and small logs). */
export interface SlowLogRecord extends Omit<SlowLogEntry, 'sqlBytes' | 'sqlLength'> { sql: string }

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
    records.push(r);
  }, options);
  forEachLineOf(bytes, (b, s, e, n) => parser.line(b, s, e, n));
  return { records, summary: parser.end() };
}

/** Splits bytes into lines (CRLF and a missing final newline handled). */
export function forEachLineOf(bytes: Uint8Array, sink: (b: Uint8Array, s: number, e: number, lineNo: number) => void): number {
  let pos = 0;
  let lineNo = 0;
  while (pos < bytes.length) {
    let nl = bytes.indexOf(10, pos);
    if (nl < 0) nl = bytes.length;
    sink(bytes, pos, nl > pos && bytes[nl - 1] === 13 ? nl - 1 : nl, ++lineNo);
    pos = nl + 1;
  }
  return lineNo;
}
