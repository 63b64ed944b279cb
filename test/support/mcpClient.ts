/**
 * A bare JSON-RPC client for `query-insight mcp` in tests: starts the bundled CLI (dist/cli.js, built
 * by scripts/build.mjs) as a child process and speaks the MCP stdio transport to it by hand, one JSON
 * message per line, so a test sees the protocol as any client sends it.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from './paths';

export interface RpcResponse {
  id: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export interface ToolCallResult {
  text: string;
  isError: boolean;
}

export class McpChild {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, (r: RpcResponse) => void>();
  private nextId = 1;
  /** Everything the server wrote to stderr. */
  stderr = '';
  /** Lines on stdout that were not JSON-RPC messages (there must be none). */
  readonly stray: string[] = [];
  readonly exited: Promise<number | null>;

  constructor(args: string[], env: Record<string, string> = {}, cwd = REPO_ROOT) {
    this.child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'cli.js'), 'mcp', ...args], {
      cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr.on('data', (d: Buffer) => { this.stderr += d.toString('utf8'); });
    this.exited = new Promise((done) => this.child.on('exit', (code) => done(code)));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      let msg: RpcResponse;
      try { msg = JSON.parse(line) as RpcResponse; } catch { this.stray.push(line); return; }
      const done = this.pending.get(msg.id);
      if (done) { this.pending.delete(msg.id); done(msg); } else this.stray.push(line);
    });
  }

  /** Sends a request and resolves with the response (result or error), or rejects after `ms`. */
  request(method: string, params: Record<string, unknown> = {}, ms = 60_000): Promise<RpcResponse> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { this.pending.delete(id); reject(new Error(`${method}: no answer in ${ms} ms; stderr: ${this.stderr}`)); }, ms);
      this.pending.set(id, (r) => { clearTimeout(timer); resolve(r); });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  notify(method: string, params: Record<string, unknown> = {}): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
  }

  /** initialize + notifications/initialized; resolves with the initialize result. */
  async initialize(): Promise<Record<string, unknown>> {
    const r = await this.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'query-insight-test', version: '1' } });
    if (!r.result) throw new Error(`initialize failed: ${JSON.stringify(r.error)}`);
    this.notify('notifications/initialized');
    return r.result;
  }

  /** tools/call; the text of the result and whether it is a tool error (a protocol error throws). */
  async call(name: string, args: unknown, ms?: number): Promise<ToolCallResult> {
    const r = await this.request('tools/call', { name, arguments: args }, ms);
    if (!r.result) throw new Error(`tools/call ${name}: protocol error ${JSON.stringify(r.error)}`);
    const content = r.result.content as { type: string; text: string }[];
    return { text: content.map((c) => c.text).join('\n'), isError: r.result.isError === true };
  }

  /** Ends the session as a client does: closes the server's standard input; resolves with its exit code. */
  async close(): Promise<number | null> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill(), 10_000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

/** The findings of a `findings` answer as `code file:line` (the first link of each item), sorted. */
export function findingKeys(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^- \*\*\w+\*\* `([a-z-]+)`.*?\[([^\]]+)\]\(/.exec(line);
    if (m) out.push(`${m[1]} ${m[2].replace(/\\(.)/g, '$1')}`);
  }
  return out.sort();
}
