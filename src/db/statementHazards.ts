/**
 * What in a statement could act while the server only makes its plan. The optimizer evaluates
 * constant expressions during EXPLAIN (a `WHERE id = SLEEP(5)` sleeps, a constant `BENCHMARK()` runs,
 * a deterministic stored function that takes `GET_LOCK` takes it), and an executable comment is code
 * to the server (`EXPLAIN /*!ANALYZE *\/ SELECT …` runs the query on MySQL 8.0.18+). Both readings of
 * backslashes in strings are checked, so no sql_mode turns a hidden call into a visible one.
 */
import { scanStatement, type ScanToken } from './guardScan';

/**
 * Built-in functions with effects beyond the statement: named locks, waits, CPU burn, reading
 * server files, advancing sequences, waiting for replication.
 */
export const SIDE_EFFECT_FUNCTIONS: ReadonlySet<string> = new Set([
  'GET_LOCK', 'RELEASE_LOCK', 'RELEASE_ALL_LOCKS', 'SLEEP', 'BENCHMARK', 'LOAD_FILE', 'NEXTVAL', 'SETVAL',
  'MASTER_POS_WAIT', 'SOURCE_POS_WAIT', 'MASTER_GTID_WAIT', 'WAIT_FOR_EXECUTED_GTID_SET', 'WAIT_UNTIL_SQL_THREAD_AFTER_GTIDS',
]);

/** A call of a function by name: `f(`, `` `f`( ``, `db.f(`. */
export interface FunctionCall {
  /** The schema written before the name, when there is one. */
  schema?: string;
  name: string;
  /** Written in backticks (or double quotes): never a built-in function then. */
  quoted: boolean;
}

/** Words after which `name (` is a table and its column list, not a call (INSERT INTO t (a, b)). */
const TABLE_CONTEXT = new Set(['INTO', 'TABLE', 'UPDATE', 'JOIN', 'FROM', 'REFERENCES', 'REPLACE', 'INDEX', 'KEY']);

function isName(t: ScanToken | undefined): boolean {
  return !!t && (t.kind === 'name' || t.kind === 'quoted' || (t.kind === 'string' && t.text.startsWith('"')));
}

function nameText(t: ScanToken): string {
  return t.kind === 'string' ? t.text.slice(1, -1).replace(/""/g, '"') : t.text;
}

function readings(sql: string): ScanToken[][] {
  const a = scanStatement(sql, true);
  // why: without a backslash in the text both readings are the same; skip the second pass.
  return sql.includes('\\') ? [a, scanStatement(sql, false)] : [a];
}

function callsIn(tokens: ScanToken[]): FunctionCall[] {
  const out: FunctionCall[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k];
    if (!isName(t) || tokens[k + 1]?.text !== '(' || tokens[k + 1].kind !== 'punct') continue;
    const dotted = tokens[k - 1]?.kind === 'punct' && tokens[k - 1].text === '.' && isName(tokens[k - 2]);
    const before = tokens[dotted ? k - 3 : k - 1];
    if (before?.kind === 'name' && TABLE_CONTEXT.has(before.text.toUpperCase())) continue;
    out.push({ ...(dotted ? { schema: nameText(tokens[k - 2]) } : {}), name: nameText(t), quoted: t.kind !== 'name' });
  }
  return out;
}

/** What in a text the server would act on (`GET_LOCK()`, an executable comment …) and why it is never sent. */
export interface Hazard {
  /** What it is, as a person would name it: `SLEEP()`, `NEXT VALUE FOR`, `the executable comment /*!…`. */
  what: string;
  message: string;
}

