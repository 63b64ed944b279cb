/**
 * The core data model shared by every capability. Positions are 0-based (line and character,
 * characters counted in UTF-16 code units as VS Code does); front ends convert to 1-based
 * lines for people and to vscode.Range in one place (src/extension/convert.ts).
 */

export interface Position { line: number; character: number }
export interface Range { start: Position; end: Position }

export type Language = 'go' | 'ruby' | 'python' | 'php' | 'javascript' | 'typescript' | 'perl' | 'rust';

export const LANGUAGES: readonly Language[] = ['go', 'ruby', 'python', 'php', 'javascript', 'typescript', 'perl', 'rust'];

/** A loop that encloses a site or a call (for, range, while, each/map/forEach, comprehension …). */
export interface LoopInfo {
  kind: string;
  range: Range;
  /** Source text of what the loop iterates over, when the syntax names it (`posts`, `rows.each` → `rows`). */
  iterable?: string;
  /**
   * Where the iterable's elements come from, followed back within the function (value flow): the variables it is
   * derived from (`models = [M(**r) for r in rows]` → `models`, `rows`) and the assigned or appended values, so a
   * loop over a collection built from a query's rows is linked to that query.
   */
  from?: { names: string[]; values: Range[] };
  /** Every pass that reaches the end of the body leaves the loop; only an error path goes round again (a retry loop). */
  retry?: boolean;
  /** No iterable and no condition (`for {}`, `while True:`, `loop {}`): it waits for work or reads a stream, one message per pass. */
  endless?: boolean;
  /** The body can leave the loop by `break` / `return` / `last` (with a small counted bound: a retry loop). */
  breaks?: boolean;
  /** Names the loop's header binds (`o` of `for o in orders`, `|o|`): an element of what it walks, never null. */
  vars?: string[];
}

/** A branch around a statement or call: its condition as written, and whether the statement is on its `else` side. */
export interface Guard { condition: string; otherwise?: boolean }

/** A SQL statement found in source: the literal(s) it is built from and its context. */
export interface SqlSite {
  /** Path relative to the scanned root, `/`-separated. */
  file: string;
  language: Language;
  /** From the start of the first literal to the end of the last one. */
  range: Range;
  /** The exact range of every literal the statement is built from, in source order. */
  literalRanges: Range[];
  /** The SQL as the database receives it; dynamic parts are replaced by DYNAMIC_MARK. */
  sql: string;
  /** Placeholders in order of appearance: `?`, `$1`, `:name`, `%s`, `@p` (shared by the sites of one text). */
  placeholders: readonly string[];
  /** True when some part of the text is only known at run time (interpolation, a variable). */
  dynamic: boolean;
  /** The call the statement flows into (`db.Query`, `$dbh->prepare`), when known. */
  call?: string;
  /** Name of the enclosing function or method (`Handler.getPosts`, `get_posts`). */
  function?: string;
  functionRange?: Range;
  /** Enclosing loops, outermost first, inside the enclosing function. */
  loops: LoopInfo[];
  /** See CallSite.guards, once, dispatched. */
  guards?: Guard[];
  once?: LoopInfo[];
  dispatched?: LoopInfo[];
  /** Variable the call's result is assigned to (`rows`, `posts`), used to link loops to queries. */
  resultVar?: string;
  /** Where the SQL text itself starts (first non-blank character inside the first literal). */
  textStart?: Position;
  /** Range of the call the statement flows into, when `call` is known. */
  callRange?: Range;
  /** IN-list / rebinding helper the statement passes through (`sqlx.In`), when any. */
  helper?: string;
  /** True when the statement runs in a goroutine/async task/thread body that is started once and awaited (as CallSite.detached). */
  detached?: boolean;
  /** For a prepared statement: the call that runs it (`$stmt->execute(…)` on this prepare's handle), when known. */
  runRange?: Range;
  /** True when its result is kept for the request and reused (`@me ||= …`, a guard returning the kept value first): it does not run per call. */
  memoised?: boolean;
  /** The number the code passes for its `LIMIT ?` (a literal, a constant, a parameter's default), when known (limitValue.ts). */
  limit?: number;
}

/** Marker that stands for a dynamic part in SqlSite.sql. Chosen to be invalid SQL so nothing mistakes it for a value. */
export const DYNAMIC_MARK = '/*?dynamic*/';

/** A function or method defined in a file (for following calls, N+1 across functions). */
export interface FunctionDef {
  name: string;
  /** Receiver type or class, when a method. */
  owner?: string;
  range: Range;
  /** Range of the name, for jumping to it. */
  nameRange: Range;
  /** Parameter names in order, sigils dropped (`self` / `&self` receivers left out). */
  params?: string[];
}

/** A call expression in a file (for following calls, N+1 across functions). */
export interface CallSite {
  /** Callee's last name segment (`getUser` for `h.getUser(...)`). */
  name: string;
  /** Text before the last segment (`h`, `self`, `this`, `$this`), when there is one. */
  receiver?: string;
  range: Range;
  function?: string;
  loops: LoopInfo[];
  /** True when the call runs in a goroutine/async task/thread body started in the loop and awaited once. */
  detached?: boolean;
  /** Argument texts in order (`name: value` / `name=value` for keyword arguments); absent when none or too long. */
  args?: string[];
  /** The branches around the call inside its function, innermost first (a caller's arguments may settle them). */
  guards?: Guard[];
  /** Loops of `loops` that the call's statement list leaves right after it (`…; break`, `…; return`): it runs once in them. */
  once?: LoopInfo[];
  /** Loops of `loops` in which the call sits in one branch of a dispatch on a literal key (each pass takes another branch). */
  dispatched?: LoopInfo[];
}

