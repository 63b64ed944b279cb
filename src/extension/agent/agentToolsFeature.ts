/**
 * The engine's facts for the editor's agents: the tools of `query-insight mcp` (src/agent/) as
 * language-model tools (`contributes.languageModelTools`, `vscode.lm.registerTool`), run in the
 * extension host over the workspace's first folder and the extension's own connection (settings and
 * the password in secret storage). A call that would reach the database asks first, naming the
 * target and what is sent. The MCP server definition (`query-insight mcp` with the same connection)
 * is registered where the editor offers the API without a proposal (VS Code 1.101 and later).
 */
import * as vscode from 'vscode';
import { callReachesDatabase, runTool } from '../../agent/agentTools';
import { fsAgentHost } from '../../agent/fsHost';
import { ToolError } from '../../agent/toolArgs';
import { TOOLS, type ToolDef } from '../../agent/toolTable';
import { readConfig } from '../config';
import type { Feature } from '../feature';
import type { Logger } from '../logger';
import { isConfigured, secretKey, targetLabel } from '../connection/connectionProfile';
import { mcpServerArgs } from './mcpDefinition';

/** The language-model tool's name of an agent tool (unique across extensions, as VS Code asks). */
export function lmToolName(tool: string): string {
  return `queryInsight_${tool}`;
}

/** What a call sends when it reaches the database, for its confirmation. */
function databaseWork(name: string, input: Record<string, unknown>): string {
  if (name === 'slow_queries') return `reads performance_schema twice, ${String(input.seconds)} s apart (the statements of that window)`;
  if (name === 'advise') return 'reads the schema and a bounded sample of the columns an index would lead with';
  return 'sends EXPLAIN (never the statement itself), schema reads and bounded sampling reads for the placeholders';
}

export const agentToolsFeature: Feature = ({ context, services: { connection, logger, index } }) => {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  const host = root?.scheme === 'file' ? fsAgentHost({
    root: root.fsPath,
    connectHint: 'run "Query Insight: Connect to database" (the queryInsight.connection settings and the password in secret storage)',
    explainService: async () => (await connection.ensure())?.service,
    // why: the editor's index already holds every file's facts (unsaved edits included), from the same
    // engine as the CLI's scan, read off the host's thread; the host itself never parses a file.
    scan: async (dir) => {
      if (dir !== root.fsPath) throw new ToolError(`${dir} is outside the workspace folder: in the editor the tools read the files the workspace's index holds; for another folder, run \`query-insight mcp\` in it`);
      await index.ready();
      const facts = index.all().filter((f) => vscode.workspace.getWorkspaceFolder(f.uri)?.uri.toString() === root.toString()).map((f) => f.facts);
      return { facts, skipped: new Map(), ignoredDirs: [], git: false, files: facts.length, bytes: 0 };
    },
    link: (abs, line) => `[${vscode.workspace.asRelativePath(abs, false)}:${line}](${vscode.Uri.file(abs).with({ fragment: `L${line}` }).toString()})`,
  }) : undefined;

  const register = (def: ToolDef): vscode.Disposable => vscode.lm.registerTool<Record<string, unknown>>(lmToolName(def.name), {
    prepareInvocation(options) {
      const input = options.input ?? {};
      const settings = readConfig(logger).connection;
      if (!callReachesDatabase(def.name, input) || !vscode.workspace.isTrusted || !isConfigured(settings)) {
        return { invocationMessage: `Query Insight: ${def.title}` };
      }
      const message = new vscode.MarkdownString();
      message.appendText(`${def.title}: ${databaseWork(def.name, input)} on ${targetLabel(settings)}, over a read-only session. Nothing is written, and index DDL is only shown.`);
      return { invocationMessage: `Query Insight: ${def.title}`, confirmationMessages: { title: `Query Insight: read ${settings.database}?`, message } };
    },
    async invoke(options, token) {
      if (!host) throw new Error('Query Insight\'s tools need a folder on this machine open in the workspace');
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      try {
        const r = await runTool(host, def.name, options.input, abort.signal);
        // why: a tool error is thrown, as VS Code asks, so the model reads the message and may call again.
        if (r.isError) throw new Error(r.text);
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(r.text)]);
      } finally {
        sub.dispose();
      }
    },
  });
  for (const def of TOOLS) context.subscriptions.push(register(def));
  registerMcpDefinition(context, logger, root);
};

/** Minimal shape of the MCP definition API (VS Code 1.101; proposed in 1.100, whose @types lack it). */
interface McpApi {
  registerMcpServerDefinitionProvider(id: string, provider: {
    provideMcpServerDefinitions(): unknown[];
    resolveMcpServerDefinition?(server: unknown): Promise<unknown>;
  }): vscode.Disposable;
}
type McpStdioCtor = new (label: string, command: string, args?: string[], env?: Record<string, string | number | null>, version?: string) => unknown;

/**
 * Registers `query-insight mcp` for the editor's other MCP clients: the CLI on PATH, started in the
 * workspace folder with the connection settings as flags; the password is read from secret storage
 * only when the server starts, into its environment. Skipped (and logged) where the API is missing or
 * still a proposal (VS Code 1.100 throws for it).
 */
function registerMcpDefinition(context: vscode.ExtensionContext, logger: Logger, root: vscode.Uri | undefined): void {
  const lm = vscode.lm as unknown as Partial<McpApi>;
  const Stdio = (vscode as unknown as { McpStdioServerDefinition?: McpStdioCtor }).McpStdioServerDefinition;
  if (typeof lm.registerMcpServerDefinitionProvider !== 'function' || !Stdio || root?.scheme !== 'file') {
    logger.info('MCP server definition not registered: this editor has no MCP server definition API (VS Code 1.101 or later)');
    return;
  }
  const label = 'Query Insight';
  const secretEnv = new WeakMap<object, true>();
  try {
    context.subscriptions.push(lm.registerMcpServerDefinitionProvider('queryInsight.mcp', {
      provideMcpServerDefinitions: () => {
        const settings = readConfig(logger).connection;
        const args = mcpServerArgs(root.fsPath, vscode.workspace.isTrusted && isConfigured(settings) ? settings : undefined);
        const def = new Stdio(label, 'query-insight', args, {}, context.extension.packageJSON.version as string) as object;
        secretEnv.set(def, true);
        return [def];
      },
      resolveMcpServerDefinition: async (server) => {
        const settings = readConfig(logger).connection;
        const s = server as { env?: Record<string, string | number | null> };
        if (secretEnv.has(server as object) && vscode.workspace.isTrusted && isConfigured(settings)) {
          const password = await context.secrets.get(secretKey(settings));
          if (password !== undefined) s.env = { ...(s.env ?? {}), MYSQL_PWD: password };
        }
        return server;
      },
    }));
    logger.info('MCP server definition registered: query-insight mcp (the CLI on PATH)');
  } catch (err) {
    // why: VS Code 1.100 has the function but throws unless the extension enables the API proposal.
    logger.info(`MCP server definition not registered: ${(err as Error).message}`);
  }
}
