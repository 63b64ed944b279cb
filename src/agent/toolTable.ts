/**
 * The tools Query Insight offers coding agents, as data: name, description and the JSON Schema of the
 * arguments. One table for the MCP server (`query-insight mcp`) and the editor's language-model
 * tools; package.json's `contributes.languageModelTools` repeats it for VS Code, and a unit test
 * holds the two equal.
 */

/** A JSON Schema for a tool's arguments (the subset the tools use, which toolArgs.ts checks). */
export interface ArgSchema {
  type: 'object';
  properties: Record<string, PropSchema>;
  required?: string[];
  additionalProperties: false;
}

export interface PropSchema {
  type: 'string' | 'integer' | 'number' | 'boolean' | 'array';
  description: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  items?: { type: 'string' };
  minItems?: number;
}

export interface ToolDef {
  name: string;
  /** A short title for people (the editor's tool list). */
  title: string;
  /** What the model reads to decide when to call it. */
  description: string;
  inputSchema: ArgSchema;
  /** True when a call may reach the database (the editor asks before it runs). */
  database: boolean;
}

/** Rows a tool returns unless `limit` says otherwise. */
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 200;

const path: PropSchema = {
  type: 'string',
  description: 'A folder or a file of the app, relative to the workspace root (or absolute); default: the whole workspace.',
};
const line: PropSchema = { type: 'integer', minimum: 1, description: '1-based line in `path` (a file): only what is on that line.' };
const limit: PropSchema = { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: `At most this many rows (default ${DEFAULT_LIMIT}).` };

export const TOOLS: readonly ToolDef[] = [
  {
    name: 'statements',
    title: 'SQL statements of a path',
    description: 'Lists the SQL statements the app\'s source sends under a folder or in a file (Go, Ruby, Python, PHP, Perl, JavaScript/TypeScript, Rust): '
      + 'file:line, the enclosing function, the loops around each statement, and the SQL. Reads the source only.',
    inputSchema: { type: 'object', properties: { path, line, limit }, additionalProperties: false },
    database: false,
  },
  {
    name: 'findings',
    title: 'N+1 and plan findings',
    description: 'Finds what makes the statements under a path (or at file:line) slow: N+1 (a statement run once per loop iteration, with the loop and the call path) '
      + 'and, when a database is connected, plan findings from EXPLAIN (full-table-scan, filesort, temporary-table, join-without-index …), '
      + 'most severe first, each with file:line. EXPLAIN never runs a statement.',
    inputSchema: { type: 'object', properties: { path, line, limit }, additionalProperties: false },
    database: true,
  },
  {
    name: 'explain',
    title: 'EXPLAIN one statement',
    description: 'EXPLAINs one statement, named by path and line (or given as sql), against the connected database: the plan, the findings, '
      + 'what was put in place of placeholders, and the suggested index as DDL (returned, never applied). The statement itself is never run.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The file the statement is in, relative to the workspace root (or absolute).' },
        line,
        sql: { type: 'string', description: 'The statement itself, instead of path and line.' },
      },
      additionalProperties: false,
    },
    database: true,
  },
  {
    name: 'advise',
    title: 'Index advice as DDL',
    description: 'The composite indexes the statements under a path need, merged across them (one index serving several statements is listed once), '
      + 'as ALTER TABLE DDL to review and apply yourself, plus redundant indexes of the schema. Existing indexes come from the connected database, '
      + 'else from the app\'s schema files. Nothing is applied.',
    inputSchema: { type: 'object', properties: { path, limit }, additionalProperties: false },
    database: true,
  },
  {
    name: 'endpoints',
    title: 'Endpoint timings from an access log',
    description: 'Reads nginx access logs (LTSV, JSON or combined with the request time; plain or gzip) and ranks the endpoints, grouped by the app\'s own routes, '
      + 'by total time (or count, avg, p99, max), each with its handler\'s file:line.',
    inputSchema: {
      type: 'object',
      properties: {
        logs: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'Access-log files (paths relative to the workspace root, or absolute).' },
        sort: { type: 'string', enum: ['sum', 'count', 'avg', 'p99', 'max'], description: 'Ranking key, largest first (default sum).' },
        limit,
      },
      required: ['logs'],
      additionalProperties: false,
    },
    database: false,
  },
  {
    name: 'slow_queries',
    title: 'Slow queries',
    description: 'Ranks statement shapes by total time, from MySQL/MariaDB slow logs, or from the server\'s performance_schema over a window of `seconds` '
      + '(reads performance_schema only), each mapped to its file:line in the source.',
    inputSchema: {
      type: 'object',
      properties: {
        logs: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'Slow-log files (relative to the workspace root, or absolute).' },
        seconds: { type: 'number', minimum: 1, maximum: 600, description: 'Instead of logs: measure the next N seconds from performance_schema (run the benchmark meanwhile).' },
        sort: { type: 'string', enum: ['sum', 'count', 'avg', 'p95', 'max'], description: 'Ranking key, largest first (default sum; a performance_schema window ranks by sum).' },
        limit,
      },
      additionalProperties: false,
    },
    database: true,
  },
  {
    name: 'runs_diff',
    title: 'Compare two recorded runs',
    description: 'Compares two benchmark runs recorded with `query-insight runs record`: the score first, then endpoints by time per request and statements '
      + 'by total time and calls per request, each with a verdict (faster, slower, same, new, gone, too-few), and the handlers and statements the code changed '
      + 'between the two commits beside their figures. Default: the last two runs.',
    inputSchema: {
      type: 'object',
      properties: {
        before: { type: 'string', description: 'The earlier run: its id, or last~1, last~2 … (default last~1).' },
        after: { type: 'string', description: 'The later run (default last).' },
        limit,
      },
      additionalProperties: false,
    },
    database: false,
  },
];

/** The tool of that name, if any. */
export function toolDef(name: string): ToolDef | undefined {
  return TOOLS.find((t) => t.name === name);
}