/** A route definition with its handler. */
export interface Route {
  method: string;          // GET, POST …, or ANY
  pattern: string;         // as written by the framework, prefixes applied: /api/items/:id
  framework: string;
  file: string;
  range: Range;            // the route definition
  handler?: { name: string; file?: string; range?: Range };
}

export type Severity = 'error' | 'warning' | 'info' | 'hint';

export interface RelatedLocation { file: string; range: Range; message: string }

/** A problem found in a statement, a plan or a loop. `code` is stable across every front end. */
export interface Finding {
  code: string;
  severity: Severity;
  message: string;
  file: string;
  range: Range;
  table?: string;
  related?: RelatedLocation[];
  /** Code-specific facts for front ends (JSON output, quick fixes), e.g. `loopFile`/`loopLine` for `n-plus-one`. */
  data?: Record<string, unknown>;
}

/** What went wrong reading one file; reported, never fatal. */
export interface FileError { file: string; message: string; line?: number }

/**
 * A name a file brings in from another module, as its language's adapter reads it: `from util import next_id as nid`
 * (local `nid`, name `next_id`, from `util`), `import util` / `import * as u from './util'` (local `util` / `u`, name `*`),
 * `include Util` or Perl's `use My::Util;` (local `*`, name `*`: the module's names are mixed in).
 */
export interface ImportFact {
  /** The name the file's code uses; `*` when the module's names are mixed in under their own names. */
  local: string;
  /** The name in the module; `*` for the module itself; `default` for its default export. */
  name: string;
  /** The module as written (`util`, `.util`, `./util`, `crate::util`, `My::Util`, `App\Util`, `example.com/app/util`). */
  from: string;
}

/** Everything extracted from one source file. */
export interface FileFacts {
  file: string;
  language: Language;
  sites: SqlSite[];
  functions: FunctionDef[];
  calls: CallSite[];
  routes: Route[];
  errors: FileError[];
  /** The file's imports (absent where the adapter reads none); calls by bare name resolve through them. */
  imports?: ImportFact[];
}

/** Database flavor as detected from the server's version string. */
export type Flavor = 'mysql' | 'mariadb';

export interface ColumnInfo {
  name: string;
  /** Full column type as the server reports it: `int(11) unsigned`, `varchar(255)`, `datetime(6)`. */
  type: string;
  nullable: boolean;
}

export interface IndexInfo {
  name: string;
  /** Key parts in order. */
  columns: string[];
  unique: boolean;
  primary: boolean;
  /** Cardinality estimate per key part (SHOW INDEX), when known. */
  cardinality?: (number | undefined)[];
  /** Prefix length per key part (`name(10)`), when the index uses one. */
  subParts?: (number | undefined)[];
  /** False for MySQL 8 INVISIBLE indexes / MariaDB IGNORED indexes. */
  visible?: boolean;
}

export interface TableInfo {
  name: string;
  columns: ColumnInfo[];
  indexes: IndexInfo[];
  /** Row-count estimate (information_schema.TABLES.TABLE_ROWS). */
  rows: number;
  engine?: string;
  /**
   * Distinct values per column (lower-case name), for columns no index leads with: estimated from a
   * bounded sample of the table (src/db/columnStats.ts). Index cardinality is in IndexInfo.
   */
  columnDistinct?: Record<string, number>;
}

/** The schema of one database, as read by src/db (or built by tests). Table keys are lower-case names. */
export interface Schema {
  database: string;
  flavor: Flavor;
  /** Server version, e.g. `10.11.6-MariaDB` or `8.0.36`. */
  version: string;
  tables: Record<string, TableInfo>;
  /** Bumped whenever the schema is re-read after a change; part of plan cache keys. */
  generation: number;
}

/**
 * An index the advisor proposes for one table (src/core/analysis/advisor.ts). Column order is
 * significant; `ddl` is ready to paste. When it extends an existing index, `replaces` names that
 * index and `ddl` drops it in the same ALTER TABLE.
 */
export interface IndexSuggestion {
  table: string;
  /** Key parts in order. */
  columns: string[];
  /** Index name used in `ddl` (at most 64 characters). */
  name: string;
  /** `ALTER TABLE … ADD INDEX …` (with `ALGORITHM=INPLACE, LOCK=NONE` on large tables). */
  ddl: string;
  /** Why these columns in this order, in one or two sentences. */
  reason: string;
  /** Name of the existing index this one extends (dropped by `ddl`). */
  replaces?: string;
  /** True when the index delivers rows in the statement's ORDER BY / GROUP BY order (no filesort). */
  servesOrderBy: boolean;
  /** True when the index holds every column the statement reads from the table. */
  covering: boolean;
  /** Warnings to show with the DDL (e.g. the time an ALTER on a large table takes). */
  warnings?: string[];
  /** Set when several suggestions together serve one OR (index merge); the same id on each of them. */
  mergeGroup?: string;
  /**
   * How many leading key parts the statement compares with a single value (`=`, a join column): any
   * order of them serves it alike, so merging suggestions across statements may reorder them.
   */
  equalityPrefix?: number;
}
