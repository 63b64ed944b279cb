/**
 * The views behind a statement's table names. A view is a stored SELECT: EXPLAIN of `SELECT … FROM v`
 * makes the plan of v's text too, and the optimizer evaluates v's constant calls while it does
 * (`SLEEP(3)` sleeps, `GET_LOCK(…)` takes the lock, a stored function writes). The statement's own
 * text shows none of it, so before a statement is sent the definitions of the views it names are read
 * from information_schema.VIEWS (a schema read), recursively for a view over a view, and judged by the
 * same rules as the statement (statementHazards.ts).
 */
import { hazardIn, relationKey, relationNames, storedFunctionCalls, type RelationName } from './statementHazards';

export interface ViewDefinition {
  schema: string;
  name: string;
  /** VIEW_DEFINITION as the server keeps it; empty when the user may not see it (no SHOW VIEW). */
  definition: string;
}

/**
 * Which of these names are views, with their definitions. May return more rows than asked (the
 * server compares names without case); rows not asked for are ignored.
 */
export type ViewLookup = (names: readonly RelationName[]) => Promise<readonly ViewDefinition[]>;

export interface ViewCheck {
  /** Why the statement must not be sent: a view calls a side-effect function, or its text cannot be read. */
  refusal?: string;
  /** The stored functions the views call (lower-case `schema.name`), each with the view that calls it. */
  functions: { name: string; view: string }[];
}

/** Most views one statement may reach, nested or not: more is refused rather than read without end. */
export const MAX_VIEWS = 64;

const keyOf = (v: ViewDefinition): string => relationKey({ schema: v.schema.toLowerCase(), name: v.name.toLowerCase() });

/** How a view reads in a message: `isu.v_fn`, or `isu.v_fn (read through isu.v_over)`. */
function describe(name: string, via: readonly string[]): string {
  return via.length ? `${name} (read through ${via.join(' → ')})` : name;
}

/**
 * Walks the views `sql` names (bare names belong to `database`) and the views their definitions
 * name in turn. `knownFunctions` (lower-case `schema.name` of the stored functions the user can see)
 * is asked for only when a view is found. One lookup per level of nesting.
 */
export async function checkViews(sql: string, database: string, lookup: ViewLookup,
  knownFunctions: () => Promise<ReadonlySet<string>>): Promise<ViewCheck> {
  const functions: ViewCheck['functions'] = [];
  const asked = new Set<string>();
  const visited = new Set<string>();
  let pending = relationNames(sql, database).map((r) => ({ r, via: [] as string[] }));
  let known: ReadonlySet<string> | undefined;
  while (pending.length) {
    const level = new Map<string, { r: RelationName; via: string[] }>();
    for (const p of pending) {
      const k = relationKey(p.r);
      if (!asked.has(k) && !level.has(k)) level.set(k, p);
    }
    if (level.size === 0) break;
    for (const k of level.keys()) asked.add(k);
    const found = await lookup([...level.values()].map((p) => p.r));
    pending = [];
    for (const v of found) {
      const k = keyOf(v);
      const via = level.get(k)?.via;
      if (!via || visited.has(k)) continue;
      visited.add(k);
      if (visited.size > MAX_VIEWS) {
        return { functions, refusal: `it reads more than ${MAX_VIEWS} views (nested); their definitions were not all checked, so it is not sent` };
      }
      const name = `${v.schema}.${v.name}`;
      const shown = describe(name, via);
      if (!v.definition.trim()) {
        return {
          functions, refusal: `it reads the view ${shown}, whose definition this user may not see, so what it calls cannot be checked `
            + `(the server would run any function in it while it makes the plan); not sent. GRANT SHOW VIEW on it to the user to explain statements over it`,
        };
      }
      const h = hazardIn(v.definition);
      if (h) {
        return {
          functions, refusal: `it reads the view ${shown}, whose definition calls ${h.what}: the server evaluates a view's calls `
            + `while it makes the plan of a statement over it, so the statement is not sent`,
        };
      }
      known ??= await knownFunctions();
      for (const f of storedFunctionCalls(v.definition, known, v.schema)) functions.push({ name: f, view: shown });
      const next = [...via, name];
      for (const r of relationNames(v.definition, v.schema)) pending.push({ r, via: next });
    }
  }
  return { functions };
}

/** A string literal that reads the same with and without backslash escapes (hex when the text has a quote or backslash). */
function literal(s: string): string {
  if (!/['\\]/.test(s)) return `'${s}'`;
  return `CONVERT(X'${Buffer.from(s, 'utf8').toString('hex')}' USING utf8mb4)`;
}

/** The information_schema read behind a ViewLookup: the views among `names`. */
export function viewLookupSql(names: readonly RelationName[]): string {
  const bySchema = new Map<string, string[]>();
  for (const n of names) {
    const list = bySchema.get(n.schema) ?? [];
    list.push(n.name);
    bySchema.set(n.schema, list);
  }
  const where = [...bySchema].map(([s, tables]) => `(TABLE_SCHEMA = ${literal(s)} AND TABLE_NAME IN (${tables.map(literal).join(', ')}))`);
  return `SELECT TABLE_SCHEMA, TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS WHERE ${where.join(' OR ')}`;
}
