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

/**
 * Why the statement must not reach the server, or undefined: an executable comment, a call of a
 * side-effect function, or a sequence advanced by `NEXT VALUE FOR` / `.NEXTVAL`.
 */
export function hazardOf(sql: string): string | undefined {
  for (const tokens of readings(sql)) {
    for (let k = 0; k < tokens.length; k++) {
      const t = tokens[k];
      if (t.kind === 'exec-comment') {
        const shown = t.text.length > 40 ? `${t.text.slice(0, 37)}…` : t.text;
        return `the executable comment ${shown} is code to the server (it could hold ANALYZE or a call); statements with /*! … */ are not sent`;
      }
      if (t.kind !== 'name') continue;
      const w = t.text.toUpperCase();
      if (w === 'NEXT' && tokens[k + 1]?.text.toUpperCase() === 'VALUE' && tokens[k + 2]?.text.toUpperCase() === 'FOR') {
        return 'NEXT VALUE FOR advances a sequence even in EXPLAIN; not sent';
      }
      if (w === 'NEXTVAL' && tokens[k - 1]?.text === '.' && tokens[k + 1]?.text !== '(') {
        return '.NEXTVAL advances a sequence even in EXPLAIN; not sent';
      }
    }
    for (const c of callsIn(tokens)) {
      if (c.quoted || c.schema !== undefined) continue;
      const w = c.name.toUpperCase();
      if (SIDE_EFFECT_FUNCTIONS.has(w)) {
        return `${w}() acts outside the statement (locks, waits, files or sequences) and the optimizer may evaluate it during EXPLAIN; statements calling it are not sent`;
      }
    }
  }
  return undefined;
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