/** The first hazard in `sql` under either reading of backslashes, or undefined. */
export function hazardIn(sql: string): Hazard | undefined {
  for (const tokens of readings(sql)) {
    for (let k = 0; k < tokens.length; k++) {
      const t = tokens[k];
      if (t.kind === 'exec-comment') {
        const shown = t.text.length > 40 ? `${t.text.slice(0, 37)}…` : t.text;
        return { what: `the executable comment ${shown}`, message: `the executable comment ${shown} is code to the server (it could hold ANALYZE or a call); statements with /*! … */ are not sent` };
      }
      if (t.kind !== 'name') continue;
      const w = t.text.toUpperCase();
      if (w === 'NEXT' && tokens[k + 1]?.text.toUpperCase() === 'VALUE' && tokens[k + 2]?.text.toUpperCase() === 'FOR') {
        return { what: 'NEXT VALUE FOR', message: 'NEXT VALUE FOR advances a sequence even in EXPLAIN; not sent' };
      }
      if (w === 'NEXTVAL' && tokens[k - 1]?.text === '.' && tokens[k + 1]?.text !== '(') {
        return { what: '.NEXTVAL', message: '.NEXTVAL advances a sequence even in EXPLAIN; not sent' };
      }
    }
    for (const c of callsIn(tokens)) {
      if (c.quoted || c.schema !== undefined) continue;
      const w = c.name.toUpperCase();
      if (SIDE_EFFECT_FUNCTIONS.has(w)) {
        return { what: `${w}()`, message: `${w}() acts outside the statement (locks, waits, files or sequences) and the optimizer may evaluate it during EXPLAIN; statements calling it are not sent` };
      }
    }
  }
  return undefined;
}

/**
 * Why the statement must not reach the server, or undefined: an executable comment, a call of a
 * side-effect function, or a sequence advanced by `NEXT VALUE FOR` / `.NEXTVAL`.
 */
export function hazardOf(sql: string): string | undefined {
  return hazardIn(sql)?.message;
}

/** Names made only of digits are numbers, never tables. */
const NUMBER = /^[0-9]+$/;

/** A name that may be a table or a view; both parts lower-case. */
export interface RelationName {
  schema: string;
  name: string;
}

/** One key per relation name; NUL cannot occur in an identifier. */
export const relationKey = (r: RelationName): string => `${r.schema}\u0000${r.name}`;

/**
 * Every name in `sql` that could be a table or a view: each bare name in `database`, and each dotted
 * pair as written (`isu.v`, and `v.id` too: a pair is schema.table or table.column, and which one the
 * text alone does not say). Calls, strings and numbers are left out. More names than the statement
 * reads come back, never fewer: the caller looks them up and keeps those that are views.
 */
export function relationNames(sql: string, database: string): RelationName[] {
  const out = new Map<string, RelationName>();
  const add = (r: RelationName): void => { out.set(relationKey(r), r); };
  const db = database.toLowerCase();
  for (const tokens of readings(sql)) {
    for (let k = 0; k < tokens.length; k++) {
      const t = tokens[k];
      if (!isName(t) || NUMBER.test(t.text)) continue;
      if (tokens[k + 1]?.kind === 'punct' && tokens[k + 1].text === '(') continue;
      const name = nameText(t).toLowerCase();
      add({ schema: db, name });
      const dot = tokens[k + 1];
      const next = tokens[k + 2];
      if (dot?.kind === 'punct' && dot.text === '.' && isName(next) && !(tokens[k + 3]?.kind === 'punct' && tokens[k + 3].text === '(')) {
        add({ schema: name, name: nameText(next).toLowerCase() });
      }
    }
  }
  return [...out.values()];
}

/**
 * Calls in `sql` that may be stored functions (either reading): a quoted or schema-qualified name
 * before `(`, or a bare name that is in `known` (lower-case `schema.name` of the stored functions the
 * user can see). `database` is the connection's default schema, for bare names. Returns the distinct
 * lower-case `schema.name` of each.
 */
export function storedFunctionCalls(sql: string, known: ReadonlySet<string>, database: string): string[] {
  const out = new Set<string>();
  for (const tokens of readings(sql)) {
    for (const c of callsIn(tokens)) {
      const full = `${(c.schema ?? database).toLowerCase()}.${c.name.toLowerCase()}`;
      // why: a qualified or quoted name before `(` is never a built-in function; one the user cannot see still counts.
      if (known.has(full) || c.quoted || c.schema !== undefined) out.add(full);
    }
  }
  return [...out];
}
