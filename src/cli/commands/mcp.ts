/**
 * `query-insight mcp [DIR]`: a Model Context Protocol server over stdio (the official TypeScript
 * SDK) whose tools are the engine's facts for coding agents: statements, findings, explain, advise,
 * endpoints, slow_queries (src/agent/). The connection comes from the flags and environment variables
 * `explain` takes; without --user and --database the tools that need a database say so.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
// why: the low-level Server, not McpServer: McpServer takes Zod schemas, while the tool table is plain
// JSON Schema shared with package.json's languageModelTools and the editor (src/agent/toolTable.ts).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { directoryOperand, type Command, type CommandIo } from '../command';
import { UsageError } from '../output';
import { SSH_ARG_OPTIONS, SSH_HELP, sshFromArgs } from '../sshArgs';
import { TLS_ARG_OPTIONS, TLS_HELP, tlsFromArgs } from '../tlsArgs';
import { allowFunctionsFromArgs, GUARD_ARG_OPTIONS, GUARD_HELP } from '../serverFaults';
import { schemaFileTables } from '../../core/plan/explainFailure';
import { DbConnection } from '../../db/connection';
import { ExplainService } from '../../db/explainService';
import { fsGrammarSource } from '../../node/grammars';
import { runTool } from '../../agent/agentTools';
import { diskScanner } from '../../agent/diskScan';
import { fsAgentHost } from '../../agent/fsHost';
import { TOOLS } from '../../agent/toolTable';
import { portFromArgs, timeoutFromArgs } from '../connectionArgs';

const HELP = `usage: query-insight mcp [DIR] [--user U --database D [--host H --port P | --socket S] [--ssh USER@HOST]]

Serves the engine to coding agents as a Model Context Protocol server on standard input and output
(JSON-RPC, one message per line). DIR (default: the current directory) is the app's workspace: tool
paths are relative to it. Tools (each answers in short Markdown with file:line links, at most 20 rows
unless the call gives \`limit\`):

${TOOLS.map((t) => `  ${t.name.padEnd(13)} ${t.title}`).join('\n')}

Read-only: the database gets only EXPLAIN, schema and performance_schema reads and bounded sampling
reads, over the same guarded read-only session as \`explain\`; index DDL is returned as text, never
applied, and no statement is ever run. Without --user and --database the tools work from the source,
the logs and the schema files, and those that need a database say so.

A client starts it as a command, e.g. {"command": "query-insight", "args": ["mcp", "/home/isucon/webapp",
"--socket", "/run/mysqld/mysqld.sock", "--user", "isucon", "--database", "isuconp"], "env": {"MYSQL_PWD": "…"}}

options:
  --host H                 server host (default 127.0.0.1)
  --port P                 server port (default 3306)
  --socket S               unix socket path (instead of host/port)
  --user U                 user
  --database D             database
${SSH_HELP}
${TLS_HELP}
  --password-env NAME      read the password from environment variable NAME (default MYSQL_PWD);
                           never asked for: standard input is the protocol
  --timeout MS             per-statement time limit (default 5000)
  --schema FILE.sql        schema file(s) that say where a table the database lacks is defined
${GUARD_HELP}`;

declare const __QI_VERSION__: string | undefined;
const VERSION = typeof __QI_VERSION__ === 'string' ? __QI_VERSION__ : '0.1.0';

async function run(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true, options: {
      host: { type: 'string' }, port: { type: 'string' }, socket: { type: 'string' }, user: { type: 'string' },
      database: { type: 'string' }, 'password-env': { type: 'string' }, timeout: { type: 'string' }, password: { type: 'string' },
      schema: { type: 'string', multiple: true }, ...SSH_ARG_OPTIONS, ...TLS_ARG_OPTIONS, ...GUARD_ARG_OPTIONS,
    },
  });
  if (values.password !== undefined) throw new UsageError('--password is not accepted (it would show in the process list): set MYSQL_PWD or use --password-env');
  const root = await directoryOperand(positionals, io);
  const connect = values.user !== undefined || values.database !== undefined;
  if (connect && (!values.user || !values.database)) throw new UsageError('--user and --database go together');
  if (!connect && (values.host ?? values.port ?? values.socket ?? values.ssh ?? values['ssl-mode'] ?? values['ssl-ca']) !== undefined) {
    throw new UsageError('--host, --port, --socket, --ssh, --ssl-mode and --ssl-ca need --user and --database');
  }
  const port = portFromArgs(values.port);
  const timeout = timeoutFromArgs(values.timeout);
  const ssh = sshFromArgs(values, io);
  const tls = await tlsFromArgs(values, io);
  const allowFunctions = connect ? allowFunctionsFromArgs(values, values.database!) : undefined;
  const schemaFiles = values.schema?.map((f) => resolve(io.cwd, f));

  let svc: ExplainService | undefined;
  const host = fsAgentHost({
    root, scan: diskScanner(fsGrammarSource()),
    connectHint: 'start `query-insight mcp` with --user and --database (and --host/--port or --socket; the password in MYSQL_PWD)',
    explainService: async () => {
      if (!connect) return undefined;
      svc ??= new ExplainService(new DbConnection({
        host: values.host, port, socket: values.socket, user: values.user!, password: io.env[values['password-env'] ?? 'MYSQL_PWD'],
        database: values.database!, queryTimeoutMs: timeout, ssh, tls, allowFunctions,
      }), {
        workspaceTables: async () => {
          const { readFile } = await import('node:fs/promises');
          const files = schemaFiles ? await Promise.all(schemaFiles.map(async (f) => ({ file: f, text: await readFile(f, 'utf8') }))) : await host.schemaTexts();
          return files.map((f) => schemaFileTables(f.file, f.text));
        },
      });
      return svc;
    },
  });

  const server = new Server({ name: 'query-insight', version: VERSION }, {
    capabilities: { tools: {} },
    instructions: 'Query Insight reads the app\'s source, its logs and (read-only) its MySQL/MariaDB database: which statements a handler sends, '
      + 'which of them run in loops (N+1) or scan, which index to add, which endpoint or query takes the time. Start with `findings` on a path.',
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map((t) => ({
      name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema,
      annotations: { title: t.title, readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const r = await runTool(host, req.params.name, req.params.arguments ?? {}, extra.signal);
    return { content: [{ type: 'text' as const, text: r.text }], ...(r.isError ? { isError: true } : {}) };
  });
  const closed = new Promise<void>((done) => { server.onclose = done; });
  const transport = new StdioServerTransport();
  // why: the transport closes only when asked; the client ending standard input is the end of the session.
  process.stdin.once('end', () => { void server.close(); });
  await server.connect(transport);
  io.stderr.write(`query-insight mcp: serving ${TOOLS.length} tools for ${root}${connect ? ` (database ${values.database})` : ' (no database)'}\n`);
  await closed;
  await svc?.close();
  return 0;
}

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'serve the engine to coding agents: a Model Context Protocol server on stdio',
  help: HELP,
  run,
};
