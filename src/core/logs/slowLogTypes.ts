/** The data the slow-log reader (slowLogParser.ts) hands out: entries, options, the summary of a parse. */
import type { FingerprintPart } from '../sql/fingerprint';

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
  /**
   * Set when the statement was longer than maxStatementBytes: its start, already fingerprinted
   * (sqlBytes then hold the rest). The fingerprint is the whole statement's: fingerprintInto(sqlBytes, 0, sqlLength, fingerprintPart).
   */
  fingerprintPart?: FingerprintPart;
  /**
   * The statement's fingerprint when the reader made it already (it reads a statement's tokens to
   * tell whether a header-looking line ends it): fingerprintBytes[fingerprintStart, fingerprintStart +
   * fingerprintLength), as fingerprintInto writes it; fingerprintLength is -1 when it was not made.
   * The bytes may be the fingerprint's shared buffer: read them before making another fingerprint.
   */
  fingerprintBytes: Uint8Array;
  fingerprintStart: number;
  fingerprintLength: number;
  /**
   * An id of the statement's shape (core/sql/fingerprintCache.ts) when the reader knows it, the same
   * for every entry of that shape and never that of another, else -1: a reader may key a map by it.
   */
  fingerprintShape: number;
  /** Set for `# administrator command: X;` entries (then the statement is `administrator command: X`). */
  admin: boolean;
}

/** A malformed entry: where, why, and the start of its text. */
export interface SlowLogProblem { line: number; reason: string; text: string }

export interface SlowLogParserOptions {
  /** How many damaged-header samples to keep (all are counted). Default 10. */
  maxDamagedSamples?: number;
  /** How many malformed entries to keep as samples (all are counted). Default 10. */
  maxProblemSamples?: number;
  /**
   * Statements longer than this are held in parts: the start is fingerprinted (up to a `,`) and
   * dropped, so the fingerprint is the whole statement's at any length and memory stays bounded
   * (counted in `longStatements`). Only a run longer than this with no `,` outside a literal (one
   * huge literal) is cut, counted in `truncatedStatements`. Default 64 MiB.
   */
  maxStatementBytes?: number;
  /** Decodes bytes that an entry keeps (user, host, schema, extra fields). Default: UTF-8. */
  decode?: (bytes: Uint8Array, start: number, end: number) => string;
  /**
   * The database of the last `use db;` before the first line fed (default ''). A reader of one byte
   * range of a log passes a marker here and puts the real name in when it merges the ranges.
   */
  initialSchema?: string;
  /**
   * Called when an entry starts at `lineNo`, after the entry before it was completed; `rereading`
   * while lines are read again after a literal that never closed. It may throw to stop the parse
   * there (a range reader hands the rest of the log to the next range's reader).
   */
  onEntryStart?: (lineNo: number, rereading: boolean) => void;
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
  /** Statements longer than maxStatementBytes, fingerprinted whole in parts (their example text starts with the fingerprint of the first part). */
  longStatements: number;
  /** Entries kept although their header was damaged (see the module comment), with a few samples. */
  damaged: number;
  damagedSamples: SlowLogProblem[];
  /** Header lines longer than 64 KiB: skipped unread (their entry is malformed or damaged). */
  tooLong: number;
  /** Times a string literal left open swallowed header lines and the entries after it were read again. */
  reread: number;
  /**
   * Where every line went: `entries` (lines of kept entries), `malformed` (lines of malformed
   * entries and headerless text), `banners` (start-up banners), `blank` (empty lines between
   * entries). Their sum is `lines` (lines too long for the line reader are added by it).
   */
  lineCounts: { entries: number; malformed: number; banners: number; blank: number };
  /** Kinds of header seen, to tell flavors apart: 'mysql-time', 'legacy-time', 'thread-id-line', 'rows-affected', 'verbosity', 'slow-extra'. */
  features: string[];
}
